"""Independent kernel calls run side by side: which calls of a host go to which
thread when the team overlaps them instead of sharing each one.

A team runs a host's kernel calls in program order. A call big enough to share is
split between every thread, with a barrier before the next call; a small one runs
on thread 0 alone (:func:`xrelay.lowering.work.worth_sharing`). Where consecutive
calls are independent (the branches of an Inception block, the projections of a
block's inputs), the team can instead run them at the same time, each on one
thread ("slots" of a segment), and meet once at the end: two 20 us kernels then
cost about 20 us and one barrier, against about 2 x 13 us and two barriers shared.

:func:`plan_overlap` makes that choice over the host's calls in program order. It
cuts them into segments (a barrier between two) at forks and joins, and inside a
segment follows branches: a call depending on calls of one branch (it reads or
writes a byte range such a call writes, or writes one it reads) continues that
branch; a call depending on none starts one. The branches of a finished segment go
to the slots, the longest first, each to the least loaded slot, and the segment
keeps that plan only when its estimated time (the busiest slot plus one barrier)
beats the calls run the usual way (shared calls at
:meth:`OverlapSettings.shared_ns` plus a barrier each, the others alone);
otherwise its calls run as before. Calls of at least ``max_ns`` never take part:
big kernels share out well.

Threads never race on memory in an overlapped segment: calls of different slots
touch disjoint byte ranges, or only read the same ones; buffers used inside a
segment stay allocated until its end (:func:`xrelay.lowering.share_out.insert_deallocs`),
so the memory planner cannot give one slot's free buffer to another slot's call.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """Bytes ``[lo, hi)`` of the buffer ``root``."""

    root: Hashable
    lo: int
    hi: int

    def meets(self, other: Span) -> bool:
        return self.root == other.root and self.lo < other.hi and other.lo < self.hi


@dataclass(frozen=True)
class OverlapSettings:
    """The host's figures for :func:`plan_overlap`."""

    slots: int
    """Calls a segment may run side by side (at most the team's threads)."""
    max_ns: float
    """Calls estimated at this or more never take part (``0``: no overlap)."""
    threads: int
    """The team that shares a call the usual way."""
    barrier_ns: float
    """What a barrier costs."""
    extra: float = 0.15
    """A shared call costs its time over ``threads`` plus this fraction of it..."""
    extra_max_ns: float = 7_500.0
    """...but at most this much (balance and barriers cost the same on big calls)."""

    @property
    def enabled(self) -> bool:
        """Whether any call may run side by side (two slots and a bound)."""
        return self.slots >= 2 and self.max_ns > 0

    def shared_ns(self, ns: float) -> float:
        """The estimated time of a call of ``ns`` shared by the team."""
        return ns / max(self.threads, 1) + min(self.extra * ns, self.extra_max_ns)


@dataclass(frozen=True)
class CallFacts:
    """What the planner knows of one kernel call."""

    ns: float
    """Estimated one-thread time (:func:`xrelay.lowering.work.kernel_ns`)."""
    shared: bool
    """Whether the call would otherwise be shared by the whole team."""
    reads: tuple[Span, ...] = ()
    writes: tuple[Span, ...] = ()


def _depends(later: CallFacts, earlier: CallFacts) -> bool:
    """Whether ``later`` must run after ``earlier``: it reads what ``earlier``
    writes, or writes what ``earlier`` reads or writes."""
    return any(
        w.meets(s) for w in later.writes for s in (*earlier.reads, *earlier.writes)
    ) or any(r.meets(w) for r in later.reads for w in earlier.writes)


def plan_overlap(
    items: Sequence[CallFacts | None], settings: OverlapSettings
) -> list[tuple[int, int] | None]:
    """The segment and slot of each item (``None``: run it the usual way), segments
    numbered from 0 in order. ``items`` are the host's top-level steps in program
    order: a call's facts, or ``None`` for a step every thread takes part in (a
    condition, a branch), which ends a segment; so does a call of ``max_ns`` or
    more."""
    plan: list[tuple[int, int] | None] = [None] * len(items)
    if not settings.enabled:
        return plan
    run: list[int] = []
    segments = [0]
    for i, facts in enumerate(items):
        if facts is None or facts.ns >= settings.max_ns:
            _plan_run(items, run, settings, plan, segments)
            run = []
        else:
            run.append(i)
    _plan_run(items, run, settings, plan, segments)
    return plan


def _plan_run(
    items: Sequence[CallFacts | None],
    run: list[int],
    settings: OverlapSettings,
    plan: list[tuple[int, int] | None],
    segments: list[int],
) -> None:
    """Plan one run of consecutive candidate calls (indices into ``items``).

    Segments are cut where the dependences fork and join: before the first
    consumer of a call that has two independent consumers (so that the branches
    start together), and before a call that depends on calls of two branches.
    Inside a segment a call depending on one branch's calls continues it, a call
    depending on none starts a branch; the branches then go to the slots
    (:func:`_assign`)."""
    calls = [items[i] for i in run]
    n = len(calls)
    if n < 2:
        return
    deps = [0] * n
    reach = [0] * n
    for j in range(n):
        cj = calls[j]
        assert cj is not None
        for k in range(j):
            ck = calls[k]
            assert ck is not None
            if _depends(cj, ck):
                deps[j] |= 1 << k
                reach[j] |= (1 << k) | reach[k]
    consumers: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        for k in range(j):
            if deps[j] >> k & 1:
                consumers[k].append(j)
    forks = 0
    for k, cons in enumerate(consumers):
        if any(
            not (reach[b] >> a & 1) for x, a in enumerate(cons) for b in cons[x + 1 :]
        ):
            forks |= 1 << k

    branch: dict[int, int] = {}
    """The branch of each call of the current segment (by position in the run): a
    call depending on no call of the segment starts one, a call depending on calls
    of one branch continues it."""
    count = 0

    def close() -> None:
        nonlocal count
        if count >= 2:
            _assign(calls, run, branch, count, settings, plan, segments)
        branch.clear()
        count = 0

    for j in range(n):
        inside = [k for k in branch if deps[j] >> k & 1]
        if any(forks >> k & 1 for k in inside):
            close()
            inside = []
        joined = sorted({branch[k] for k in inside})
        if len(joined) > 1:
            close()
            joined = []
        if joined:
            branch[j] = joined[0]
        else:
            branch[j] = count
            count += 1
    close()


def _assign(
    calls: Sequence[CallFacts | None],
    run: list[int],
    branch: dict[int, int],
    count: int,
    settings: OverlapSettings,
    plan: list[tuple[int, int] | None],
    segments: list[int],
) -> None:
    """Give the ``count`` branches of a finished segment to the slots, the longest
    first, each to the least loaded slot (a branch runs on one thread in program
    order); keep the plan when its estimate beats the usual way."""
    work = [0.0] * count
    usual = 0.0
    for j, b in branch.items():
        c = calls[j]
        assert c is not None
        work[b] += c.ns
        if c.shared:
            usual += settings.shared_ns(c.ns) + settings.barrier_ns
        else:
            usual += c.ns
    load = [0.0] * settings.slots
    slot_of = [0] * count
    for b in sorted(range(count), key=lambda b: (-work[b], b)):
        s = min(range(settings.slots), key=lambda s: (load[s], s))
        slot_of[b] = s
        load[s] += work[b]
    if sum(1 for x in load if x > 0) < 2:
        return
    if max(load) + settings.barrier_ns < usual:
        for j, b in branch.items():
            plan[run[j]] = (segments[0], slot_of[b])
        segments[0] += 1


__all__ = ["CallFacts", "OverlapSettings", "Span", "plan_overlap"]
