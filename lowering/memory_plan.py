"""Static memory planning: every ``memref.alloc`` of the host function becomes a view
at a fixed offset of one arena, reused by buffers whose lifetimes do not overlap (what
TVM's graph memory planner does, with best-fit offsets instead of size classes).

A buffer lives from its ``memref.alloc`` to its ``memref.dealloc`` (inclusive). Buffers
are placed in decreasing size order at the lowest 64-byte aligned offset that does not
overlap a placed buffer alive at the same time ("greedy by size"). The arena is
``memref.global "private" @xrelay_arena : memref<N x i8> = uninitialized``; the host
reads it with ``memref.get_global`` and takes ``memref.view``s of it; the deallocs
disappear. Nothing is allocated when the model runs.

A buffer may be shared by several values (a concatenation lowered in place:
:mod:`xrelay.lowering.concat_placement`): the graph lowering allocates it as bytes
where its first part is written and takes ``memref.view``s of it at constant byte
offsets; it lives until the last use of any of them, and those views become views of
the arena at the buffer's offset plus theirs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.lowering.builder import KernelBuilder
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.scalar_types import memref_bytes, nbytes

ARENA = "xrelay_arena"
ALIGNMENT = 64


@dataclass
class Interval:
    """One buffer: its size and the host positions where it is live."""

    alloc: memref.AllocOp
    size: int
    start: int
    end: int
    offset: int = -1


def _size_of(op: memref.AllocOp) -> int:
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    size = memref_bytes(ty)
    if size is None:
        raise LoweringError(f"{op.name}: cannot plan the dynamic buffer {ty}", op)
    return size


def plan_offsets(intervals: list[Interval]) -> int:
    """Give each interval an offset (greedy by size, best fit); return the arena
    size."""
    placed: list[Interval] = []
    total = 0
    for iv in sorted(intervals, key=lambda i: (-i.size, i.start)):
        live = sorted(
            (p for p in placed if p.start <= iv.end and iv.start <= p.end),
            key=lambda p: p.offset,
        )
        offset = 0
        best: int | None = None
        best_gap: int | None = None
        for p in live:
            gap = p.offset - offset
            if gap >= iv.size and (best_gap is None or gap < best_gap):
                best, best_gap = offset, gap
            offset = max(offset, _align(p.offset + p.size))
        iv.offset = best if best is not None else offset
        placed.append(iv)
        total = max(total, iv.offset + iv.size)
    return _align(total)


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def host_function(module: ModuleOp) -> func.FuncOp | None:
    """The host function made by the graph lowering (``xrelay.host``)."""
    from xrelay.lowering.graph import HOST_ATTR

    for op in module.ops:
        if isinstance(op, func.FuncOp) and HOST_ATTR in op.attributes:
            return op
    return None


def plan_memory(module: ModuleOp) -> int:
    """Plan the host function's buffers into one arena, in place; return its size in
    bytes (0 when nothing is allocated)."""
    host = host_function(module)
    if host is None:
        raise LoweringError(
            "plan-memory: no host function (run relay-to-kernels first)"
        )
    block = host.body.block
    ops = list(block.ops)
    position = {op: i for i, op in enumerate(ops)}
    intervals: dict[memref.AllocOp, Interval] = {}
    deallocs: list[Operation] = []
    for op in ops:
        if isinstance(op, memref.AllocOp):
            intervals[op] = Interval(op, _size_of(op), position[op], len(ops))
        elif isinstance(op, memref.DeallocOp):
            owner = op.memref.owner
            if isinstance(owner, memref.AllocOp) and owner in intervals:
                intervals[owner].end = position[op]
                deallocs.append(op)
    if not intervals:
        return 0
    size = plan_offsets(list(intervals.values()))

    arena_type = MemRefType(IntegerType(8), [size])
    glob = memref.GlobalOp.get(
        StringAttr(ARENA), arena_type, UnitAttr(), alignment=ALIGNMENT
    )
    module.body.block.insert_op_before(glob, host)
    kb = KernelBuilder(host)
    get = memref.GetGlobalOp(ARENA, arena_type)
    kb.builder.insert(get, InsertPoint.at_start(block))
    for op in deallocs:
        Rewriter.erase_op(op)
    for alloc, iv in intervals.items():
        # views of the buffer at constant offsets (the parts of a concatenation
        # lowered in place) become views of the arena
        for use in list(alloc.memref.uses):
            part = use.operation
            shift = _constant_shift(part)
            if shift is None:
                continue
            assert isinstance(part, memref.ViewOp)
            with kb.at(InsertPoint.before(part)):
                moved = memref.ViewOp(
                    get.memref, kb.index(iv.offset + shift), [], part.result.type
                )
                kb.insert(moved)
            old = part.byte_shift.owner
            Rewriter.replace_op(part, [], [moved.result])
            if isinstance(old, Operation) and not old.results[0].uses:
                Rewriter.erase_op(old)
        if not alloc.memref.uses:
            Rewriter.erase_op(alloc)
            continue
        with kb.at(InsertPoint.before(alloc)):
            view = memref.ViewOp(get.memref, kb.index(iv.offset), [], alloc.memref.type)
            kb.insert(view)
        Rewriter.replace_op(alloc, [], [view.result])
    return size


def _constant_shift(op: Operation) -> int | None:
    """The byte shift of a ``memref.view`` with a constant shift and no dynamic
    sizes (``None`` for anything else)."""
    if not isinstance(op, memref.ViewOp) or op.sizes:
        return None
    owner = op.byte_shift.owner
    if not isinstance(owner, arith.ConstantOp):
        return None
    value = owner.value
    if not isinstance(value, IntegerAttr):
        return None
    return value.value.data


def arena_size(module: ModuleOp) -> int:
    """The size of the planned arena (0 when there is none)."""
    for op in module.ops:
        if isinstance(op, memref.GlobalOp) and op.sym_name.data == ARENA:
            ty = op.type
            return ty.get_shape()[0]
    return 0


__all__ = ["ARENA", "arena_size", "nbytes", "plan_memory", "plan_offsets"]
