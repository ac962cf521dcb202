"""The ``llvm`` ops of xrelay.lowering.llvm.fast_ops equal those of xDSL's IRDL
constructors: same name, operands, result types, properties and attributes (so the
LLVM IR is the same; an xDSL upgrade that changes an op's properties fails here)."""

from __future__ import annotations

import pytest
from xdsl.dialects import cf, llvm, test
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    VectorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition

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


def _linked(op: Operation) -> list[tuple[int, int]]:
    """(operand or successor position, index of its use) pairs, checked linked."""
    out: list[tuple[int, int]] = []
    for i, value in enumerate(op.operands):
        assert any(u.operation is op and u.index == i for u in value.uses)
        out.append((i, i))
    for i, block in enumerate(op.successors):
        assert any(u.operation is op and u.index == i for u in block.uses)
        out.append((-1, i))
    return out


def _cases() -> list[
    tuple[
        type[Operation],
        list[SSAValue],
        list[Attribute],
        dict[str, Attribute],
        list[Block],
    ]
]:
    a, b, p = _values(i64, i64, llvm.LLVMPointerType())
    c = _values(i1)[0]
    blocks = list(Region([Block(), Block(arg_types=[i64])]).blocks)
    one = IntegerAttr(1, i64)
    return [
        (llvm.AddOp, [a, b], [i64], {}, []),
        (llvm.FAddOp, _values(f32, f32), [f32], {}, []),  # fastmathFlags' default
        (llvm.ConstantOp, [], [i64], {"value": one}, []),
        (llvm.LoadOp, [p], [i64], {}, []),  # ordering's default
        (llvm.StoreOp, [a, p], [], {"alignment": IntegerAttr(8, i64)}, []),
        (llvm.BrOp, [a], [], {}, [blocks[1]]),
        (cf.BranchOp, [a, a], [], {}, [blocks[0]]),
        (
            cf.ConditionalBranchOp,
            [c, a],
            [],
            {"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 0, 1])},
            blocks,
        ),
    ]


@pytest.mark.parametrize("case", range(8))
def test_create_is_operation_create(case: int) -> None:
    cls, operands, types, props, succ = _cases()[case]
    fast = fast_ops.create(cls, operands, types, props, succ)
    slow = cls.create(
        operands=operands, result_types=types, properties=props, successors=succ
    )
    _same(fast, slow, verify=False)
    # the defaults IRDL adds, in the same order
    assert list(fast.properties.items()) == list(slow.properties.items())
    assert list(fast.attributes.items()) == list(slow.attributes.items())
    assert fast.location == slow.location
    assert fast.regions == slow.regions == ()
    assert fast.parent is None
    assert fast.next_op is None
    assert fast.prev_op is None
    assert [(r.owner, r.index) for r in fast.results] == [
        (fast, i) for i in range(len(types))
    ]
    assert _linked(fast) == _linked(slow)
    fast.erase()  # the uses unlink as those of any op
    assert all(u.operation is not fast for v in operands for u in v.uses)


@irdl_op_definition
class _Hooked(IRDLOperation):
    """An op class with a ``__post_init__`` of its own."""

    name = "test.hooked"

    def __post_init__(self) -> None:
        super().__post_init__()
        self.attributes["hooked"] = UnitAttr()


def test_create_runs_an_op_classs_own_post_init() -> None:
    op = fast_ops.create(_Hooked)
    assert isinstance(op, _Hooked)
    assert op.attributes == {"hooked": UnitAttr()}


@pytest.mark.parametrize("nargs", [0, 2])
@pytest.mark.parametrize("result", [None, f32])
def test_call(nargs: int, result: Attribute | None) -> None:
    args = _values(*[f32] * nargs)
    _same(
        fast_ops.call("erff", args, result),
        llvm.CallOp("erff", *args, return_type=result),
        verify=False,  # a call verifies against the module's symbol table
    )


def test_broadcast_ops() -> None:
    vec = VectorType(f32, [8])
    v, x, pos = _values(vec, f32, i64)
    _same(fast_ops.undef(vec), llvm.UndefOp(vec))
    _same(fast_ops.insert_element(v, x, pos), llvm.InsertElementOp(v, x, pos))
    mask = [0, 2, 4, 6, 1, 3, 5, 7]
    _same(
        fast_ops.shuffle_vector(v, v, mask, vec),
        llvm.ShuffleVectorOp(v, v, DenseArrayBase.from_list(i32, mask), vec),
    )


def test_int_attr_is_shared() -> None:
    assert fast_ops.int_attr(3, i64) == IntegerAttr(3, i64)
    assert fast_ops.int_attr(3, i64) is fast_ops.int_attr(3, i64)
    assert fast_ops.int_attr(3, i32) == IntegerAttr(3, i32)


def test_gep_not_inbounds_and_constant() -> None:
    base, index = _values(llvm.LLVMPointerType(), i64)
    i8 = IntegerType(8)
    slow = llvm.GEPOp(base, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[index])
    _same(fast_ops.gep(base, i8, index, inbounds=False), slow)
    pointer = llvm.LLVMPointerType()
    _same(fast_ops.gep_constant(base, pointer, 5), llvm.GEPOp(base, [5], pointer))
