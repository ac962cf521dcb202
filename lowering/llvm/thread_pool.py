"""The persistent thread team of compiled models on x86-64 Linux: worker threads
started once per model (lazily, by the first run that asks for more than one
thread), kept across runs and parked in futex between them.

``xrelay_entry(args, nthreads)`` with ``nthreads > 1``:

1. takes the model's pool: ``lock`` goes from 0 to the caller's process id
   (``getpid``). A pool another thread of this process holds (a concurrent run of
   the same model) is not waited for: the run goes on alone on its calling thread.
   A lock holding another process's id was copied by ``fork`` from a parent in
   which a thread held it: the child takes it over.
2. forgets the workers when ``pid`` is not the caller's process (a forked child
   inherits the pool's memory but none of its threads), then starts the workers the
   run lacks (ids ``started + 1 .. nthreads - 1``); a thread that cannot be started
   leaves the team smaller (the run is sized by the workers running);
3. fills the pool's team (args, size ``n``), sets ``pending = n - 1`` and publishes
   the run: ``epoch`` becomes ``generation * EPOCH_STRIDE + n`` (one word, so a
   worker reads the run's size with the run; ``n = 0`` tells the workers to end),
   waking parked workers;
4. runs thread 0's share, waits (spin, then park) until ``pending`` is 0 -- every
   worker of the run has finished it and touches nothing of it any more -- and
   releases the lock.

A worker waits for ``epoch`` to change (``SPINS_BETWEEN_RUNS`` pause hints, with a
``sched_yield`` every ``YIELD_EVERY`` of them, then it parks), reads the run's size from it, and if its id is in the team runs its share
and counts down ``pending`` (the last one wakes a parked caller); a worker outside
a smaller team goes back to waiting at once (it parks without spinning).

``xrelay_shutdown()`` takes the lock (waiting for a run of another thread to end),
publishes ``n = 0``, joins the workers and forgets them; a later run starts them
again. It is the exported library's destructor (``llvm.global_dtors``: run by
``dlclose`` and at process exit) and the runtime calls it before it frees a JIT
engine (:class:`xrelay.runtime.jit.JITModule`). In a forked child it only forgets
the parent's workers.

Everything lives in one zero-initialised internal global per model (its host
part), :data:`POOL`.
"""

from __future__ import annotations

from typing import cast

import llvmlite.ir as ir

from xrelay.lowering.llvm.threads import (
    ARGS,
    COUNT,
    I32,
    I64,
    NEXT,
    NTHREADS,
    PTR,
    SLEEPERS,
    TEAM,
    _alloca,  # pyright: ignore[reportPrivateUsage]
    _function,  # pyright: ignore[reportPrivateUsage]
    _store_atomic,  # pyright: ignore[reportPrivateUsage]
    publish,
    wait_until,
    wake_sleepers,
)

POOL_NAME = "xrelay_pool"
SHUTDOWN = "xrelay_shutdown"
"""``void xrelay_shutdown(void)``: stop and join the model's workers."""
DTOR = "xrelay_pool_dtor"
WORKER = "xrelay_worker"
MAX_TEAM = 256
"""The largest team (:data:`xrelay.runtime.threads.MAX_THREADS`)."""
EPOCH_STRIDE = 512
"""``epoch = generation * EPOCH_STRIDE + team size`` (a size is at most 256)."""
SPINS_BETWEEN_RUNS = 8192
"""Pause hints a worker spins after a run, waiting for the next one, before it
parks: about 290 µs at 35 ns a pause on the AMD EPYC of these machines
(docs/decisions.md, Threads)."""

YIELD_EVERY = 64
"""A worker spinning between runs calls ``sched_yield`` every this many pauses
(about 2 µs): a thread ready to run on its core (the caller back in Python, when
the team shares a core) gets it at once instead of after the spin."""

POOL = ir.LiteralStructType([TEAM, *[I64] * 8, ir.ArrayType(I64, MAX_TEAM - 1)])
"""``{ team, lock, pid, started, epoch, born, idle_sleepers, pending,
caller_sleepers, handles[MAX_TEAM - 1] }``."""
(
    P_TEAM,
    P_LOCK,
    P_PID,
    P_STARTED,
    P_EPOCH,
    P_BORN,
    P_IDLE_SLEEPERS,
    P_PENDING,
    P_CALLER_SLEEPERS,
    P_HANDLES,
) = range(10)


def _at(b: ir.IRBuilder, pool: ir.Value, k: int) -> ir.Value:
    return b.gep(pool, [I32(0), I32(k)], inbounds=True, source_etype=POOL)


def _team_at(b: ir.IRBuilder, pool: ir.Value, k: int) -> ir.Value:
    return b.gep(pool, [I32(0), I32(P_TEAM), I32(k)], inbounds=True, source_etype=POOL)


def _handle_at(b: ir.IRBuilder, pool: ir.Value, k: ir.Value) -> ir.Value:
    return b.gep(pool, [I32(0), I32(P_HANDLES), k], inbounds=True, source_etype=POOL)


def _pool(module: ir.Module) -> ir.GlobalVariable:
    existing = module.globals.get(POOL_NAME)
    if isinstance(existing, ir.GlobalVariable):
        return existing
    pool = ir.GlobalVariable(module, POOL, POOL_NAME)
    pool.linkage = "internal"
    pool.initializer = ir.Constant(POOL, None)  # pyright: ignore[reportAttributeAccessIssue]
    pool.align = 64  # pyright: ignore[reportAttributeAccessIssue]
    pool.type = PTR  # opaque, as every pointer here (llvmlite types it POOL*)
    return pool


def _getpid(module: ir.Module, b: ir.IRBuilder) -> ir.Value:
    getpid = _function(module, "getpid", I32, [])
    return cast(ir.Value, b.sext(b.call(getpid, []), I64))


def _take_lock(
    fn: ir.Function, b: ir.IRBuilder, pool: ir.Value, me: ir.Value, busy: ir.Block
) -> None:
    """Take the pool's lock for process ``me``; branch to ``busy`` if another thread
    of this process holds it, else go on in a new block holding it."""
    lock_at = _at(b, pool, P_LOCK)
    first = b.cmpxchg(lock_at, I64(0), me, "acquire", "monotonic")
    held = fn.append_basic_block("lock.held")
    stale = fn.append_basic_block("lock.stale")
    taken = fn.append_basic_block("lock.taken")
    b.cbranch(b.extract_value(first, 1), taken, held)
    b.position_at_end(held)
    owner = b.extract_value(first, 0)
    b.cbranch(b.icmp_unsigned("==", owner, me), busy, stale)
    b.position_at_end(stale)  # copied by fork from a parent's running thread
    second = b.cmpxchg(lock_at, owner, me, "acquire", "monotonic")
    b.cbranch(b.extract_value(second, 1), taken, busy)
    b.position_at_end(taken)


def _release_lock(b: ir.IRBuilder, pool: ir.Value) -> None:
    _store_atomic(b, I64(0), _at(b, pool, P_LOCK), "release")


def _adopt(fn: ir.Function, b: ir.IRBuilder, pool: ir.Value, me: ir.Value) -> None:
    """Holding the lock: forget workers started by another process (a fork's
    parent) and make the pool this process's."""
    pid_at = _at(b, pool, P_PID)
    foreign = fn.append_basic_block("pool.foreign")
    ours = fn.append_basic_block("pool.ours")
    b.cbranch(b.icmp_unsigned("!=", b.load(pid_at, typ=I64), me), foreign, ours)
    b.position_at_end(foreign)
    for k in (P_STARTED, P_IDLE_SLEEPERS, P_PENDING, P_CALLER_SLEEPERS):
        b.store(I64(0), _at(b, pool, k))
    for k in (COUNT, NEXT, SLEEPERS):
        b.store(I64(0), _team_at(b, pool, k))
    b.store(me, pid_at)
    b.branch(ours)
    b.position_at_end(ours)


def _next_epoch(b: ir.IRBuilder, pool: ir.Value, n: ir.Value) -> ir.Value:
    """The epoch of the next run of ``n`` threads (0: the workers' end)."""
    epoch = b.load(_at(b, pool, P_EPOCH), typ=I64)
    generation = b.udiv(epoch, I64(EPOCH_STRIDE))
    return cast(ir.Value, b.add(b.mul(b.add(generation, I64(1)), I64(EPOCH_STRIDE)), n))


def _add_worker(module: ir.Module, pool: ir.Value, run: ir.Function) -> ir.Function:
    """``void *xrelay_worker(void *id)``: the loop of worker ``id`` (1 ..)."""
    worker = ir.Function(module, ir.FunctionType(PTR, [PTR]), WORKER)
    worker.linkage = "internal"
    b = ir.IRBuilder(worker.append_basic_block("entry"))
    tid = b.ptrtoint(worker.args[0], I64)
    born = b.load(_at(b, pool, P_BORN), typ=I64)
    entry = b.block
    idle = worker.append_basic_block("idle")
    start = worker.append_basic_block("start")
    b.branch(idle)

    b.position_at_end(idle)  # wait for the epoch to change from the one seen
    seen = b.phi(I64, "seen")
    seen.add_incoming(born, entry)
    spins = b.phi(I64, "spin_limit")
    spins.add_incoming(I64(SPINS_BETWEEN_RUNS), entry)
    epoch_at = _at(b, pool, P_EPOCH)
    wait_until(
        module,
        worker,
        b,
        start,
        _at(b, pool, P_IDLE_SLEEPERS),
        epoch_at,
        lambda b, now: b.icmp_unsigned("!=", now, seen),
        spins,
        YIELD_EVERY,
    )

    b.position_at_end(start)
    epoch = b.load_atomic(epoch_at, "acquire", 8, typ=I64)
    n = b.urem(epoch, I64(EPOCH_STRIDE))
    end = worker.append_basic_block("end")
    member = worker.append_basic_block("member")
    outside = worker.append_basic_block("outside")
    check = worker.append_basic_block("check")
    b.cbranch(b.icmp_unsigned("==", n, I64(0)), end, check)
    b.position_at_end(check)
    b.cbranch(b.icmp_unsigned("<", tid, n), member, outside)

    b.position_at_end(outside)  # not in this (smaller) team: park again at once
    seen.add_incoming(epoch, outside)
    spins.add_incoming(I64(0), outside)
    b.branch(idle)

    b.position_at_end(member)
    args = b.load(_team_at(b, pool, ARGS), typ=PTR)
    b.call(run, [args, tid, n, b.gep(pool, [I32(0), I32(P_TEAM)], source_etype=POOL)])
    pending_at = _at(b, pool, P_PENDING)
    left = b.atomic_rmw("sub", pending_at, I64(1), "seq_cst")
    last = worker.append_basic_block("last")
    ran = worker.append_basic_block("ran")
    b.cbranch(b.icmp_unsigned("==", left, I64(1)), last, ran)
    b.position_at_end(last)
    wake_sleepers(module, b, _at(b, pool, P_CALLER_SLEEPERS), pending_at)
    b.branch(ran)
    b.position_at_end(ran)
    seen.add_incoming(epoch, ran)
    spins.add_incoming(I64(SPINS_BETWEEN_RUNS), ran)
    b.branch(idle)

    b.position_at_end(end)
    b.ret(ir.Constant(PTR, None))
    return worker


def _add_shutdown(module: ir.Module, pool: ir.Value) -> ir.Function:
    """``void xrelay_shutdown(void)`` (see the module docstring)."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), SHUTDOWN)
    join = _function(module, "pthread_join", I32, [I64, PTR])
    sched_yield = _function(module, "sched_yield", I32, [])
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    me = _getpid(module, b)
    again = fn.append_basic_block("lock")
    busy = fn.append_basic_block("busy")
    b.branch(again)
    b.position_at_end(busy)  # a run of another thread: let it end
    b.call(sched_yield, [])
    b.branch(again)
    b.position_at_end(again)
    _take_lock(fn, b, pool, me, busy)
    _adopt(fn, b, pool, me)
    started_at = _at(b, pool, P_STARTED)
    started = b.load(started_at, typ=I64)
    stop = fn.append_basic_block("stop")
    done = fn.append_basic_block("done")
    b.cbranch(b.icmp_unsigned("==", started, I64(0)), done, stop)

    b.position_at_end(stop)
    publish(
        module,
        b,
        _at(b, pool, P_IDLE_SLEEPERS),
        _at(b, pool, P_EPOCH),
        _next_epoch(b, pool, I64(0)),
    )
    head = fn.append_basic_block("join.head")
    body = fn.append_basic_block("join.body")
    stopped = fn.append_basic_block("join.done")
    before = b.block
    b.branch(head)
    b.position_at_end(head)
    j = b.phi(I64, "j")
    j.add_incoming(I64(0), before)
    b.cbranch(b.icmp_unsigned("<", j, started), body, stopped)
    b.position_at_end(body)
    b.call(join, [b.load(_handle_at(b, pool, j), typ=I64), ir.Constant(PTR, None)])
    j.add_incoming(b.add(j, I64(1)), body)
    b.branch(head)
    b.position_at_end(stopped)
    b.store(I64(0), started_at)
    b.store(I64(0), _at(b, pool, P_IDLE_SLEEPERS))
    b.branch(done)

    b.position_at_end(done)
    _release_lock(b, pool)
    b.ret_void()
    return fn


def _add_dtor(module: ir.Module, shutdown: ir.Function) -> None:
    """Run ``shutdown`` when the exported library is unloaded or the process exits
    (``llvm.global_dtors``; the JIT does not run it: the runtime calls shutdown)."""
    dtor = ir.Function(module, ir.FunctionType(ir.VoidType(), []), DTOR)
    dtor.linkage = "internal"
    b = ir.IRBuilder(dtor.append_basic_block("entry"))
    b.call(shutdown, [])
    b.ret_void()
    entry_type = ir.LiteralStructType([I32, PTR, PTR])
    table = ir.GlobalVariable(module, ir.ArrayType(entry_type, 1), "llvm.global_dtors")
    table.linkage = "appending"
    table.initializer = ir.Constant(  # pyright: ignore[reportAttributeAccessIssue]
        ir.ArrayType(entry_type, 1),
        [ir.Constant(entry_type, [I32(65535), dtor, ir.Constant(PTR, None)])],
    )


def add_pool_entry(module: ir.Module, run: ir.Function, entry: ir.Function) -> None:
    """Define ``entry`` (``xrelay_entry(args, nthreads)``, declared) around ``run``
    with the persistent team, plus the workers, ``xrelay_shutdown`` and the
    destructor (see the module docstring)."""
    pool = _pool(module)
    worker = _add_worker(module, pool, run)
    shutdown = _add_shutdown(module, pool)
    _add_dtor(module, shutdown)
    pthread_create = _function(module, "pthread_create", I32, [PTR, PTR, PTR, PTR])

    args, requested = entry.args
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    team_ptr = _alloca(b, TEAM)
    alone = entry.append_basic_block("alone")
    team_run = entry.append_basic_block("team")
    b.cbranch(b.icmp_signed("<=", requested, I64(1)), alone, team_run)

    b.position_at_end(alone)  # one thread: a team of one on the stack
    for k, value in enumerate([args, I64(1), *[I64(0)] * 5]):
        b.store(
            value, b.gep(team_ptr, [I32(0), I32(k)], inbounds=True, source_etype=TEAM)
        )
    b.call(run, [args, I64(0), I64(1), team_ptr])
    b.ret_void()

    b.position_at_end(team_run)
    me = _getpid(module, b)
    _take_lock(entry, b, pool, me, alone)
    _adopt(entry, b, pool, me)
    capped = b.select(
        b.icmp_signed(">", requested, I64(MAX_TEAM)), I64(MAX_TEAM), requested
    )
    want = b.sub(capped, I64(1))
    started_at = _at(b, pool, P_STARTED)
    have = b.load(started_at, typ=I64)
    epoch_at = _at(b, pool, P_EPOCH)
    b.store(b.load(epoch_at, typ=I64), _at(b, pool, P_BORN))
    before = b.block
    head = entry.append_basic_block("start.head")
    body = entry.append_basic_block("start.body")
    started_ok = entry.append_basic_block("start.ok")
    sized = entry.append_basic_block("sized")
    b.branch(head)

    # start the workers this run lacks; one that fails to start ends the attempt
    b.position_at_end(head)
    k = b.phi(I64, "k")
    k.add_incoming(have, before)
    b.cbranch(b.icmp_signed("<", k, want), body, sized)
    b.position_at_end(body)
    tid = b.add(k, I64(1))
    err = b.call(
        pthread_create,
        [_handle_at(b, pool, k), ir.Constant(PTR, None), worker, b.inttoptr(tid, PTR)],
    )
    b.cbranch(b.icmp_signed("==", err, I32(0)), started_ok, sized)
    b.position_at_end(started_ok)
    b.store(tid, started_at)
    k.add_incoming(tid, started_ok)
    b.branch(head)

    b.position_at_end(sized)
    now_started = b.phi(I64, "started")
    now_started.add_incoming(k, head)
    now_started.add_incoming(k, body)
    workers = b.select(b.icmp_signed("<", now_started, want), now_started, want)
    n = cast(ir.Value, b.add(workers, I64(1)))
    no_team = entry.append_basic_block("no_team")
    go = entry.append_basic_block("go")
    b.cbranch(b.icmp_signed("<=", n, I64(1)), no_team, go)
    b.position_at_end(no_team)  # no worker could be started
    _release_lock(b, pool)
    b.branch(alone)

    b.position_at_end(go)
    b.store(args, _team_at(b, pool, ARGS))
    b.store(n, _team_at(b, pool, NTHREADS))
    b.store(I64(0), _team_at(b, pool, COUNT))
    b.store(I64(0), _team_at(b, pool, NEXT))
    pending_at = _at(b, pool, P_PENDING)
    b.store(workers, pending_at)
    publish(module, b, _at(b, pool, P_IDLE_SLEEPERS), epoch_at, _next_epoch(b, pool, n))
    team = b.gep(pool, [I32(0), I32(P_TEAM)], source_etype=POOL)
    b.call(run, [args, I64(0), n, team])
    finished = entry.append_basic_block("finished")
    wait_until(
        module,
        entry,
        b,
        finished,
        _at(b, pool, P_CALLER_SLEEPERS),
        pending_at,
        lambda b, now: cast(ir.Value, b.icmp_unsigned("==", now, I64(0))),
    )
    b.position_at_end(finished)
    _release_lock(b, pool)
    b.ret_void()


__all__ = [
    "EPOCH_STRIDE",
    "MAX_TEAM",
    "POOL_NAME",
    "SHUTDOWN",
    "SPINS_BETWEEN_RUNS",
    "YIELD_EVERY",
    "add_pool_entry",
]
