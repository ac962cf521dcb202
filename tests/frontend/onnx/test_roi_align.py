"""RoiAlign (opsets 10, 16) against the ONNX reference evaluator: both modes, both
coordinate transformation modes, fixed and adaptive sampling, scaled regions
reaching outside the data; import errors."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]
F32 = np.float32


def _feeds(rng: np.random.Generator) -> dict[str, Any]:
    x = rng.standard_normal((2, 3, 8, 7)).astype(F32)
    corner = rng.uniform(-3, 9, (5, 2))
    rois = np.concatenate([corner, corner + rng.uniform(0.3, 8, (5, 2))], 1)
    return {
        "x": x,
        "rois": rois.astype(F32),
        "batch": rng.integers(0, 2, 5).astype(np.int64),
    }


@pytest.mark.parametrize(
    ("mode", "coords", "ratio"),
    list(
        itertools.product(["avg", "max"], ["half_pixel", "output_half_pixel"], [0, 2])
    ),
)
def test_roi_align(
    run_onnx: RunOnnx, rng: np.random.Generator, mode: str, coords: str, ratio: int
) -> None:
    node = helper.make_node(
        "RoiAlign",
        ["x", "rois", "batch"],
        ["y"],
        mode=mode,
        coordinate_transformation_mode=coords,
        sampling_ratio=ratio,
        spatial_scale=0.75,
        output_height=3,
        output_width=4,
    )
    run_onnx(node, _feeds(rng), opset=16, rtol=1e-5, atol=1e-5)


def test_roi_align_opset10_is_output_half_pixel(
    import_run: RunOnnx, onnx_reference: RunOnnx, rng: np.random.Generator
) -> None:
    # opset 10 had no coordinate_transformation_mode: its behaviour is opset 16's
    # output_half_pixel (the reference evaluator applies opset 16's default)
    feeds = _feeds(rng)
    node = helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"])
    legacy = helper.make_node(
        "RoiAlign",
        ["x", "rois", "batch"],
        ["y"],
        coordinate_transformation_mode="output_half_pixel",
    )
    (want,) = onnx_reference(legacy, feeds, opset=16)
    (got,) = import_run(node, feeds, opset=10, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("rois_shape", "attrs", "message"),
    [
        ((5, 5), {}, r"rois must be \[R, 4\]"),
        ((5, 4), {"coordinate_transformation_mode": "asymmetric"}, "unknown"),
        ((5, 4), {"mode": "sum"}, 'unknown mode "sum"'),
    ],
)
def test_roi_align_errors(
    import_run: RunOnnx,
    rois_shape: tuple[int, ...],
    attrs: dict[str, Any],
    message: str,
) -> None:
    feeds = {
        "x": np.zeros((1, 1, 4, 4), F32),
        "rois": np.zeros(rois_shape, F32),
        "batch": np.zeros(5, np.int64),
    }
    node = helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], **attrs)
    with pytest.raises(OnnxImportError, match=message):
        import_run(node, feeds, opset=16, expected=[np.zeros((5, 1, 1, 1), F32)])
