"""Compile-time stages, timed: ``with stage("llvm dialect"): ...`` adds the time
spent in the block to the :class:`StageTimes` being recorded (``with
StageTimes() as times: xrelay.build(...)``), and does nothing otherwise.

Times are exclusive: a stage entered inside another is not counted in the outer
one (``kernel IR`` runs inside ``relay->kernels``). Each stage has its wall clock
(:attr:`StageTimes.seconds`) and the CPU time of the process spent in it
(:attr:`StageTimes.cpu`, ``time.process_time``: on a shared machine the wall clock
grows with the load, the CPU time much less). ``bench/compile.py`` prints them.

A build compiled in several processes (:mod:`xrelay.lowering.parallel`) adds the
stage times of its child processes to its own: a stage's figure is then the time
spent in it summed over the processes (work, not wall clock), and
:attr:`StageTimes.parallel_wall` the wall clock of the parallel sections.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import TracebackType

STAGES = (
    "import",
    "relay passes",
    "relay->kernels",
    "kernel IR",
    "memory planning",
    "llvm dialect",
    "LLVM IR text",
    "llvmlite parse",
    "llvmlite optimise",
    "llvmlite codegen",
    "collector",
    "cache lookup",
    "cache load",
    "cache store",
)
"""The stage names, in pipeline order (``cache *``: :mod:`xrelay.runtime.cache`;
``collector``: the garbage collections between stages, :mod:`.collector`)."""

_current: ContextVar[StageTimes | None] = ContextVar("xrelay_stage_times", default=None)


class StageTimes:
    """Seconds per stage, recorded while the object is the active recorder."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        """Wall-clock seconds per stage."""
        self.cpu: dict[str, float] = {}
        """CPU seconds (user + system) per stage."""
        self.frames: list[list[float]] = []
        """Open stages: [wall start, CPU start, wall and CPU spent in nested stages]."""
        self._token: object = None
        self.jobs = 1
        """The most processes a section of the build ran in."""
        self.parallel_wall = 0.0
        """Wall-clock seconds of the sections run in several processes."""
        self.child_cpu = 0.0
        """CPU seconds (user + system) of the child processes."""

    def __enter__(self) -> StageTimes:
        self._token = _current.set(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _current.reset(self._token)  # pyright: ignore[reportArgumentType]

    def add(self, name: str, seconds: float, cpu: float = 0.0) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu

    def add_parallel(
        self,
        jobs: int,
        wall: float,
        child_stages: list[tuple[Mapping[str, float], Mapping[str, float]]],
        child_cpu: float,
    ) -> None:
        """Record a section run in ``jobs`` processes: its wall clock, the stage
        times the child processes measured (wall and CPU per stage) and their CPU
        time."""
        self.jobs = max(self.jobs, jobs)
        self.parallel_wall += wall
        self.child_cpu += child_cpu
        for seconds, cpu in child_stages:
            for name, value in seconds.items():
                self.add(name, value, cpu.get(name, 0.0))

    @property
    def total(self) -> float:
        return sum(self.seconds.values())


def current_times() -> StageTimes | None:
    """The :class:`StageTimes` being recorded, if any."""
    return _current.get()


@contextmanager
def stage(name: str) -> Generator[None]:
    """Time the block as stage ``name`` in the active :class:`StageTimes`, if any."""
    times = _current.get()
    if times is None:
        yield
        return
    frame = [time.perf_counter(), time.process_time(), 0.0, 0.0]
    times.frames.append(frame)
    try:
        yield
    finally:
        times.frames.pop()
        spent = time.perf_counter() - frame[0]
        spent_cpu = time.process_time() - frame[1]
        times.add(name, spent - frame[2], spent_cpu - frame[3])
        if times.frames:
            times.frames[-1][2] += spent
            times.frames[-1][3] += spent_cpu
