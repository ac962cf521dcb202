"""Converter of ONNX ``CausalConvWithState`` (opset 27): a depthwise 1-D convolution
over ``concat(past_state or zeros, input)`` along time (``nn.conv2d`` on a height-1
image, one group per channel, no padding), an optional bias and fused SiLU
(``silu`` / ``swish``: ``y * sigmoid(y)`` in ``float32``, as the reference computes
it); ``present_state`` is the last ``k - 1`` steps of the concatenation."""

from __future__ import annotations

import numpy as np

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("CausalConvWithState")
def causal_conv_with_state(node: Node) -> Outputs:
    x, w = node.input(0, "input"), node.input(1, "weight")
    bias, past = node.optional_input(2), node.optional_input(3)
    activation = node.attr_str("activation", "none")
    if activation not in ("none", "silu", "swish"):
        raise ConversionError(
            f"unknown activation '{activation}' (one of none, silu, swish)"
        )
    shape, wshape = node.shape(x), node.shape(w)
    if len(shape) != 3:
        raise ConversionError(f"input must have rank 3, got {list(shape)}")
    b, c, length = shape
    if len(wshape) != 3 or wshape[:2] != (c, 1) or wshape[2] < 1:
        raise ConversionError(
            f"weight must have shape [{c}, 1, k] (one kernel per channel), got "
            f"{list(wshape)}"
        )
    k = wshape[2]
    state_shape = [b, c, k - 1]
    if past is None:
        past = node.const(np.zeros(state_shape, node.dtype(x)))
    elif list(node.shape(past)) != state_shape or node.dtype(past) != node.dtype(x):
        raise ConversionError(
            f"past_state must be {node.dtype(x)} {state_shape}, got "
            f"{node.dtype(past)} {list(node.shape(past))}"
        )
    padded = node.op("concatenate", [past, x], axis=2) if k > 1 else x
    total = length + k - 1
    dtype = node.dtype(x)
    if dtype.kind != "f":
        raise ConversionError(f"input must be a float tensor, got {dtype}")
    y = node.op(
        "nn.conv2d",
        [node.reshape(padded, [b, c, 1, total]), node.reshape(w, [c, 1, 1, k])],
        groups=c,
    )
    y = node.reshape(y, [b, c, length])
    if bias is not None:
        if node.shape(bias) != (c,):
            raise ConversionError(
                f"bias must have {c} elements, got shape {list(node.shape(bias))}"
            )
        y = node.op("nn.bias_add", [y, bias], axis=1)
    if activation != "none":
        if dtype != np.float32:
            y = node.op("cast", [y], dtype="float32")
        y = node.op("multiply", [y, node.op("sigmoid", [y])])
        if dtype != np.float32:
            y = node.op("cast", [y], dtype=str(dtype))
    present = node.op(
        "strided_slice", [padded], begin=[0, 0, total - (k - 1)], end=[b, c, total]
    )
    return [y, present]
