"""What profiling costs: a plain build (no timing compiled in) next to a profiled
build (``xrelay.build(..., profile=True)``: a clock read before and after every
kernel call, per thread) of the same shared models, run in the same process.

    .venv/bin/python bench/profile_overhead.py [--models ../shared/models]
                     [--only resnet_block resnet18] [--runs 30] [--threads 1 2]

Per model and thread count: the clock calls in each build's LLVM IR (none in the
plain one: zero cost by construction), the kernel calls timed, the median latency of
``run()`` of each build (runs interleaved, after a warm-up, so that both see the same
machine) and the ratio profiled / plain; and how much of the profiled run the
kernels' times cover (``kernels %``).

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from shared_models import SHARED_MODELS


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def measure(lib: Any, prof: Any, x: Any, threads: int, runs: int) -> dict[str, Any]:
    plain_m, prof_m = lib.create(), prof.create()
    for m in (plain_m, prof_m):
        m.set_num_threads(threads)
        m.set_input(0, x)
        m.run()
    plain: list[float] = []
    profiled: list[float] = []
    for _ in range(runs):
        for m, out in ((plain_m, plain), (prof_m, profiled)):
            start = time.perf_counter()
            m.run()
            out.append(time.perf_counter() - start)
    profile = prof_m.profile(repeat=5)
    return {
        "plain": _median_ms(plain),
        "profiled": _median_ms(profiled),
        "cover": 100 * profile.kernel_ms / max(profile.run_ms, 1e-9),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=SHARED_MODELS)
    parser.add_argument("--only", nargs="*", default=["resnet_block", "resnet18"])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    args = parser.parse_args(argv)

    import xrelay
    from xrelay.frontend import from_onnx

    header = (
        f"{'model':<14} {'thr':>3} {'clock calls':>12} {'kernels':>7} "
        f"{'plain ms':>9} {'profiled ms':>11} {'ratio':>6} {'kernels %':>9}"
    )
    print(header)
    print("-" * len(header))
    for name in args.only:
        path = args.models / f"{name}.onnx"
        if not path.is_file():
            print(f"{name:<14} (no {path})")
            continue
        mod, params = from_onnx(str(path))
        x = np.load(args.models / f"{name}.input.npy")
        lib = xrelay.build(mod, params=params)
        prof = xrelay.build(mod, params=params, profile=True)
        clock = '@"xrelay_clock"()'
        plain_clock = lib.llvm_ir.count(clock) + lib.llvm_ir.count("clock_gettime")
        prof_clock = prof.llvm_ir.count(clock) - 1  # less its definition
        for threads in args.threads:
            r = measure(lib, prof, x, threads, args.runs)
            print(
                f"{name:<14} {threads:>3} {f'{plain_clock} / {prof_clock}':>12} "
                f"{len(prof.spec.profile or []):>7} {r['plain']:>9.3f} "
                f"{r['profiled']:>11.3f} {r['profiled'] / r['plain']:>6.3f} "
                f"{r['cover']:>9.1f}"
            )
    print(
        "clock calls: xrelay_clock calls in the plain / profiled LLVM IR; ratio: "
        "profiled / plain median latency"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
