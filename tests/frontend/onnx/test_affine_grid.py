"""AffineGrid (opset 20) against the ONNX reference evaluator: 2-D and 3-D, both
align_corners, odd sizes and one-pixel axes; then fed to GridSample; import errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]
F32 = np.float32


def _node(align: int) -> Any:
    return helper.make_node(
        "AffineGrid", ["theta", "size"], ["grid"], align_corners=align
    )


_ONE_POINT = (
    "a one-point axis with align_corners: onnxruntime puts it at 0, the reference at -1"
)


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 5, 7], [1, 1, 1, 4], [3, 2, 4, 1]])
def test_affine_grid_2d(
    run_onnx: RunOnnx, rng: np.random.Generator, align: int, size: list[int]
) -> None:
    theta = rng.standard_normal((size[0], 2, 3)).astype(F32)
    run_onnx(
        _node(align),
        {"theta": theta},
        {"size": np.array(size, np.int64)},
        opset=20,
        ort_differs=_ONE_POINT if align and 1 in size[2:] else None,
    )


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [[2, 1, 3, 4, 5], [1, 2, 1, 2, 3]])
def test_affine_grid_3d(
    run_onnx: RunOnnx, rng: np.random.Generator, align: int, size: list[int]
) -> None:
    theta = rng.standard_normal((size[0], 3, 4)).astype(F32)
    run_onnx(
        _node(align),
        {"theta": theta},
        {"size": np.array(size, np.int64)},
        opset=20,
        ort_differs=_ONE_POINT if align and 1 in size[2:] else None,
    )


def test_affine_grid_feeds_grid_sample(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    theta = np.array([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]]], F32)
    x = rng.standard_normal((1, 2, 5, 6)).astype(F32)
    nodes = [
        _node(0),
        helper.make_node("GridSample", ["x", "grid"], ["y"], mode="cubic"),
    ]
    run_onnx(
        nodes,
        {"theta": theta, "x": x},
        {"size": np.array([1, 2, 4, 7], np.int64)},
        opset=20,
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize(
    ("theta_shape", "size", "message"),
    [
        ((1, 2, 3), [1, 2, 3], "size must have 4 or 5 values"),
        ((1, 2, 3), [1, 1, 2, 3, 4], r"theta must be \[N, 3, 4\]"),
        ((2, 2, 3), [1, 1, 2, 3], "size has batch 1 but theta has 2"),
        ((1, 2, 3), [1, 1, 0, 3], "size must be positive"),
    ],
)
def test_affine_grid_errors(
    import_run: RunOnnx, theta_shape: tuple[int, ...], size: list[int], message: str
) -> None:
    theta = np.zeros(theta_shape, F32)
    out = np.zeros((1, 1, 1, 2), F32)
    with pytest.raises(OnnxImportError, match=message):
        import_run(
            _node(0),
            {"theta": theta},
            {"size": np.array(size, np.int64)},
            opset=20,
            expected=[out],
        )
