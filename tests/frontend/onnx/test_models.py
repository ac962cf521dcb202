"""Every model of the shared models folder imports, and the interpreter reproduces the
``.output.npy`` next to it (onnxruntime's output) within rtol 1e-4, atol 1e-5."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from xrelay.frontend import from_onnx
from xrelay.runtime.interpreter import interpret

MODELS_DIR = Path(
    os.environ.get(
        "XRELAY_SHARED_MODELS",
        Path(__file__).resolve().parents[4] / "shared" / "models",
    )
)
MODELS = sorted(MODELS_DIR.glob("*.onnx")) if MODELS_DIR.is_dir() else []
NO_MODELS = f"no shared models folder at {MODELS_DIR} (set XRELAY_SHARED_MODELS)"


def _params(paths: list[Path]) -> list[object]:
    if not paths:
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_MODELS), id="none")]
    return [pytest.param(p, id=p.stem) for p in paths]


@pytest.mark.parametrize("path", _params(MODELS))
@pytest.mark.parametrize("freeze_params", [True, False])
def test_shared_model(path: Path, freeze_params: bool) -> None:
    x = np.load(path.with_name(path.stem + ".input.npy"))
    expected = np.load(path.with_name(path.stem + ".output.npy"))
    mod, params = from_onnx(path, freeze_params=freeze_params)
    assert bool(params) == (not freeze_params)
    start = time.perf_counter()
    got = interpret(mod, x, *params.values())
    elapsed = time.perf_counter() - start
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    # resnet18 runs in about 2 s; a generous bound catches a pathological slowdown
    assert elapsed < 120, f"the interpreter took {elapsed:.0f} s on {path.stem}"


def test_onnxruntime_agrees_on_shared_models() -> None:
    """The frontend against onnxruntime itself (the .output.npy files come from it)."""
    ort = pytest.importorskip(
        "onnxruntime",
        reason="onnxruntime is not installed (the .output.npy files are its outputs)",
    )
    if not MODELS:
        pytest.skip(NO_MODELS)
    for path in MODELS:  # pragma: no cover - needs onnxruntime
        x = np.load(path.with_name(path.stem + ".input.npy"))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (want,) = session.run(None, {session.get_inputs()[0].name: x})
        mod, _ = from_onnx(path)
        np.testing.assert_allclose(interpret(mod, x), want, rtol=1e-4, atol=1e-5)
