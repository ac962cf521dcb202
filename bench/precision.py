"""Accuracy (and latency) of bf16 against float32 on the shared models.

    .venv/bin/python bench/precision.py [--models DIR] [--only mlp ...]
                                        [--repeat 5]

Each model (``MODELS/*.onnx``) is built twice at opt_level 3: float32, and with
ToMixedPrecision(bfloat16) in relay.build's pipeline (config
``xrelay.mixed_precision_type=bfloat16``, the program ``precision="bf16"`` builds on
an AVX512-BF16 host; set here directly, so any host runs it: bfloat16 is a storage
type the lowering handles everywhere). Both run the model's stored input; printed:
max abs error and max rel error (relative to the largest |float32 output|) of bf16
against float32 and of float32 against the stored reference, whether the top-1 class
agrees (classifiers), and the median latency of both (bf16 without AVX512-BF16 runs
the scalar kernels: the latency is no guide to a bf16 host). Figures only.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
from shared_models import SHARED_MODELS

import xrelay
from xrelay.frontend import from_onnx
from xrelay.pass_manager import PassContext
from xrelay.precision import host_has_avx512bf16
from xrelay.transforms.to_mixed_precision import BUILD_MIXED_PRECISION_TYPE


def _median_ms(fn: Any, x: np.ndarray[Any, Any], repeat: int) -> float:
    times: list[float] = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t)
    return 1000 * float(np.median(times))


def measure(models: Path, name: str, repeat: int) -> dict[str, Any]:
    mod, params = from_onnx(str(models / f"{name}.onnx"))
    x = np.load(models / f"{name}.input.npy")
    ref = np.load(models / f"{name}.output.npy")
    with PassContext(opt_level=3):
        f32 = xrelay.build(mod, params=params, cache=False)
    config = {BUILD_MIXED_PRECISION_TYPE: "bfloat16"}
    with PassContext(opt_level=3, config=config):
        bf16 = xrelay.build(mod, params=params, cache=False)
    y32 = np.asarray(f32(x), dtype=np.float64)
    y16 = np.asarray(bf16(x), dtype=np.float64)
    scale = float(np.abs(y32).max()) or 1.0
    top1 = None
    if y32.ndim == 2 and y32.shape[1] > 1:
        top1 = float(np.mean(y32.argmax(axis=1) == y16.argmax(axis=1)))
    return {
        "abs": float(np.abs(y16 - y32).max()),
        "rel": float(np.abs(y16 - y32).max()) / scale,
        "ref_abs": float(np.abs(y32 - ref).max()),
        "top1": top1,
        "ms32": _median_ms(f32, x, repeat),
        "ms16": _median_ms(bf16, x, repeat),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=SHARED_MODELS)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    names = sorted(p.stem for p in args.models.glob("*.onnx"))
    if args.only:
        names = [n for n in names if n in args.only]
    print(
        f"CPU: {platform.processor() or platform.machine()}, "
        f"AVX512-BF16: {host_has_avx512bf16()}, load: {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{'model':14} {'bf16 max abs':>13} {'bf16 max rel':>13} "
        f"{'f32 vs ref':>11} {'top-1':>6} {'f32 ms':>8} {'bf16 ms':>8}"
    )
    for name in names:
        r = measure(args.models, name, args.repeat)
        top1 = "-" if r["top1"] is None else f"{r['top1']:.0%}"
        print(
            f"{name:14} {r['abs']:13.3e} {r['rel']:13.3e} {r['ref_abs']:11.1e} "
            f"{top1:>6} {r['ms32']:8.2f} {r['ms16']:8.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
