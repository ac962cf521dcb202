"""End to end: every model of the shared models folder compiled with ``xrelay.build``
and run, next to a plain numpy implementation (``bench/numpy_im2col.py``) and
onnxruntime (when installed) measured in the same run.

    .venv/bin/python bench/e2e.py [--models /work/shared/models] [--runs 20]
                                  [--opt-level 3] [--only resnet18 ...] [--threads N]

onnxruntime is an optional peer: ``pip install -e '.[bench]'`` installs it.

Per model (each in a fresh subprocess, so that memory figures are its own):

* ``compile s``: ``xrelay.build`` at the opt level (import excluded);
* ``thr``: the threads xrelay ran on (``--threads``, else ``XRELAY_NUM_THREADS``,
  else automatic: the cores, one for tiny models);
* ``xrelay ms``: median latency of ``run()`` over ``--runs`` runs (after one warm-up),
  and GFLOP/s = 2 * MACs (``manifest.json``) / latency; ``1-thr ms``: the same on
  one thread;
* ``numpy ms`` / ``ort ms``: the same for the peers, and the ratio xrelay / peer;
* ``peak MB``: peak resident memory above the process's size before importing the
  model (import, build and runs), and the model's weight size for scale;
* ``max err``: largest difference from the model's ``.output.npy``.

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return 0


def _median_ms(fn: Any, runs: int) -> float:
    fn()
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def measure(
    models: Path, name: str, runs: int, opt_level: int, threads: int | None
) -> dict[str, Any]:
    """Measure one model (run in a subprocess by :func:`main`)."""
    import numpy as np

    import xrelay
    from xrelay.frontend import from_onnx
    from xrelay.pass_manager import PassContext

    sys.path.insert(0, str(HERE))
    from numpy_im2col import NumpyModel

    import xrelay.lowering.pipeline
    import xrelay.runtime.library
    from xrelay.runtime.jit import target_machine

    target_machine()  # libraries loaded and LLVM initialised before the baseline
    del xrelay.lowering.pipeline, xrelay.runtime.library
    manifest = json.loads((models / "manifest.json").read_text())["models"][name]
    x = np.load(models / f"{name}.input.npy")
    ref = np.load(models / f"{name}.output.npy")
    base = _status("VmRSS")
    mod, params = from_onnx(str(models / f"{name}.onnx"))
    start = time.perf_counter()
    with PassContext(opt_level=opt_level):
        lib = xrelay.build(mod, params=params)
    compile_s = time.perf_counter() - start
    m = lib.create()
    if threads is not None:
        m.set_num_threads(threads)
    m.set_input(0, x)
    xrelay_ms = _median_ms(m.run, runs)
    err = float(np.max(np.abs(m.get_output(0) - ref)))
    peak = _status("VmHWM") - base
    one = lib.create()
    one.set_num_threads(1)
    one.set_input(0, x)
    one_ms = _median_ms(one.run, runs)

    peer = NumpyModel(models / f"{name}.onnx")
    numpy_ms = _median_ms(lambda: peer(x), runs)
    try:
        import onnxruntime as ort  # pyright: ignore[reportMissingImports]

        sess = ort.InferenceSession(str(models / f"{name}.onnx"))
        feed = {manifest["input_name"]: x}
        ort_ms: float | None = _median_ms(lambda: sess.run(None, feed), runs)
    except ImportError:
        ort_ms = None
    return {
        "model": name,
        "macs": int(manifest["macs"]),
        "weights_mb": int(manifest["params"]) * 4 / 1e6,
        "compile_s": compile_s,
        "xrelay_ms": xrelay_ms,
        "threads": m.num_threads,
        "one_thread_ms": one_ms,
        "numpy_ms": numpy_ms,
        "ort_ms": ort_ms,
        "peak_mb": peak / 1e6,
        "arena_mb": lib.spec.arena_size / 1e6,
        "max_err": err,
    }


def _gflops(macs: int, ms: float) -> float:
    return 2 * macs / (ms * 1e-3) / 1e9


def report(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'model':<13}{'compile s':>10}{'thr':>4}{'xrelay ms':>11}{'GFLOP/s':>9}"
        f"{'1-thr ms':>10}"
        f"{'numpy ms':>10}{'GFLOP/s':>9}{'x/numpy':>9}{'ort ms':>9}{'x/ort':>8}"
        f"{'peak MB':>9}{'weights':>9}{'max err':>10}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        ort = "n/a" if r["ort_ms"] is None else f"{r['ort_ms']:.3f}"
        ratio_ort = (
            "n/a" if r["ort_ms"] is None else f"{r['xrelay_ms'] / r['ort_ms']:.2f}"
        )
        print(
            f"{r['model']:<13}{r['compile_s']:>10.2f}{r['threads']:>4}"
            f"{r['xrelay_ms']:>11.3f}{_gflops(r['macs'], r['xrelay_ms']):>9.2f}"
            f"{r['one_thread_ms']:>10.3f}{r['numpy_ms']:>10.3f}"
            f"{_gflops(r['macs'], r['numpy_ms']):>9.2f}"
            f"{r['xrelay_ms'] / r['numpy_ms']:>9.2f}{ort:>9}{ratio_ort:>8}"
            f"{r['peak_mb']:>9.1f}{r['weights_mb']:>9.1f}{r['max_err']:>10.2e}"
        )
    if rows and rows[0]["ort_ms"] is None:
        print("onnxruntime: not installed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=Path("/work/shared/models"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="model names")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="xrelay's thread count (default: XRELAY_NUM_THREADS, else automatic)",
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        row = measure(args.models, args.child, args.runs, args.opt_level, args.threads)
        print(json.dumps(row))
        return 0
    manifest = json.loads((args.models / "manifest.json").read_text())["models"]
    names = args.only or list(manifest)
    print(
        f"xrelay e2e: opt_level {args.opt_level}, median of {args.runs} runs, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    rows: list[dict[str, Any]] = []
    for name in names:
        cmd = [sys.executable, __file__, "--models", str(args.models), "--runs",
               str(args.runs), "--opt-level", str(args.opt_level), "--child", name]  # fmt: skip
        if args.threads is not None:
            cmd += ["--threads", str(args.threads)]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            print(f"{name}: failed\n{result.stderr.strip()}", file=sys.stderr)
            continue
        rows.append(json.loads(result.stdout.strip().splitlines()[-1]))
    report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
