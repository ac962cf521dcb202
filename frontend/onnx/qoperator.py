"""Converters of onnxruntime's QOperator-format contrib ops (domain ``com.microsoft``),
which its quantizer emits: ``QLinearAdd``, ``QLinearMul``, ``QLinearConcat``,
``QLinearGlobalAveragePool``, ``QGemm`` onto the QNN ops (``qnn.add``, ``qnn.mul``,
``qnn.concatenate``, ``qnn.avg_pool2d``, ``qnn.dense`` + ``qnn.requantize``);
``QLinearAveragePool``, ``QLinearSigmoid`` and ``QLinearLeakyRelu`` as
``qnn.dequantize -> float op -> qnn.quantize`` (FakeQuantizationToInteger makes the
pool integer at build time; sigmoid and leaky ReLU have no integer form, and
onnxruntime's lookup tables compute the same function of each quantized value).

Scales and zero points are per tensor (as onnxruntime's kernels take them; ``QGemm``'s
``B`` scale may be per column); an absent zero point is 0.
"""

from __future__ import annotations

import numpy as np
from onnx import helper
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import CONVERTERS, Node, Outputs, converter

MS = "com.microsoft."

_QUANTIZED = ("int8", "uint8")


def _data(node: Node, i: int, what: str) -> SSAValue:
    x = node.input(i, what)
    if str(node.dtype(x)) not in _QUANTIZED:
        raise ConversionError(f"{what} must be int8 or uint8, got {node.dtype(x)}")
    return x


def _scale(node: Node, i: int, what: str) -> SSAValue:
    s = node.input(i, what)
    if node.dtype(s) != np.float32:
        raise ConversionError(f"{what} must be float32, got {node.dtype(s)}")
    if int(np.prod(node.shape(s), dtype=np.int64)) != 1:
        raise ConversionError(
            f"{what} must have one element (per tensor), got shape "
            f"{list(node.shape(s))}"
        )
    return node.reshape(s, [])


def _zero_point(node: Node, i: int, like: SSAValue, what: str) -> SSAValue:
    """Input ``i`` as a 0-d int32 zero point (0 when absent); of ``like``'s type."""
    if not node.has_input(i):
        return node.const(np.int32(0))
    zp = node.input(i, what)
    if node.dtype(zp) != node.dtype(like):
        raise ConversionError(
            f"{what} has the type {node.dtype(zp)}, its data {node.dtype(like)}"
        )
    if int(np.prod(node.shape(zp), dtype=np.int64)) != 1:
        raise ConversionError(
            f"{what} must have one element (per tensor), got shape "
            f"{list(node.shape(zp))}"
        )
    return node.op("cast", [node.reshape(zp, [])], dtype="int32")


def _quantized(node: Node, i: int, what: str) -> tuple[SSAValue, SSAValue, SSAValue]:
    """Input ``i`` with its scale and zero point (inputs ``i + 1``, ``i + 2``)."""
    x = _data(node, i, what)
    return (
        x,
        _scale(node, i + 1, f"{what}_scale"),
        _zero_point(node, i + 2, x, f"{what}_zero_point"),
    )


@converter(MS + "QLinearAdd", MS + "QLinearMul")
def qlinear_binary(node: Node) -> Outputs:
    """``qnn.add`` / ``qnn.mul`` (inputs A, A_scale, A_zp, B, B_scale, B_zp, C_scale,
    C_zp; A and B broadcast)."""
    a, sa, za = _quantized(node, 0, "A")
    b, sb, zb = _quantized(node, 3, "B")
    if node.dtype(a) != node.dtype(b):
        raise ConversionError(f"A is {node.dtype(a)} but B is {node.dtype(b)}")
    sc = _scale(node, 6, "C_scale")
    zc = _zero_point(node, 7, a, "C_zero_point")
    name = "qnn.add" if node.op_type == "QLinearAdd" else "qnn.mul"
    return node.op(name, [a, b, sa, za, sb, zb, sc, zc])


@converter(MS + "QLinearConcat")
def qlinear_concat(node: Node) -> Outputs:
    """``qnn.concatenate`` (inputs Y_scale, Y_zp, then a (tensor, scale, zero point)
    triple per input)."""
    n = node.num_inputs - 2
    if n < 3 or n % 3:
        raise ConversionError(
            f"expected Y_scale, Y_zero_point and (X, scale, zero point) triples, got "
            f"{node.num_inputs} inputs"
        )
    triples = [_quantized(node, 2 + 3 * k, f"X{k}") for k in range(n // 3)]
    dtype = node.dtype(triples[0][0])
    if any(node.dtype(t[0]) != dtype for t in triples):
        raise ConversionError("the inputs have different types")
    rank = node.rank(triples[0][0])
    axis = node.axis(node.attr_int("axis"), rank)
    return node.op(
        "qnn.concatenate",
        [
            *(t[0] for t in triples),
            *(t[1] for t in triples),
            *(t[2] for t in triples),
            _scale(node, 0, "Y_scale"),
            _zero_point(node, 1, triples[0][0], "Y_zero_point"),
        ],
        axis=axis,
    )


@converter(MS + "QLinearGlobalAveragePool")
def qlinear_global_average_pool(node: Node) -> Outputs:
    """``qnn.avg_pool2d`` over the whole plane of a rank-4 input (``channels_last``:
    NHWC); other ranks through the float pool."""
    x, sx, zx = _quantized(node, 0, "X")
    sy = _scale(node, 3, "y_scale")
    zy = _zero_point(node, 4, x, "y_zero_point")
    last = bool(node.attr_int("channels_last", 0))
    if node.rank(x) != 4:
        if last:
            raise ConversionError("channels_last needs a rank-4 input")
        pooled = _float_op(
            node, "GlobalAveragePool", node.op("qnn.dequantize", [x, sx, zx])
        )
        return node.op("qnn.quantize", [pooled, sy, zy], out_dtype=str(node.dtype(x)))
    shape = node.shape(x)
    h, w = (shape[1], shape[2]) if last else (shape[2], shape[3])
    return node.op(
        "qnn.avg_pool2d",
        [x, sx, zx, sy, zy],
        pool_size=[h, w],
        layout="NHWC" if last else "NCHW",
    )


@converter(MS + "QGemm")
def qgemm(node: Node) -> Outputs:
    """``alpha * A' @ B' + C`` on quantized A and B (``qnn.dense``, B's scale and zero
    point per tensor or per column of ``B'``), the int32 bias ``C`` (scale ``alpha *
    A_scale * B_scale``, zero point 0) added to the accumulator, then requantized to
    ``y_scale``, ``y_zero_point`` (``qnn.requantize``), or dequantized to float32
    without them."""
    a, sa, za = _quantized(node, 0, "A")
    b = _data(node, 3, "B")
    if node.rank(a) != 2 or node.rank(b) != 2:
        raise ConversionError("A and B must be matrices")
    if node.attr_int("transA", 0):
        a = node.op("transpose", [a], axes=[1, 0])
    if not node.attr_int("transB", 0):
        b = node.op("transpose", [b], axes=[1, 0])
    units = node.shape(b)[0]
    sb = node.input(4, "B_scale")
    if node.dtype(sb) != np.float32 or node.shape(sb) not in ((), (1,), (units,)):
        raise ConversionError(
            f"B_scale must be float32 with 1 or {units} elements, got "
            f"{node.dtype(sb)} {list(node.shape(sb))}"
        )
    if node.shape(sb) == (1,):
        sb = node.reshape(sb, [])
    zb = _zero_point_per_tensor(node, 5, b)
    acc = node.op("qnn.dense", [a, b, za, zb, sa, sb])
    if node.has_input(6):
        c = node.input(6, "C")
        if node.dtype(c) != np.int32:
            raise ConversionError(f"C must be int32, got {node.dtype(c)}")
        acc = node.op("add", [acc, c])
    alpha = node.const(np.float32(node.attr_float("alpha", 1.0)))
    scale = node.op("multiply", [node.op("multiply", [alpha, sa]), sb])
    zero = node.const(np.int32(0))
    axis = 1 if node.rank(scale) else -1
    if not node.has_input(7):
        return node.op("qnn.dequantize", [acc, scale, zero], axis=axis)
    sy = _scale(node, 7, "y_scale")
    zy = _zero_point(node, 8, a, "y_zero_point")
    return node.op(
        "qnn.requantize",
        [acc, scale, zero, sy, zy],
        axis=axis,
        out_dtype=str(node.dtype(a)),
    )


def _zero_point_per_tensor(node: Node, i: int, like: SSAValue) -> SSAValue:
    """QGemm's B zero point: per tensor, or per column with one value."""
    if not node.has_input(i):
        return node.const(np.int32(0))
    zp = node.input(i, "B_zero_point")
    value = node.b.value(zp)
    if int(np.prod(node.shape(zp), dtype=np.int64)) != 1:
        if value is None or np.any(value != value.reshape(-1)[0]):
            raise ConversionError(
                "B_zero_point per column is supported only when its values agree"
            )
        return node.const(np.int32(value.reshape(-1)[0]))
    return _zero_point(node, i, like, "B_zero_point")


_FLOAT_OPS = {
    "QLinearAveragePool": "AveragePool",
    "QLinearSigmoid": "Sigmoid",
    "QLinearLeakyRelu": "LeakyRelu",
}


@converter(*(MS + name for name in _FLOAT_OPS))
def qlinear_float_op(node: Node) -> Outputs:
    """``qnn.quantize(op(qnn.dequantize(X)))`` with the float op's converter (inputs
    X, X_scale, X_zp, Y_scale, Y_zp; the op's attributes; NCHW only)."""
    if node.attr_int("channels_last", 0):
        raise ConversionError("channels_last=1 is not supported")
    x, sx, zx = _quantized(node, 0, "X")
    sy = _scale(node, 3, "Y_scale")
    zy = _zero_point(node, 4, x, "Y_zero_point")
    real = node.op("qnn.dequantize", [x, sx, zx])
    y = _float_op(node, _FLOAT_OPS[node.op_type], real)
    return node.op("qnn.quantize", [y, sy, zy], out_dtype=str(node.dtype(x)))


def _float_op(node: Node, op_type: str, x: SSAValue) -> SSAValue:
    """The ONNX op ``op_type`` (with ``node``'s attributes but ``channels_last``) on
    ``x``, by its converter."""
    name = f"{node.outputs[0]}::{op_type}::input"
    node.graph.env[name] = x
    proto = helper.make_node(op_type, [name], [node.outputs[0]])
    proto.attribute.extend(a for a in node.proto.attribute if a.name != "channels_last")
    result = CONVERTERS[op_type](Node(proto, node.graph))
    if not isinstance(result, SSAValue):
        raise ConversionError(f"{op_type} gave {len(list(result))} outputs")
    return result
