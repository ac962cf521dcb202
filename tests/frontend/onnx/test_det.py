"""Det (det.py, relay.det) against the ONNX reference evaluator, compiled."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.frontend.onnx.backend import XrelayBackend


@pytest.mark.parametrize("shape", [(3, 3), (5, 7, 7), (2, 2, 1, 1), (4, 2, 2)])
def test_det_compiled(
    build_model: Any, rng: np.random.Generator, shape: tuple[int, ...]
) -> None:
    x = rng.standard_normal(shape).astype(np.float32)
    if len(shape) == 3:
        x[0, -1] = x[0, 0]  # a singular matrix
    node = helper.make_node("Det", ["x"], ["y"])
    draft = build_model(node, {"x": x})
    want = ReferenceEvaluator(draft).run(None, {"x": x})
    model = build_model(node, {"x": x}, output_values=want)
    (got,) = XrelayBackend.prepare(model).run([x])
    assert got.shape == want[0].shape
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want[0], rtol=1e-5, atol=1e-5)


def test_det_of_non_square_matrices_is_an_error(build_model: Any) -> None:
    x = np.zeros((2, 3), np.float32)
    node = helper.make_node("Det", ["x"], ["y"])
    model = build_model(node, {"x": x}, output_values=[np.zeros((), np.float32)])
    with pytest.raises(OnnxImportError, match="must be square"):
        from_onnx(model)
