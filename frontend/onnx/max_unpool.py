"""The ``MaxUnpool`` converter (opsets 9, 11, 22): the values of ``X`` are written
into a zero tensor of the unpooled shape at the flat (row-major, batch and channel
included) positions ``I`` with one ``scatter_nd`` -- checked at run time: an index
outside the output fails the run (``IndexOutOfRangeError``), a negative one counts
from the end, and of duplicates the last in ``X``'s order wins, as in the
reference. The unpooled shape is ``(in - 1) * stride - pads + kernel`` per spatial
axis; a given ``output_shape`` (known at import time) may only enlarge it, with
zeros after the data (the reference's placement)."""

from __future__ import annotations

import math

import numpy as np

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("MaxUnpool")
def max_unpool(node: Node) -> Outputs:
    x, idx = node.input(0), node.input(1, "I")
    shape = node.shape(x)
    nd = len(shape) - 2
    kernel = node.attr_ints("kernel_shape")
    if nd < 1 or len(kernel) != nd:
        raise ConversionError(
            f"kernel_shape has {len(kernel)} values for an input of rank {len(shape)}"
        )
    strides = node.attr_ints("strides", [1] * nd)
    pads = node.attr_ints("pads", [0] * (2 * nd))
    if len(strides) != nd or len(pads) != 2 * nd:
        raise ConversionError(f"strides and pads must have {nd} and {2 * nd} values")
    if node.shape(idx) != shape:
        raise ConversionError(
            f"I must have X's shape {list(shape)}, got {list(node.shape(idx))}"
        )
    if node.dtype(idx).kind not in "iu":
        raise ConversionError(f"I must be an integer tensor, got {node.dtype(idx)}")
    unpooled = [
        *shape[:2],
        *(
            (shape[2 + a] - 1) * strides[a] - pads[a] - pads[a + nd] + kernel[a]
            for a in range(nd)
        ),
    ]
    if min(unpooled) < 0:
        raise ConversionError(f"the unpooled shape {unpooled} is negative")
    wanted = node.static_ints(2, "output_shape") if node.has_input(2) else None
    if wanted is not None and (
        len(wanted) != len(shape)
        or any(w < u for w, u in zip(wanted, unpooled, strict=True))
    ):
        raise ConversionError(
            f"output_shape {wanted} must have rank {len(shape)} and be at least the "
            f"unpooled shape {unpooled}"
        )
    total = math.prod(unpooled)
    canvas = node.op("zeros", [], shape=[total], dtype=str(node.dtype(x)))
    flat_idx = node.reshape(idx, [1, math.prod(shape)])
    out = node.op("scatter_nd", [canvas, flat_idx, node.reshape(x, [math.prod(shape)])])
    out = node.reshape(out, unpooled)
    if wanted is not None and wanted != unpooled:
        widths = np.array(
            [[0, w - u] for w, u in zip(wanted, unpooled, strict=True)]
        ).reshape(-1)
        out = node.op(
            "nn.pad", [out, node.scalar(0, out)], pad_width=[int(w) for w in widths]
        )
    return out
