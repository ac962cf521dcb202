"""SwiGLU (glu.py) against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.frontend.onnx.backend import XrelayBackend

RunOnnx = Callable[..., Any]


@pytest.mark.parametrize("shape", [(3, 7), (5,), (2, 3, 1)])
@pytest.mark.parametrize("alpha", [None, 0.5, 1.702])
def test_swiglu(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    alpha: float | None,
) -> None:
    a = (rng.standard_normal(shape) * 4).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    attrs = {} if alpha is None else {"alpha": alpha}
    node = helper.make_node("SwiGLU", ["a", "b"], ["y"], **attrs)
    run_onnx(node, {"a": a, "b": b}, opset=28)


def test_swiglu_compiled_float16(build_model: Any, rng: np.random.Generator) -> None:
    a = (rng.standard_normal((4, 9)) * 4).astype(np.float16)
    b = rng.standard_normal((4, 9)).astype(np.float16)
    node = helper.make_node("SwiGLU", ["a", "b"], ["y"], alpha=0.75)
    want = a * (1 / (1 + np.exp(-0.75 * a.astype(np.float64)))) * b
    model = build_model(
        node, {"a": a, "b": b}, opset=28, output_values=[want.astype(np.float16)]
    )
    (got,) = XrelayBackend.prepare(model).run([a, b])
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


def test_swiglu_does_not_broadcast(build_model: Any) -> None:
    a, b = np.zeros((2, 3), np.float32), np.zeros((3,), np.float32)
    node = helper.make_node("SwiGLU", ["a", "b"], ["y"])
    model = build_model(
        node, {"a": a, "b": b}, opset=28, output_values=[np.zeros((2, 3), np.float32)]
    )
    with pytest.raises(OnnxImportError, match="no broadcasting"):
        from_onnx(model)
