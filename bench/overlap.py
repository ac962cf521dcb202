"""Independent calls side by side: each model built with the overlap of independent
kernel calls (:mod:`xrelay.lowering.overlap`; ``XRELAY_OVERLAP_MAX_NS`` of
``--max-ns``) and without it (the default, ``0``), run on 1 and 2 threads in
alternating blocks in one process.

    .venv/bin/python bench/overlap.py [--models DIR] [--only NAME ...]

Models: Relay's Inception-V3 workload (random weights) on images of 299, 139 and 75
pixels square, and every ``zoo/<name>/model.onnx`` of ``--models`` (the shared
models' layout). Columns: the calls the host runs side by side, the median ms of
the best block per variant and thread count, and ``on/off`` on two threads (below
1: overlap is faster).

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def _inception_v3(size: int) -> Callable[[], tuple[Any, dict[str, Any], list[Any]]]:
    """Relay's Inception-V3 workload (``relay.testing.inception_v3``, random
    weights) on ``size`` x ``size`` images."""

    def load() -> tuple[Any, dict[str, Any], list[Any]]:
        from xrelay.frontend.relay.testing import inception_v3

        mod, params = inception_v3.get_workload(image_shape=(3, size, size))
        data = np.random.default_rng(0).standard_normal((1, 3, size, size))
        return mod, params, [data.astype("float32")]

    return load


def _onnx(path: Path) -> Callable[[], tuple[Any, dict[str, Any], list[Any]]]:
    def load() -> tuple[Any, dict[str, Any], list[Any]]:
        from xrelay.frontend.onnx import from_onnx

        mod, params = from_onnx(str(path))
        inputs = sorted(path.parent.glob("input_*.npy")) or sorted(
            path.parent.glob("*.input.npy")
        )
        return mod, params, [np.load(p) for p in inputs]

    return load


def _build(mod: Any, params: dict[str, Any], max_ns: str) -> Any:
    """Build with ``XRELAY_OVERLAP_MAX_NS=max_ns`` (empty: the default)."""
    import xrelay

    saved = os.environ.get("XRELAY_OVERLAP_MAX_NS")
    try:
        if max_ns:
            os.environ["XRELAY_OVERLAP_MAX_NS"] = max_ns
        else:
            os.environ.pop("XRELAY_OVERLAP_MAX_NS", None)
        return xrelay.build(mod, params=params or None, cache=False)
    finally:
        if saved is None:
            os.environ.pop("XRELAY_OVERLAP_MAX_NS", None)
        else:
            os.environ["XRELAY_OVERLAP_MAX_NS"] = saved


def _block(lib: Any, inputs: list[Any], threads: int, runs: int) -> float:
    g = lib.create()
    g.set_num_threads(threads)
    for i, a in enumerate(inputs):
        g.set_input(i, a)
    for _ in range(3):
        g.run()
    times: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        g.run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument(
        "--max-ns",
        default="200000",
        help="XRELAY_OVERLAP_MAX_NS of the build with overlap (default 200000; "
        "overlap is off by default)",
    )
    args = parser.parse_args()

    cases: dict[str, Callable[[], tuple[Any, dict[str, Any], list[Any]]]] = {}
    for size in (299, 139, 75):
        cases[f"inception_v3 {size}x{size}"] = _inception_v3(size)
    if args.models is not None:
        for model in sorted((args.models / "zoo").glob("*/model.onnx")):
            cases[model.parent.name] = _onnx(model)
    if args.only:
        cases = {k: v for k, v in cases.items() if any(o in k for o in args.only)}

    print(
        f"overlap of independent calls: best block of {args.blocks} (median of "
        f"{args.runs} runs), load average {os.getloadavg()[0]:.1f}"
    )
    head = f"{'model':28} {'side':>5} {'on 1t':>8} {'off 1t':>8} {'on 2t':>8} {'off 2t':>8} {'on/off':>7}"
    print(head)
    print("-" * len(head))
    for name, load in cases.items():
        mod, params, inputs = load()
        libs = {True: _build(mod, params, args.max_ns), False: _build(mod, params, "0")}
        side = sum(
            1
            for line in libs[True].get_source().splitlines()
            if "call" in line and '@"xrelay_solo_team"' in line
        )
        best: dict[tuple[bool, int], float] = {}
        for threads in (1, 2):
            for _ in range(args.blocks):
                for v, lib in libs.items():
                    ms = _block(lib, inputs, threads, args.runs)
                    key = (v, threads)
                    best[key] = min(best.get(key, float("inf")), ms)
        ratio = best[(True, 2)] / best[(False, 2)]
        print(
            f"{name:28} {side:5d} {best[(True, 1)]:8.3f} {best[(False, 1)]:8.3f} "
            f"{best[(True, 2)]:8.3f} {best[(False, 2)]:8.3f} {ratio:7.2f}"
        )


if __name__ == "__main__":
    main()
