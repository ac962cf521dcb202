"""Shared helpers of xrelay's conversions to the ``llvm`` dialect.

Each conversion walks the module once and replaces every op it knows by ``llvm``
ops built with a :class:`Builder` placed before it (no greedy pattern driver: the
conversions are one-to-few and never need a fixed point, and a single walk is much
faster on large models). ``index`` becomes ``i64``.

The walk, the builder and the replacement are leaner than xDSL's generic ones (on
ResNet-18's ~24k memref-level ops they were a third of the ``llvm dialect`` stage):
:func:`module_ops` lists the ops with a plain recursion (xDSL's ``walk`` nests a
generator per region, block and op), :class:`InsertBefore` inserts straight into the
block (no implicit-builder check, no listeners) and the replaced op is unlinked
without the checks ``Rewriter.replace_op`` makes for new ops it is given (there are
none here: converters insert their ops themselves).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast, overload

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
from xdsl.ir import Attribute, Block, Operation, SSAValue, SSAValues
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.lowering.llvm.fast_ops import call_intrinsic

OpT = TypeVar("OpT", bound=Operation)

Converter = Callable[[Operation, Builder], Sequence[SSAValue] | None]
"""Builds the replacement of an op before it and returns the values replacing its
results; ``None`` leaves the op alone."""


def convert_type(ty: Attribute) -> Attribute:
    """``index`` → ``i64``; other types unchanged."""
    return i64 if isinstance(ty, IndexType) else ty


def module_ops(module: Operation) -> list[Operation]:
    """Every op nested in ``module`` (``module`` first), in the order of
    ``module.walk()``."""
    out: list[Operation] = []

    def visit(op: Operation) -> None:
        out.append(op)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    visit(inner)

    visit(module)
    return out


def blocks_of(module: Operation, ops: Sequence[Operation] | None = None) -> list[Block]:
    """Every block nested in ``module``; ``ops``: its :func:`module_ops`, already
    listed (one walk fewer)."""
    if ops is None:
        ops = module_ops(module)
    return [block for op in ops for r in op.regions for block in r.blocks]


def retype_index_block_args(
    module: ModuleOp, ops: Sequence[Operation] | None = None
) -> None:
    """Give every ``index`` block argument the type ``i64`` (``ops``: as for
    :func:`blocks_of`)."""
    for block in blocks_of(module, ops):
        for arg in block.args:
            if isinstance(arg.type, IndexType):
                Rewriter.replace_value_with_new_type(arg, i64)


class InsertBefore(Builder):
    """A builder inserting before one op (:attr:`anchor`, moved by
    :func:`apply_converters`), straight into its block."""

    def __init__(self, anchor: Operation) -> None:
        super().__init__(InsertPoint.before(anchor))
        self.anchor = anchor

    @overload
    def insert(self, op: OpT, insertion_point: InsertPoint | None = None) -> OpT: ...

    @overload
    def insert(
        self, op: Sequence[Operation], insertion_point: InsertPoint | None = None
    ) -> Sequence[Operation]: ...

    def insert(
        self,
        op: Operation | Sequence[Operation],
        insertion_point: InsertPoint | None = None,
    ) -> Operation | Sequence[Operation]:
        if insertion_point is not None:
            return super().insert(op, insertion_point)
        anchor = self.anchor
        block = anchor.parent
        assert block is not None
        for one in (op,) if isinstance(op, Operation) else op:
            block.insert_op_before(one, anchor)
        return op


def replace_uses(old: SSAValue, new: SSAValue) -> None:
    """``old.replace_all_uses_with(new)``, with one copy of a user's operand tuple
    per use (xDSL's rebuilds it from Python-level slices: quadratic in the operand
    count, and the branches of loops carrying a register tile have hundreds)."""
    if new is old:
        return
    use = old.first_use
    while use is not None:
        following = use._next_use  # pyright: ignore[reportPrivateUsage]
        user = use.operation
        operands = list(user._operands)  # pyright: ignore[reportPrivateUsage]
        operands[use.index] = new
        user._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]
        new.add_use(use)
        use = following
    old.first_use = None
    if new.name_hint is None:
        new.name_hint = old.name_hint


def replace_results(op: Operation, values: Sequence[SSAValue]) -> None:
    """Replace the results of ``op`` by ``values`` and erase it."""
    results = op.results
    if len(results) != len(values):
        raise ValueError(
            f"{op.name}: {len(results)} results replaced by {len(values)} values"
        )
    for old, new in zip(results, values, strict=True):
        replace_uses(old, new)
    block = op.parent
    assert block is not None
    block.detach_op(op)
    op.drop_all_references()


def apply_converters(
    module: ModuleOp,
    table: Mapping[type[Operation], Converter],
    ops: Sequence[Operation] | None = None,
) -> None:
    """Replace every op of a type in ``table`` by what its converter builds;
    ``ops``: the ops of ``module`` listed by :func:`module_ops` before (one walk
    fewer: the list may hold ops erased since, if of no type in ``table``, and
    misses the ops inserted since, which must be of no type in ``table`` either)."""
    builder: InsertBefore | None = None
    for op in module_ops(module) if ops is None else ops:
        conv = table.get(type(op))
        if conv is None:
            continue
        if builder is None:
            builder = InsertBefore(op)
        builder.anchor = op
        values = conv(op, builder)
        if values is None:
            continue
        replace_results(op, values)


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
    return b.insert(call_intrinsic(name, args, result)).results[0]


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
