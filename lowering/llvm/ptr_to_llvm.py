"""``ptr_xdsl`` → ``llvm``, in one walk.

Equivalent to xDSL's ``convert-ptr-to-llvm`` followed by
``reconcile-unrealized-casts`` on the IR ``convert-memref-to-ptr`` produces, except
that a pointer addition becomes ``llvm.getelementptr i8`` (not ``ptrtoint``/``add``/
``inttoptr``, which hides addresses from LLVM's alias analysis and loop
vectorizer). xDSL's pass rewrites types with a recursive ``TypeConversionPattern``
applied to every op, which took most of the lowering time on real models; here the
``!ptr_xdsl.ptr`` values (function arguments, block arguments) are retyped directly.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, func, llvm, ptr
from xdsl.dialects.builtin import (
    FunctionType,
    IntegerType,
    ModuleOp,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.lowering.llvm.common import apply_converters


def _forward(op: Operation, b: Builder) -> Sequence[SSAValue]:
    return [op.operands[0]]


def _load(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, ptr.LoadOp)
    return [b.insert(llvm.LoadOp(op.addr, op.res.type)).dereferenced_value]


def _store(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, ptr.StoreOp)
    b.insert(llvm.StoreOp(op.value, op.addr))
    return []


def _ptr_add(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, ptr.PtrAddOp)
    offset = op.offset
    if not isinstance(offset.type, IntegerType):
        offset = b.insert(arith.IndexCastOp(offset, i64)).result
    gep = b.insert(
        llvm.GEPOp(
            op.addr, [llvm.GEP_USE_SSA_VAL], IntegerType(8), ssa_indices=[offset]
        )
    )
    return [gep.result]


def _cast(op: Operation, b: Builder) -> Sequence[SSAValue] | None:
    """Unrealized casts between the two pointer types disappear."""
    assert isinstance(op, UnrealizedConversionCastOp)
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        return None
    src, dst = op.inputs[0].type, op.outputs[0].type
    kinds = (ptr.PtrType, llvm.LLVMPointerType)
    if isinstance(src, kinds) and isinstance(dst, kinds):
        return [op.inputs[0]]
    return None


def convert_ptr_to_llvm(module: ModuleOp) -> None:
    """Convert every ``ptr_xdsl`` op and value of ``module``."""
    pointer = llvm.LLVMPointerType()
    for op in module.walk():
        if isinstance(op, func.FuncOp):
            ty = op.function_type
            op.function_type = FunctionType.from_lists(
                [pointer if isinstance(t, ptr.PtrType) else t for t in ty.inputs.data],
                [pointer if isinstance(t, ptr.PtrType) else t for t in ty.outputs.data],
            )
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    if isinstance(arg.type, ptr.PtrType):
                        Rewriter.replace_value_with_new_type(arg, pointer)
    apply_converters(
        module,
        {
            ptr.ToPtrOp: _forward,
            ptr.FromPtrOp: _forward,
            ptr.LoadOp: _load,
            ptr.StoreOp: _store,
            ptr.PtrAddOp: _ptr_add,
            UnrealizedConversionCastOp: _cast,
        },
    )
