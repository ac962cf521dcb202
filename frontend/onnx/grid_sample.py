"""The ``GridSample`` converter (opsets 16, 20, 22) onto ``image.grid_sample``: the
grid ``[N, *out, k]`` is transposed to Relay's channel-first ``[N, k, *out]`` (and
cast to the data's dtype); 4-D data is ``NCHW``, 5-D ``NCDHW``. Opset 20's mode
names ``linear`` / ``cubic`` are opset 16's ``bilinear`` / ``bicubic``."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

_METHODS = {
    "linear": "bilinear",
    "bilinear": "bilinear",
    "nearest": "nearest",
    "cubic": "bicubic",
    "bicubic": "bicubic",
}


@converter("GridSample")
def grid_sample(node: Node) -> Outputs:
    x, grid = node.input(0), node.input(1)
    rank = node.rank(x)
    if rank not in (4, 5):
        raise ConversionError(f"X must have rank 4 or 5, got {rank}")
    if node.dtype(x).kind != "f":
        raise ConversionError(f"X must be a float tensor, got {node.dtype(x)}")
    if node.rank(grid) != rank:
        raise ConversionError(f"grid must have rank {rank}, got {node.rank(grid)}")
    mode = node.attr_str("mode", "bilinear" if node.opset < 20 else "linear")
    method = _METHODS.get(mode)
    if method is None:
        raise ConversionError(f"unknown mode '{mode}' (linear, nearest, cubic)")
    if method == "bicubic" and rank == 5:
        raise ConversionError("cubic mode is supported for 4-D data only")
    padding = node.attr_str("padding_mode", "zeros")
    if node.dtype(grid) != node.dtype(x):
        grid = node.op("cast", [grid], dtype=str(node.dtype(x)))
    grid = node.op("transpose", [grid], axes=[0, rank - 1, *range(1, rank - 1)])
    return node.op(
        "image.grid_sample",
        [x, grid],
        method=method,
        layout="NCHW" if rank == 4 else "NCDHW",
        padding_mode=padding,
        align_corners=bool(node.attr_int("align_corners", 0)),
    )
