"""Elementwise and broadcast ops: arithmetic, comparison, logic, unary math, activations,
casts, selection and the tensor creators (``zeros``, ``ones``, ``full`` and their
``_like`` forms).

Relay's rules: binary ops broadcast numpy-style and need both operands to have the same
dtype (no promotion); comparisons give ``i1``; unary ops keep the type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from xrelay.dialects.relay import fake_quantization as fq
from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    FORMAT,
    NULLARY_FORMAT,
    Array,
    OpPattern,
    RelayOp,
    TypeRelationError,
    broadcast_shapes,
    dtype_prop,
    float_prop,
    get_float,
    get_int,
    get_ints,
    int_prop,
    ints_prop,
    normalize_axis,
    opt_dtype_prop,
    ranked,
    same_elem,
    tensor,
)
from xrelay.dialects.relay.dtypes import (
    astype,
    is_bool,
    is_float,
    numpy_dtype,
)
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    MaybeLayout,
    broadcast_layouts,
    channel_axis_layouts,
    elementwise_layouts,
    scalar_broadcast_layouts,
)
from xrelay.dialects.relay.mixed_precision import MixedPrecisionCategory

BOOL = IntegerType(1)


def _shapes(types: Sequence[Attribute]) -> list[tuple[int, ...]]:
    return [tuple(t.get_shape()) if isinstance(t, TensorType) else () for t in types]


_VECTOR = Layout.parse("C")
"""The layout of a per-channel vector operand (bias, alpha)."""


def _channel_axis(
    op: RelayOp,
    new_layouts: Sequence[MaybeLayout] | None,
    old_layouts: Sequence[MaybeLayout],
    old_types: Sequence[Attribute],
) -> InferredLayouts | None:
    axis = op.attr("axis")
    if axis is None or not isinstance(old_types[0], TensorType):
        return None
    rank = len(old_types[0].get_shape())
    return channel_axis_layouts(
        new_layouts, old_layouts, rank, get_int(axis), [_VECTOR]
    )


# ---------------------------------------------------------------------------------------
# Binary broadcast ops
# ---------------------------------------------------------------------------------------


class BinaryOp(RelayOp):
    """``lhs op rhs`` with numpy broadcasting; same dtype on both sides."""

    lhs = operand_def(ANY_TENSOR)
    rhs = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    BOOL_RESULT: ClassVar[bool] = False
    """Comparisons give ``i1`` tensors."""
    BOOL_OPERANDS: ClassVar[bool] = False
    """Logical ops need ``i1`` operands."""

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        a, b = ranked(operand_types[0], "lhs"), ranked(operand_types[1], "rhs")
        elem = same_elem([a, b], ["lhs", "rhs"])
        if self.BOOL_OPERANDS and not is_bool(elem):
            raise TypeRelationError(f"operands must be i1, got {elem}")
        shape = broadcast_shapes(a.get_shape(), b.get_shape())
        return [tensor(shape, BOOL if self.BOOL_RESULT else elem)]

    def fn(self, a: Array, b: Array) -> Array:
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        with np.errstate(all="ignore"):
            return self.fn(args[0], args[1])

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``BinaryBroadcastLayout`` (see
        :func:`~xrelay.dialects.relay.layout_rules.broadcast_layouts`)."""
        return broadcast_layouts(new_layouts, old_layouts, _shapes(old_types))


def _trunc_div(a: Array, b: Array) -> Array:
    if a.dtype.kind in "iu":
        return (a - np.fmod(a, b)) // b
    return np.divide(a, b)


@irdl_op_definition
class AddOp(BinaryOp):
    """Elementwise sum, broadcasting."""

    name = "relay.add"

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.add``, or an int32 addition of a bias to an accumulator."""
        return fq.quantized_add(rewrite, "relay.qnn.add")

    def fn(self, a: Array, b: Array) -> Array:
        return np.add(a, b)


@irdl_op_definition
class SubtractOp(BinaryOp):
    """Elementwise difference, broadcasting."""

    name = "relay.subtract"

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.subtract``."""
        return fq.quantized_add(rewrite, "relay.qnn.subtract")

    def fn(self, a: Array, b: Array) -> Array:
        return np.subtract(a, b)


@irdl_op_definition
class MultiplyOp(BinaryOp):
    """Elementwise product, broadcasting."""

    name = "relay.multiply"

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.mul``."""
        return fq.binary(rewrite, "relay.qnn.mul", rewrite.input(0), rewrite.input(1))

    def fn(self, a: Array, b: Array) -> Array:
        return np.multiply(a, b)


@irdl_op_definition
class DivideOp(BinaryOp):
    """Elementwise quotient; integer division truncates toward zero (TVM's ``div``)."""

    name = "relay.divide"

    def fn(self, a: Array, b: Array) -> Array:
        return _trunc_div(a, b)


@irdl_op_definition
class PowerOp(BinaryOp):
    """``lhs ** rhs`` elementwise."""

    name = "relay.power"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def fn(self, a: Array, b: Array) -> Array:
        return np.power(a, b)


@irdl_op_definition
class MaximumOp(BinaryOp):
    """Elementwise maximum."""

    name = "relay.maximum"

    def fn(self, a: Array, b: Array) -> Array:
        return np.maximum(a, b)


@irdl_op_definition
class MinimumOp(BinaryOp):
    """Elementwise minimum."""

    name = "relay.minimum"

    def fn(self, a: Array, b: Array) -> Array:
        return np.minimum(a, b)


@irdl_op_definition
class FloorDivideOp(BinaryOp):
    """Quotient rounded toward negative infinity."""

    name = "relay.floor_divide"

    def fn(self, a: Array, b: Array) -> Array:
        if a.dtype.kind in "iu":
            return np.floor_divide(a, b)
        return np.floor(np.divide(a, b))


@irdl_op_definition
class FloorModOp(BinaryOp):
    """Remainder with the sign of the divisor (``lhs - floor(lhs/rhs)*rhs``)."""

    name = "relay.floor_mod"

    def fn(self, a: Array, b: Array) -> Array:
        return np.mod(a, b)


@irdl_op_definition
class ModOp(BinaryOp):
    """Remainder with the sign of the dividend (C's ``%``, TVM's ``truncmod``)."""

    name = "relay.mod"

    def fn(self, a: Array, b: Array) -> Array:
        return np.fmod(a, b)


class CompareOp(BinaryOp):
    BOOL_RESULT: ClassVar[bool] = True


@irdl_op_definition
class EqualOp(CompareOp):
    """``lhs == rhs`` elementwise, giving ``i1``."""

    name = "relay.equal"

    def fn(self, a: Array, b: Array) -> Array:
        return np.equal(a, b)


@irdl_op_definition
class NotEqualOp(CompareOp):
    """``lhs != rhs`` elementwise, giving ``i1``."""

    name = "relay.not_equal"

    def fn(self, a: Array, b: Array) -> Array:
        return np.not_equal(a, b)


@irdl_op_definition
class LessOp(CompareOp):
    """``lhs < rhs`` elementwise, giving ``i1``."""

    name = "relay.less"

    def fn(self, a: Array, b: Array) -> Array:
        return np.less(a, b)


@irdl_op_definition
class LessEqualOp(CompareOp):
    """``lhs <= rhs`` elementwise, giving ``i1``."""

    name = "relay.less_equal"

    def fn(self, a: Array, b: Array) -> Array:
        return np.less_equal(a, b)


@irdl_op_definition
class GreaterOp(CompareOp):
    """``lhs > rhs`` elementwise, giving ``i1``."""

    name = "relay.greater"

    def fn(self, a: Array, b: Array) -> Array:
        return np.greater(a, b)


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    """``lhs >= rhs`` elementwise, giving ``i1``."""

    name = "relay.greater_equal"

    def fn(self, a: Array, b: Array) -> Array:
        return np.greater_equal(a, b)


class LogicalBinaryOp(BinaryOp):
    BOOL_RESULT: ClassVar[bool] = True
    BOOL_OPERANDS: ClassVar[bool] = True


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    """Elementwise ``and`` of two ``i1`` tensors."""

    name = "relay.logical_and"

    def fn(self, a: Array, b: Array) -> Array:
        return np.logical_and(a, b)


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    """Elementwise ``or`` of two ``i1`` tensors."""

    name = "relay.logical_or"

    def fn(self, a: Array, b: Array) -> Array:
        return np.logical_or(a, b)


# ---------------------------------------------------------------------------------------
# Unary elementwise ops
# ---------------------------------------------------------------------------------------


class UnaryOp(RelayOp):
    """``op(data)`` elementwise; the result has the operand's type."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    FLOAT_ONLY: ClassVar[bool] = False
    """Transcendental ops are defined on floating-point tensors only."""
    BOOL_ONLY: ClassVar[bool] = False

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        elem = x.get_element_type()
        if self.FLOAT_ONLY and not is_float(elem):
            raise TypeRelationError(f"data must be a floating-point tensor, got {x}")
        if self.BOOL_ONLY and not is_bool(elem):
            raise TypeRelationError(f"data must be an i1 tensor, got {x}")
        return [x]

    def fn(self, x: Array) -> Array:
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        with np.errstate(all="ignore"):
            return self.fn(args[0])

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``ElemwiseArbitraryLayout``: the result follows the operand."""
        return elementwise_layouts(new_layouts, old_layouts)


class FloatUnaryOp(UnaryOp):
    FLOAT_ONLY: ClassVar[bool] = True


def _unary(ufunc: Callable[[Array], Array]) -> Any:
    """A ``fn`` method applying ``ufunc``."""

    def fn(self: Any, x: Array) -> Array:
        return ufunc(x)

    return fn


_erf = np.frompyfunc(math.erf, 1, 1)


def erf(x: Array) -> Array:
    """The Gauss error function, exact to double precision."""
    return np.asarray(_erf(x), dtype=np.float64).astype(x.dtype)


def sigmoid(x: Array) -> Array:
    return (0.5 * (np.tanh(0.5 * x) + 1)).astype(x.dtype)


def round_half_away(x: Array) -> Array:
    """Round half away from zero (LLVM's ``llvm.round``, TVM's ``round``)."""
    if x.dtype.kind in "iub":
        return x
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


@irdl_op_definition
class ExpOp(FloatUnaryOp):
    """``e ** x``."""

    name = "relay.exp"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    fn = _unary(np.exp)


@irdl_op_definition
class FastExpOp(FloatUnaryOp):
    """Approximate ``e ** x`` (FastMath). The reference semantics are exact."""

    name = "relay.fast_exp"
    fn = _unary(np.exp)


@irdl_op_definition
class LogOp(FloatUnaryOp):
    """Natural logarithm."""

    name = "relay.log"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    fn = _unary(np.log)


@irdl_op_definition
class SqrtOp(FloatUnaryOp):
    """Square root."""

    name = "relay.sqrt"
    fn = _unary(np.sqrt)


@irdl_op_definition
class RsqrtOp(FloatUnaryOp):
    """``1 / sqrt(x)``."""

    name = "relay.rsqrt"

    def fn(self, x: Array) -> Array:
        return 1 / np.sqrt(x)


@irdl_op_definition
class SigmoidOp(FloatUnaryOp):
    """``1 / (1 + e ** -x)``."""

    name = "relay.sigmoid"
    fn = _unary(sigmoid)


@irdl_op_definition
class TanhOp(FloatUnaryOp):
    """Hyperbolic tangent."""

    name = "relay.tanh"
    fn = _unary(np.tanh)


@irdl_op_definition
class FastTanhOp(FloatUnaryOp):
    """Approximate tanh (FastMath). The reference semantics are exact."""

    name = "relay.fast_tanh"
    fn = _unary(np.tanh)


@irdl_op_definition
class ErfOp(FloatUnaryOp):
    """The Gauss error function."""

    name = "relay.erf"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    fn = _unary(erf)


@irdl_op_definition
class FastErfOp(FloatUnaryOp):
    """Approximate erf (FastMath). The reference semantics are exact."""

    name = "relay.fast_erf"
    fn = _unary(erf)


@irdl_op_definition
class SinOp(FloatUnaryOp):
    """Sine."""

    name = "relay.sin"
    fn = _unary(np.sin)


@irdl_op_definition
class CosOp(FloatUnaryOp):
    """Cosine."""

    name = "relay.cos"
    fn = _unary(np.cos)


@irdl_op_definition
class AcosOp(FloatUnaryOp):
    """Inverse cosine (NaN outside [-1, 1])."""

    name = "relay.acos"
    fn = _unary(np.arccos)


@irdl_op_definition
class AsinOp(FloatUnaryOp):
    """Inverse sine (NaN outside [-1, 1])."""

    name = "relay.asin"
    fn = _unary(np.arcsin)


@irdl_op_definition
class AtanOp(FloatUnaryOp):
    """Inverse tangent."""

    name = "relay.atan"
    fn = _unary(np.arctan)


@irdl_op_definition
class AcoshOp(FloatUnaryOp):
    """Inverse hyperbolic cosine (NaN below 1)."""

    name = "relay.acosh"
    fn = _unary(np.arccosh)


@irdl_op_definition
class AsinhOp(FloatUnaryOp):
    """Inverse hyperbolic sine."""

    name = "relay.asinh"
    fn = _unary(np.arcsinh)


@irdl_op_definition
class AtanhOp(FloatUnaryOp):
    """Inverse hyperbolic tangent (NaN outside [-1, 1], +-inf at +-1)."""

    name = "relay.atanh"
    fn = _unary(np.arctanh)


@irdl_op_definition
class NegativeOp(UnaryOp):
    """``-x``."""

    name = "relay.negative"
    fn = _unary(np.negative)


@irdl_op_definition
class AbsOp(UnaryOp):
    """``|x|``."""

    name = "relay.abs"
    fn = _unary(np.abs)


@irdl_op_definition
class SignOp(UnaryOp):
    """-1, 0 or 1 by the sign of ``x``."""

    name = "relay.sign"
    fn = _unary(np.sign)


@irdl_op_definition
class FloorOp(UnaryOp):
    """Round toward negative infinity."""

    name = "relay.floor"
    fn = _unary(np.floor)


@irdl_op_definition
class CeilOp(UnaryOp):
    """Round toward positive infinity."""

    name = "relay.ceil"
    fn = _unary(np.ceil)


@irdl_op_definition
class RoundOp(UnaryOp):
    """Round to nearest, halves away from zero."""

    name = "relay.round"
    fn = _unary(round_half_away)


@irdl_op_definition
class TruncOp(UnaryOp):
    """Round toward zero."""

    name = "relay.trunc"
    fn = _unary(np.trunc)


@irdl_op_definition
class LogicalNotOp(UnaryOp):
    """Elementwise ``not`` of an ``i1`` tensor."""

    name = "relay.logical_not"
    BOOL_ONLY: ClassVar[bool] = True
    fn = _unary(np.logical_not)


@irdl_op_definition
class CopyOp(UnaryOp):
    """A copy of ``x``."""

    name = "relay.copy"
    fn = _unary(np.copy)


@irdl_op_definition
class ReluOp(UnaryOp):
    """``max(x, 0)``."""

    name = "relay.nn.relu"
    KEEPS_QUANTIZATION: ClassVar[bool] = True

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``max(q, zero_point)``."""
        return fq.quantized_relu(rewrite)

    def fn(self, x: Array) -> Array:
        return np.maximum(x, np.zeros((), x.dtype))


@irdl_op_definition
class LeakyReluOp(FloatUnaryOp):
    """``x if x > 0 else alpha * x``."""

    name = "relay.nn.leaky_relu"
    alpha = float_prop(0.01)

    def fn(self, x: Array) -> Array:
        alpha = x.dtype.type(get_float(self.alpha))
        return np.where(x > 0, x, x * alpha)


@irdl_op_definition
class ClipOp(UnaryOp):
    """``x`` clamped to ``[a_min, a_max]``."""

    name = "relay.clip"
    KEEPS_QUANTIZATION: ClassVar[bool] = True
    a_min = float_prop()
    a_max = float_prop()

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``clip`` to the quantized bounds (constant per-tensor parameters)."""
        return fq.quantized_clip(rewrite, get_float(self.a_min), get_float(self.a_max))

    def fn(self, x: Array) -> Array:
        lo, hi = get_float(self.a_min), get_float(self.a_max)
        if x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            lo, hi = max(lo, info.min), min(hi, info.max)
            return np.clip(x, math.ceil(lo), math.floor(hi)).astype(x.dtype)
        return np.clip(x, lo, hi).astype(x.dtype)

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        if get_float(self.a_min) > get_float(self.a_max):
            raise VerifyException(
                f"{self.name}: a_min {get_float(self.a_min)} is larger than a_max "
                f"{get_float(self.a_max)}"
            )
        super().verify_()


# ---------------------------------------------------------------------------------------
# Casts, selection, activations with parameters
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class CastOp(RelayOp):
    """``data`` converted to ``dtype`` elementwise.

    A float becomes an integer by truncation toward zero, saturating: NaN is 0, and a
    value outside the integer type's range (±inf included) is its minimum or maximum
    (LLVM's ``fptosi.sat``, onnxruntime's casts; numpy leaves those undefined).
    Interpreter and compiled code agree on every input
    (:func:`~xrelay.dialects.relay.dtypes.float_to_int`)."""

    name = "relay.cast"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    dtype = dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        return [tensor(x.get_shape(), self.dtype)]

    def compute(self, *args: Any) -> Any:
        return _cast_array(args[0], numpy_dtype(self.dtype))

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Element-wise: the result follows the operand."""
        return elementwise_layouts(new_layouts, old_layouts)


def _cast_array(x: Array, npd: np.dtype[Any]) -> Array:
    return astype(x, npd)


@irdl_op_definition
class ReinterpretOp(RelayOp):
    """The bits of each element of ``data`` read as ``dtype``, which has the same
    width (numpy's ``view``; TVM's ``reinterpret``). A ``bool`` result is ``!= 0``
    of its byte."""

    name = "relay.reinterpret"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    dtype = dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    WIDENS_BFLOAT16: ClassVar[bool] = False  # the bits, not the value

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        src = numpy_dtype(x.get_element_type())
        dst = numpy_dtype(self.dtype)
        if src.itemsize != dst.itemsize:
            raise TypeRelationError(
                f"dtype {dst} has {dst.itemsize * 8} bits, data's {src} "
                f"{src.itemsize * 8}: reinterpret needs equal widths"
            )
        return [tensor(x.get_shape(), self.dtype)]

    def compute(self, *args: Any) -> Any:
        dst = numpy_dtype(self.dtype)
        x = np.asarray(args[0], order="C")
        if dst.kind == "b":  # a byte other than 0 or 1 is True
            return x.view(np.uint8) != 0
        return x.view(dst)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Element-wise: the result follows the operand."""
        return elementwise_layouts(new_layouts, old_layouts)


@irdl_op_definition
class CastLikeOp(RelayOp):
    """``data`` converted to the dtype of ``like``."""

    name = "relay.cast_like"
    data = operand_def(ANY_TENSOR)
    like = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, like = ranked(operand_types[0], "data"), ranked(operand_types[1], "like")
        return [tensor(x.get_shape(), like.get_element_type())]

    def compute(self, *args: Any) -> Any:
        return _cast_array(args[0], args[1].dtype)


@irdl_op_definition
class WhereOp(RelayOp):
    """``x`` where ``condition`` holds, else ``y``; all three broadcast together."""

    name = "relay.where"
    condition = operand_def(ANY_TENSOR)
    x = operand_def(ANY_TENSOR)
    y = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        c = ranked(operand_types[0], "condition")
        x, y = ranked(operand_types[1], "x"), ranked(operand_types[2], "y")
        elem = same_elem([x, y], ["x", "y"])
        shape = broadcast_shapes(
            c.get_shape(), broadcast_shapes(x.get_shape(), y.get_shape())
        )
        return [tensor(shape, elem)]

    def compute(self, *args: Any) -> Any:
        return np.where(args[0].astype(bool), args[1], args[2])

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """The operands not 0-d follow one layout, the scalars stay scalars
        (:func:`~xrelay.dialects.relay.layout_rules.scalar_broadcast_layouts`); a
        ``where`` broadcasting a tensor keeps its operands' original layouts."""
        return scalar_broadcast_layouts(new_layouts, old_layouts, _shapes(old_types))


def _vector_along_axis(data: Attribute, axis: int) -> list[Attribute | None]:
    """The operand types of ``(data, vector)`` solved from a typed ``data``: the
    vector is ``[data.shape[axis]]`` of the data's dtype (``None`` when the data
    is untyped)."""
    if not isinstance(data, TensorType):
        return [None, None]
    x = cast(TensorType[Attribute], data)
    shape = x.get_shape()
    return [None, tensor([shape[normalize_axis(axis, len(shape))]], x.element_type)]


@irdl_op_definition
class PReluOp(RelayOp):
    """``x if x > 0 else alpha * x`` with one ``alpha`` per channel along ``axis``."""

    name = "relay.nn.prelu"
    data = operand_def(ANY_TENSOR)
    alpha = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(1)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """Relay's ``PReluRel`` with an incomplete alpha: ``[data.shape[axis]]`` of
        the data's dtype."""
        return _vector_along_axis(operand_types[0], get_int(self.axis))

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, alpha = ranked(operand_types[0], "data"), ranked(operand_types[1], "alpha")
        same_elem([x, alpha], ["data", "alpha"])
        axis = normalize_axis(get_int(self.axis), len(x.get_shape()))
        channels = x.get_shape()[axis]
        if alpha.get_shape() != (channels,):
            raise TypeRelationError(
                f"alpha must have shape [{channels}] (data.shape[{axis}]), got {alpha}"
            )
        return [x]

    def compute(self, *args: Any) -> Any:
        x, alpha = args[0], args[1]
        axis = get_int(self.axis) % x.ndim
        shape = [1] * x.ndim
        shape[axis] = -1
        return np.where(x > 0, x, x * alpha.reshape(shape))

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """``axis`` follows the data into its new layout (not when that axis is
        split); ``alpha`` is a vector."""
        return _channel_axis(self, new_layouts, old_layouts, old_types)


@irdl_op_definition
class BiasAddOp(RelayOp):
    """``data + bias`` with ``bias`` (shape ``[C]``) broadcast along ``axis``."""

    name = "relay.nn.bias_add"
    data = operand_def(ANY_TENSOR)
    bias = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(1)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """The bias in the int32 accumulator's type (requantized, or quantized when
        a float constant), added in int32."""
        acc = rewrite.input(0)
        if acc is None:
            return None
        rank = len(fq.shape_of(self.data))
        axis = normalize_axis(get_int(self.axis), rank)
        along = 0 if fq.is_per_tensor(acc.type) or acc.type.axis == axis else None
        bias = fq.as_accumulator_type(rewrite, acc, 1, along)
        if bias is None:
            return None
        value = rewrite.emit(BiasAddOp, [acc.value, bias], {"axis": axis})
        return fq.Quantized(value, acc.type)

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """Relay's ``BiasAddRel`` with an incomplete bias: ``[data.shape[axis]]`` of
        the data's dtype."""
        return _vector_along_axis(operand_types[0], get_int(self.axis))

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, bias = ranked(operand_types[0], "data"), ranked(operand_types[1], "bias")
        same_elem([x, bias], ["data", "bias"])
        axis = normalize_axis(get_int(self.axis), len(x.get_shape()))
        channels = x.get_shape()[axis]
        if bias.get_shape() != (channels,):
            raise TypeRelationError(
                f"bias must have shape [{channels}] (data.shape[{axis}]), got {bias}"
            )
        return [x]

    def compute(self, *args: Any) -> Any:
        x, bias = args[0], args[1]
        axis = get_int(self.axis) % x.ndim
        shape = [1] * x.ndim
        shape[axis] = -1
        return x + bias.reshape(shape)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """``axis`` follows the data into its new layout (not when that axis is
        split: then the data goes back to its original layout); ``bias`` is a
        vector."""
        return _channel_axis(self, new_layouts, old_layouts, old_types)


# ---------------------------------------------------------------------------------------
# Tensor creators
# ---------------------------------------------------------------------------------------


class CreateOp(RelayOp):
    """A tensor of ``shape`` and ``dtype`` filled with one value."""

    result = result_def(ANY_TENSOR)
    shape = ints_prop()
    dtype = dtype_prop()
    assembly_format = NULLARY_FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    FILL: ClassVar[int] = 0

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        shape = get_ints(self.shape)
        if any(d < 0 for d in shape):
            raise TypeRelationError(f"shape {list(shape)} has a negative dimension")
        return [tensor(shape, self.dtype)]

    def compute(self, *args: Any) -> Any:
        return np.full(get_ints(self.shape), self.FILL, dtype=numpy_dtype(self.dtype))


@irdl_op_definition
class ZerosOp(CreateOp):
    """A tensor of zeros."""

    name = "relay.zeros"


@irdl_op_definition
class OnesOp(CreateOp):
    """A tensor of ones."""

    name = "relay.ones"
    FILL: ClassVar[int] = 1


@irdl_op_definition
class FullOp(RelayOp):
    """A tensor of ``shape`` filled with the 0-d ``fill_value``; ``dtype`` defaults to
    the fill value's."""

    name = "relay.full"
    fill_value = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    shape = ints_prop()
    dtype = opt_dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        fill = ranked(operand_types[0], "fill_value")
        if len(fill.get_shape()) != 0:
            raise TypeRelationError(f"fill_value must be a 0-d tensor, got {fill}")
        shape = get_ints(self.shape)
        if any(d < 0 for d in shape):
            raise TypeRelationError(f"shape {list(shape)} has a negative dimension")
        elem = self.dtype if self.dtype is not None else fill.get_element_type()
        return [tensor(shape, elem)]

    def compute(self, *args: Any) -> Any:
        ty = self.results[0].type
        assert isinstance(ty, TensorType)
        npd = numpy_dtype(ty.get_element_type())
        return np.full(get_ints(self.shape), args[0], dtype=npd)


class LikeOp(RelayOp):
    """A tensor with the type of ``data`` filled with one value."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    FILL: ClassVar[int] = 0

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        return [ranked(operand_types[0], "data")]

    def compute(self, *args: Any) -> Any:
        return np.full_like(args[0], self.FILL)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Element-wise: the result follows the operand."""
        return elementwise_layouts(new_layouts, old_layouts)


@irdl_op_definition
class ZerosLikeOp(LikeOp):
    """Zeros with the type of ``data``."""

    name = "relay.zeros_like"


@irdl_op_definition
class OnesLikeOp(LikeOp):
    """Ones with the type of ``data``."""

    name = "relay.ones_like"
    FILL: ClassVar[int] = 1


@irdl_op_definition
class FullLikeOp(RelayOp):
    """The 0-d ``fill_value`` spread over the type of ``data``."""

    name = "relay.full_like"
    data = operand_def(ANY_TENSOR)
    fill_value = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, fill = (
            ranked(operand_types[0], "data"),
            ranked(operand_types[1], "fill_value"),
        )
        if len(fill.get_shape()) != 0:
            raise TypeRelationError(f"fill_value must be a 0-d tensor, got {fill}")
        return [x]

    def compute(self, *args: Any) -> Any:
        return np.full_like(args[0], args[1])


ELEMENTWISE_OPS: list[type[RelayOp]] = [
    AddOp, SubtractOp, MultiplyOp, DivideOp, PowerOp, MaximumOp, MinimumOp,
    FloorDivideOp, FloorModOp, ModOp,
    EqualOp, NotEqualOp, LessOp, LessEqualOp, GreaterOp, GreaterEqualOp,
    LogicalAndOp, LogicalOrOp,
    ExpOp, FastExpOp, LogOp, SqrtOp, RsqrtOp, SigmoidOp, TanhOp, FastTanhOp, ErfOp,
    FastErfOp, SinOp, CosOp, AcosOp, AsinOp, AtanOp, AcoshOp, AsinhOp, AtanhOp,
    NegativeOp, AbsOp, SignOp, FloorOp, CeilOp, RoundOp, TruncOp,
    LogicalNotOp, CopyOp, ReluOp, LeakyReluOp, ClipOp,
    CastOp, CastLikeOp, ReinterpretOp, WhereOp, PReluOp, BiasAddOp,
    ZerosOp, OnesOp, FullOp, ZerosLikeOp, OnesLikeOp, FullLikeOp,
]  # fmt: skip
