"""Upsample (opsets 7 and 9) against the ONNX reference evaluator (nearest, integer
scales) and, in linear mode (which the reference evaluator does not run), against the
reference's Resize with the asymmetric coordinate transformation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]
F32 = np.float32


@pytest.mark.parametrize("scales", [[1, 1, 2, 3], [1, 2, 1, 1], [2, 1, 3, 1]])
def test_upsample_nearest_opset9(
    run_onnx: RunOnnx, rng: np.random.Generator, scales: list[float]
) -> None:
    x = rng.standard_normal((1, 2, 3, 5)).astype(F32)
    node = helper.make_node("Upsample", ["x", "scales"], ["y"], mode="nearest")
    run_onnx(node, {"x": x}, {"scales": np.array(scales, F32)}, opset=9)


def test_upsample_nearest_opset7_int_data(
    import_run: RunOnnx, rng: np.random.Generator
) -> None:
    # the reference evaluator runs only opset 9's Upsample: repeat each element
    x = rng.integers(-9, 9, (2, 3, 4)).astype(np.int32)
    want = np.repeat(np.repeat(x, 2, axis=1), 3, axis=2)
    node = helper.make_node("Upsample", ["x"], ["y"], scales=[1.0, 2.0, 3.0])
    (got,) = import_run(node, {"x": x}, opset=7, expected=[want])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("scales", [[1, 1, 2, 2], [1, 1, 1.5, 2.5], [1, 1, 3, 1]])
def test_upsample_linear_is_asymmetric_resize(
    import_run: RunOnnx,
    onnx_reference: RunOnnx,
    rng: np.random.Generator,
    scales: list[float],
) -> None:
    x = rng.standard_normal((1, 2, 4, 5)).astype(F32)
    s = np.array(scales, F32)
    node = helper.make_node("Upsample", ["x", "scales"], ["y"], mode="linear")
    resize = helper.make_node(
        "Resize",
        ["x", "", "scales"],
        ["y"],
        mode="linear",
        coordinate_transformation_mode="asymmetric",
    )
    (want,) = onnx_reference(resize, {"x": x}, {"scales": s}, opset=13)
    (got,) = import_run(node, {"x": x}, {"scales": s}, opset=9, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("scales", "mode", "message"),
    [
        ([1.0, 0.5], "nearest", "scales must be >= 1"),
        ([1.0], "nearest", "scales has 1 values for an input of rank 2"),
        ([1.0, 2.0], "cubic", "mode 'cubic' is not supported"),
    ],
)
def test_upsample_errors(
    import_run: RunOnnx, scales: list[float], mode: str, message: str
) -> None:
    x = np.zeros((2, 3), F32)
    node = helper.make_node("Upsample", ["x", "scales"], ["y"], mode=mode)
    with pytest.raises(OnnxImportError, match=message):
        import_run(
            node, {"x": x}, {"scales": np.array(scales, F32)}, opset=9, expected=[x]
        )
