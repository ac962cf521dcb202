"""The ``llvm`` ops of xrelay.lowering.llvm.fast_ops equal those of xDSL's IRDL
constructors: same name, operands, result types, properties and attributes (so the
LLVM IR is the same; an xDSL upgrade that changes an op's properties fails here)."""

from __future__ import annotations

import pytest
from xdsl.dialects import llvm, test
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    IntegerAttr,
    VectorType,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xrelay.lowering.llvm import fast_ops


def _values(*types: Attribute) -> list[SSAValue]:
    return list(test.TestOp(result_types=list(types)).results)


def _same(fast: Operation, slow: Operation, verify: bool = True) -> None:
    assert fast.name == slow.name
    assert list(fast.operands) == list(slow.operands)
    assert [r.type for r in fast.results] == [r.type for r in slow.results]
    assert fast.properties == slow.properties
    assert fast.attributes == slow.attributes
    assert list(fast.successors) == list(slow.successors)
    if verify:
        fast.verify()


INT_FLAGGED = [llvm.AddOp, llvm.SubOp, llvm.MulOp, llvm.ShlOp]
INT_PLAIN = [
    llvm.AndOp,
    llvm.OrOp,
    llvm.XOrOp,
    llvm.SDivOp,
    llvm.UDivOp,
    llvm.SRemOp,
    llvm.URemOp,
    llvm.LShrOp,
    llvm.AShrOp,
]
FLOAT = [llvm.FAddOp, llvm.FSubOp, llvm.FMulOp, llvm.FDivOp]


@pytest.mark.parametrize("cls", INT_FLAGGED + INT_PLAIN, ids=lambda c: c.name)
def test_integer_binary(cls: type[Operation]) -> None:
    a, b = _values(i64, i64)
    _same(fast_ops.binary(cls, a, b), cls(a, b))  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize("cls", FLOAT, ids=lambda c: c.name)
def test_float_binary(cls: type[Operation]) -> None:
    vec = VectorType(f32, [8])
    for ty in (f32, vec):
        a, b = _values(ty, ty)
        _same(fast_ops.binary(cls, a, b), cls(a, b))  # pyright: ignore[reportCallIssue]


def test_constant() -> None:
    for value, ty in ((IntegerAttr(7, i64), i64), (FloatAttr(0.5, f32), f32)):
        _same(fast_ops.constant(value, ty), llvm.ConstantOp(value, ty))


def test_icmp_scalar_and_vector() -> None:
    for ty in (i64, VectorType(i64, [4])):
        a, b = _values(ty, ty)
        flag = llvm.ICmpPredicateFlag("slt").to_int()
        _same(fast_ops.icmp(a, b, flag), llvm.ICmpOp(a, b, IntegerAttr(flag, i64)))


def test_select() -> None:
    c, a, b = _values(llvm.IntegerType(1), f32, f32)
    _same(fast_ops.select(c, a, b), llvm.SelectOp(c, a, b))


def test_gep() -> None:
    base, index = _values(llvm.LLVMPointerType(), i64)
    slow = llvm.GEPOp(
        base, [llvm.GEP_USE_SSA_VAL], f32, ssa_indices=[index], inbounds=True
    )
    _same(fast_ops.gep(base, f32, index), slow)


@pytest.mark.parametrize("alignment", [None, 4])
def test_load_store(alignment: int | None) -> None:
    ptr, value = _values(llvm.LLVMPointerType(), f32)
    _same(
        fast_ops.load(ptr, f32, alignment),
        llvm.LoadOp(ptr, f32, alignment=alignment),
    )
    _same(
        fast_ops.store(value, ptr, alignment),
        llvm.StoreOp(value, ptr, alignment=alignment),
    )


@pytest.mark.parametrize("nargs", [1, 2, 3])
def test_call_intrinsic(nargs: int) -> None:
    args = _values(*[Float32Type()] * nargs)
    name = "llvm.fma.f32" if nargs == 3 else "llvm.maximum.f32"
    _same(
        fast_ops.call_intrinsic(name, args, f32),
        llvm.CallIntrinsicOp(name, args, [f32]),
    )


@pytest.mark.parametrize(("n_then", "n_else"), [(0, 0), (2, 0), (0, 1), (1, 2)])
def test_branches(n_then: int, n_else: int) -> None:
    region = Region(
        [Block(), Block(arg_types=[i64] * n_then), Block(arg_types=[i64] * n_else)]
    )
    entry, then_block, else_block = region.blocks
    cond, *args = _values(i1, *[i64] * (n_then + n_else))
    then_args, else_args = args[:n_then], args[n_then:]
    fast = fast_ops.cond_br(cond, then_block, then_args, else_block, else_args)
    _same(
        fast,
        llvm.CondBrOp(cond, then_block, then_args, else_block, else_args),
        verify=False,  # a branch verifies inside its block
    )
    entry.add_op(fast)
    fast.verify()
    fast.detach()
    fast = fast_ops.br(then_block, then_args)
    _same(fast, llvm.BrOp(then_block, *then_args), verify=False)
    entry.add_op(fast)
    fast.verify()
