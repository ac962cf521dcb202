"""ONNX import: time and peak memory of ``from_onnx`` for every model in the shared
models folder, against ``onnx.load`` (the floor: reading and parsing the file) and
``onnx.checker`` measured in the same run; plus the reference interpreter's time on
the model's ``.input.npy`` and its largest difference from ``.output.npy``.

    .venv/bin/python bench/import.py [--models ../shared/models] [--repeat 3]
                                     [--params] [--no-run]

Each model is measured in a fresh subprocess, so that its peak RSS is its own:

* ``import s``: median wall time of ``from_onnx(path)`` (load, check, convert);
* ``traced MB``: the peak of Python allocations during one import (tracemalloc), and
  its ratio to the file size (one copy of the weights is ~1x);
* ``RSS MB``: the process's peak resident memory above its size before the import
  (includes the protobuf model and onnx.checker's C++ copy), and its ratio to the file.

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from shared_models import SHARED_MODELS as DEFAULT_MODELS


def _rss() -> int:
    """The current resident set size in bytes."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _maxrss() -> int:
    """The peak resident set size of this process so far, in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure_one(path: Path, repeat: int, freeze: bool, run: bool) -> dict[str, Any]:
    """Measure one model in this process (called in a subprocess)."""
    import numpy as np
    import onnx

    from xrelay.frontend import from_onnx
    from xrelay.runtime.interpreter import interpret

    # warm the imports up on a tiny model so that they are not counted
    tiny = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("Relu", ["x"], ["y"])],
            "tiny",
            [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
            [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])],
        )
    )
    from_onnx(tiny)

    before = _rss()
    start = time.perf_counter()
    mod, params = from_onnx(path, freeze_params=freeze)
    times = [time.perf_counter() - start]
    rss_peak = _maxrss() - before
    del mod, params

    tracemalloc.start()
    mod, params = from_onnx(path, freeze_params=freeze)
    traced_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    for _ in range(repeat - 1):
        del mod, params
        start = time.perf_counter()
        mod, params = from_onnx(path, freeze_params=freeze)
        times.append(time.perf_counter() - start)

    load_times: list[float] = []
    check_times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        onnx.load(path)
        load_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        onnx.checker.check_model(str(path))
        check_times.append(time.perf_counter() - start)

    result: dict[str, Any] = {
        "model": path.stem,
        "file": path.stat().st_size,
        "import": statistics.median(times),
        "load": statistics.median(load_times),
        "check": statistics.median(check_times),
        "traced": traced_peak,
        "rss": rss_peak,
        "ops": sum(1 for _ in mod["main"].body.block.ops),
    }
    inp = path.with_name(path.stem + ".input.npy")
    out = path.with_name(path.stem + ".output.npy")
    if run and inp.exists():
        args = [np.load(inp), *params.values()]
        start = time.perf_counter()
        got = interpret(mod, *args)
        result["run"] = time.perf_counter() - start
        if out.exists():
            result["diff"] = float(np.max(np.abs(np.asarray(got) - np.load(out))))
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--params", action="store_true", help="freeze_params=False (weights as params)"
    )
    parser.add_argument("--no-run", action="store_true", help="skip the interpreter")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.one is not None:
        print(
            json.dumps(
                measure_one(args.one, args.repeat, not args.params, not args.no_run)
            )
        )
        return

    paths = sorted(args.models.glob("*.onnx"), key=lambda p: p.stat().st_size)
    if not paths:
        print(f"no .onnx models in {args.models}")
        return
    print(
        f"from_onnx on {len(paths)} models in {args.models} "
        f"(freeze_params={not args.params}, median of {args.repeat}; one subprocess "
        "per model)\n"
    )
    header = (
        f"{'model':<14}{'file MB':>9}{'ops':>6}{'import s':>10}{'onnx.load s':>13}"
        f"{'check s':>9}{'x load':>8}{'traced MB':>11}{'x file':>8}{'RSS MB':>9}"
        f"{'x file':>8}{'interp s':>10}{'max |diff|':>12}"
    )
    print(header)
    print("-" * len(header))
    for path in paths:
        cmd = [
            sys.executable,
            __file__,
            "--one",
            str(path),
            "--repeat",
            str(args.repeat),
        ]
        if args.params:
            cmd.append("--params")
        if args.no_run:
            cmd.append("--no-run")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{path.stem:<14} failed: {last}")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        mb = 1e6
        run = f"{r['run']:>10.2f}" if "run" in r else f"{'-':>10}"
        diff = f"{r['diff']:>12.1e}" if "diff" in r else f"{'-':>12}"
        print(
            f"{r['model']:<14}{r['file'] / mb:>9.1f}{r['ops']:>6}{r['import']:>10.3f}"
            f"{r['load']:>13.3f}{r['check']:>9.3f}{r['import'] / r['load']:>8.1f}"
            f"{r['traced'] / mb:>11.1f}{r['traced'] / r['file']:>8.2f}"
            f"{r['rss'] / mb:>9.1f}{r['rss'] / r['file']:>8.2f}{run}{diff}"
        )


if __name__ == "__main__":
    main()
