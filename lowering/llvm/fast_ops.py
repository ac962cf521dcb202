"""The ``llvm`` ops the conversions build most often, built without IRDL's generic
constructor.

``llvm.AddOp(lhs, rhs)`` goes through ``irdl_op_init``, which matches every operand,
result, region and successor against the op definition and builds fresh property
attributes (a ``DenseArrayBase`` per ``getelementptr``, an ``IntegerAttr`` per load);
that was about a third of the ``llvm dialect`` stage. The functions here make the same
op (same operands, result types and properties: ``tests/lowering/test_llvm_fast_ops.py``
compares each with the IRDL constructor's) with :func:`create` and properties built
once: attributes are immutable values, so ops can share them.

:func:`create` is ``Operation.create`` without its generic steps: ``create`` goes
through the ``operands`` and ``successors`` setters (which first unlink the uses of
operands the new op does not have), imports the unknown location afresh and looks the
op definition up for the default properties and attributes at every op. Here the
uses are linked directly and the defaults are read once per op class; the op is the
same (``tests/lowering/test_llvm_fast_ops.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, TypeVar, cast

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    SymbolRefAttr,
    UnitAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue, SSAValues, Use
from xdsl.irdl import IRDLOperation, OptionalDef

OpT = TypeVar("OpT", bound=Operation)

_I32_ZERO = IntegerAttr(0, 32)
_I64_ZERO = IntegerAttr(0, i64)
_NO_FAST_MATH = llvm.FastMathAttr(None)
_NO_BUNDLES = DenseArrayBase.from_list(i32, ())
_GEP_ONE_SSA_INDEX = DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])
_UNIT = UnitAttr()
_POINTER = llvm.LLVMPointerType()


@cache
def _defaults(
    cls: type[Operation],
) -> tuple[tuple[tuple[str, Attribute], ...], tuple[tuple[str, Attribute], ...]] | None:
    """The default properties and attributes IRDL's ``__post_init__`` adds to an op
    of class ``cls``; ``None``: ``cls`` has a ``__post_init__`` of its own (its ops
    are made by ``Operation.create``)."""
    if not issubclass(cls, IRDLOperation) or (
        cls.__post_init__ is not IRDLOperation.__post_init__
    ):
        return None
    op_def = cls.get_irdl_definition()

    def filled(defs: dict[str, Any]) -> tuple[tuple[str, Attribute], ...]:
        return tuple(
            (name, d.default_value)
            for name, d in defs.items()
            if not isinstance(d, OptionalDef) and d.default_value is not None
        )

    return filled(op_def.properties), filled(op_def.attributes)


def create(
    cls: type[OpT],
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    successors: Sequence[Block] = (),
) -> OpT:
    """``cls.create(operands=..., result_types=..., properties=..., successors=...)``,
    the same op made with fewer steps (see the module docstring)."""
    defaults = _defaults(cls)
    if defaults is None:
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=properties or {},
            successors=successors,
        )
    op = cls.__new__(cls)
    values = SSAValues(operands)
    uses = tuple([Use(op, i) for i in range(len(values))])
    for value, use in zip(values, uses, strict=True):
        value.add_use(use)
    op._operands = values  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    op.results = SSAValues([OpResult(ty, op, i) for i, ty in enumerate(result_types)])
    props = {} if properties is None else dict(properties)
    for name, value in defaults[0]:
        props.setdefault(name, value)
    op.properties = props
    op.attributes = dict(defaults[1])
    op.location = UNKNOWN_LOC
    blocks = tuple(successors)
    block_uses = tuple([Use(op, i) for i in range(len(blocks))])
    for block, use in zip(blocks, block_uses, strict=True):
        block.add_use(use)
    op._successors = blocks  # pyright: ignore[reportPrivateUsage]
    op._successor_uses = block_uses  # pyright: ignore[reportPrivateUsage]
    op.regions = ()
    return op


@cache
def _i64_attr(value: int) -> IntegerAttr[IntegerType]:
    return IntegerAttr(value, i64)


@cache
def _i32_array(*sizes: int) -> DenseArrayBase[IntegerType]:
    return DenseArrayBase.from_list(i32, sizes)


@cache
def _intrinsic_name(name: str) -> Attribute:
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(name)


@cache
def _callee(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


_C_CONV = llvm.CallingConventionAttr("ccc")
_NO_TAIL_CALL = llvm.TailCallKindAttr(llvm.TailCallKind.NONE)


@cache
def int_attr(value: int, ty: Attribute) -> IntegerAttr[Any]:
    """``IntegerAttr(value, ty)``, one per value and type (the conversions make
    the same few constants, index strides and offsets, thousands of times)."""
    return IntegerAttr(value, cast(Any, ty))


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
    return create(cls, (lhs, rhs), (ty,), props)


def constant(value: Attribute, ty: Attribute) -> llvm.ConstantOp:
    return create(llvm.ConstantOp, (), (ty,), {"value": value})


def icmp(lhs: SSAValue, rhs: SSAValue, predicate: int) -> llvm.ICmpOp:
    """``icmp`` with the predicate as ``llvm.ICmpPredicateFlag.to_int()``."""
    ty = lhs.type
    result = VectorType(i1, ty.shape) if isinstance(ty, VectorType) else i1
    return create(
        llvm.ICmpOp, (lhs, rhs), (result,), {"predicate": _i64_attr(predicate)}
    )


def select(cond: SSAValue, lhs: SSAValue, rhs: SSAValue) -> llvm.SelectOp:
    return create(
        llvm.SelectOp, (cond, lhs, rhs), (lhs.type,), {"fastmathFlags": _NO_FAST_MATH}
    )


def gep(
    base: SSAValue, element: Attribute, index: SSAValue, inbounds: bool = True
) -> llvm.GEPOp:
    """``getelementptr [inbounds] element, base, index``."""
    props: dict[str, Attribute] = {
        "rawConstantIndices": _GEP_ONE_SSA_INDEX,
        "elem_type": element,
        "noWrapFlags": _I32_ZERO,
    }
    if inbounds:
        props["inbounds"] = _UNIT
    return create(llvm.GEPOp, (base, index), (_POINTER,), props)


def gep_constant(base: SSAValue, element: Attribute, index: int) -> llvm.GEPOp:
    """``getelementptr element, base, index`` of a constant ``index``."""
    return create(
        llvm.GEPOp,
        (base,),
        (_POINTER,),
        {
            "rawConstantIndices": _i32_array(index),
            "elem_type": element,
            "noWrapFlags": _I32_ZERO,
        },
    )


def load(address: SSAValue, ty: Attribute, alignment: int | None = None) -> llvm.LoadOp:
    props: dict[str, Attribute] = {"ordering": _I64_ZERO}
    if alignment is not None:
        props["alignment"] = _i64_attr(alignment)
    return create(llvm.LoadOp, (address,), (ty,), props)


def store(
    value: SSAValue, address: SSAValue, alignment: int | None = None
) -> llvm.StoreOp:
    props: dict[str, Attribute] = {"ordering": _I64_ZERO}
    if alignment is not None:
        props["alignment"] = _i64_attr(alignment)
    return create(llvm.StoreOp, (value, address), (), props)


def call_intrinsic(
    name: str, args: Sequence[SSAValue], result: Attribute
) -> llvm.CallIntrinsicOp:
    """A call of the LLVM intrinsic ``name`` with one result."""
    return create(
        llvm.CallIntrinsicOp,
        tuple(args),
        (result,),
        {
            "intrin": _intrinsic_name(name),
            "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": _i32_array(len(args), 0),
            "fastmathFlags": _NO_FAST_MATH,
        },
    )


def call(
    callee: str, args: Sequence[SSAValue], result: Attribute | None
) -> llvm.CallOp:
    """``llvm.call @callee(args)`` (C calling convention, no tail call) with one
    result or none."""
    return create(
        llvm.CallOp,
        tuple(args),
        () if result is None else (result,),
        {
            "callee": _callee(callee),
            "fastmathFlags": _NO_FAST_MATH,
            "CConv": _C_CONV,
            "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": _i32_array(len(args), 0),
            "TailCallKind": _NO_TAIL_CALL,
        },
    )


def undef(ty: Attribute) -> llvm.UndefOp:
    return create(llvm.UndefOp, (), (ty,))


def insert_element(
    vector: SSAValue, value: SSAValue, position: SSAValue
) -> llvm.InsertElementOp:
    """``insertelement vector, value, position``."""
    return create(llvm.InsertElementOp, (vector, value, position), (vector.type,))


def shuffle_vector(
    v1: SSAValue, v2: SSAValue, mask: Sequence[int], ty: Attribute
) -> llvm.ShuffleVectorOp:
    """``shufflevector v1, v2, mask`` of type ``ty``."""
    return create(llvm.ShuffleVectorOp, (v1, v2), (ty,), {"mask": _i32_array(*mask)})


def br(dest: Block, args: Sequence[SSAValue]) -> llvm.BrOp:
    """``llvm.br`` to ``dest`` with its block arguments."""
    return create(llvm.BrOp, tuple(args), successors=(dest,))


def cond_br(
    cond: SSAValue,
    then_block: Block,
    then_args: Sequence[SSAValue],
    else_block: Block,
    else_args: Sequence[SSAValue],
) -> llvm.CondBrOp:
    """``llvm.cond_br`` with both successors' block arguments."""
    return create(
        llvm.CondBrOp,
        (cond, *then_args, *else_args),
        (),
        {"operandSegmentSizes": _i32_array(1, len(then_args), len(else_args))},
        (then_block, else_block),
    )


__all__ = [
    "binary",
    "br",
    "call",
    "call_intrinsic",
    "cond_br",
    "constant",
    "create",
    "gep",
    "gep_constant",
    "icmp",
    "insert_element",
    "int_attr",
    "load",
    "select",
    "shuffle_vector",
    "store",
    "undef",
]
