"""Quantized models: every model of the shared models' ``quant/`` folder compiled by
``xrelay.build`` with FakeQuantizationToInteger (the default: integer QNN ops), with
it disabled (``int8, FQ2I off``: a QDQ model's dequantize / quantize arithmetic
around float ops), and its float32 twin, next to onnxruntime on the quantized model
(when installed).

    .venv/bin/python bench/quant.py [--models ../shared/models] [--runs 10]
                                    [--blocks 3] [--threads 2] [--only resnet18_qdq]

Per model and variant: ``compile s`` (``xrelay.build``, cache off, import
excluded), ``ms`` (median latency of ``lib(*inputs)`` over the blocks, each of
``--runs`` runs after a warm-up; the variants run in alternating blocks), and ``max
err`` (largest difference from onnxruntime's outputs stored beside the model; the
float twin against its own reference). Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from shared_models import SHARED_MODELS

TWINS = {
    "resnet18_qdq": "resnet18.onnx",
    "mobilenet_v2_qdq": "zoo/mobilenet_v2/model.onnx",
    "bert_small_dynamic": "zoo/bert_small/model.onnx",
}
"""The float32 model each quantized one was made from (relative to the models
folder)."""


def load(folder: Path) -> tuple[list[np.ndarray[Any, Any]], list[np.ndarray[Any, Any]]]:
    meta = json.loads((folder / "meta.json").read_text())
    inputs = [np.load(folder / i["file"]) for i in meta["inputs"]]
    outputs = [np.load(folder / o["file"]) for o in meta["outputs"]]
    return inputs, outputs


def twin_data(models: Path, name: str) -> tuple[Path, list[Any], list[Any]] | None:
    rel = TWINS.get(name)
    if rel is None:
        return None
    path = (models / rel).resolve()
    if not path.exists():
        return None
    if path.parent.name == "models":  # resnet18.onnx beside its .input/.output.npy
        stem = path.with_suffix("")
        return (
            path,
            [np.load(f"{stem}.input.npy")],
            [np.load(f"{stem}.output.npy")],
        )
    inputs, outputs = load(path.parent)
    return path, inputs, outputs


def build(path: Path, threads: int, disabled: list[str]) -> tuple[Any, float]:
    import onnx

    import xrelay
    from xrelay.frontend.onnx import from_onnx
    from xrelay.pass_manager import PassContext

    mod, params = from_onnx(onnx.load(str(path)))
    start = time.perf_counter()
    with PassContext(opt_level=3, disabled_pass=disabled):
        lib = xrelay.build(mod, params=params, num_threads=threads, cache=False)
    return lib, time.perf_counter() - start


def max_err(got: Any, want: list[Any]) -> float:
    got = list(got) if isinstance(got, list | tuple) else [got]
    return max(
        float(np.max(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64))))
        for g, w in zip(got, want, strict=True)
    )


def block(fn: Any, runs: int) -> list[float]:
    fn()
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=SHARED_MODELS)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    quant = args.models / "quant"
    print(f"load: {os.getloadavg()}; threads: {args.threads}")
    names = sorted(p.name for p in quant.iterdir() if (p / "model.onnx").exists())
    for name in names:
        if args.only and name not in args.only:
            continue
        folder = quant / name
        inputs, outputs = load(folder)
        runners: dict[str, tuple[Any, list[Any]]] = {}
        rows: list[tuple[str, float, float]] = []
        for label, disabled in (
            ("int8 (FQ2I)", []),
            ("int8, FQ2I off", ["FakeQuantizationToInteger"]),
        ):
            lib, secs = build(folder / "model.onnx", args.threads, disabled)
            err = max_err(lib(*inputs), outputs)
            runners[label] = (lib, inputs)
            rows.append((label, secs, err))
        twin = twin_data(args.models, name)
        if twin is not None:
            lib, secs = build(twin[0], args.threads, [])
            runners["float32 twin"] = (lib, twin[1])
            rows.append(("float32 twin", secs, max_err(lib(*twin[1]), twin[2])))
        try:
            import onnxruntime as ort

            opts = ort.SessionOptions()
            opts.intra_op_num_threads = args.threads
            sess = ort.InferenceSession(str(folder / "model.onnx"), opts)
            feed = {i.name: a for i, a in zip(sess.get_inputs(), inputs, strict=True)}
            runners["onnxruntime int8"] = (lambda s=sess, f=feed: s.run(None, f), [])
            rows.append(("onnxruntime int8", float("nan"), 0.0))
        except ImportError:
            pass
        times: dict[str, list[float]] = {k: [] for k in runners}
        for _ in range(args.blocks):
            for label, (fn, ins) in runners.items():
                call = (lambda f=fn, i=ins: f(*i)) if ins else fn
                times[label] += block(call, args.runs)
        print(f"\n{name}")
        print(f"  {'variant':<22} {'compile s':>9} {'ms':>9} {'max err':>10}")
        for label, secs, err in rows:
            ms = statistics.median(times[label]) * 1e3
            print(f"  {label:<22} {secs:>9.1f} {ms:>9.2f} {err:>10.3g}")


if __name__ == "__main__":
    main()
