"""The ``arith`` ops of xrelay.lowering.fast_arith equal those of xDSL's IRDL
constructors: same name, operands, result types, properties and attributes (an xDSL
upgrade that changes an op's properties fails here, not in the kernels)."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, test
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xrelay.lowering import fast_arith


def _values(*types: Attribute) -> list[SSAValue]:
    return list(test.TestOp(result_types=list(types)).results)


def _same(fast: Operation, slow: Operation) -> None:
    assert fast.name == slow.name
    assert list(fast.operands) == list(slow.operands)
    assert [r.type for r in fast.results] == [r.type for r in slow.results]
    assert fast.properties == slow.properties
    assert fast.attributes == slow.attributes
    fast.verify()


INT_BINARY = [
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.FloorDivSIOp,
    arith.RemSIOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.DivUIOp,
    arith.RemUIOp,
]


@pytest.mark.parametrize("cls", INT_BINARY, ids=lambda c: c.name)
@pytest.mark.parametrize("ty", [IndexType(), i32, i64], ids=str)
def test_int_binary(cls: type[Operation], ty: Attribute) -> None:
    a, b = _values(ty, ty)
    _same(fast_arith.int_binary(cls, a, b), cls(a, b))  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize("predicate", arith.CMPI_COMPARISON_OPERATIONS)
def test_cmpi(predicate: str) -> None:
    for ty in (IndexType(), i32):
        a, b = _values(ty, ty)
        _same(fast_arith.cmpi(a, b, predicate), arith.CmpiOp(a, b, predicate))


def test_select() -> None:
    for ty in (IndexType(), f32):
        c, a, b = _values(i1, ty, ty)
        _same(fast_arith.select(c, a, b), arith.SelectOp(c, a, b))


def test_constant() -> None:
    for value, ty in (
        (IntegerAttr(7, IndexType()), IndexType()),
        (IntegerAttr(-3, i32), i32),
        (FloatAttr(0.5, f32), f32),
    ):
        _same(fast_arith.constant(value, ty), arith.ConstantOp(value, ty))  # pyright: ignore[reportArgumentType]
