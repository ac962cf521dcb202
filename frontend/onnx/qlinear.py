"""Converters of ONNX's integer and quantized-linear products: ``MatMulInteger``,
``ConvInteger``, ``QLinearMatMul``, ``QLinearConv``.

Where the QNN ops cover the form (per-tensor zero points, float32 scales, the weight's
scale per tensor or per output channel / column, 1-D or 2-D convolutions) the
products are ``qnn.conv2d`` / ``qnn.dense`` / ``qnn.batch_matmul`` (int32
accumulation) and the quantized-linear ops requantize with ``qnn.requantize``
(``x_scale * w_scale / y_scale`` in float32, onnxruntime's rule). Other forms (zero
points per row or per channel, 3-D convolutions) are composed from relay ops as TVM's
QNN canonicalisation does:

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


def qnn_zero_point(
    node: Node, x: SSAValue, zero_point: SSAValue | None
) -> SSAValue | None:
    """``x``'s zero point as a per-tensor ``int32`` value (one constant when its
    elements agree), or ``None`` when it varies along an axis."""
    if zero_point is None:
        return node.const(np.int32(0))
    if node.dtype(zero_point) != node.dtype(x):
        raise ConversionError(
            f"a zero point of type {node.dtype(zero_point)} for data of type "
            f"{node.dtype(x)}"
        )
    if _size(node, zero_point) == 1:
        return node.op("cast", [node.reshape(zero_point, [])], dtype="int32")
    value = node.b.value(zero_point)
    if value is None or value.size == 0 or np.any(value != value.flat[0]):
        return None
    return node.const(np.int32(value.flat[0]))


def qnn_scale(
    node: Node, scale: SSAValue, channels: int | None = None
) -> SSAValue | None:
    """A float32 scale as the QNN ops take it: 0-d, or a vector of ``channels``
    (when given); ``None`` otherwise."""
    if node.dtype(scale) != np.float32:
        return None
    if _size(node, scale) == 1:
        return node.reshape(scale, [])
    if channels is not None and node.shape(scale) == (channels,):
        return scale
    return None


def _qnn_requantize(
    node: Node,
    acc: SSAValue,
    in_scale: SSAValue,
    y_scale: SSAValue,
    y_zero_point: SSAValue | None,
    out_dtype: np.dtype[Any],
    axis: int,
) -> SSAValue | None:
    """``qnn.requantize`` of the int32 ``acc`` (scale ``in_scale``, per-tensor or per
    channel along ``axis``) to ``y``'s per-tensor parameters."""
    ys = qnn_scale(node, y_scale)
    if ys is None or str(out_dtype) not in ("int8", "uint8", "int16"):
        return None
    y_zp = qnn_zero_point(node, acc, None) if y_zero_point is None else None
    if y_zero_point is not None:
        if _size(node, y_zero_point) != 1:
            return None
        y_zp = node.op("cast", [node.reshape(y_zero_point, [])], dtype="int32")
    assert y_zp is not None
    return node.op(
        "qnn.requantize",
        [acc, in_scale, node.const(np.int32(0)), ys, y_zp],
        axis=axis,
        out_dtype=str(out_dtype),
    )


def _qnn_matmul(
    node: Node,
    a: SSAValue,
    b: SSAValue,
    zero_points: tuple[SSAValue | None, SSAValue | None],
    scales: tuple[SSAValue, SSAValue] | None,
) -> tuple[SSAValue, SSAValue] | None:
    """``(acc, a_scale * b_scale)`` of a QNN matrix product, or ``None`` when the
    parameters are not in a QNN form (``scales`` ``None``: 1.0, for MatMulInteger)."""
    a_zp = qnn_zero_point(node, a, zero_points[0])
    b_zp = qnn_zero_point(node, b, zero_points[1])
    if a_zp is None or b_zp is None or node.rank(a) < 1 or node.rank(b) < 1:
        return None
    if scales is None:
        one = node.const(np.float32(1.0))
        a_s, b_s = one, one
    else:
        # per column of a 2-D B only: qnn.dense takes a scale per unit
        columns = node.shape(b)[-1] if node.rank(b) == 2 else None
        found_a, found_b = (
            qnn_scale(node, scales[0]),
            qnn_scale(node, scales[1], columns),
        )
        if found_a is None or found_b is None:
            return None
        a_s, b_s = found_a, found_b
    acc = matmul_values(node, a, b, [a_zp, b_zp, a_s, b_s])
    return acc, node.op("multiply", [a_s, b_s])


def _qnn_conv(
    node: Node,
    x: SSAValue,
    w: SSAValue,
    zero_points: tuple[SSAValue | None, SSAValue | None],
    scales: tuple[SSAValue, SSAValue] | None,
) -> tuple[SSAValue, SSAValue] | None:
    """``(acc, x_scale * w_scale)`` of a QNN convolution, or ``None`` when the
    parameters or the rank are not in a QNN form."""
    if node.rank(x) not in (3, 4) or node.rank(w) != node.rank(x):
        return None
    x_zp = qnn_zero_point(node, x, zero_points[0])
    w_zp = qnn_zero_point(node, w, zero_points[1])
    if x_zp is None or w_zp is None:
        return None
    if scales is None:
        one = node.const(np.float32(1.0))
        x_s, w_s = one, one
    else:
        found_x = qnn_scale(node, scales[0])
        found_w = qnn_scale(node, scales[1], node.shape(w)[0])
        if found_x is None or found_w is None:
            return None
        x_s, w_s = found_x, found_w
    acc = conv_values(node, x, w, [x_zp, w_zp, x_s, w_s])
    return acc, node.op("multiply", [x_s, w_s])


@converter("MatMulInteger")
def matmul_integer(node: Node) -> Outputs:
    """``(A - a_zero_point) @ (B - b_zero_point)`` in ``int32``; ``a_zero_point`` per
    tensor or per row of A, ``b_zero_point`` per tensor or per column of B."""
    a, b = node.input(0, "A"), node.input(1, "B")
    _eight_bit(node, a, "A")
    _eight_bit(node, b, "B")
    zps = (node.optional_input(2), node.optional_input(3))
    found = _qnn_matmul(node, a, b, zps, None)
    if found is not None:
        return found[0]
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
    zps = (node.optional_input(2), node.optional_input(3))
    found = _qnn_conv(node, x, w, zps, None)
    if found is not None:
        return found[0]
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
    zps = (node.optional_input(2), node.optional_input(5))
    found = _qnn_matmul(node, a, b, zps, (a_scale, b_scale))
    if found is not None:
        acc, in_scale = found
        y = _qnn_requantize(
            node, acc, in_scale, y_scale, y_zp, out_dtype, node.rank(acc) - 1
        )
        if y is not None:
            return y
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
    zps = (node.optional_input(2), node.optional_input(5))
    found = _qnn_conv(node, x, w, zps, (x_scale, w_scale))
    if found is not None:
        acc, in_scale = found
        acc = _bias(node, acc, channels)
        y = _qnn_requantize(node, acc, in_scale, y_scale, y_zp, out_dtype, 1)
        if y is not None:
            return y
    acc = conv_values(
        node,
        _centered(node, x, node.optional_input(2)),
        _centered(node, w, node.optional_input(5), "channel"),
    )
    rank = node.rank(acc)
    acc = _bias(node, acc, channels)
    w_scale = _per(node, w_scale, (channels,), "channel", "w_scale")
    if node.rank(w_scale):
        w_scale = node.reshape(w_scale, [1, channels, *([1] * (rank - 2))])
    in_scale = node.op("multiply", [_per(node, x_scale, (), "", "x_scale"), w_scale])
    if y_zp is not None:
        y_zp = _per(node, y_zp, (), "", "y_zero_point")
    y_scale = _per(node, y_scale, (), "", "y_scale")
    return _requantize(node, acc, in_scale, y_scale, y_zp, out_dtype)


def _bias(node: Node, acc: SSAValue, channels: int) -> SSAValue:
    """``acc`` plus QLinearConv's int32 bias ``B`` (input 8) along the channels."""
    if not node.has_input(8):
        return acc
    bias = node.input(8, "B")
    if node.dtype(bias) != np.int32 or node.shape(bias) != (channels,):
        raise ConversionError(
            f"B must be an int32 vector of {channels} elements, got "
            f"{node.dtype(bias)} {list(node.shape(bias))}"
        )
    return node.op("nn.bias_add", [acc, bias], axis=1)
