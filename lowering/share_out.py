"""How the threads of a team run a lowered host: every thread runs the host; each
kernel call is shared by the whole team, run by thread 0 alone, or (independent
calls side by side, :mod:`xrelay.lowering.overlap`) run by one thread each; barriers
go where a call needs what another thread wrote. Then the host's buffers are freed
after their last use (the memory planner reads those frees as the buffers'
lifetimes).

The host's first three arguments are the thread id, the thread count and the team
(:data:`THREAD_ARGS`). A call the team shares gets ``(tid, nthreads, team)``; a call
one thread runs gets ``(0, 1, team)`` on thread 0, whose chunk counter it resets
first, or, on slot ``s >= 1`` of an overlapped segment, ``(0, 1, solo)`` on thread
``s mod nthreads`` with ``solo`` the slot's own counter (:data:`SOLO_TEAM`), so two
calls claiming chunks at the same time never share a counter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue

from xrelay.lowering.builder import KernelBuilder
from xrelay.lowering.overlap import CallFacts, OverlapSettings, Span, plan_overlap
from xrelay.lowering.scalar_types import memref_bytes

THREAD_ARGS = 3
"""The host's first arguments: thread id, thread count (``index``) and the team
(``!llvm.ptr``) its threads synchronise through."""
BARRIER = "xrelay_barrier"
"""``void xrelay_barrier(team)``: wait until every thread of the team has reached it
(provided by the runtime, :mod:`xrelay.lowering.llvm.threads`); the last to arrive
resets the team's chunk counter."""
RESET = "xrelay_reset"
"""``void xrelay_reset(team)``: reset the team's chunk counter (before a kernel that
thread 0 runs alone, with no barrier before it)."""
SOLO_TEAM = "xrelay_solo_team"
"""``ptr xrelay_solo_team(team, index slot)``: the chunk counter of an overlapped
segment's slot (:mod:`xrelay.lowering.llvm.threads`), passed as the team of a call
run there."""


@dataclass
class SharedOut:
    """What :func:`share_out` put into the host."""

    barriers: int = 0
    resets: bool = False
    solo_teams: bool = False
    segments: list[list[Operation]] = field(default_factory=lambda: [])
    """The top-level ops of each overlapped segment, in order."""


@dataclass(frozen=True)
class CallSite:
    """What the host lowering knows of one kernel call."""

    ns: float
    writes: tuple[SSAValue, ...]


def share_out(
    kb: KernelBuilder,
    parallel: Mapping[str, bool],
    solo: set[func.CallOp],
    sites: Mapping[func.CallOp, CallSite] | None = None,
    overlap: OverlapSettings | None = None,
) -> SharedOut:
    """Make the host run by every thread of a team (see the module docstring).
    ``parallel``: whether each kernel can be shared; ``solo``: calls too small to
    share (:func:`~xrelay.lowering.work.worth_sharing`); ``sites`` and ``overlap``:
    the calls' facts and the host's figures for overlapping independent calls (off
    without them)."""
    tid, count, team = kb.args[:THREAD_ARGS]
    entry_block = kb.entry
    index = kb.index
    done = SharedOut()
    plan: dict[Operation, tuple[int, int]] = {}
    if sites and overlap is not None and overlap.enabled:
        plan = _plan(entry_block, parallel, solo, sites, overlap)

    def barrier_before(op: Operation) -> None:
        done.barriers += 1
        assert op.parent is not None
        op.parent.insert_op_before(func.CallOp(BARRIER, [team], []), op)

    def on_thread(block: Block, op: func.CallOp, slot: int) -> scf.IfOp:
        """Run ``op`` alone, on thread ``slot mod nthreads``."""
        if slot == 0:
            which = index(0)
        else:
            which = arith.RemUIOp(index(slot), count)
            block.insert_op_before(which, op)
        mine = arith.CmpiOp(tid, which, "eq")
        block.insert_op_before(mine, op)
        body = Block()
        guard = scf.IfOp(mine.result, [], Region(body))
        block.insert_op_before(guard, op)
        op.detach()
        counter: SSAValue = team
        if slot:
            get = func.CallOp(SOLO_TEAM, [team, index(slot)], [LLVMPointerType()])
            body.add_op(get)
            counter = get.results[0]
            done.solo_teams = True
        op.operands = [*op.operands, index(0), index(1), counter]
        # no barrier (which resets the chunk counter) may come before it
        body.add_ops([func.CallOp(RESET, [counter], []), op, scf.YieldOp()])
        done.resets = True
        return guard

    def visit(block: Block, last: str | None) -> str | None:
        """``last``: how the previous kernel ran (``"one"``: thread 0 alone,
        ``"all"``: shared, ``"side"``: in an overlapped segment) with no barrier
        since, or ``None``."""
        segment = -1
        for op in list(block.ops):
            if isinstance(op, func.CallOp) and op.callee.string_value() in parallel:
                placed = plan.get(op)
                if placed is not None:
                    seg, slot = placed
                    if seg != segment:
                        # the segment's calls may read what any thread wrote
                        if last is not None:
                            barrier_before(op)
                        segment = seg
                        done.segments.append([])
                    guard = on_thread(block, op, slot)
                    done.segments[-1].append(guard)
                    last = "side"
                    continue
                segment = -1
                together = parallel[op.callee.string_value()] and op not in solo
                if last is not None and (together or last in ("all", "side")):
                    barrier_before(op)
                if together:
                    op.operands = [*op.operands, tid, count, team]
                    last = "all"
                    continue
                on_thread(block, op, 0)
                last = "one"
            elif isinstance(op, scf.IfOp | memref.LoadOp):
                segment = -1
                # every thread reads the condition and runs the branches
                if last is not None:
                    barrier_before(op)
                    last = None
                if isinstance(op, scf.IfOp):
                    inner = [visit(b, None) for r in op.regions for b in r.blocks]
                    if any(x is not None for x in inner):
                        last = "all"
        return last

    visit(entry_block, None)
    return done


def _plan(
    block: Block,
    parallel: Mapping[str, bool],
    solo: set[func.CallOp],
    sites: Mapping[func.CallOp, CallSite],
    overlap: OverlapSettings,
) -> dict[Operation, tuple[int, int]]:
    """The segment and slot of each call of ``block`` that runs in an overlapped
    segment."""
    spans = _Spans()
    steps: list[Operation] = []
    items: list[CallFacts | None] = []
    for op in block.ops:
        spans.note(op)
        if isinstance(op, func.CallOp) and op.callee.string_value() in parallel:
            site = sites.get(op)
            if site is None:
                steps.append(op)
                items.append(None)
                continue
            writes = set(site.writes)
            reads = [v for v in op.operands if v not in writes]
            steps.append(op)
            items.append(
                CallFacts(
                    ns=site.ns,
                    shared=parallel[op.callee.string_value()] and op not in solo,
                    reads=tuple(s for v in reads if (s := spans.of(v)) is not None),
                    writes=tuple(
                        s for v in site.writes if (s := spans.of(v)) is not None
                    ),
                )
            )
        elif isinstance(op, scf.IfOp | memref.LoadOp):
            steps.append(op)
            items.append(None)
    slots = plan_overlap(items, overlap)
    return {op: s for op, s in zip(steps, slots, strict=True) if s is not None}


UNBOUNDED = 1 << 62


class _Spans:
    """The byte range of the host's buffers: an allocation is its own root, a
    ``memref.view`` at a constant offset the range it covers in its root, a reshape
    (``memref.reinterpret_cast``) its source's range, an argument the whole of
    itself; weights and the status block (globals) have none (nothing writes them
    while a segment runs)."""

    def __init__(self) -> None:
        self.known: dict[SSAValue, Span] = {}

    def note(self, op: Operation) -> None:
        if isinstance(op, memref.AllocOp):
            self.known[op.memref] = Span(op.memref, 0, _bytes(op.memref))
        elif isinstance(op, memref.ViewOp):
            base = self.of(op.source)
            shift = op.byte_shift.owner
            if base is None:
                return
            if isinstance(shift, arith.ConstantOp) and isinstance(
                shift.value, IntegerAttr
            ):
                lo = base.lo + shift.value.value.data
                self.known[op.result] = Span(base.root, lo, lo + _bytes(op.result))
            else:
                self.known[op.result] = base
        elif isinstance(op, memref.ReinterpretCastOp):
            base = self.of(op.source)
            if base is not None:
                self.known[op.result] = base

    def of(self, value: SSAValue) -> Span | None:
        span = self.known.get(value)
        if span is None and isinstance(value, BlockArgument):
            if isinstance(value.type, MemRefType):
                span = Span(value, 0, UNBOUNDED)
        return span


def _bytes(value: SSAValue) -> int:
    ty = value.type
    size = memref_bytes(ty) if isinstance(ty, MemRefType) else None
    return UNBOUNDED if size is None else size


def insert_deallocs(
    host: func.FuncOp, segments: Sequence[Sequence[Operation]] = ()
) -> None:
    """Free every allocation after the last top-level op using it (or a view of it;
    a use inside an ``scf.if`` counts as a use by the ``scf.if``). A use inside an
    overlapped segment counts as a use by the segment's last op: its calls run at
    the same time, so none of their buffers may be reused before it ends."""
    block = host.body.block
    end_of: dict[Operation, Operation] = {}
    for seg in segments:
        if not seg:
            continue
        first, last_op = seg[0], seg[-1]
        op: Operation | None = first
        while op is not None:
            end_of[op] = last_op
            if op is last_op:
                break
            op = op.next_op
    last: dict[SSAValue, Operation] = {}
    roots: dict[SSAValue, SSAValue] = {}
    for top in block.ops:
        if isinstance(top, memref.AllocOp):
            roots[top.memref] = top.memref
            last[top.memref] = end_of.get(top, top)
            continue
        for op in top.walk():
            if (
                isinstance(op, memref.ReinterpretCastOp | memref.ViewOp)
                and op.source in roots
            ):
                roots[op.result] = roots[op.source]
            for v in op.operands:
                root = roots.get(v)
                if root is not None:
                    last[root] = end_of.get(top, top)
    for root, op in last.items():
        block.insert_op_after(memref.DeallocOp.get(root), op)


__all__ = [
    "BARRIER",
    "RESET",
    "SOLO_TEAM",
    "THREAD_ARGS",
    "CallSite",
    "SharedOut",
    "insert_deallocs",
    "share_out",
]
