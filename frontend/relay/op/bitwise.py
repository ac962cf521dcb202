"""Bitwise op wrappers (``tvm.relay.bitwise_and`` ...): integer tensors, numpy
broadcasting; a Python int takes the other side's dtype."""

from __future__ import annotations

from xrelay.frontend.relay.expr import Call
from xrelay.frontend.relay.op._make import ExprLike, binary_operands, call

Operand = ExprLike | int | bool

__all__ = [
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
]


def bitwise_and(lhs: Operand, rhs: Operand) -> Call:
    """``lhs & rhs``."""
    return call("bitwise_and", binary_operands(lhs, rhs))


def bitwise_or(lhs: Operand, rhs: Operand) -> Call:
    """``lhs | rhs``."""
    return call("bitwise_or", binary_operands(lhs, rhs))


def bitwise_xor(lhs: Operand, rhs: Operand) -> Call:
    """``lhs ^ rhs``."""
    return call("bitwise_xor", binary_operands(lhs, rhs))


def bitwise_not(data: ExprLike) -> Call:
    """``~data``."""
    return call("bitwise_not", [data])


def left_shift(lhs: Operand, rhs: Operand) -> Call:
    """``lhs << rhs`` (0 when the amount is outside ``[0, bits)``)."""
    return call("left_shift", binary_operands(lhs, rhs))


def right_shift(lhs: Operand, rhs: Operand) -> Call:
    """``lhs >> rhs``, arithmetic for signed types."""
    return call("right_shift", binary_operands(lhs, rhs))
