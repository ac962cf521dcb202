"""The quantized shared models (``quant/``: onnxruntime's own quantizer, static QDQ
with per-channel weights and dynamic MatMul quantization) import, build (with
FakeQuantizationToInteger, the default) and reproduce onnxruntime's stored outputs.

Tolerance: one quantization step of the output. A graph output that is a
``DequantizeLinear`` may be off by one step of its scale (one requantize on the way
may round the other way at a tie: onnxruntime's kernels sum in another order, some
with FMAs). A float output computed after the last quantized tensor (the dynamic
model's LayerNorm and Tanh, whose quantization scales are computed at run time) may be
off by one 8-bit step of its own range, ``(max - min) / 255`` of onnxruntime's output.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import xrelay
from xrelay.frontend import from_onnx

QUANT_DIR = (
    Path(
        os.environ.get(
            "XRELAY_SHARED_MODELS",
            Path(__file__).resolve().parents[4] / "shared" / "models",
        )
    )
    / "quant"
)
NAMES = ["resnet18_qdq", "mobilenet_v2_qdq", "bert_small_dynamic"]


def output_steps(model: onnx.ModelProto, wants: list[Any]) -> list[float]:
    """The tolerance of each graph output (module docstring)."""
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    producers = {o: n for n in model.graph.node for o in n.output}
    steps: list[float] = []
    for out, want in zip(model.graph.output, wants, strict=True):
        node = producers[out.name]
        if node.op_type == "DequantizeLinear" and node.input[1] in inits:
            steps.append(float(np.max(inits[node.input[1]])))
        else:
            steps.append(float(np.max(want) - np.min(want)) / 255)
    return steps


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_quantized_shared_model(name: str) -> None:
    folder = QUANT_DIR / name
    if not (folder / "model.onnx").exists():
        pytest.skip(f"no quantized shared model at {folder} (set XRELAY_SHARED_MODELS)")
    meta = json.loads((folder / "meta.json").read_text())
    inputs = [np.load(folder / i["file"]) for i in meta["inputs"]]
    wants = [np.load(folder / o["file"]) for o in meta["outputs"]]
    model = onnx.load(str(folder / "model.onnx"))
    mod, params = from_onnx(model)
    got = xrelay.build(mod, params=params, cache=False)(*inputs)
    got = list(got) if isinstance(got, list | tuple) else [got]
    for g, want, step in zip(got, wants, output_steps(model, wants), strict=True):
        err = float(np.max(np.abs(np.asarray(g, np.float64) - want)))
        # a hair above one step: the dequantized values are float32 products
        assert err <= step * (1 + 1e-5), (err, step)
