"""Converter of ``LpPool``: ``(sum over the window of |x|**p) ** (1/p)``, as an
average pool of ``|x|**p`` (padding counted, so the average times the window size is
the sum) on 1-D and 2-D inputs."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter
from xrelay.frontend.onnx.nn import resolve_pads, spatial_ints


@converter("LpPool")
def lp_pool(node: Node) -> Outputs:
    x = node.input(0)
    shape = node.shape(x)
    n = len(shape) - 2
    if n not in (1, 2):
        raise ConversionError(
            f"{n}-D LpPool is not supported (only 1-D and 2-D: inputs of rank 3 or 4)"
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
    if n == 1:
        powered = node.reshape(powered, [shape[0], shape[1], 1, shape[2]])
        kernel, strides, dilations = [1, *kernel], [1, *strides], [1, *dilations]
        begin, end = [0, *begin], [0, *end]
    pooled = node.op(
        "nn.avg_pool2d",
        [powered],
        pool_size=kernel,
        strides=strides,
        dilation=dilations,
        padding=[begin[0], begin[1], end[0], end[1]],
        count_include_pad=True,
    )
    window = float(kernel[0] * kernel[1])
    total = node.op("multiply", [pooled, node.scalar(window, x)])
    out = total if p == 1.0 else node.op("power", [total, node.scalar(1.0 / p, x)])
    if n == 1:
        s = node.shape(out)
        out = node.reshape(out, [s[0], s[1], s[3]])
    return out
