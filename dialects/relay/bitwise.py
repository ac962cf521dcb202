"""Relay's bitwise ops on integer tensors: ``bitwise_and``, ``bitwise_or``,
``bitwise_xor``, ``bitwise_not``, ``left_shift``, ``right_shift`` (numpy broadcasting,
one dtype on both sides; bool tensors too, except for the shifts).

Shifts are defined for every shift amount, unlike C's and LLVM's: an amount outside
``[0, bits)`` shifts every bit out (``0``, or ``-1`` for a right shift of a negative
signed value), so the lowered code has no undefined case.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import RelayOp, TypeRelationError, ranked
from xrelay.dialects.relay.elementwise import BinaryOp, UnaryOp

Array = np.ndarray[Any, Any]


def _check_int(op_name: str, elem: Attribute, allow_bool: bool) -> None:
    npd = dtypes.numpy_dtype(elem)
    if npd.kind in "iu" or (allow_bool and npd.kind == "b"):
        return
    raise TypeRelationError(
        f"{op_name} needs integer{' or i1' if allow_bool else ''} operands, got {elem}"
    )


class _BitwiseBinary(BinaryOp):
    ALLOW_BOOL: ClassVar[bool] = True

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        out = super().type_relation(operand_types)
        _check_int(
            self.name,
            ranked(operand_types[0], "lhs").get_element_type(),
            self.ALLOW_BOOL,
        )
        return out


@irdl_op_definition
class BitwiseAndOp(_BitwiseBinary):
    """``lhs & rhs``."""

    name = "relay.bitwise_and"

    def fn(self, a: Array, b: Array) -> Array:
        return np.bitwise_and(a, b)


@irdl_op_definition
class BitwiseOrOp(_BitwiseBinary):
    """``lhs | rhs``."""

    name = "relay.bitwise_or"

    def fn(self, a: Array, b: Array) -> Array:
        return np.bitwise_or(a, b)


@irdl_op_definition
class BitwiseXorOp(_BitwiseBinary):
    """``lhs ^ rhs``."""

    name = "relay.bitwise_xor"

    def fn(self, a: Array, b: Array) -> Array:
        return np.bitwise_xor(a, b)


def _shift(a: Array, b: Array, left: bool) -> Array:
    bits = a.dtype.itemsize * 8
    a, b = np.broadcast_arrays(a, b)
    amount = b.astype(np.int64)
    inside = (amount >= 0) & (amount < bits)
    safe = np.where(inside, amount, 0).astype(a.dtype)
    shifted = np.left_shift(a, safe) if left else np.right_shift(a, safe)
    if left or a.dtype.kind == "u":
        out_of_range = np.zeros_like(a)
    else:
        out_of_range = np.where(a < 0, a.dtype.type(-1), a.dtype.type(0))
    return np.where(inside, shifted, out_of_range).astype(a.dtype)


@irdl_op_definition
class LeftShiftOp(_BitwiseBinary):
    """``lhs << rhs`` (0 for an amount outside ``[0, bits)``)."""

    name = "relay.left_shift"
    ALLOW_BOOL: ClassVar[bool] = False

    def fn(self, a: Array, b: Array) -> Array:
        return _shift(a, b, left=True)


@irdl_op_definition
class RightShiftOp(_BitwiseBinary):
    """``lhs >> rhs``, arithmetic for signed types (all bits out for an amount
    outside ``[0, bits)``)."""

    name = "relay.right_shift"
    ALLOW_BOOL: ClassVar[bool] = False

    def fn(self, a: Array, b: Array) -> Array:
        return _shift(a, b, left=False)


@irdl_op_definition
class BitwiseNotOp(UnaryOp):
    """``~data`` (``not`` on i1)."""

    name = "relay.bitwise_not"

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        out = super().type_relation(operand_types)
        _check_int(self.name, ranked(operand_types[0], "data").get_element_type(), True)
        return out

    def fn(self, x: Array) -> Array:
        return np.invert(x)


BITWISE_OPS: list[type[RelayOp]] = [
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    BitwiseNotOp,
    LeftShiftOp,
    RightShiftOp,
]
