"""End to end: every model of the shared models folder and of its ``zoo/``
(multi-input and multi-output models included) compiled with ``xrelay.build`` and
run, next to a plain numpy implementation (``bench/numpy_im2col.py``), onnxruntime
and OpenVINO (each when installed) measured in the same run.

    .venv/bin/python bench/e2e.py [--models ../shared/models] [--runs 20]
                                  [--opt-level 3] [--only resnet18 zoo/mobilenet_v2 ...]
                                  [--threads N]

onnxruntime and OpenVINO are optional peers: ``pip install -e '.[bench]'`` installs
them. Every tool is timed as a user calls it, numpy in and numpy out: xrelay's
one-call form ``lib(*inputs)``, onnxruntime's ``session.run(None, feed)``, OpenVINO's
``request.infer(feed)`` (outputs copied out). OpenVINO runs with
``INFERENCE_PRECISION_HINT=f32`` (it would otherwise compute in bfloat16 on hosts
with bfloat16 instructions); on such hosts its default precision is timed too
(``ov bf16``, shown apart, not counted as a peer of float32 code).

Per model (each in a fresh subprocess, so that memory figures are its own):

* ``compile s``: ``xrelay.build`` at the opt level (import excluded);
* ``thr``: the threads xrelay ran on (``--threads``, else ``XRELAY_NUM_THREADS``,
  else automatic: the cores, one for tiny models);
* ``xrelay ms``: median latency of ``run()`` over ``--runs`` runs (after one warm-up),
  and GFLOP/s = 2 * MACs (``manifest.json``) / latency; ``1-thr ms``: the same on
  one thread;
* ``numpy ms`` / ``ort ms`` / ``ov ms``: the same for the peers, and the ratio
  xrelay / peer; the peers run on xrelay's thread count (``1-thr ort``, ``1-thr
  ov``: on one thread, against xrelay's ``1-thr ms``); ``x/best`` and ``x/best 1t``:
  xrelay against the faster of onnxruntime and OpenVINO; every tool is timed in
  alternating blocks, on 2 threads and then on 1;
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


def _cpu_name() -> str:
    """The CPU model and vector extensions, for the report."""
    name, flags = "unknown CPU", set[str]()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and name == "unknown CPU":
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    isa = [
        f
        for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16")
        if f in flags
    ]
    return f"{name} ({', '.join(isa) or 'no AVX2'})"


def _has_bf16() -> bool:
    return any(f in _cpu_name() for f in ("avx512_bf16", "amx_bf16"))


Peer = tuple[str, Any, Any]
"""(label, the call to time, the object that keeps it alive)."""


def _peers(onnx_path: Path, inputs: list[Any], nthreads: int) -> dict[str, list[Peer]]:
    """The peers installed, on ``nthreads`` threads (``many``) and on one
    (``one``), each a call taking numpy arrays and returning numpy arrays."""
    out: dict[str, list[Peer]] = {"many": [], "one": []}
    try:
        import onnxruntime as ort  # pyright: ignore[reportMissingImports]
    except ImportError:
        pass
    else:

        def session(n: int) -> Any:
            opts = ort.SessionOptions()  # pyright: ignore
            opts.intra_op_num_threads = n  # pyright: ignore
            opts.inter_op_num_threads = 1  # pyright: ignore
            sess = ort.InferenceSession(str(onnx_path), opts)  # pyright: ignore
            names = [i.name for i in sess.get_inputs()]  # pyright: ignore
            feed = dict(zip(names, inputs, strict=True))  # pyright: ignore
            return (lambda: sess.run(None, feed)), sess  # pyright: ignore

        for group, n, label in (("many", nthreads, "ort"), ("one", 1, "ort1")):
            fn, keep = session(n)
            out[group].append((label, fn, keep))
    try:
        import openvino as ov  # pyright: ignore[reportMissingImports]
    except ImportError:
        pass
    else:
        core = ov.Core()  # pyright: ignore

        def request(n: int, precision: str | None) -> Any:
            config: dict[str, Any] = {
                "INFERENCE_NUM_THREADS": n,
                "PERFORMANCE_HINT": "LATENCY",
                "NUM_STREAMS": 1,
            }
            if precision is not None:
                config["INFERENCE_PRECISION_HINT"] = precision
            compiled = core.compile_model(str(onnx_path), "CPU", config)  # pyright: ignore
            req = compiled.create_infer_request()  # pyright: ignore
            feed = dict(enumerate(inputs))
            # outputs copied out of the request: numpy out, as the other peers
            return (lambda: req.infer(feed, share_outputs=False)), (compiled, req)  # pyright: ignore

        for group, n, label in (("many", nthreads, "ov"), ("one", 1, "ov1")):
            fn, keep = request(n, "f32")
            out[group].append((label, fn, keep))
        if _has_bf16():
            fn, keep = request(nthreads, None)
            out["many"].append(("ovbf16", fn, keep))
    return out


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
    nthreads = m.num_threads
    del m
    # as users call it: numpy in, numpy out (the one-call form)
    with PassContext(opt_level=opt_level):
        lib = xrelay.build(mod, params=params, num_threads=nthreads)
        lib1 = xrelay.build(mod, params=params, num_threads=1)

    numpy_ms: float | None = None
    if len(inputs) == 1:
        try:
            peer = NumpyModel(spec["onnx"])
            numpy_ms = _median_ms(lambda: peer(inputs[0]), runs)
        except Exception:  # the numpy peer knows the small CNNs' ops only
            numpy_ms = None
    peers = _peers(spec["onnx"], inputs, nthreads)
    many = [lambda: lib(*inputs), *(fn for _, fn, _ in peers["many"])]
    one = [lambda: lib1(*inputs), *(fn for _, fn, _ in peers["one"])]
    # blocks on every thread count apart: a peer's spinning pool must not steal the
    # cores from the next peer's two-thread run
    times_many = _blocks_ms(many, runs)
    times_one = _blocks_ms(one, runs)
    row_peers: dict[str, float | None] = {}
    for group, times in (("many", times_many), ("one", times_one)):
        for (label, _, _), t in zip(peers[group], times[1:], strict=True):
            row_peers[label] = t
    xrelay_ms, one_ms = times_many[0], times_one[0]
    return {
        "cpu": _cpu_name(),
        "model": name,
        "macs": spec["macs"],
        "weights_mb": spec["params"] * 4 / 1e6,
        "compile_s": compile_s,
        "xrelay_ms": xrelay_ms,
        "threads": nthreads,
        "one_thread_ms": one_ms,
        "numpy_ms": numpy_ms,
        "ort_ms": row_peers.get("ort"),
        "ort_one_thread_ms": row_peers.get("ort1"),
        "ov_ms": row_peers.get("ov"),
        "ov_one_thread_ms": row_peers.get("ov1"),
        "ov_bf16_ms": row_peers.get("ovbf16"),
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


def _best(*values: float | None) -> float | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def report(rows: list[dict[str, Any]]) -> None:
    width = max([13, *(len(r["model"]) + 1 for r in rows)])
    bf16 = any(r.get("ov_bf16_ms") is not None for r in rows)
    head = (
        f"{'model':<{width}}{'compile s':>10}{'thr':>4}{'xrelay ms':>11}{'GFLOP/s':>9}"
        f"{'numpy ms':>10}{'x/numpy':>8}"
        f"{'ort ms':>9}{'x/ort':>7}{'ov ms':>9}{'x/ov':>7}{'x/best':>8}"
        f"{'1-thr ms':>10}{'1-thr ort':>10}{'1-thr ov':>10}{'x/best 1t':>10}"
        + (f"{'ov bf16':>9}" if bf16 else "")
        + f"{'peak MB':>9}{'weights':>9}{'max err':>10}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        best = _best(r["ort_ms"], r.get("ov_ms"))
        best1 = _best(r["ort_one_thread_ms"], r.get("ov_one_thread_ms"))
        print(
            f"{r['model']:<{width}}{r['compile_s']:>10.2f}{r['threads']:>4}"
            f"{r['xrelay_ms']:>11.3f}{_gflops(r['macs'], r['xrelay_ms']):>9}"
            f"{_ms(r['numpy_ms']):>10}{_ratio(r['xrelay_ms'], r['numpy_ms']):>8}"
            f"{_ms(r['ort_ms']):>9}{_ratio(r['xrelay_ms'], r['ort_ms']):>7}"
            f"{_ms(r.get('ov_ms')):>9}{_ratio(r['xrelay_ms'], r.get('ov_ms')):>7}"
            f"{_ratio(r['xrelay_ms'], best):>8}"
            f"{r['one_thread_ms']:>10.3f}{_ms(r['ort_one_thread_ms']):>10}"
            f"{_ms(r.get('ov_one_thread_ms')):>10}"
            f"{_ratio(r['one_thread_ms'], best1):>10}"
            + (f"{_ms(r.get('ov_bf16_ms')):>9}" if bf16 else "")
            + f"{r['peak_mb']:>9.1f}{r['weights_mb']:>9.1f}{r['max_err']:>10.2e}"
        )
    if rows:
        print(f"CPU: {rows[0]['cpu']}")
        if rows[0]["ort_ms"] is None:
            print("onnxruntime: not installed")
        if rows[0].get("ov_ms") is None:
            print("OpenVINO: not installed")
        elif not bf16:
            print(
                "OpenVINO's default precision is float32 on this host (no bfloat16 instructions)"
            )


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
