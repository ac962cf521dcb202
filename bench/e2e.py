"""End to end: every model of the shared models folder and of its ``zoo/``
(multi-input and multi-output models included) compiled with ``xrelay.build`` and
run, next to a plain numpy implementation (``bench/numpy_im2col.py``) and
onnxruntime (when installed) measured in the same run.

    .venv/bin/python bench/e2e.py [--models ../shared/models] [--runs 20]
                                  [--opt-level 3] [--only resnet18 zoo/mobilenet_v2 ...]
                                  [--threads N]

onnxruntime is an optional peer: ``pip install -e '.[bench]'`` installs it.

Per model (each in a fresh subprocess, so that memory figures are its own):

* ``compile s``: ``xrelay.build`` at the opt level (import excluded);
* ``thr``: the threads xrelay ran on (``--threads``, else ``XRELAY_NUM_THREADS``,
  else automatic: the cores, one for tiny models);
* ``xrelay ms``: median latency of ``run()`` over ``--runs`` runs (after one warm-up),
  and GFLOP/s = 2 * MACs (``manifest.json``) / latency; ``1-thr ms``: the same on
  one thread;
* ``numpy ms`` / ``ort ms``: the same for the peers, and the ratio xrelay / peer;
  onnxruntime runs on xrelay's thread count (``1-thr ort``: on one thread, against
  xrelay's ``1-thr ms``); xrelay and onnxruntime are timed in alternating blocks;
* ``peak MB``: peak resident memory above the process's size before importing the
  model (import, build and runs), and the model's weight size for scale;
* ``max err``: largest difference from the model's reference outputs (all of them).

The numpy peer runs the single-input models whose ops it knows (``n/a`` otherwise);
GFLOP/s needs the multiply-adds of ``manifest.json`` (the zoo's ``meta.json`` has
none: ``n/a``).

``bench/families.py --out DIR`` writes more architecture families in the same
layout: ``--models DIR`` measures them.

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

from shared_models import SHARED_MODELS

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


SETTLE_ENV = "XRELAY_BENCH_SETTLE_MS"
"""``--settle-ms``: a pause before each block (default none: blocks back to back).
With a pause every peer is timed after an idle gap, as a server between requests:
on the 2-vCPU VMs here a vCPU left idle wakes slowly, and a team that parks its
waiting threads pays more for it than onnxruntime's spinning pool (see
docs/decisions.md, Threads)."""


BLOCK_WARMUP_S = 0.05
"""Untimed runs at the start of every block, in seconds (at least one run)."""


def _blocks_ms(fns: list[Any], runs: int, blocks: int = 5) -> list[float]:
    """Median latency of each of ``fns`` over ``runs`` runs, measured in
    ``blocks`` alternating blocks (so that a change of load on the machine hits
    every peer alike), each block after untimed runs for at least
    :data:`BLOCK_WARMUP_S` (and a pause when ``$XRELAY_BENCH_SETTLE_MS`` is set).

    The untimed runs are not only a cache warm-up: onnxruntime's pool spins for a
    while after its last run, holding cores; with one untimed run, a block of a
    few 1 ms runs started while the previous peer's threads still spun (on 2
    cores, a two-thread run then waits for a core at every barrier)."""
    settle = float(os.environ.get(SETTLE_ENV, "0") or 0) / 1e3
    for fn in fns:
        fn()
    per = max(1, runs // blocks)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(blocks):
        for fn, ts in zip(fns, times, strict=True):
            if settle > 0:
                time.sleep(settle)
            warm_until = time.perf_counter() + BLOCK_WARMUP_S
            fn()
            while time.perf_counter() < warm_until:
                fn()
            for _ in range(per):
                start = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - start)
    return [statistics.median(ts) * 1e3 for ts in times]


def model_names(models: Path) -> list[str]:
    """The models of ``manifest.json``, then the folders of ``zoo/`` (as
    ``zoo/<name>``)."""
    names = list(json.loads((models / "manifest.json").read_text())["models"])
    zoo = models / "zoo"
    if zoo.is_dir():
        names += [
            f"zoo/{d.name}" for d in sorted(zoo.iterdir()) if (d / "meta.json").exists()
        ]
    return names


def model_spec(models: Path, name: str) -> dict[str, Any]:
    """Files and figures of one model: ``onnx``, ``inputs`` and ``outputs`` (``.npy``
    paths in order), ``macs`` (``None`` when unknown: the zoo's ``meta.json`` has
    none) and ``params``."""
    if name.startswith("zoo/"):
        folder = models / name
        meta = json.loads((folder / "meta.json").read_text())
        return {
            "onnx": folder / "model.onnx",
            "inputs": [folder / i["file"] for i in meta["inputs"]],
            "outputs": [folder / o["file"] for o in meta["outputs"]],
            "macs": meta.get("macs"),
            "params": int(meta["params"]),
        }
    entry = json.loads((models / "manifest.json").read_text())["models"][name]
    return {
        "onnx": models / entry["file"],
        "inputs": [models / f"{name}.input.npy"],
        "outputs": [models / f"{name}.output.npy"],
        "macs": int(entry["macs"]),
        "params": int(entry["params"]),
    }


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
    spec = model_spec(models, name)
    inputs = [np.load(f) for f in spec["inputs"]]
    refs = [np.load(f) for f in spec["outputs"]]
    base = _status("VmRSS")
    mod, params = from_onnx(str(spec["onnx"]))
    start = time.perf_counter()
    with PassContext(opt_level=opt_level):
        lib = xrelay.build(mod, params=params)
    compile_s = time.perf_counter() - start
    m = lib.create()
    if threads is not None:
        m.set_num_threads(threads)
    for k, a in enumerate(inputs):
        m.set_input(k, a)
    m.run()
    err = max(
        float(np.max(np.abs(m.get_output(k) - ref))) for k, ref in enumerate(refs)
    )
    peak = _status("VmHWM") - base
    one = lib.create()
    one.set_num_threads(1)
    for k, a in enumerate(inputs):
        one.set_input(k, a)

    numpy_ms: float | None = None
    if len(inputs) == 1:
        try:
            peer = NumpyModel(spec["onnx"])
            numpy_ms = _median_ms(lambda: peer(inputs[0]), runs)
        except Exception:  # the numpy peer knows the small CNNs' ops only
            numpy_ms = None
    ort_ms: float | None = None
    ort_one_ms: float | None = None
    try:
        import onnxruntime as ort  # pyright: ignore[reportMissingImports]
    except ImportError:
        xrelay_ms, one_ms = _blocks_ms([m.run, one.run], runs)
    else:

        def session(nthreads: int) -> Any:
            opts = ort.SessionOptions()  # pyright: ignore
            opts.intra_op_num_threads = nthreads  # pyright: ignore
            opts.inter_op_num_threads = 1  # pyright: ignore
            return ort.InferenceSession(str(spec["onnx"]), opts)  # pyright: ignore

        sess, sess1 = session(m.num_threads), session(1)
        names = [i.name for i in sess.get_inputs()]  # pyright: ignore
        feed = dict(zip(names, inputs, strict=True))  # pyright: ignore
        xrelay_ms, ort_ms, one_ms, ort_one_ms = _blocks_ms(
            [
                m.run,
                lambda: sess.run(None, feed),  # pyright: ignore
                one.run,
                lambda: sess1.run(None, feed),  # pyright: ignore
            ],
            runs,
        )
    return {
        "model": name,
        "macs": spec["macs"],
        "weights_mb": spec["params"] * 4 / 1e6,
        "compile_s": compile_s,
        "xrelay_ms": xrelay_ms,
        "threads": m.num_threads,
        "one_thread_ms": one_ms,
        "numpy_ms": numpy_ms,
        "ort_ms": ort_ms,
        "ort_one_thread_ms": ort_one_ms,
        "peak_mb": peak / 1e6,
        "arena_mb": lib.spec.arena_size / 1e6,
        "max_err": err,
    }


def _gflops(macs: int | None, ms: float | None) -> str:
    if macs is None or ms is None:
        return "n/a"
    return f"{2 * macs / (ms * 1e-3) / 1e9:.2f}"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ratio(a: float, b: float | None) -> str:
    return "n/a" if b is None else f"{a / b:.2f}"


def report(rows: list[dict[str, Any]]) -> None:
    width = max([13, *(len(r["model"]) + 1 for r in rows)])
    head = (
        f"{'model':<{width}}{'compile s':>10}{'thr':>4}{'xrelay ms':>11}{'GFLOP/s':>9}"
        f"{'1-thr ms':>10}"
        f"{'numpy ms':>10}{'GFLOP/s':>9}{'x/numpy':>9}{'ort ms':>9}{'x/ort':>8}"
        f"{'1-thr ort':>10}{'x/ort 1t':>9}"
        f"{'peak MB':>9}{'weights':>9}{'max err':>10}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['model']:<{width}}{r['compile_s']:>10.2f}{r['threads']:>4}"
            f"{r['xrelay_ms']:>11.3f}{_gflops(r['macs'], r['xrelay_ms']):>9}"
            f"{r['one_thread_ms']:>10.3f}{_ms(r['numpy_ms']):>10}"
            f"{_gflops(r['macs'], r['numpy_ms']):>9}"
            f"{_ratio(r['xrelay_ms'], r['numpy_ms']):>9}{_ms(r['ort_ms']):>9}"
            f"{_ratio(r['xrelay_ms'], r['ort_ms']):>8}"
            f"{_ms(r['ort_one_thread_ms']):>10}"
            f"{_ratio(r['one_thread_ms'], r['ort_one_thread_ms']):>9}"
            f"{r['peak_mb']:>9.1f}{r['weights_mb']:>9.1f}{r['max_err']:>10.2e}"
        )
    if rows and rows[0]["ort_ms"] is None:
        print("onnxruntime: not installed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=SHARED_MODELS)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument(
        "--only", nargs="*", default=None, help="model names (zoo/<name> for the zoo)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="xrelay's thread count (default: XRELAY_NUM_THREADS, else automatic)",
    )
    parser.add_argument(
        "--settle-ms",
        type=float,
        default=None,
        help="pause before each timed block (an idle gap before the runs)",
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.settle_ms is not None:
        os.environ[SETTLE_ENV] = str(args.settle_ms)  # the children read it
    if args.child is not None:
        row = measure(args.models, args.child, args.runs, args.opt_level, args.threads)
        print(json.dumps(row))
        return 0
    names = args.only or model_names(args.models)
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
