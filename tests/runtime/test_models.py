"""The shared models (``/work/shared/models``, imported with ``from_onnx``) compiled
with ``xrelay.build`` at opt_level 0 and 3 match onnxruntime's outputs (rtol 1e-4,
atol 1e-5), through the JIT and through an exported shared library loaded back; and
running ResNet-18 stays within its memory budget."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay.pass_manager import PassContext

MODELS = Path(os.environ.get("XRELAY_MODELS", "/work/shared/models"))
NAMES = ["mlp", "cnn_small", "resnet_block", "resnet18"]

pytestmark = pytest.mark.skipif(
    not (MODELS / "manifest.json").is_file(), reason=f"no shared models in {MODELS}"
)


def _import(name: str) -> tuple[Any, dict[str, Any]]:
    frontend = pytest.importorskip("xrelay.frontend")
    from_onnx = getattr(frontend, "from_onnx", None)
    if from_onnx is None:
        pytest.skip("xrelay.frontend.from_onnx is not available")
    return from_onnx(str(MODELS / f"{name}.onnx"))


_BUILT: dict[tuple[str, int], Any] = {}


def _built(name: str, level: int) -> Any:
    key = (name, level)
    if key not in _BUILT:
        mod, params = _import(name)
        with PassContext(opt_level=level):
            _BUILT[key] = xrelay.build(mod, params=params)
    return _BUILT[key]


def _check(out: Any, name: str) -> None:
    ref = np.load(MODELS / f"{name}.output.npy")
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("name", NAMES)
def test_model_jit(name: str, level: int):
    lib = _built(name, level)
    x = np.load(MODELS / f"{name}.input.npy")
    _check(lib(x), name)
    m = lib.create()
    m.set_input("input", x)
    m.run()
    _check(m.get_output(0), name)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize("name", NAMES)
def test_model_shared_library(name: str, level: int, tmp_path: Path):
    from xrelay.runtime import load_module

    lib = _built(name, level)
    path = tmp_path / f"{name}.so"
    lib.export_library(path)
    loaded = load_module(path)
    _check(loaded(np.load(MODELS / f"{name}.input.npy")), name)


def _budget(name: str) -> tuple[int, int]:
    """Weight bytes and the budget: 3x weights + the two largest activations."""
    manifest = json.loads((MODELS / "manifest.json").read_text())
    weights = int(manifest["models"][name]["params"]) * 4
    return weights, 3 * weights + 2 * (64 * 112 * 112 * 4)


_RUN_SO = """
import sys, numpy as np
def stat(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
from xrelay.runtime.library import load_module
x = np.load(sys.argv[2])
base = stat("VmRSS")
open("/proc/self/clear_refs", "w").write("5")
lib = load_module(sys.argv[1])
lib(x); lib(x)
print(stat("VmHWM") - base)
"""


def _warm_up() -> None:
    """Build and run a small convolutional model, so that the modules of the whole
    pipeline (passes, kernel emitters, LLVM) are imported before memory is traced:
    the figure is the build's, whatever ran before this test."""
    from xrelay import relay

    x = relay.var("x", shape=(1, 16, 8, 8), dtype="float32")
    w = relay.const(np.ones((16, 16, 3, 3), "float32"))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    y = relay.nn.dense(
        relay.nn.batch_flatten(relay.nn.max_pool2d(y)),
        relay.const(np.ones((10, 16 * 8 * 8), "float32")),
    )
    with PassContext(opt_level=3):
        xrelay.build(relay.IRModule.from_expr(y))(np.ones((1, 16, 8, 8), "float32"))


def test_resnet18_memory(tmp_path: Path):
    """Running ResNet-18 (the exported library, in a fresh process) peaks below 3x
    its weights plus its two largest activations (1x64x112x112 float32 each); so
    does the Python heap (numpy arrays, IR and constants, tracemalloc) of building
    it at opt_level 3 and running it through the JIT."""
    weights, budget = _budget("resnet18")
    mod, params = _import("resnet18")
    x = np.load(MODELS / "resnet18.input.npy")
    _warm_up()
    tracemalloc.start()
    try:
        with PassContext(opt_level=3):
            lib = xrelay.build(mod, params=params, cache=False)
        lib(x)
        build_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert build_peak < budget, (build_peak, budget)
    path = tmp_path / "resnet18.so"
    lib.export_library(path)
    result = subprocess.run(
        [sys.executable, "-c", _RUN_SO, str(path), str(MODELS / "resnet18.input.npy")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    run_peak = int(result.stdout.strip())
    print(
        f"weights {weights / 1e6:.1f} MB, budget {budget / 1e6:.1f} MB, "
        f"build+run heap peak {build_peak / 1e6:.1f} MB, "
        f"running the .so: RSS peak +{run_peak / 1e6:.1f} MB"
    )
    assert run_peak < budget, (run_peak, budget)
