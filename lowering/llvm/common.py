"""Shared helpers of xrelay's conversions to the ``llvm`` dialect.

Each conversion walks the module once and replaces every op it knows by ``llvm``
ops built with a :class:`Builder` placed before it (no greedy pattern driver: the
conversions are one-to-few and never need a fixed point, and a single walk is much
faster on large models). ``index`` becomes ``i64``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from xdsl.builder import Builder
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

Converter = Callable[[Operation, Builder], Sequence[SSAValue] | None]
"""Builds the replacement of an op before it and returns the values replacing its
results; ``None`` leaves the op alone."""


def convert_type(ty: Attribute) -> Attribute:
    """``index`` → ``i64``; other types unchanged."""
    return i64 if isinstance(ty, IndexType) else ty


def retype_index_block_args(module: ModuleOp) -> None:
    """Give every ``index`` block argument the type ``i64``."""
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    if isinstance(arg.type, IndexType):
                        Rewriter.replace_value_with_new_type(arg, i64)


def apply_converters(module: ModuleOp, table: dict[type[Operation], Converter]) -> None:
    """Replace every op of a type in ``table`` by what its converter builds."""
    for op in list(module.walk()):
        conv = table.get(type(op))
        if conv is None:
            continue
        builder = Builder(InsertPoint.before(op))
        values = conv(op, builder)
        if values is None:
            continue
        Rewriter.replace_op(op, [], list(values))


def type_suffix(ty: Attribute) -> str:
    """The overload suffix of an LLVM intrinsic for a scalar type (``f32``, ``i64``)
    or a vector of one (``v16f32``)."""
    if isinstance(ty, VectorType):
        shape = cast(VectorType[Any], ty).get_shape()
        return f"v{shape[0]}{type_suffix(cast(VectorType[Any], ty).element_type)}"
    if isinstance(ty, Float16Type):
        return "f16"
    if isinstance(ty, Float32Type):
        return "f32"
    if isinstance(ty, Float64Type):
        return "f64"
    if isinstance(ty, IntegerType):
        return f"i{ty.width.data}"
    if isinstance(ty, IndexType):
        return "i64"
    raise ValueError(f"no intrinsic suffix for {ty}")


def intrinsic(
    b: Builder, name: str, args: Sequence[SSAValue], result: Attribute
) -> SSAValue:
    """A call of the LLVM intrinsic ``name`` (already mangled, e.g.
    ``llvm.maximum.f32``)."""
    op = b.insert(llvm.CallIntrinsicOp(name, list(args), [result]))
    assert op.ress is not None
    return op.ress


def declare_function(
    module: ModuleOp, name: str, inputs: Sequence[Attribute], output: Attribute
) -> None:
    """Declare an external function (a libm symbol) once."""
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.sym_name.data == name:
            return
    decl = llvm.FuncOp(
        name,
        llvm.LLVMFunctionType(list(inputs), output),
        linkage=llvm.LinkageAttr("external"),
    )
    module.body.block.add_op(decl)
