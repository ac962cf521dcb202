"""Converters of ONNX's integer and quantized-linear products: ``MatMulInteger``,
``ConvInteger``, ``QLinearMatMul``, ``QLinearConv``, composed from relay ops as TVM's
QNN canonicalisation does.

The 8-bit operands are cast to ``int32`` and their zero points subtracted there
(exact), then the ``int32`` product runs on the ordinary ``nn.dense`` /
``nn.batch_matmul`` / ``nn.conv2d`` paths (integer sums wrap, never trap; padding
reads 0, i.e. the zero point, as the ONNX reference pads). The quantized-linear ops
then requantize: ``saturate(rint(acc * (scale_a * scale_b / scale_y)) +
zero_point_y)``, the multiplier computed in ``float32`` (``float16`` scales are
widened first: fused kernels do not round float16 intermediates, so rounding them
would make the interpreter and compiled code disagree) and the product in ``float64``
(exact for every ``int32`` sum), halves rounded to even.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter
from xrelay.frontend.onnx.nn import conv_values, matmul_values
from xrelay.frontend.onnx.quantize import QUANT_TYPES, quantize

_EIGHT_BIT = ("int8", "uint8")


def _eight_bit(node: Node, v: SSAValue, what: str) -> None:
    if str(node.dtype(v)) not in _EIGHT_BIT:
        raise ConversionError(f"{what} must be int8 or uint8, got {node.dtype(v)}")


def _size(node: Node, v: SSAValue) -> int:
    return int(np.prod(node.shape(v), dtype=np.int64))


def _centered(
    node: Node, x: SSAValue, zero_point: SSAValue | None, per: str = ""
) -> SSAValue:
    """``x - zero_point`` in ``int32``. A zero point of one element applies to the
    whole tensor; otherwise ``per`` says how it broadcasts: ``row`` (one per row of a
    matrix operand, along the last-but-one dim), ``column`` (along the last dim) or
    ``channel`` (along dim 0, a convolution weight's output channels)."""
    out = node.op("cast", [x], dtype="int32")
    if zero_point is None:
        return out
    if node.dtype(zero_point) != node.dtype(x):
        raise ConversionError(
            f"a zero point of type {node.dtype(zero_point)} for data of type "
            f"{node.dtype(x)}"
        )
    zp = node.op("cast", [zero_point], dtype="int32")
    return node.op("subtract", [out, _per(node, zp, node.shape(x), per, "zero point")])


def _per(
    node: Node, v: SSAValue, shape: tuple[int, ...], per: str, what: str
) -> SSAValue:
    """``v`` (a scale or zero point) shaped to broadcast against an operand of
    ``shape``; see :func:`_centered`."""
    vshape = node.shape(v)
    if _size(node, v) == 1:
        return node.reshape(v, [])
    rank = len(shape)
    if per == "column" and rank >= 1 and vshape[-1:] == shape[-1:]:
        if len(vshape) == 1:
            return v
        return node.reshape(v, [*vshape[:-1], 1, vshape[-1]])
    if per == "row" and rank >= 2 and vshape[-1:] == shape[-2:-1]:
        return node.reshape(v, [*vshape, 1])
    if per == "channel" and len(vshape) == 1 and vshape[0] == shape[0]:
        return node.reshape(v, [vshape[0], *([1] * (rank - 1))])
    kind = f"one per {per}" if per else "one element"
    raise ConversionError(
        f"a {what} of shape {list(vshape)} for an operand of shape {list(shape)} "
        f"(expected {kind})"
    )


@converter("MatMulInteger")
def matmul_integer(node: Node) -> Outputs:
    """``(A - a_zero_point) @ (B - b_zero_point)`` in ``int32``; ``a_zero_point`` per
    tensor or per row of A, ``b_zero_point`` per tensor or per column of B."""
    a, b = node.input(0, "A"), node.input(1, "B")
    _eight_bit(node, a, "A")
    _eight_bit(node, b, "B")
    a = _centered(node, a, node.optional_input(2), "row")
    b = _centered(node, b, node.optional_input(3), "column")
    return matmul_values(node, a, b)


@converter("ConvInteger")
def conv_integer(node: Node) -> Outputs:
    """The ``int32`` convolution of ``x - x_zero_point`` with ``w - w_zero_point``
    (``w_zero_point`` per tensor or per output channel)."""
    x, w = node.input(0, "x"), node.input(1, "w")
    _eight_bit(node, x, "x")
    _eight_bit(node, w, "w")
    x = _centered(node, x, node.optional_input(2))
    w = _centered(node, w, node.optional_input(3), "channel")
    return conv_values(node, x, w)


def _requantize(
    node: Node,
    acc: SSAValue,
    in_scale: SSAValue,
    y_scale: SSAValue,
    y_zero_point: SSAValue | None,
    out_dtype: np.dtype[Any],
) -> SSAValue:
    """``saturate(rint(acc * (in_scale / y_scale)) + y_zero_point)``: the multiplier
    in ``float32`` (the scales' dtype when wider), the product in ``float64``."""
    multiplier = node.op("divide", [in_scale, y_scale])
    wide = node.op("cast", [acc], dtype="float64")
    scaled = node.op("multiply", [wide, node.op("cast", [multiplier], dtype="float64")])
    return quantize(node, scaled, y_zero_point, out_dtype)


def _out_dtype(node: Node, x: SSAValue, y_zero_point: SSAValue | None) -> Any:
    out = node.dtype(y_zero_point if y_zero_point is not None else x)
    if str(out) not in QUANT_TYPES:
        raise ConversionError(f"the output type {out} is not a quantized type")
    return out


def _scale(node: Node, i: int, what: str) -> SSAValue:
    """Scale ``i`` as ``float32`` or wider: ``float16`` scales are widened, so their
    products are not rounded to ``float16`` (fused kernels would not round them
    either; the reference evaluator does)."""
    scale = node.input(i, what)
    dtype = node.dtype(scale)
    if dtype.kind != "f":
        raise ConversionError(f"{what} must be a float, got {dtype}")
    if dtype.itemsize < 4:
        scale = node.op("cast", [scale], dtype="float32")
    return scale


@converter("QLinearMatMul")
def qlinear_matmul(node: Node) -> Outputs:
    """``requantize((a - a_zp) @ (b - b_zp), a_scale * b_scale / y_scale, y_zp)``;
    the scales and zero points of ``a`` per tensor or per row, those of ``b`` per
    tensor or per column, ``y``'s per tensor."""
    a, b = node.input(0, "a"), node.input(3, "b")
    _eight_bit(node, a, "a")
    _eight_bit(node, b, "b")
    a_scale, b_scale = _scale(node, 1, "a_scale"), _scale(node, 4, "b_scale")
    y_scale, y_zp = _scale(node, 6, "y_scale"), node.optional_input(7)
    out_dtype = _out_dtype(node, a, y_zp)
    a_shape, b_shape = node.shape(a), node.shape(b)
    acc = matmul_values(
        node,
        _centered(node, a, node.optional_input(2), "row"),
        _centered(node, b, node.optional_input(5), "column"),
    )
    in_scale = node.op(
        "multiply",
        [
            _per(node, a_scale, a_shape, "row", "a_scale"),
            _per(node, b_scale, b_shape, "column", "b_scale"),
        ],
    )
    if y_zp is not None:
        y_zp = _per(node, y_zp, (), "", "y_zero_point")
    y_scale = _per(node, y_scale, (), "", "y_scale")
    return _requantize(node, acc, in_scale, y_scale, y_zp, out_dtype)


@converter("QLinearConv")
def qlinear_conv(node: Node) -> Outputs:
    """``requantize(conv(x - x_zp, w - w_zp) + B, x_scale * w_scale / y_scale,
    y_zp)``; ``w``'s scale and zero point per tensor or per output channel, the bias
    ``B`` in ``int32``."""
    x, w = node.input(0, "x"), node.input(3, "w")
    _eight_bit(node, x, "x")
    _eight_bit(node, w, "w")
    x_scale, w_scale = _scale(node, 1, "x_scale"), _scale(node, 4, "w_scale")
    y_scale, y_zp = _scale(node, 6, "y_scale"), node.optional_input(7)
    out_dtype = _out_dtype(node, x, y_zp)
    channels = node.shape(w)[0]
    acc = conv_values(
        node,
        _centered(node, x, node.optional_input(2)),
        _centered(node, w, node.optional_input(5), "channel"),
    )
    rank = node.rank(acc)
    if node.has_input(8):
        bias = node.input(8, "B")
        if node.dtype(bias) != np.int32 or node.shape(bias) != (channels,):
            raise ConversionError(
                f"B must be an int32 vector of {channels} elements, got "
                f"{node.dtype(bias)} {list(node.shape(bias))}"
            )
        acc = node.op("nn.bias_add", [acc, bias], axis=1)
    w_scale = _per(node, w_scale, (channels,), "channel", "w_scale")
    if node.rank(w_scale):
        w_scale = node.reshape(w_scale, [1, channels, *([1] * (rank - 2))])
    in_scale = node.op("multiply", [_per(node, x_scale, (), "", "x_scale"), w_scale])
    if y_zp is not None:
        y_zp = _per(node, y_zp, (), "", "y_zero_point")
    y_scale = _per(node, y_scale, (), "", "y_scale")
    return _requantize(node, acc, in_scale, y_scale, y_zp, out_dtype)
