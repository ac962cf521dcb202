"""Independent calls side by side: each model built with the overlap of independent
kernel calls (:mod:`xrelay.lowering.overlap`, the default) and without it
(``XRELAY_OVERLAP_MAX_NS=0``), run on 1 and 2 threads in alternating blocks in one
process.

    .venv/bin/python bench/families.py --out /tmp/fam      # Inception-V3, SqueezeNet...
    .venv/bin/python bench/overlap.py [--models /tmp/fam] [--only NAME ...]

Models: an Inception-style stack built here (four branches per block: 1x1, 1x1 ->
3x3, 1x1 -> 5x5, pool -> 1x1, concatenated) at 28 x 28 and 14 x 14, and every
``zoo/<name>/model.onnx`` of ``--models`` (the shared models' layout). Columns: the
calls the host runs side by side, the median ms of the best block per variant and
thread count, and ``on/off`` on two threads (below 1: overlap is faster).

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


def _inception(size: int) -> tuple[Any, list[np.ndarray[Any, Any]]]:
    from xrelay import relay

    rng = np.random.default_rng(0)

    def conv(x: Any, cin: int, cout: int, k: int) -> Any:
        w = rng.standard_normal((cout, cin, k, k)).astype("float32") * 0.1
        return relay.nn.relu(
            relay.nn.conv2d(x, relay.const(w), padding=(k // 2, k // 2))
        )

    def block(x: Any, c: int) -> Any:
        b1 = conv(x, c, 32, 1)
        b2 = conv(conv(x, c, 24, 1), 24, 32, 3)
        b3 = conv(conv(x, c, 8, 1), 8, 16, 5)
        pool = relay.nn.max_pool2d(x, pool_size=(3, 3), strides=(1, 1), padding=(1, 1))
        return relay.concatenate([b1, b2, b3, conv(pool, c, 16, 1)], axis=1)

    x = relay.var("x", shape=(1, 64, size, size), dtype="float32")
    y = block(block(block(x, 64), 96), 96)
    data = rng.standard_normal((1, 64, size, size)).astype("float32")
    return relay.IRModule.from_expr(relay.Function([x], y)), [data]


def _stack(size: int) -> Callable[[], tuple[Any, dict[str, Any], list[Any]]]:
    def load() -> tuple[Any, dict[str, Any], list[Any]]:
        mod, inputs = _inception(size)
        return mod, {}, inputs

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


def _build(mod: Any, params: dict[str, Any], overlap: bool) -> Any:
    import xrelay

    saved = os.environ.get("XRELAY_OVERLAP_MAX_NS")
    try:
        if overlap:
            os.environ.pop("XRELAY_OVERLAP_MAX_NS", None)
        else:
            os.environ["XRELAY_OVERLAP_MAX_NS"] = "0"
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
    args = parser.parse_args()

    cases: dict[str, Callable[[], tuple[Any, dict[str, Any], list[Any]]]] = {}
    for size in (28, 14):
        cases[f"inception-stack {size}x{size}"] = _stack(size)
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
        libs = {v: _build(mod, params, v) for v in (True, False)}
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
