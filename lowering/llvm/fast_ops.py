"""The ``llvm`` ops the conversions build most often, built without IRDL's generic
constructor.

``llvm.AddOp(lhs, rhs)`` goes through ``irdl_op_init``, which matches every operand,
result, region and successor against the op definition and builds fresh property
attributes (a ``DenseArrayBase`` per ``getelementptr``, an ``IntegerAttr`` per load);
that was about a third of the ``llvm dialect`` stage. The functions here make the same
op (same operands, result types and properties: ``tests/lowering/test_llvm_fast_ops.py``
compares each with the IRDL constructor's) with ``Operation.create`` and properties
built once: attributes are immutable values, so ops can share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TypeVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

OpT = TypeVar("OpT", bound=Operation)

_I32_ZERO = IntegerAttr(0, 32)
_I64_ZERO = IntegerAttr(0, i64)
_NO_FAST_MATH = llvm.FastMathAttr(None)
_NO_BUNDLES = DenseArrayBase.from_list(i32, ())
_GEP_ONE_SSA_INDEX = DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])
_UNIT = UnitAttr()
_POINTER = llvm.LLVMPointerType()


@cache
def _i64_attr(value: int) -> IntegerAttr[IntegerType]:
    return IntegerAttr(value, i64)


@cache
def _segments(*sizes: int) -> DenseArrayBase[IntegerType]:
    return DenseArrayBase.from_list(i32, sizes)


@cache
def _intrinsic_name(name: str) -> Attribute:
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(name)


def binary(
    cls: type[OpT], lhs: SSAValue, rhs: SSAValue, result: Attribute | None = None
) -> OpT:
    """A binary ``llvm`` op (``add``, ``and``, ``fmul``...), no overflow or fast-math
    flags; of type ``result``, by default ``lhs``'s (``result``: for operands still
    ``index``, which become ``i64`` later in the conversion)."""
    if issubclass(cls, llvm.ArithmeticBinOpOverflow):
        props: dict[str, Attribute] = {"overflowFlags": _I32_ZERO}
    elif issubclass(cls, llvm.AbstractFloatArithOp):
        props = {"fastmathFlags": _NO_FAST_MATH}
    else:
        props = {}
    ty = lhs.type if result is None else result
    return cls.create(operands=(lhs, rhs), result_types=(ty,), properties=props)


def constant(value: Attribute, ty: Attribute) -> llvm.ConstantOp:
    return llvm.ConstantOp.create(result_types=(ty,), properties={"value": value})


def icmp(lhs: SSAValue, rhs: SSAValue, predicate: int) -> llvm.ICmpOp:
    """``icmp`` with the predicate as ``llvm.ICmpPredicateFlag.to_int()``."""
    ty = lhs.type
    result = VectorType(i1, ty.shape) if isinstance(ty, VectorType) else i1
    return llvm.ICmpOp.create(
        operands=(lhs, rhs),
        result_types=(result,),
        properties={"predicate": _i64_attr(predicate)},
    )


def select(cond: SSAValue, lhs: SSAValue, rhs: SSAValue) -> llvm.SelectOp:
    return llvm.SelectOp.create(
        operands=(cond, lhs, rhs),
        result_types=(lhs.type,),
        properties={"fastmathFlags": _NO_FAST_MATH},
    )


def gep(base: SSAValue, element: Attribute, index: SSAValue) -> llvm.GEPOp:
    """``getelementptr inbounds element, base, index``."""
    return llvm.GEPOp.create(
        operands=(base, index),
        result_types=(_POINTER,),
        properties={
            "rawConstantIndices": _GEP_ONE_SSA_INDEX,
            "elem_type": element,
            "noWrapFlags": _I32_ZERO,
            "inbounds": _UNIT,
        },
    )


def load(address: SSAValue, ty: Attribute, alignment: int | None = None) -> llvm.LoadOp:
    props: dict[str, Attribute] = {"ordering": _I64_ZERO}
    if alignment is not None:
        props["alignment"] = _i64_attr(alignment)
    return llvm.LoadOp.create(operands=(address,), result_types=(ty,), properties=props)


def store(
    value: SSAValue, address: SSAValue, alignment: int | None = None
) -> llvm.StoreOp:
    props: dict[str, Attribute] = {"ordering": _I64_ZERO}
    if alignment is not None:
        props["alignment"] = _i64_attr(alignment)
    return llvm.StoreOp.create(operands=(value, address), properties=props)


def call_intrinsic(
    name: str, args: Sequence[SSAValue], result: Attribute
) -> llvm.CallIntrinsicOp:
    """A call of the LLVM intrinsic ``name`` with one result."""
    return llvm.CallIntrinsicOp.create(
        operands=tuple(args),
        result_types=(result,),
        properties={
            "intrin": _intrinsic_name(name),
            "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": _segments(len(args), 0),
            "fastmathFlags": _NO_FAST_MATH,
        },
    )


def br(dest: Block, args: Sequence[SSAValue]) -> llvm.BrOp:
    """``llvm.br`` to ``dest`` with its block arguments."""
    return llvm.BrOp.create(operands=tuple(args), successors=(dest,))


def cond_br(
    cond: SSAValue,
    then_block: Block,
    then_args: Sequence[SSAValue],
    else_block: Block,
    else_args: Sequence[SSAValue],
) -> llvm.CondBrOp:
    """``llvm.cond_br`` with both successors' block arguments."""
    return llvm.CondBrOp.create(
        operands=(cond, *then_args, *else_args),
        successors=(then_block, else_block),
        properties={
            "operandSegmentSizes": _segments(1, len(then_args), len(else_args))
        },
    )


__all__ = [
    "binary",
    "br",
    "call_intrinsic",
    "cond_br",
    "constant",
    "gep",
    "icmp",
    "load",
    "select",
    "store",
]
