"""How many threads run a compiled model.

A compiled model runs as a team of threads (:mod:`xrelay.lowering.llvm.threads`); the
team size is chosen when an executor is made, from, in order:

1. the ``num_threads`` argument of ``xrelay.build`` / ``load_module`` (or
   ``GraphModule.set_num_threads``);
2. the environment variable ``XRELAY_NUM_THREADS``;
3. the CPUs this process may run on (``os.sched_getaffinity``), so that the team never
   outnumbers the cores. A model whose estimated work is below
   :data:`PARALLEL_WORK_MIN` multiply-adds runs on one thread by default: starting the
   team would cost more than it saves.

An explicit count (1 or 2) is used as given, even above the core count.
"""

from __future__ import annotations

import os

from xrelay.lowering.work import available_cpus

ENV = "XRELAY_NUM_THREADS"
MAX_THREADS = 256
"""The largest team (a sanity bound on requests)."""
PARALLEL_WORK_MIN = 4_000_000
"""Below this many estimated multiply-adds per run, the default team is one thread:
starting and joining a thread costs some tens of microseconds, more than halving
such a run saves. Measured (docs/decisions.md, Threads) with the per-run team: a
second thread pays from about 2 M multiply-adds of dense layers and about 8 M of
convolutions (which run faster per multiply-add); 4 M is between them. The
persistent team of x86-64 Linux costs less per run (``mlp``, 0.67 M, ran 0.018 ms
on 2 threads against 0.027 on one); the threshold has not been measured again."""


class ThreadCountError(ValueError):
    """A thread count that is not a positive integer."""


def check_count(value: object, what: str) -> int:
    """``value`` as a thread count (1 .. :data:`MAX_THREADS`), or ThreadCountError."""
    try:
        count = int(str(value).strip())
    except ValueError:
        count = 0
    if isinstance(value, bool) or count < 1 or count > MAX_THREADS:
        raise ThreadCountError(
            f"{what} must be an integer from 1 to {MAX_THREADS}, got {value!r}"
        )
    return count


def requested_threads(num_threads: int | None = None) -> int | None:
    """The explicit thread count: ``num_threads``, else ``$XRELAY_NUM_THREADS``, else
    ``None`` (choose automatically)."""
    if num_threads is not None:
        return check_count(num_threads, "num_threads")
    env = os.environ.get(ENV, "").strip()
    if env:
        return check_count(env, ENV)
    return None


def team_size(num_threads: int | None, work: int) -> int:
    """The number of threads to run a model of ``work`` estimated multiply-adds."""
    explicit = requested_threads(num_threads)
    if explicit is not None:
        return explicit
    if work < PARALLEL_WORK_MIN:
        return 1
    return available_cpus()


__all__ = [
    "ENV",
    "MAX_THREADS",
    "PARALLEL_WORK_MIN",
    "ThreadCountError",
    "available_cpus",
    "check_count",
    "requested_threads",
    "team_size",
]
