"""The ``Upsample`` converter (opsets 7 and 9; removed in opset 10): a ``Resize``
with ``scales``, the ``asymmetric`` coordinate transformation and, in ``nearest``
mode, the ``floor`` rounding -- built like ``Resize`` (:mod:`.resize`), one ``take``
(nearest) or two ``take`` blended (linear) per upsampled axis."""

from __future__ import annotations

import numpy as np

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter
from xrelay.frontend.onnx.resize import (
    linear_along,
    nearest_indices,
    source_coordinates,
)


@converter("Upsample")
def upsample(node: Node) -> Outputs:
    if node.opset < 7:
        raise ConversionError("Upsample before opset 7 is not supported")
    x = node.input(0)
    shape = node.shape(x)
    if node.opset >= 9:
        scales = [float(s) for s in node.static(1, "scales").reshape(-1)]
    else:
        scales = node.attr_floats("scales")
    if len(scales) != len(shape):
        raise ConversionError(
            f"scales has {len(scales)} values for an input of rank {len(shape)}"
        )
    if any(not s >= 1 for s in scales):
        raise ConversionError(f"scales must be >= 1 (Upsample), got {scales}")
    mode = node.attr_str("mode", "nearest")
    if mode not in ("nearest", "linear"):
        raise ConversionError(f"mode '{mode}' is not supported (nearest, linear)")
    if mode == "linear" and node.dtype(x).kind != "f":
        raise ConversionError(
            f"linear mode needs floating-point data, got {node.dtype(x)}"
        )
    out = x
    for axis, (size, scale) in enumerate(zip(shape, scales, strict=True)):
        length = int(np.floor(size * scale))
        if length == size:
            continue
        coords = source_coordinates("asymmetric", size, length, scale)
        if mode == "nearest":
            idx = nearest_indices(coords, "floor", size)
            out = node.op("take", [out, node.const(idx)], axis=axis)
        else:
            out = linear_along(node, out, axis, coords, size)
    return out
