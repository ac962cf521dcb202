"""Elementwise, broadcast and tensor-creation ops (``tvm.relay.op.tensor``), plus
``cast``, ``where``, ``full`` and friends.

Binary ops broadcast numpy-style and need one dtype on both sides (Relay never
promotes). A Python number given for one side becomes a 0-d constant of the other
side's dtype.
"""

from __future__ import annotations

from collections.abc import Sequence

from xrelay.frontend.relay.expr import Call
from xrelay.frontend.relay.op._make import (
    ExprLike,
    binary_operands,
    call,
    int_axis,
    ints,
    operand,
    tuple_arg,
)

Operand = ExprLike | int | float | bool
"""A binary op's operand: an expression or a Python number."""

# -- binary -----------------------------------------------------------------------------


def add(lhs: Operand, rhs: Operand) -> Call:
    """``lhs + rhs`` elementwise, broadcasting."""
    return call("add", binary_operands(lhs, rhs))


def subtract(lhs: Operand, rhs: Operand) -> Call:
    """``lhs - rhs`` elementwise, broadcasting."""
    return call("subtract", binary_operands(lhs, rhs))


def multiply(lhs: Operand, rhs: Operand) -> Call:
    """``lhs * rhs`` elementwise, broadcasting."""
    return call("multiply", binary_operands(lhs, rhs))


def divide(lhs: Operand, rhs: Operand) -> Call:
    """``lhs / rhs`` elementwise (integers truncate toward zero)."""
    return call("divide", binary_operands(lhs, rhs))


def floor_divide(lhs: Operand, rhs: Operand) -> Call:
    """``floor(lhs / rhs)`` elementwise."""
    return call("floor_divide", binary_operands(lhs, rhs))


def power(lhs: Operand, rhs: Operand) -> Call:
    """``lhs ** rhs`` elementwise."""
    return call("power", binary_operands(lhs, rhs))


def mod(lhs: Operand, rhs: Operand) -> Call:
    """Remainder with the sign of ``lhs`` (C's ``%``)."""
    return call("mod", binary_operands(lhs, rhs))


def floor_mod(lhs: Operand, rhs: Operand) -> Call:
    """Remainder with the sign of ``rhs``."""
    return call("floor_mod", binary_operands(lhs, rhs))


def maximum(lhs: Operand, rhs: Operand) -> Call:
    """Elementwise maximum."""
    return call("maximum", binary_operands(lhs, rhs))


def minimum(lhs: Operand, rhs: Operand) -> Call:
    """Elementwise minimum."""
    return call("minimum", binary_operands(lhs, rhs))


def equal(lhs: Operand, rhs: Operand) -> Call:
    """``lhs == rhs`` elementwise (bool)."""
    return call("equal", binary_operands(lhs, rhs))


def not_equal(lhs: Operand, rhs: Operand) -> Call:
    """``lhs != rhs`` elementwise (bool)."""
    return call("not_equal", binary_operands(lhs, rhs))


def less(lhs: Operand, rhs: Operand) -> Call:
    """``lhs < rhs`` elementwise (bool)."""
    return call("less", binary_operands(lhs, rhs))


def less_equal(lhs: Operand, rhs: Operand) -> Call:
    """``lhs <= rhs`` elementwise (bool)."""
    return call("less_equal", binary_operands(lhs, rhs))


def greater(lhs: Operand, rhs: Operand) -> Call:
    """``lhs > rhs`` elementwise (bool)."""
    return call("greater", binary_operands(lhs, rhs))


def greater_equal(lhs: Operand, rhs: Operand) -> Call:
    """``lhs >= rhs`` elementwise (bool)."""
    return call("greater_equal", binary_operands(lhs, rhs))


def logical_and(lhs: Operand, rhs: Operand) -> Call:
    """Elementwise ``and`` of bool tensors."""
    return call("logical_and", binary_operands(lhs, rhs))


def logical_or(lhs: Operand, rhs: Operand) -> Call:
    """Elementwise ``or`` of bool tensors."""
    return call("logical_or", binary_operands(lhs, rhs))


# -- unary ------------------------------------------------------------------------------


def logical_not(data: ExprLike) -> Call:
    """Elementwise ``not`` of a bool tensor."""
    return call("logical_not", [data])


def exp(data: ExprLike) -> Call:
    """``e ** x``."""
    return call("exp", [data])


def log(data: ExprLike) -> Call:
    """Natural logarithm."""
    return call("log", [data])


def sqrt(data: ExprLike) -> Call:
    """Square root."""
    return call("sqrt", [data])


def rsqrt(data: ExprLike) -> Call:
    """``1 / sqrt(x)``."""
    return call("rsqrt", [data])


def sigmoid(data: ExprLike) -> Call:
    """``1 / (1 + e ** -x)``."""
    return call("sigmoid", [data])


def tanh(data: ExprLike) -> Call:
    """Hyperbolic tangent."""
    return call("tanh", [data])


def erf(data: ExprLike) -> Call:
    """The Gauss error function."""
    return call("erf", [data])


def sin(data: ExprLike) -> Call:
    """Sine."""
    return call("sin", [data])


def cos(data: ExprLike) -> Call:
    """Cosine."""
    return call("cos", [data])


def acos(data: ExprLike) -> Call:
    """Inverse cosine (NaN outside [-1, 1])."""
    return call("acos", [data])


def asin(data: ExprLike) -> Call:
    """Inverse sine (NaN outside [-1, 1])."""
    return call("asin", [data])


def atan(data: ExprLike) -> Call:
    """Inverse tangent."""
    return call("atan", [data])


def acosh(data: ExprLike) -> Call:
    """Inverse hyperbolic cosine (NaN below 1)."""
    return call("acosh", [data])


def asinh(data: ExprLike) -> Call:
    """Inverse hyperbolic sine."""
    return call("asinh", [data])


def atanh(data: ExprLike) -> Call:
    """Inverse hyperbolic tangent (NaN outside [-1, 1], +-inf at +-1)."""
    return call("atanh", [data])


def negative(data: ExprLike) -> Call:
    """``-x``."""
    return call("negative", [data])


def abs(data: ExprLike) -> Call:
    """``|x|``."""
    return call("abs", [data])


def sign(data: ExprLike) -> Call:
    """-1, 0 or 1 by the sign of ``x``."""
    return call("sign", [data])


def floor(data: ExprLike) -> Call:
    """Round toward negative infinity."""
    return call("floor", [data])


def ceil(data: ExprLike) -> Call:
    """Round toward positive infinity."""
    return call("ceil", [data])


def round(data: ExprLike) -> Call:
    """Round to nearest, halves away from zero."""
    return call("round", [data])


def trunc(data: ExprLike) -> Call:
    """Round toward zero."""
    return call("trunc", [data])


def copy(data: ExprLike) -> Call:
    """A copy of ``data``."""
    return call("copy", [data])


def clip(a: ExprLike, a_min: float, a_max: float) -> Call:
    """``a`` clamped to ``[a_min, a_max]``."""
    return call("clip", [a], a_min=float(a_min), a_max=float(a_max))


def cast(data: ExprLike, dtype: str) -> Call:
    """``data`` converted to ``dtype``."""
    return call("cast", [data], dtype=dtype)


def reinterpret(data: ExprLike, dtype: str) -> Call:
    """The bits of ``data``'s elements read as ``dtype`` of the same width."""
    return call("reinterpret", [data], dtype=dtype)


def cast_like(data: ExprLike, dtype_like: ExprLike) -> Call:
    """``data`` converted to the dtype of ``dtype_like``."""
    return call("cast_like", [data, dtype_like])


def where(condition: ExprLike, x: Operand, y: Operand) -> Call:
    """``x`` where ``condition`` holds, else ``y`` (all three broadcast)."""
    xe, ye = binary_operands(x, y)
    return call("where", [condition, xe, ye])


# -- creation ---------------------------------------------------------------------------


def zeros(shape: int | Sequence[int], dtype: str) -> Call:
    """A tensor of zeros."""
    return call("zeros", [], shape=ints(shape, "shape"), dtype=dtype)


def ones(shape: int | Sequence[int], dtype: str) -> Call:
    """A tensor of ones."""
    return call("ones", [], shape=ints(shape, "shape"), dtype=dtype)


def full(fill_value: Operand, shape: int | Sequence[int] = (), dtype: str = "") -> Call:
    """A tensor of ``shape`` filled with ``fill_value`` (a number becomes a constant
    of ``dtype``, or of TVM's default dtype for it when ``dtype`` is ``""``)."""
    fill = operand(fill_value, dtype=dtype or None)
    return call("full", [fill], shape=ints(shape, "shape"), dtype=dtype)


def zeros_like(data: ExprLike) -> Call:
    """Zeros with the type of ``data``."""
    return call("zeros_like", [data])


def ones_like(data: ExprLike) -> Call:
    """Ones with the type of ``data``."""
    return call("ones_like", [data])


def full_like(data: ExprLike, fill_value: Operand) -> Call:
    """``fill_value`` spread over the type of ``data`` (a number takes ``data``'s
    dtype)."""
    return call("full_like", [data, operand(fill_value, like=data)])


# -- tuples of tensors ------------------------------------------------------------------


def concatenate(data: Sequence[ExprLike] | ExprLike, axis: int) -> Call:
    """Join the tensors of ``data`` (a list, or a tuple-valued expression) along
    ``axis``."""
    int_axis(axis)
    return call("concatenate", [tuple_arg(data, "concatenate")], axis=axis)


def stack(data: Sequence[ExprLike] | ExprLike, axis: int) -> Call:
    """Stack the tensors of ``data`` along a new axis ``axis``."""
    int_axis(axis)
    return call("stack", [tuple_arg(data, "stack")], axis=axis)


def shape_of(data: ExprLike, dtype: str = "int32") -> Call:
    """The shape of ``data`` as a 1-d tensor of ``dtype``."""
    return call("shape_of", [data], dtype=dtype)


def ndarray_size(data: ExprLike, dtype: str = "int32") -> Call:
    """The number of elements of ``data`` as a 0-d tensor of ``dtype``."""
    return call("ndarray_size", [data], dtype=dtype)
