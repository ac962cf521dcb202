"""The ``arith`` ops the kernel builder makes most often (index arithmetic,
comparisons, selects, constants), built without IRDL's generic constructor.

As for the ``llvm`` ops (:mod:`xrelay.lowering.llvm.fast_ops`): ``arith.AddiOp(a, b)``
goes through ``irdl_op_init``, which matches the operands and results against the
op definition and builds the properties afresh (some 30 µs an op, half of the
``kernel IR`` stage on ResNet-18). These functions make the same op (same operands,
result types, properties and attributes: ``tests/lowering/test_fast_arith.py``
compares each with the IRDL constructor's) with ``Operation.create`` and property
attributes built once (attributes are immutable values, ops can share them).
"""

from __future__ import annotations

from functools import cache
from typing import TypeVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue

OpT = TypeVar("OpT", bound=Operation)

_NO_OVERFLOW = arith.IntegerOverflowAttr("none")


def int_binary(cls: type[OpT], lhs: SSAValue, rhs: SSAValue) -> OpT:
    """A binary ``arith`` op on integers or indices (``addi``, ``muli``, ``divui``,
    ``remsi``, ``minsi``...) of ``lhs``'s type, without overflow flags."""
    if issubclass(cls, arith.SignlessIntegerBinaryOperationWithOverflow):
        props: dict[str, Attribute] = {"overflowFlags": _NO_OVERFLOW}
    else:
        props = {}
    return cls.create(operands=(lhs, rhs), result_types=(lhs.type,), properties=props)


@cache
def _predicate(name: str) -> IntegerAttr[IntegerType]:
    return IntegerAttr(arith.CMPI_COMPARISON_OPERATIONS.index(name), i64)


def cmpi(lhs: SSAValue, rhs: SSAValue, predicate: str) -> arith.CmpiOp:
    """``arith.cmpi`` of two scalars (integers or indices) with ``predicate`` named
    as MLIR does (``slt``, ``eq``...)."""
    return arith.CmpiOp.create(
        operands=(lhs, rhs),
        result_types=(i1,),
        properties={"predicate": _predicate(predicate)},
    )


def select(cond: SSAValue, lhs: SSAValue, rhs: SSAValue) -> arith.SelectOp:
    return arith.SelectOp.create(operands=(cond, lhs, rhs), result_types=(lhs.type,))


def constant(value: Attribute, ty: Attribute) -> arith.ConstantOp:
    """``arith.constant`` of ``value`` (an ``IntegerAttr`` or ``FloatAttr`` of type
    ``ty``)."""
    return arith.ConstantOp.create(result_types=(ty,), properties={"value": value})


__all__ = ["cmpi", "constant", "int_binary", "select"]
