"""The thread team of compiled models: a small fork-join runtime written into the
model's own LLVM IR (no library to ship beside it, no C compiler needed for the JIT).

``void xrelay_entry(void **args, int64_t nthreads)`` is the one native call per run.
With ``nthreads <= 1`` it runs the host on the calling thread. Otherwise every thread
of a team of ``nthreads`` (the caller is thread 0) runs the host with its thread id:
kernels that can be shared out split their outer loops by thread id; the others run
on thread 0 alone (see :func:`xrelay.lowering.share_out.share_out`). On x86-64 Linux the
team's workers outlive the run (:mod:`xrelay.lowering.llvm.thread_pool`). Elsewhere
(this module) the entry starts ``nthreads - 1`` POSIX threads and joins them before
it returns, so nothing outlives the call. Either way a thread that cannot be started
is left out of the team (the team is sized by the threads actually running), so a
run never waits for a missing thread.

Threads meet at ``xrelay_barrier(team)``, a sense-reversing barrier on atomics: the
last thread to arrive resets the count and flips the sense, the others wait for the
sense to change. The started threads of a per-run team wait the same way for ``go``,
which the caller sets once the team is complete. Waiting is a bounded spin (the CPU's pause hint,
:data:`SPINS_BEFORE_PARK` tries), then parking, so that a waiting thread leaves the
core to the thread it waits for when the cores are shared (other processes, or a
team larger than the machine):

* on x86-64 Linux a waiter counts itself in ``sleepers`` and sleeps in
  ``futex(FUTEX_WAIT_PRIVATE)`` on the word (its low 32 bits: the words are 0 or 1)
  while it still holds the old value; whoever changes the word (the last thread into
  the barrier, the caller setting ``go``) calls ``futex(FUTEX_WAKE_PRIVATE)`` only
  when ``sleepers`` is not zero. The word's store and the counter's load, like the
  counter's increment and the word's load, are sequentially consistent, so either
  the waker sees the sleeper or the sleeper sees the new value (and the kernel
  refuses to sleep on a word that no longer holds the old value). The call is libc's
  ``syscall``, which the JIT finds in the process and the exported library gets
  from the C library it is linked with.
* elsewhere the waiter calls ``sched_yield`` and spins again.

The team (on the caller's stack, or in the persistent pool)::

    struct team { void **args; int64_t nthreads; int64_t count; int64_t sense;
                  int64_t go; int64_t next; int64_t sleepers;
                  int64_t solo[SOLO_SLOTS][8]; };

Kernels share out their parallel loop nest by claiming chunks of it:
``xrelay_claim(team, chunk)`` atomically adds ``chunk`` to ``next`` and returns the
old value (the first iteration of the claimed chunk). The last thread into a barrier
resets ``next`` (every thread is inside the barrier then), and ``xrelay_reset(team)``
resets it before a kernel that thread 0 runs alone. A kernel that one thread runs
beside others (an overlapped segment's slot ``s``,
:mod:`xrelay.lowering.share_out`) claims from ``solo[s]`` instead, which
``xrelay_solo_team(team, s)`` returns: 64 bytes laid out like the team's first
fields, so ``xrelay_claim`` and ``xrelay_reset`` find its own ``next``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import llvmlite.ir as ir

ENTRY = "xrelay_entry"
"""``void xrelay_entry(void **args, int64_t nthreads)``."""
RUN = "xrelay_run"
"""``void xrelay_run(void **args, int64_t tid, int64_t nthreads, team *t)``: one
thread's share of a run (made from the host by
:func:`xrelay.lowering.llvm.host_abi.add_entry_point`)."""
BARRIER = "xrelay_barrier"
CLAIM = "xrelay_claim"
RESET = "xrelay_reset"
SOLO_TEAM = "xrelay_solo_team"
"""``ptr xrelay_solo_team(team *t, int64_t slot)``: the chunk counter of a slot of
an overlapped segment (a 64-byte block laid out like the team's first fields)."""
CLOCK = "xrelay_clock"
"""``int64_t xrelay_clock(void)``: ``CLOCK_MONOTONIC`` in nanoseconds, for profiled
builds (declared by their host only)."""
CLOCK_MONOTONIC = 1
"""Linux's id of the monotonic clock."""

I64 = ir.IntType(64)
I32 = ir.IntType(32)
PTR = ir.PointerType()
SOLO_SLOTS = 4
"""Slots of an overlapped segment (:data:`xrelay.lowering.work.MAX_SLOTS`)."""
SOLO = ir.ArrayType(ir.ArrayType(I64, 8), SOLO_SLOTS)
TEAM = ir.LiteralStructType([PTR, I64, I64, I64, I64, I64, I64, SOLO])
ARGS, NTHREADS, COUNT, SENSE, GO, NEXT, SLEEPERS, SOLO_COUNTERS = range(8)
"""The fields of the team, in order (see the module docstring)."""
WORKER = ir.LiteralStructType([PTR, I64])
"""A started thread's argument: its team and id."""
SPINS_BEFORE_PARK = 1024
"""Pause-hint tries before a waiting thread parks (futex) or yields."""
SYS_FUTEX = 202
"""x86-64 Linux's number of the futex system call."""
FUTEX_WAIT_PRIVATE = 128
FUTEX_WAKE_PRIVATE = 129
WAKE_ALL = 0x7FFFFFFF


def _field(b: ir.IRBuilder, team: ir.Value, k: int) -> ir.Value:
    return b.gep(team, [I32(0), I32(k)], inbounds=True, source_etype=TEAM)


def _store_atomic(
    b: ir.IRBuilder, value: ir.Value, ptr: ir.Value, ordering: str
) -> None:
    """An atomic 8-byte store (llvmlite's own helper needs typed pointers)."""
    b._insert(  # pyright: ignore[reportPrivateUsage]
        ir.instructions.StoreAtomicInstr(b.block, value, ptr, ordering, 8)
    )


def _alloca(b: ir.IRBuilder, typ: ir.Type, count: ir.Value | None = None) -> ir.Value:
    """``alloca`` giving an opaque ``ptr`` (llvmlite types it ``T*``)."""
    slot = b.alloca(typ, count)
    slot.type = PTR
    return slot


def _reset_next(b: ir.IRBuilder, team: ir.Value) -> None:
    """Zero the team's chunk counter."""
    _store_atomic(b, I64(0), _field(b, team, NEXT), "monotonic")


def _function(
    module: ir.Module, name: str, ret: ir.Type, args: list[ir.Type]
) -> ir.Function:
    existing = module.globals.get(name)
    if isinstance(existing, ir.Function):
        return existing
    return ir.Function(module, ir.FunctionType(ret, args), name)


def _triple(module: ir.Module) -> str:
    triple = module.triple or ""
    if not triple:
        import llvmlite.binding as llvm

        triple = llvm.get_default_triple()
    return triple


def parks_with_futex(module: ir.Module) -> bool:
    """Whether waiting threads of ``module`` sleep in futex (x86-64 Linux) rather
    than yield."""
    triple = _triple(module)
    return triple.startswith("x86_64") and "linux" in triple


def _pause(module: ir.Module, b: ir.IRBuilder) -> None:
    """The spin-wait hint where the target has one (x86's ``pause``)."""
    if _triple(module).startswith(("x86_64", "i386", "i686")):
        fn = _function(module, "llvm.x86.sse2.pause", ir.VoidType(), [])
        b.call(fn, [])


def _futex(
    module: ir.Module, b: ir.IRBuilder, word: ir.Value, op: int, value: int | ir.Value
) -> None:
    """``syscall(SYS_futex, word, op, value, NULL)``."""
    syscall = module.globals.get("syscall")
    if not isinstance(syscall, ir.Function):
        syscall = ir.Function(
            module, ir.FunctionType(I64, [I64], var_arg=True), "syscall"
        )
    arg = I64(value) if isinstance(value, int) else value
    b.call(syscall, [I64(SYS_FUTEX), word, I64(op), arg, ir.Constant(PTR, None)])


def _wait_while(
    module: ir.Module,
    fn: ir.Function,
    b: ir.IRBuilder,
    done: ir.Block,
    team: ir.Value,
    word_at: ir.Value,
    old: ir.Value,
) -> None:
    """Wait while the team's word at ``word_at`` holds ``old`` (spin, then park: see
    the module docstring), then branch to ``done``."""
    wait_until(
        module,
        fn,
        b,
        done,
        _field(b, team, SLEEPERS),
        word_at,
        lambda b, now: b.icmp_unsigned("!=", now, old),
    )


def wait_until(
    module: ir.Module,
    fn: ir.Function,
    b: ir.IRBuilder,
    done: ir.Block,
    sleepers_at: ir.Value,
    word_at: ir.Value,
    settled: Callable[[ir.IRBuilder, ir.Value], ir.Value],
    spins: int | ir.Value = SPINS_BEFORE_PARK,
    yield_every: int = 0,
) -> None:
    """Wait until ``settled(b, word)`` (an ``i1``) holds for the 8-byte word at
    ``word_at``, then branch to ``done``: spin ``spins`` pause hints, then park (x86-64
    Linux: count in ``sleepers_at`` and sleep in futex on the word while it holds
    the value last seen; elsewhere yield) -- see the module docstring. Whoever
    changes the word wakes the sleepers (:func:`publish`). ``yield_every`` (a power
    of two): also call ``sched_yield`` every that many pauses of the spin, so that
    a spinning thread leaves its core to any other thread ready to run there."""
    entry = b.block
    test = fn.append_basic_block("spin.test")
    wait = fn.append_basic_block("spin.wait")
    park = fn.append_basic_block("park")
    limit = I64(spins) if isinstance(spins, int) else spins
    b.branch(test)
    b.position_at_end(test)
    count = b.phi(I64, "spins")
    count.add_incoming(I64(0), entry)
    now = b.load_atomic(word_at, "acquire", 8, typ=I64)
    b.cbranch(settled(b, now), done, wait)
    b.position_at_end(wait)
    more = b.add(count, I64(1))
    long_wait = b.icmp_unsigned(">=", more, limit)
    pause = fn.append_basic_block("spin.pause")
    b.cbranch(long_wait, park, pause)
    b.position_at_end(pause)
    _pause(module, b)
    if yield_every:
        assert yield_every & (yield_every - 1) == 0, yield_every
        polite = fn.append_basic_block("spin.yield")
        spun = fn.append_basic_block("spin.next")
        turn = b.and_(more, I64(yield_every - 1))
        b.cbranch(b.icmp_unsigned("==", turn, I64(0)), polite, spun)
        b.position_at_end(polite)
        b.call(_function(module, "sched_yield", I32, []), [])
        b.branch(spun)
        b.position_at_end(spun)
    b.branch(test)
    count.add_incoming(more, b.block)
    b.position_at_end(park)
    if not parks_with_futex(module):
        sched_yield = _function(module, "sched_yield", I32, [])
        b.call(sched_yield, [])
        b.branch(test)
        count.add_incoming(I64(0), park)
        return
    b.atomic_rmw("add", sleepers_at, I64(1), "seq_cst")
    check = fn.append_basic_block("park.test")
    sleep = fn.append_basic_block("park.sleep")
    awake = fn.append_basic_block("park.awake")
    b.branch(check)
    b.position_at_end(check)
    now = b.load_atomic(word_at, "seq_cst", 8, typ=I64)
    b.cbranch(settled(b, now), awake, sleep)
    b.position_at_end(sleep)  # woken, refused (the word changed) or interrupted
    _futex(module, b, word_at, FUTEX_WAIT_PRIVATE, now)
    b.branch(check)
    b.position_at_end(awake)
    b.atomic_rmw("sub", sleepers_at, I64(1), "monotonic")
    b.branch(done)


def _publish(
    module: ir.Module,
    b: ir.IRBuilder,
    team: ir.Value,
    word_at: ir.Value,
    value: ir.Value,
) -> None:
    """Store ``value`` into the team's word at ``word_at`` and wake its sleepers."""
    publish(module, b, _field(b, team, SLEEPERS), word_at, value)


def publish(
    module: ir.Module,
    b: ir.IRBuilder,
    sleepers_at: ir.Value,
    word_at: ir.Value,
    value: ir.Value,
) -> None:
    """Store ``value`` into the word at ``word_at`` and wake the threads that
    :func:`wait_until` parked on it (counted in ``sleepers_at``)."""
    if not parks_with_futex(module):
        _store_atomic(b, value, word_at, "release")
        return
    _store_atomic(b, value, word_at, "seq_cst")
    wake_sleepers(module, b, sleepers_at, word_at)


def wake_sleepers(
    module: ir.Module, b: ir.IRBuilder, sleepers_at: ir.Value, word_at: ir.Value
) -> None:
    """After a sequentially consistent change of the word at ``word_at``: wake the
    threads parked on it, with one futex call only if ``sleepers_at`` counts any."""
    if not parks_with_futex(module):
        return
    sleepers = b.load_atomic(sleepers_at, "seq_cst", 8, typ=I64)
    wake = b.append_basic_block("wake")
    woken = b.append_basic_block("woken")
    b.cbranch(b.icmp_unsigned("!=", sleepers, I64(0)), wake, woken)
    b.position_at_end(wake)
    _futex(module, b, word_at, FUTEX_WAKE_PRIVATE, WAKE_ALL)
    b.branch(woken)
    b.position_at_end(woken)


def add_barrier(module: ir.Module) -> ir.Function:
    """Define ``void xrelay_barrier(team *t)`` in ``module`` (or give the existing
    definition)."""
    fn = _function(module, BARRIER, ir.VoidType(), [PTR])
    if not fn.is_declaration:
        return fn
    fn.linkage = "internal"
    # called once per layer by the host: inlined there, its ~80 lines of IR per call
    # made LLVM's work on the host grow with the layers (BERT-small: 86 calls, 60% of
    # the module after O3), for a call that costs nanoseconds next to a barrier
    fn.attributes.add("noinline")
    (team,) = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    done = fn.append_basic_block("done")
    sync = fn.append_basic_block("sync")
    n = b.load(_field(b, team, NTHREADS), typ=I64)
    alone = fn.append_basic_block("alone")
    b.cbranch(b.icmp_unsigned("<=", n, I64(1)), alone, sync)

    b.position_at_end(alone)  # a team of one: only the chunk counter to reset
    _reset_next(b, team)
    b.branch(done)

    b.position_at_end(sync)
    sense_at = _field(b, team, SENSE)
    count_at = _field(b, team, COUNT)
    sense = b.load_atomic(sense_at, "acquire", 8, typ=I64)
    arrived = b.atomic_rmw("add", count_at, I64(1), "acq_rel")
    last = b.icmp_unsigned("==", arrived, b.sub(n, I64(1)))
    release = fn.append_basic_block("release")
    wait = fn.append_basic_block("wait")
    b.cbranch(last, release, wait)

    b.position_at_end(release)
    _store_atomic(b, I64(0), count_at, "monotonic")
    _reset_next(b, team)
    flipped_sense = cast(ir.Value, b.xor(sense, I64(1)))
    _publish(module, b, team, sense_at, flipped_sense)
    b.branch(done)

    b.position_at_end(wait)
    _wait_while(module, fn, b, done, team, sense_at, sense)
    b.position_at_end(done)
    b.ret_void()
    return fn


def add_chunks(module: ir.Module) -> None:
    """Define ``int64_t xrelay_claim(team *t, int64_t chunk)`` and ``void
    xrelay_reset(team *t)`` in ``module`` (where declared, or not yet there)."""
    claim = _function(module, CLAIM, I64, [PTR, I64])
    if claim.is_declaration:
        claim.linkage = "internal"
        b = ir.IRBuilder(claim.append_basic_block("entry"))
        team, chunk = claim.args
        b.ret(b.atomic_rmw("add", _field(b, team, NEXT), chunk, "monotonic"))
    reset = _function(module, RESET, ir.VoidType(), [PTR])
    if reset.is_declaration:
        reset.linkage = "internal"
        b = ir.IRBuilder(reset.append_basic_block("entry"))
        _reset_next(b, reset.args[0])
        b.ret_void()
    solo = module.globals.get(SOLO_TEAM)
    if isinstance(solo, ir.Function) and solo.is_declaration:
        solo.linkage = "internal"
        b = ir.IRBuilder(solo.append_basic_block("entry"))
        team, slot = solo.args
        # the host passes constants below SOLO_SLOTS; the remainder keeps any
        # other value inside the team
        which = b.urem(slot, I64(SOLO_SLOTS))
        b.ret(
            b.gep(
                team,
                [I32(0), I32(SOLO_COUNTERS), which],
                inbounds=True,
                source_etype=TEAM,
            )
        )


def add_clock(module: ir.Module) -> None:
    """Define ``xrelay_clock`` where the module declares it (a profiled build):
    ``clock_gettime(CLOCK_MONOTONIC)`` as nanoseconds (a vDSO call, some tens of
    nanoseconds)."""
    clock = module.globals.get(CLOCK)
    if not isinstance(clock, ir.Function) or not clock.is_declaration:
        return
    clock.linkage = "internal"
    timespec = ir.LiteralStructType([I64, I64])
    gettime = _function(module, "clock_gettime", I32, [I32, PTR])
    b = ir.IRBuilder(clock.append_basic_block("entry"))
    ts = _alloca(b, timespec)
    b.call(gettime, [I32(CLOCK_MONOTONIC), ts])
    sec_at = b.gep(ts, [I32(0), I32(0)], inbounds=True, source_etype=timespec)
    nsec_at = b.gep(ts, [I32(0), I32(1)], inbounds=True, source_etype=timespec)
    sec = b.load(sec_at, typ=I64)
    nsec = b.load(nsec_at, typ=I64)
    b.ret(b.add(b.mul(sec, I64(1_000_000_000)), nsec))


def add_team(module: ir.Module) -> ir.Function:
    """Define ``xrelay_entry(args, nthreads)`` (see the module docstring) around the
    ``xrelay_run`` already in ``module``."""
    run = module.globals.get(RUN)
    if not isinstance(run, ir.Function):
        raise LookupError(f"the module has no @{RUN}")
    add_barrier(module)
    add_chunks(module)
    add_clock(module)
    if parks_with_futex(module):
        from xrelay.lowering.llvm.thread_pool import add_pool_entry

        entry = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, I64]), ENTRY)
        entry.args[0].name, entry.args[1].name = "args", "nthreads"
        add_pool_entry(module, run, entry)
        return entry
    pthread_create = _function(module, "pthread_create", I32, [PTR, PTR, PTR, PTR])
    pthread_join = _function(module, "pthread_join", I32, [I64, PTR])

    # the started threads: wait for the team to be complete, then run
    worker = ir.Function(module, ir.FunctionType(PTR, [PTR]), "xrelay_worker")
    worker.linkage = "internal"
    b = ir.IRBuilder(worker.append_basic_block("entry"))
    me = worker.args[0]
    team = b.load(
        b.gep(me, [I32(0), I32(0)], inbounds=True, source_etype=WORKER), typ=PTR
    )
    tid = b.load(
        b.gep(me, [I32(0), I32(1)], inbounds=True, source_etype=WORKER), typ=I64
    )
    go_at = _field(b, team, GO)
    start = worker.append_basic_block("start")

    _wait_while(module, worker, b, start, team, go_at, I64(0))
    b.position_at_end(start)
    args = b.load(_field(b, team, ARGS), typ=PTR)
    n = b.load(_field(b, team, NTHREADS), typ=I64)
    b.call(run, [args, tid, n, team])
    b.ret(ir.Constant(PTR, None))

    entry = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, I64]), ENTRY)
    args, requested = entry.args
    args.name, requested.name = "args", "nthreads"
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    team_ptr = _alloca(b, TEAM)
    for k, value in enumerate([args, I64(1), *[I64(0)] * 5]):
        b.store(value, _field(b, team_ptr, k))
    alone = entry.append_basic_block("alone")
    spawn = entry.append_basic_block("spawn")
    b.cbranch(b.icmp_signed("<=", requested, I64(1)), alone, spawn)

    b.position_at_end(alone)
    b.call(run, [args, I64(0), I64(1), team_ptr])
    b.ret_void()

    # start threads 1 .. requested-1; a thread that fails to start ends the team
    b.position_at_end(spawn)
    extra = b.sub(requested, I64(1))
    handles = _alloca(b, I64, extra)
    workers = _alloca(b, WORKER, extra)
    head = entry.append_basic_block("start.head")
    body = entry.append_basic_block("start.body")
    started_ok = entry.append_basic_block("start.ok")
    go = entry.append_basic_block("go")
    b.branch(head)
    b.position_at_end(head)
    k = b.phi(I64, "k")
    k.add_incoming(I64(0), spawn)
    b.cbranch(b.icmp_signed("<", k, extra), body, go)
    b.position_at_end(body)
    slot = b.gep(workers, [k], inbounds=True, source_etype=WORKER)
    b.store(team_ptr, b.gep(slot, [I32(0), I32(0)], inbounds=True, source_etype=WORKER))
    tid_at = b.gep(slot, [I32(0), I32(1)], inbounds=True, source_etype=WORKER)
    b.store(b.add(k, I64(1)), tid_at)
    handle = b.gep(handles, [k], inbounds=True, source_etype=I64)
    err = b.call(pthread_create, [handle, ir.Constant(PTR, None), worker, slot])
    b.cbranch(b.icmp_signed("==", err, I32(0)), started_ok, go)
    b.position_at_end(started_ok)
    next_k = b.add(k, I64(1))
    k.add_incoming(next_k, started_ok)
    b.branch(head)

    # the team is the caller and the threads started: size it, let them go
    b.position_at_end(go)
    started = b.phi(I64, "started")
    started.add_incoming(k, head)
    started.add_incoming(k, body)
    team_n = b.add(started, I64(1))
    b.store(team_n, _field(b, team_ptr, NTHREADS))
    _publish(module, b, team_ptr, _field(b, team_ptr, GO), I64(1))
    b.call(run, [args, I64(0), team_n, team_ptr])
    ran = b.block
    join_head = entry.append_basic_block("join.head")
    join_body = entry.append_basic_block("join.body")
    done = entry.append_basic_block("done")
    b.branch(join_head)
    b.position_at_end(join_head)
    j = b.phi(I64, "j")
    j.add_incoming(I64(0), ran)
    b.cbranch(b.icmp_signed("<", j, started), join_body, done)
    b.position_at_end(join_body)
    joined = b.load(b.gep(handles, [j], inbounds=True, source_etype=I64), typ=I64)
    b.call(pthread_join, [joined, ir.Constant(PTR, None)])
    j.add_incoming(b.add(j, I64(1)), join_body)
    b.branch(join_head)
    b.position_at_end(done)
    b.ret_void()
    return entry


def runtime_ir(triple: str = "") -> str:
    """LLVM IR text of ``xrelay_barrier``, ``xrelay_claim`` and ``xrelay_reset``
    (external) and their declarations, without a module header: to append to the
    LLVM IR of code that other tools (MLIR) lowered and that calls them."""
    module = ir.Module("xrelay_runtime")
    module.triple = triple
    add_barrier(module).linkage = "external"
    _function(module, SOLO_TEAM, PTR, [PTR, I64])
    add_chunks(module)
    for name in (CLAIM, RESET, SOLO_TEAM):
        fn = module.globals[name]
        assert isinstance(fn, ir.Function)
        fn.linkage = "external"
    header = ("; ModuleID", "target triple", "target datalayout")
    lines = str(module).splitlines()
    return "\n".join(line for line in lines if not line.startswith(header)) + "\n"


__all__ = [
    "BARRIER",
    "CLAIM",
    "CLOCK",
    "ENTRY",
    "RESET",
    "RUN",
    "SOLO_TEAM",
    "add_barrier",
    "add_chunks",
    "add_clock",
    "add_team",
    "parks_with_futex",
    "runtime_ir",
]
