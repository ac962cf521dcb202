"""Resize (nearest, linear, cubic, antialias, tf_crop_and_resize) built from take / multiply / add, against the ONNX
reference evaluator over coordinate transformation modes, nearest modes, scales and
sizes, up- and downsampling."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError, from_onnx

RunOnnx = Callable[..., Any]
F32 = np.float32

COORD_MODES = ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"]
NEAREST_MODES = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
GEOMETRY: list[tuple[str, list[float] | None, list[int] | None]] = [
    ("scale_up_2", [1, 1, 2, 2], None),
    ("scale_mixed", [1, 1, 1.5, 0.5], None),
    ("sizes_up", None, [1, 2, 7, 9]),
    ("sizes_down", None, [1, 2, 3, 2]),
    ("sizes_to_1", None, [1, 2, 1, 3]),
]


def resize_node(mode: str, scales: Any, sizes: Any, **attrs: Any) -> Any:
    names = ["x", "", "scales" if scales is not None else ""]
    if sizes is not None:
        names.append("sizes")
    return helper.make_node("Resize", names, ["y"], mode=mode, **attrs)


def inits_for(
    scales: list[float] | None, sizes: list[int] | None
) -> dict[str, np.ndarray]:
    inits: dict[str, np.ndarray] = {}
    if scales is not None:
        inits["scales"] = np.array(scales, F32)
    if sizes is not None:
        inits["sizes"] = np.array(sizes, np.int64)
    return inits


@pytest.mark.parametrize("coord", COORD_MODES)
@pytest.mark.parametrize("nearest", NEAREST_MODES)
@pytest.mark.parametrize(
    ("scales", "sizes"), [g[1:] for g in GEOMETRY], ids=[g[0] for g in GEOMETRY]
)
def test_resize_nearest(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    coord: str,
    nearest: str,
    scales: list[float] | None,
    sizes: list[int] | None,
) -> None:
    node = resize_node(
        "nearest",
        scales,
        sizes,
        coordinate_transformation_mode=coord,
        nearest_mode=nearest,
    )
    x = rng.standard_normal((1, 2, 4, 6)).astype(F32)
    run_onnx(node, {"x": x}, inits_for(scales, sizes), opset=13)


@pytest.mark.parametrize("coord", [*COORD_MODES, "half_pixel_symmetric"])
@pytest.mark.parametrize(
    ("scales", "sizes"), [g[1:] for g in GEOMETRY], ids=[g[0] for g in GEOMETRY]
)
def test_resize_linear(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    coord: str,
    scales: list[float] | None,
    sizes: list[int] | None,
) -> None:
    node = resize_node("linear", scales, sizes, coordinate_transformation_mode=coord)
    x = rng.standard_normal((1, 2, 4, 6)).astype(F32)
    run_onnx(node, {"x": x}, inits_for(scales, sizes), opset=19, rtol=1e-5, atol=1e-5)


def test_resize_defaults_opset_11(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    """Opset 11: roi and scales are inputs (empty when unused); default half_pixel
    and round_prefer_floor."""
    node = helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"])
    inits = {
        "roi": np.array([], F32),
        "scales": np.array([], F32),
        "sizes": np.array([2, 3, 5, 3], np.int64),
    }
    run_onnx(
        node, {"x": rng.standard_normal((2, 3, 3, 4)).astype(F32)}, inits, opset=11
    )


@pytest.mark.parametrize("policy", ["stretch", "not_larger", "not_smaller"])
def test_resize_axes_and_aspect_ratio(
    run_onnx: RunOnnx, rng: np.random.Generator, policy: str
) -> None:
    """Opset 18: ``axes`` select the resized dims; ``keep_aspect_ratio_policy``."""
    node = helper.make_node(
        "Resize",
        ["x", "", "", "sizes"],
        ["y"],
        mode="linear",
        axes=[3, 2],
        keep_aspect_ratio_policy=policy,
    )
    inits = {"sizes": np.array([9, 5], np.int64)}
    x = rng.standard_normal((1, 2, 4, 6)).astype(F32)
    run_onnx(node, {"x": x}, inits, opset=18, rtol=1e-5, atol=1e-5)


def test_resize_3d_input(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    """Any rank: each resized axis is one take."""
    node = resize_node("linear", [1, 2.5, 0.75], None)
    x = rng.standard_normal((2, 4, 8)).astype(F32)
    run_onnx(node, {"x": x}, inits_for([1, 2.5, 0.75], None), opset=13, atol=1e-5)


def test_resize_uses_only_existing_ops(
    build_model: Callable[..., Any], rng: np.random.Generator
) -> None:
    node = resize_node("linear", [1, 1, 2, 2], None)
    x = rng.standard_normal((1, 1, 3, 3)).astype(F32)
    model = build_model(
        node,
        {"x": x},
        inits_for([1, 1, 2, 2], None),
        opset=13,
        output_values=[np.zeros((1, 1, 6, 6), F32)],
    )
    mod, _ = from_onnx(model)
    ops = {op.name for op in mod["main"].body.block.ops}
    assert ops <= {
        "relay.take",
        "relay.multiply",
        "relay.add",
        "relay.constant",
        "func.return",
    }


@pytest.mark.parametrize("coord", [*COORD_MODES, "half_pixel_symmetric"])
@pytest.mark.parametrize(("a", "exclude"), [(-0.75, 0), (-0.5, 1)])
@pytest.mark.parametrize(
    ("scales", "sizes"), [g[1:] for g in GEOMETRY], ids=[g[0] for g in GEOMETRY]
)
def test_resize_cubic(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    coord: str,
    a: float,
    exclude: int,
    scales: list[float] | None,
    sizes: list[int] | None,
) -> None:
    """Cubic convolution with ``cubic_coeff_a`` and ``exclude_outside``."""
    node = resize_node(
        "cubic",
        scales,
        sizes,
        coordinate_transformation_mode=coord,
        cubic_coeff_a=a,
        exclude_outside=exclude,
    )
    x = rng.standard_normal((1, 2, 4, 6)).astype(F32)
    differs = (
        "onnxruntime's cubic resize with pytorch_half_pixel onto one row differs "
        "from the ONNX reference evaluator, which xrelay follows"
        if coord == "pytorch_half_pixel" and sizes is not None and 1 in sizes
        else None
    )
    run_onnx(
        node,
        {"x": x},
        inits_for(scales, sizes),
        opset=19,
        rtol=1e-5,
        atol=1e-5,
        ort_differs=differs,
    )


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("scales", [[1, 1, 0.3, 0.6], [1, 1, 1.7, 0.5]])
def test_resize_antialias(
    run_onnx: RunOnnx, rng: np.random.Generator, mode: str, scales: list[float]
) -> None:
    """Opset 18 antialias: the kernel widens by ``1 / scale`` when downsampling."""
    node = resize_node(mode, scales, None, antialias=1)
    x = rng.standard_normal((1, 2, 10, 7)).astype(F32)
    run_onnx(node, {"x": x}, inits_for(scales, None), opset=18, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_tf_crop_and_resize(
    run_onnx: RunOnnx, rng: np.random.Generator, mode: str
) -> None:
    """A region of interest reaching outside the input: those positions take
    ``extrapolation_value``."""
    node = helper.make_node(
        "Resize",
        ["x", "roi", "", "sizes"],
        ["y"],
        mode=mode,
        coordinate_transformation_mode="tf_crop_and_resize",
        extrapolation_value=7.5,
        axes=[2, 3],
    )
    inits = {
        "roi": np.array([-0.2, 0.3, 0.9, 1.4], F32),
        "sizes": np.array([5, 4], np.int64),
    }
    x = rng.standard_normal((1, 2, 6, 5)).astype(F32)
    differs = (
        "onnxruntime's nearest tf_crop_and_resize picks other pixels than the "
        "reference evaluator here"
        if mode == "nearest"
        else None
    )
    run_onnx(node, {"x": x}, inits, opset=18, rtol=1e-5, atol=1e-5, ort_differs=differs)


def test_resize_antialias_nearest_error(
    build_model: Callable[..., Any], rng: np.random.Generator
) -> None:
    node = resize_node("nearest", [1, 1, 0.5, 0.5], None, antialias=1)
    x = rng.standard_normal((1, 1, 4, 4)).astype(F32)
    model = build_model(
        node,
        {"x": x},
        inits_for([1, 1, 0.5, 0.5], None),
        opset=18,
        output_values=[np.zeros((1, 1, 2, 2), F32)],
    )
    with pytest.raises(
        OnnxImportError, match="antialias=1 is not supported in nearest"
    ):
        from_onnx(model)
