"""The thread team on a busy machine: run times of small and mid-size models on 1 and
2 threads, with the cores to themselves and next to competitors that spin.

    .venv/bin/python bench/threads.py [--runs 50] [--busy 1] [--only mlp ...]

Each model of ``/work/shared/models`` (default: mlp, resnet_block) is imported,
built, and run ``--runs`` times per thread count (an executor with an explicit
``set_num_threads``), in blocks 1, 2, 1, 2; the figure is the median and the best of
the better block. "busy" runs the same with ``--busy`` other processes spinning in
a tight loop (no system calls) on the same cores, started before and stopped after.
"pinned" runs with this process pinned to one CPU (every thread of it, the models'
persistent workers included: both team threads share it) and no competitor.

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

MODELS = Path("/work/shared/models")
SPIN = "while True:\n    pass\n"


@contextmanager
def _busy(count: int) -> Iterator[None]:
    procs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
    time.sleep(0.3)  # let them start spinning
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def _set_affinity(cpus: set[int]) -> None:
    """Every thread of this process on ``cpus`` (the models' persistent workers
    were started before, so pinning the calling thread alone would not pin them)."""
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except ProcessLookupError:  # a thread that has just ended
            pass


@contextmanager
def _pinned() -> Iterator[None]:
    before = os.sched_getaffinity(0)
    _set_affinity({min(before)})
    try:
        yield
    finally:
        _set_affinity(before)


def _times(m: Any, runs: int) -> tuple[float, float]:
    m.run()
    ts: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        m.run()
        ts.append(time.perf_counter() - start)
    return statistics.median(ts) * 1e3, min(ts) * 1e3


def _measure(lib: Any, runs: int) -> dict[int, tuple[float, float]]:
    best: dict[int, tuple[float, float]] = {}
    for count in (1, 2, 1, 2):
        m = lib.create()
        m.set_num_threads(count)
        for k, t in enumerate(lib.spec.inputs):
            m.set_input(k, np.zeros(t.shape, t.dtype))
        figure = _times(m, runs)
        best[count] = min(best.get(count, figure), figure)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--busy", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=["mlp", "resnet_block"])
    opts = parser.parse_args()
    if not MODELS.is_dir():
        sys.exit(f"bench/threads.py: {MODELS} is missing")

    import xrelay
    from xrelay.frontend.onnx import from_onnx

    print(f"{'model':<14}{'work (MACs)':>14}  {'setting':<10}"
          f"{'1 thread ms (best)':>22}{'2 threads ms (best)':>24}")  # fmt: skip
    for name in opts.only:
        mod, params = from_onnx(str(MODELS / f"{name}.onnx"))
        lib = xrelay.build(mod, params=params)
        settings = [
            ("alone", _measure(lib, opts.runs)),
        ]
        with _busy(opts.busy):
            settings.append((f"busy x{opts.busy}", _measure(lib, opts.runs)))
        with _pinned():
            settings.append(("pinned", _measure(lib, opts.runs)))
        for what, fig in settings:
            one, two = fig[1], fig[2]
            print(
                f"{name:<14}{lib.spec.work:>14,}  {what:<10}"
                f"{one[0]:>13.3f} ({one[1]:.3f}){two[0]:>15.3f} ({two[1]:.3f})"
            )


if __name__ == "__main__":
    main()
