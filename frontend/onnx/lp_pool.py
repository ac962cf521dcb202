"""Converter of ``LpPool``: ``(sum over the window of |x|**p) ** (1/p)``, as an
average pool of ``|x|**p`` (padding counted, so the average times the window size is
the sum) on 1-D to 3-D inputs (3-D: height and width by ``nn.avg_pool2d``, then the
depth windows, see :mod:`.volumetric`)."""

from __future__ import annotations

import math

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter
from xrelay.frontend.onnx.nn import resolve_pads, spatial_ints
from xrelay.frontend.onnx.volumetric import pool3d_depth


@converter("LpPool")
def lp_pool(node: Node) -> Outputs:
    x = node.input(0)
    shape = node.shape(x)
    n = len(shape) - 2
    if n not in (1, 2, 3):
        raise ConversionError(
            f"{n}-D LpPool is not supported (only 1-D to 3-D: inputs of rank 3 to 5)"
        )
    kernel = node.attr_ints("kernel_shape")
    if len(kernel) != n:
        raise ConversionError(f"kernel_shape has {len(kernel)} values for {n} dims")
    if node.attr_int("ceil_mode", 0):
        raise ConversionError("ceil_mode is not supported")
    strides = spatial_ints(node, "strides", n, 1)
    dilations = spatial_ints(node, "dilations", n, 1)
    p = node.attr_float("p", 2.0)
    begin, end = resolve_pads(node, shape[2:], kernel, strides, dilations)
    powered = node.op("abs", [x])
    if p != 1.0:
        powered = node.op("power", [powered, node.scalar(p, x)])
    window = float(math.prod(kernel))
    full = (kernel, strides, dilations, begin, end)
    if n == 1:
        powered = node.reshape(powered, [shape[0], shape[1], 1, shape[2]])
        kernel, strides, dilations = [1, *kernel], [1, *strides], [1, *dilations]
        begin, end = [0, *begin], [0, *end]
    elif n == 3:  # depth joins the channels for the 2-D pool
        powered = node.reshape(powered, [shape[0], shape[1] * shape[2], *shape[3:]])
        kernel, strides, dilations = kernel[1:], strides[1:], dilations[1:]
        begin, end = begin[1:], end[1:]
    pooled = node.op(
        "nn.avg_pool2d",
        [powered],
        pool_size=kernel,
        strides=strides,
        dilation=dilations,
        padding=[begin[0], begin[1], end[0], end[1]],
        count_include_pad=True,
    )
    if n == 3:
        pooled = node.reshape(pooled, [*shape[:3], *node.shape(pooled)[2:]])
        k3, s3, d3, b3, e3 = full
        span = shape[2] + b3[0] + e3[0] - (k3[0] - 1) * d3[0] - 1
        pooled = pool3d_depth(
            node,
            pooled,
            False,
            shape[2],
            b3[0],
            e3[0],
            k3[0],
            s3[0],
            d3[0],
            span // s3[0] + 1,
            True,
        )
    total = node.op("multiply", [pooled, node.scalar(window, x)])
    out = total if p == 1.0 else node.op("power", [total, node.scalar(1.0 / p, x)])
    if n == 1:
        s = node.shape(out)
        out = node.reshape(out, [s[0], s[1], s[3]])
    return out
