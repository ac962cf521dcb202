"""The per-kernel part of a build in several processes: after memory planning, the
kernel functions are shared out into ``J`` parts balanced by size, and each part is
lowered on its own (``llvm`` dialect, LLVM IR text, llvmlite's parse, O3 and
code generation) into one position-independent object file.

Every step from the ``llvm`` dialect on works on one function at a time, but
llvmlite serialises its calls behind one global lock (threads would not help), so the
parts run in processes: the build forks ``J - 1`` children; the parent lowers one
part plus the host function (and the thread team). A child works on its copy of the
planned module with the cyclic collector off, sends back its LLVM IR text, its
object code and its stage times through a pipe, and leaves with ``os._exit``
(no cleanup, no collection: its memory goes with it). The parent reaps every child
(``os.wait4``, which gives their CPU time) and loads the objects together
(:mod:`xrelay.runtime.jit`): kernels defined in a child's object are called by the
host across objects, so they get hidden visibility instead of internal linkage
(:mod:`xrelay.lowering.emit`).

How many processes (:func:`requested_jobs`): ``$XRELAY_COMPILE_JOBS`` (1: one
process, the serial path), else the CPUs this process may run on; at most
:data:`MAX_JOBS`, and never more than one process per :data:`MIN_OPS_PER_JOB` ops.
A module of fewer than :data:`MIN_OPS` ops stays serial (a fork and the transfer
back cost more than they save there).

When forking is safe (:func:`fork_problem`): only on Linux, and only when the
building thread is the only Python thread. A child inherits the memory of the
parent but only the forking thread: a lock another thread holds at that moment (the
import lock, llvmlite's binding lock, a logging handler's lock, an allocator's) stays
held in the child for ever. Native threads not started by Python (a BLAS pool)
are not seen, and are harmless: a child calls nothing but xDSL and llvmlite on
objects of its own, writes its pipe and leaves through ``os._exit`` (no ``atexit``
handlers, no flush of buffers inherited from the parent, no finalisers). Otherwise
the build is serial.

Errors: an exception in a child comes back as its message and is raised in the
parent as the :class:`LoweringError` the serial path would raise (another kind of
exception becomes a LoweringError naming it); a child that dies (a signal, an exit
without a result) gives a LoweringError saying so. Whatever ends the parallel
section early (an error, ``KeyboardInterrupt``), the children still running are
killed and every child is reaped: no zombies, no orphans.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, NoReturn

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xrelay.lowering.collector import stage_boundary
from xrelay.lowering.emit import to_llvm_ir
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.graph import HOST_ATTR
from xrelay.lowering.stages import StageTimes, current_times, stage
from xrelay.settings import positive_int

ENV = "XRELAY_COMPILE_JOBS"
MAX_JOBS = 8
"""At most this many processes (each child holds a copy-on-write image of the
build: memory grows with every one)."""
MIN_OPS = 2_000
"""Modules with fewer ops (kernels and host, after memory planning) are lowered in
one process. Measured (2-vCPU EPYC): the lowering from the ``llvm`` dialect to
object code takes some 0.2 ms per op (ResNet-18: 24,000 ops, 4.9 s), a fork of a
build's process and the transfer back 20-40 ms: 2,000 ops (0.4 s alone) gain some
0.15 s in two processes, fewer gain next to nothing."""
MIN_OPS_PER_JOB = 1_000
"""One process per this many ops at most."""
PARENT_HANDICAP = 0.15
"""The parent's part starts this fraction of a fair share heavier: the parent also
forks, collects its garbage between stages and reads the results (measured, CPU of
the section's parent over its child's, two processes: with parts of equal op counts
25% on ResNet-18, 13% on DenseNet-121; with a handicap of 0.1 13%, 9% and 12% on
EfficientNet-B0)."""


def requested_jobs() -> int:
    """The processes a large build may use: ``$XRELAY_COMPILE_JOBS``, else the CPUs
    this process may run on; at most :data:`MAX_JOBS`. A bad value is a
    :class:`~xrelay.settings.SettingError` (a ``ValueError``)."""
    jobs = positive_int(ENV)
    if jobs is None:
        try:
            jobs = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not Linux
            jobs = os.cpu_count() or 1
    return max(1, min(jobs, MAX_JOBS))


def fork_problem() -> str | None:
    """Why this process cannot fork its build now (see the module docstring), or
    ``None``."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return "not Linux"
    if threading.active_count() > 1:
        return "other Python threads are running"
    return None


def _op_count(op: func.FuncOp) -> int:
    return sum(1 for _ in op.walk())


@dataclass
class Plan:
    """How a planned module is shared out: ``parts[0]`` is the parent's (with the
    host), the others one child each."""

    parts: list[list[func.FuncOp]]
    sizes: list[int]
    declarations: list[func.FuncOp] = field(default_factory=lambda: [])
    """The module's function declarations (runtime helpers, libm), which every part
    declares again."""


def plan_parts(module: ModuleOp, jobs: int) -> Plan | None:
    """Share the kernels of a planned module out into at most ``jobs`` parts
    balanced by op count (largest first, each to the lightest part; the host and
    :data:`PARENT_HANDICAP` count in the parent's part); ``None`` where one process
    is better (see the module docstring) or forking is not safe."""
    if jobs <= 1:
        return None
    kernels: list[func.FuncOp] = []
    declarations: list[func.FuncOp] = []
    host_ops = 0
    for op in module.ops:
        if not isinstance(op, func.FuncOp):
            continue
        if not op.body.blocks:
            declarations.append(op)
        elif HOST_ATTR in op.attributes:
            host_ops = _op_count(op)
        else:
            kernels.append(op)
    sized = sorted(
        ((_op_count(k), i, k) for i, k in enumerate(kernels)),
        key=lambda t: (-t[0], t[1]),
    )
    total = host_ops + sum(n for n, _, _ in sized)
    jobs = min(jobs, total // MIN_OPS_PER_JOB, len(kernels) + 1)
    if total < MIN_OPS or jobs <= 1 or fork_problem() is not None:
        return None
    parts: list[list[func.FuncOp]] = [[] for _ in range(jobs)]
    sizes = [0] * jobs
    sizes[0] = host_ops
    handicap = int(PARENT_HANDICAP * total / jobs)
    sizes[0] += handicap
    for n, _, k in sized:
        j = min(range(jobs), key=lambda b: sizes[b])
        parts[j].append(k)
        sizes[j] += n
    sizes[0] -= handicap
    keep = [j for j in range(jobs) if j == 0 or parts[j]]
    return Plan([parts[j] for j in keep], [sizes[j] for j in keep], declarations)


# -- the children -----------------------------------------------------------------------


def _lower_part(kernels: list[func.FuncOp], declarations: list[func.FuncOp]) -> Any:
    """In a child: lower ``kernels`` into one object; (IR text, object, stages)."""
    from xrelay.lowering.llvm import lower_functions_to_llvm
    from xrelay.lowering.object_code import object_code

    with StageTimes() as times:
        part = ModuleOp([])
        for decl in declarations:
            part.body.block.add_op(decl.clone())
        for k in kernels:
            k.detach()
            part.body.block.add_op(k)
        with stage("llvm dialect"):
            lower_functions_to_llvm(part)
        with stage("LLVM IR text"):
            text = to_llvm_ir(part, shared=[k.sym_name.data for k in kernels])
        del part
        obj = object_code(text)
    return text, obj, (dict(times.seconds), dict(times.cpu))


def _child(
    read_fd: int,
    write_fd: int,
    kernels: list[func.FuncOp],
    declarations: list[func.FuncOp],
) -> NoReturn:
    """The whole life of a child process: never returns into the parent's code."""
    code = 1
    try:
        os.close(read_fd)
        # Ctrl-C reaches the whole process group: the parent reports it, the
        # children just end
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        gc.disable()
        try:
            text, obj, seconds = _lower_part(kernels, declarations)
            result: tuple[Any, ...] = ("ok", text, obj, seconds)
        except Exception as e:
            result = ("error", type(e).__name__, str(e), isinstance(e, LoweringError))
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view) :]
        code = 0
    finally:
        os._exit(code)


# -- the parent -------------------------------------------------------------------------


@dataclass
class _Child:
    pid: int
    read_fd: int
    job: int
    kernels: int
    reaped: bool = False


def _describe_exit(child: _Child, status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        how = f"was killed by signal {name}"
    else:
        how = f"exited with status {os.waitstatus_to_exitcode(status)} and no result"
    return (
        f"compile job {child.job} (pid {child.pid}, {child.kernels} kernels) {how}; "
        f"{ENV}=1 compiles in one process"
    )


def _result(child: _Child, data: bytes, status: int) -> tuple[str, bytes, Any]:
    """A child's (IR text, object, stage times), or its error raised."""
    try:
        result = pickle.loads(data) if data else None
    except Exception:  # cut short: the exit status says why
        result = None
    if not isinstance(result, tuple) or not result:
        raise LoweringError(_describe_exit(child, status))
    if result[0] == "error":
        _, kind, message, lowering = result
        if lowering:
            raise LoweringError(message)
        raise LoweringError(f"{kind}: {message} (in compile job {child.job})")
    _, text, obj, seconds = result
    return text, obj, seconds


def _finish(children: list[_Child]) -> None:
    """Kill the children still running, reap every child, close the pipes."""
    for child in children:
        if not child.reaped:
            try:
                os.kill(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for child in children:
        if not child.reaped:
            while True:
                try:
                    os.waitpid(child.pid, 0)
                    break
                except InterruptedError:
                    continue
                except ChildProcessError:
                    break
            child.reaped = True
        if child.read_fd >= 0:
            os.close(child.read_fd)
            child.read_fd = -1


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def lower_in_parts(
    module: ModuleOp, plan: Plan, interface: str
) -> tuple[list[str], list[bytes]]:
    """Lower a planned module as ``plan`` says, in place: the LLVM IR text and the
    object code of every part, the parent's part (with the host, and ``interface``
    appended to its IR before compiling: :func:`~xrelay.lowering.spec.
    interface_global`) last."""
    from xrelay.lowering.llvm import lower_to_llvm
    from xrelay.lowering.object_code import object_code, target_machine

    target_machine(pic=True)  # LLVM initialised once, before forking
    start = time.perf_counter()
    children: list[_Child] = []
    mine = list(plan.parts[0])
    try:
        for job, kernels in enumerate(plan.parts[1:], start=1):
            read_fd, write_fd = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no process to be had: the parent lowers that part too
                os.close(read_fd)
                os.close(write_fd)
                mine.extend(kernels)
                continue
            if pid == 0:
                _child(read_fd, write_fd, kernels, plan.declarations)
            os.close(write_fd)
            children.append(_Child(pid, read_fd, job, len(kernels)))
        # the children's kernels become declarations of the parent's part
        shared: list[str] = []
        here = {id(k) for k in mine}
        in_children = [k for part in plan.parts[1:] for k in part if id(k) not in here]
        for k in in_children:
            name = k.sym_name.data
            decl = func.FuncOp.external(
                name,
                list(k.function_type.inputs.data),
                list(k.function_type.outputs.data),
            )
            module.body.block.insert_op_before(decl, k)
            k.detach()
            shared.append(name)
        del in_children
        stage_boundary()
        with stage("llvm dialect"):
            lower_to_llvm(module)
        stage_boundary()
        with stage("LLVM IR text"):
            text = to_llvm_ir(module, shared=shared)
        obj = object_code(text + interface)
        texts: list[str] = []
        objects: list[bytes] = []
        child_stages: list[Any] = []
        child_cpu = 0.0
        for child in children:
            data = _read_all(child.read_fd)
            try:
                _, status, usage = os.wait4(child.pid, 0)
                child_cpu += usage.ru_utime + usage.ru_stime
            except ChildProcessError:  # SIGCHLD ignored: the system reaped it
                status = 0
            child.reaped = True
            t, o, seconds = _result(child, data, status)
            texts.append(t)
            objects.append(o)
            child_stages.append(seconds)
    finally:
        _finish(children)
    times = current_times()
    if times is not None:
        wall = time.perf_counter() - start
        times.add_parallel(len(children) + 1, wall, child_stages, child_cpu)
    return [*texts, text], [*objects, obj]


__all__ = [
    "ENV",
    "MAX_JOBS",
    "MIN_OPS",
    "MIN_OPS_PER_JOB",
    "Plan",
    "fork_problem",
    "lower_in_parts",
    "plan_parts",
    "requested_jobs",
]
