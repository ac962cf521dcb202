"""Quantized models: xrelay on each next to onnxruntime (and OpenVINO where
installed) on the same model, and next to xrelay on the model's float32 twin.

    .venv/bin/python bench/quant.py [--models ../shared/models] [--runs 20]
                                    [--blocks 3] [--threads 2] [--only NAME ...]

Models:

* every folder of ``<models>/quant/`` (``model.onnx``, ``input_<i>.npy``,
  ``output_<i>.npy``, ``meta.json`` whose ``source`` names the float twin under
  ``<models>`` or ``<models>/zoo``), skipped with a note when absent;
* ``gpt2-dynamic``, ``vit-dynamic``: the GPT-2 and ViT blocks of
  ``bench/families.py`` quantized here by onnxruntime's ``quantize_dynamic`` (s8
  weights, ``DynamicQuantizeLinear`` + ``MatMulInteger``); ``gpt2-dynamic-all`` also
  quantizes the attention's products of two activations (``MatMulConstBOnly``
  off). The float model is the twin; the reference output is onnxruntime's on the
  quantized model (needs onnxruntime);
* ``qnn-resnet18``: a ResNet-18-shaped network written with ``relay.qnn`` ops
  (u8 activations, s8 per-channel weights, requantize, fused clip, residual
  ``qnn.add``), and the same network in float32 (conv, bias, relu): the integer
  kernels measured without depending on an importer. No peer runs it.

Every tool is timed as a user calls it (numpy in, numpy out), in ``--blocks``
alternating blocks of ``--runs`` runs each; the figure is the median over all the
runs. Columns: ``int8 ms`` (xrelay on the quantized model), ``ort ms`` / ``ov ms``
(the peers on the same quantized model) and ``x/ort`` (xrelay over onnxruntime:
at most 1.0 is the target), ``f32 ms`` (xrelay on the float twin) and ``f32/int8``
(above 1: the quantized model runs faster; the target on convolutional models is
1.6 on a VNNI host), ``err`` (largest difference from the model's reference
outputs). The CPU and the load (``/proc/loadavg``) are printed first.

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from shared_models import SHARED_MODELS

HERE = Path(__file__).resolve().parent

Run = Callable[[], Any]


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
    except OSError:
        return "unknown"


def _xrelay(onnx_path: Path, inputs: list[np.ndarray], threads: int) -> Run:
    import xrelay
    from xrelay.frontend import from_onnx

    mod, params = from_onnx(str(onnx_path))
    lib = xrelay.build(mod, params=params, num_threads=threads)
    return lambda: lib(*inputs)


def _ort(onnx_path: Path, inputs: list[np.ndarray], threads: int) -> Run | None:
    try:
        import onnxruntime as ort  # pyright: ignore[reportMissingImports]
    except ImportError:
        return None
    opts = ort.SessionOptions()  # pyright: ignore
    opts.intra_op_num_threads = threads  # pyright: ignore
    opts.inter_op_num_threads = 1  # pyright: ignore
    sess = ort.InferenceSession(str(onnx_path), opts)  # pyright: ignore
    names = [i.name for i in sess.get_inputs()]  # pyright: ignore
    feed = dict(zip(names, inputs, strict=True))  # pyright: ignore
    return lambda: sess.run(None, feed)  # pyright: ignore


def _ov(onnx_path: Path, inputs: list[np.ndarray], threads: int) -> Run | None:
    try:
        import openvino as ov  # pyright: ignore[reportMissingImports]
    except ImportError:
        return None
    config = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY"}
    compiled = ov.Core().compile_model(str(onnx_path), "CPU", config)  # pyright: ignore
    req = compiled.create_infer_request()  # pyright: ignore
    feed = dict(enumerate(inputs))
    return lambda: req.infer(feed, share_outputs=False)  # pyright: ignore


def _blocks(tools: dict[str, Run], runs: int, blocks: int) -> dict[str, float]:
    """Median ms per tool over ``blocks`` alternating blocks of ``runs`` runs."""
    times: dict[str, list[float]] = {name: [] for name in tools}
    for fn in tools.values():
        fn()  # warm-up
    for _ in range(blocks):
        for name, fn in tools.items():
            for _ in range(runs):
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}


def _twin(models: Path, source: str) -> Path | None:
    for cand in (
        models / source,
        models / f"{source}.onnx",
        models / "zoo" / source / "model.onnx",
    ):
        if cand.is_file():
            return cand
    return None


def _shared(
    models: Path, name: str, threads: int, runs: int, blocks: int
) -> dict[str, Any]:
    folder = models / "quant" / name
    meta = json.loads((folder / "meta.json").read_text())
    inputs = [np.load(folder / i["file"]) for i in meta["inputs"]]
    refs = [np.load(folder / o["file"]) for o in meta["outputs"]]
    onnx_path = folder / "model.onnx"
    start = time.perf_counter()
    tools: dict[str, Run] = {"int8": _xrelay(onnx_path, inputs, threads)}
    compile_s = time.perf_counter() - start
    outs = tools["int8"]()
    outs = outs if isinstance(outs, list | tuple) else [outs]
    err = max(
        float(np.max(np.abs(np.asarray(o, np.float64) - r)))
        for o, r in zip(outs, refs, strict=True)
    )
    for label, make in (("ort", _ort), ("ov", _ov)):
        fn = make(onnx_path, inputs, threads)
        if fn is not None:
            tools[label] = fn
    twin = _twin(models, meta.get("source", ""))
    if twin is not None:
        twin_inputs = [
            a.astype(np.float32) if a.dtype.kind == "f" else a for a in inputs
        ]
        tools["f32"] = _xrelay(twin, twin_inputs, threads)
    ms = _blocks(tools, runs, blocks)
    return {"ms": ms, "err": err, "compile_s": compile_s}


# -- transformers quantized dynamically here -----------------------------------------

GENERATED = {
    "gpt2-dynamic": ("gpt2", True),
    "gpt2-dynamic-all": ("gpt2", False),
    "vit-dynamic": ("vit", True),
}
"""Name: (family of ``bench/families.py``, quantize only products by a constant)."""


def _generated(name: str, threads: int, runs: int, blocks: int) -> dict[str, Any]:
    import tempfile

    import onnx
    from families import FAMILIES
    from onnxruntime.quantization import (  # pyright: ignore[reportMissingImports]
        QuantType,  # pyright: ignore
        quantize_dynamic,  # pyright: ignore
    )

    family, const_b_only = GENERATED[name]
    model, shape = FAMILIES[family](1.0)
    folder = Path(tempfile.mkdtemp(prefix="xrelay-quant-"))
    float_path, quant_path = folder / "float.onnx", folder / "model.onnx"
    onnx.save(model, str(float_path))
    quantize_dynamic(  # pyright: ignore
        str(float_path),
        str(quant_path),
        weight_type=QuantType.QInt8,  # pyright: ignore
        extra_options={"MatMulConstBOnly": const_b_only},
    )
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    start = time.perf_counter()
    tools: dict[str, Run] = {"int8": _xrelay(quant_path, [x], threads)}
    compile_s = time.perf_counter() - start
    ort = _ort(quant_path, [x], threads)
    assert ort is not None
    tools["ort"] = ort
    got, want = tools["int8"](), ort()[0]
    got = got[0] if isinstance(got, list | tuple) else got
    err = float(np.max(np.abs(np.asarray(got, np.float64) - want)))
    ov = _ov(quant_path, [x], threads)
    if ov is not None:
        tools["ov"] = ov
    tools["f32"] = _xrelay(float_path, [x], threads)
    return {"ms": _blocks(tools, runs, blocks), "err": err, "compile_s": compile_s}


# -- a ResNet-18-shaped network on relay.qnn ops ------------------------------------


def _qnn_resnet18(relay: Any, quantized: bool) -> tuple[Any, list[np.ndarray]]:
    """ResNet-18's convolutions (7x7/2 stem, 3x3 pool, four stages of two basic
    blocks, 1x1/2 projections) on a 224x224 image; quantized: u8 activations, s8
    per-channel weights, requantized and clipped, residual ``qnn.add``, dequantized
    before the pooling and the classifier; else float32 conv, bias, relu."""
    rng = np.random.default_rng(0)
    f32, i32 = "float32", "int32"

    def c(v: Any, dt: str) -> Any:
        return relay.const(np.asarray(v, dtype=dt), dt)

    scale = 0.05

    def conv(x: Any, cin: int, cout: int, k: int, s: int, relu: bool) -> Any:
        w = rng.normal(0, np.sqrt(2.0 / (cin * k * k)), (cout, cin, k, k))
        kw = {"kernel_size": (k, k), "channels": cout, "strides": (s, s)}
        kw["padding"] = (k // 2, k // 2)
        if not quantized:
            y = relay.nn.conv2d(x, c(w, f32), **kw)
            y = relay.add(y, c(rng.normal(0, 0.1, (cout, 1, 1)), f32))
            return relay.nn.relu(y) if relu else y
        ws = (np.abs(w).reshape(cout, -1).max(axis=1) / 127).astype(np.float32)
        wq = np.clip(np.round(w / ws[:, None, None, None]), -127, 127).astype(np.int8)
        y = relay.qnn.op.conv2d(
            x, c(wq, "int8"), c(128, i32), c(0, i32), c(scale, f32), c(ws, f32), **kw
        )
        y = relay.qnn.op.requantize(
            y,
            c(ws * scale, f32),
            c(0, i32),
            c(scale, f32),
            c(0 if relu else 128, i32),
            axis=1,
            out_dtype="uint8",
        )
        return relay.clip(y, 128, 255) if relu else y

    def add(a: Any, b: Any) -> Any:
        if not quantized:
            return relay.nn.relu(relay.add(a, b))
        s, z = c(scale, f32), c(128, i32)
        return relay.clip(relay.qnn.op.add(a, b, s, z, s, z, s, z), 128, 255)

    shape = (1, 3, 224, 224)
    image = rng.uniform(-1, 1, shape).astype(np.float32)
    x = relay.var("x", shape=shape, dtype=f32)
    h = x
    if quantized:
        h = relay.qnn.op.quantize(h, c(1 / 127, f32), c(128, i32), out_dtype="uint8")
    h = conv(h, 3, 64, 7, 2, True)
    h = relay.nn.max_pool2d(h, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        for block in range(2):
            s = stride if block == 0 else 1
            y = conv(h, cin, cout, 3, s, True)
            y = conv(y, cout, cout, 3, 1, False)
            short = h if s == 1 and cin == cout else conv(h, cin, cout, 1, s, False)
            h = add(y, short)
            cin = cout
    if quantized:
        h = relay.qnn.op.dequantize(h, c(scale, f32), c(128, i32))
    h = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(h))
    w = c(rng.normal(0, 0.05, (1000, 512)), f32)
    return relay.nn.dense(h, w), [image]


def _synthetic(threads: int, runs: int, blocks: int) -> dict[str, Any]:
    import xrelay
    from xrelay import relay

    tools: dict[str, Run] = {}
    start = time.perf_counter()
    compile_s = 0.0
    for label, quantized in (("int8", True), ("f32", False)):
        expr, inputs = _qnn_resnet18(relay, quantized)
        start = time.perf_counter()
        lib = xrelay.build(relay.IRModule.from_expr(expr), num_threads=threads)
        if quantized:
            compile_s = time.perf_counter() - start
        tools[label] = lambda lib=lib, inputs=inputs: lib(*inputs)
    return {
        "ms": _blocks(tools, runs, blocks),
        "err": float("nan"),
        "compile_s": compile_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=Path, default=SHARED_MODELS)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="model names")
    args = parser.parse_args()
    os.environ.setdefault("XRELAY_NUM_THREADS", str(args.threads))

    print(f"CPU: {_cpu()}; load {_load()}; {args.threads} threads")
    names: list[str] = []
    quant = args.models / "quant"
    if quant.is_dir():
        names = sorted(p.name for p in quant.iterdir() if (p / "model.onnx").is_file())
    else:
        print(f"({quant} is absent: the shared quantized models are skipped)")
    try:
        import onnxruntime  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]

        names.extend(GENERATED)
    except ImportError:
        print("(onnxruntime is absent: the dynamically quantized models are skipped)")
    names.append("qnn-resnet18")
    print(
        f"{'model':22} {'int8 ms':>8} {'ort ms':>8} {'ov ms':>8} {'x/ort':>6} "
        f"{'f32 ms':>8} {'f32/int8':>8} {'err':>9} {'compile s':>9}"
    )
    for name in names:
        if args.only and name not in args.only:
            continue
        try:
            if name == "qnn-resnet18":
                r = _synthetic(args.threads, args.runs, args.blocks)
            elif name in GENERATED:
                r = _generated(name, args.threads, args.runs, args.blocks)
            else:
                r = _shared(args.models, name, args.threads, args.runs, args.blocks)
        except Exception as e:  # a model xrelay cannot build yet: say so, go on
            print(f"{name:22} failed: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        ms = r["ms"]

        def cell(key: str, ms: dict[str, float] = ms) -> str:
            return f"{ms[key]:8.2f}" if key in ms else f"{'-':>8}"

        x_ort = f"{ms['int8'] / ms['ort']:6.2f}" if "ort" in ms else f"{'-':>6}"
        speed = f"{ms['f32'] / ms['int8']:8.2f}" if "f32" in ms else f"{'-':>8}"
        print(
            f"{name:22} {cell('int8')} {cell('ort')} {cell('ov')} {x_ort} "
            f"{cell('f32')} {speed} {r['err']:9.3g} {r['compile_s']:9.1f}",
            flush=True,
        )
    print(f"load after: {_load()}")


if __name__ == "__main__":
    main()
