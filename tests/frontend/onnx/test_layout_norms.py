"""SpaceToDepth / DepthToSpace, GroupNormalization, RMSNormalization and LpPool
against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]
F32 = np.float32


@pytest.mark.parametrize(
    ("shape", "b"), [((1, 2, 4, 6), 2), ((2, 3, 6, 3), 3), ((1, 1, 2, 2), 1)]
)
def test_space_to_depth(
    run_onnx: RunOnnx, rng: np.random.Generator, shape: tuple[int, ...], b: int
) -> None:
    x = rng.standard_normal(shape).astype(F32)
    run_onnx(helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=b), {"x": x})


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize(("shape", "b"), [((1, 8, 2, 3), 2), ((2, 9, 1, 2), 3)])
def test_depth_to_space(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    mode: str,
    shape: tuple[int, ...],
    b: int,
) -> None:
    x = rng.standard_normal(shape).astype(F32)
    run_onnx(
        helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=b, mode=mode), {"x": x}
    )


def test_space_depth_round_trip(import_run: RunOnnx, rng: np.random.Generator) -> None:
    x = rng.standard_normal((2, 3, 4, 6)).astype(F32)
    nodes = [
        helper.make_node("SpaceToDepth", ["x"], ["t"], blocksize=2),
        helper.make_node("DepthToSpace", ["t"], ["y"], blocksize=2, mode="CRD"),
    ]
    (got,) = import_run(nodes, {"x": x}, expected=[x])
    assert got.shape == x.shape


def test_depth_to_space_bad_channels(build_model: Callable[..., Any]) -> None:
    from xrelay.frontend import from_onnx

    x = np.zeros((1, 6, 2, 2), F32)
    model = build_model(
        helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2),
        {"x": x},
        output_values=[np.zeros((1, 1, 4, 4), F32)],
    )
    with pytest.raises(
        OnnxImportError, match=r"C \(6\) must be a multiple of blocksize\^2"
    ):
        from_onnx(model)


@pytest.mark.parametrize(
    ("opset", "shape", "groups"),
    [
        (21, (2, 6, 3, 4), 3),
        (21, (1, 4, 5), 2),
        (21, (2, 6, 3, 4), 2),
        (21, (3, 4, 7), 4),
    ],
)
def test_group_normalization(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    opset: int,
    shape: tuple[int, ...],
    groups: int,
) -> None:
    x = rng.standard_normal(shape).astype(F32) * 2 + 1
    n = groups if opset < 21 else shape[1]
    scale = rng.standard_normal(n).astype(F32)
    bias = rng.standard_normal(n).astype(F32)
    node = helper.make_node(
        "GroupNormalization", ["x", "s", "b"], ["y"], num_groups=groups, epsilon=1e-3
    )
    run_onnx(
        node,
        {"x": x},
        {"s": scale, "b": bias},
        opset=opset,
        rtol=1e-4,
        atol=1e-5,
        ort_differs="opset",
    )


@pytest.mark.parametrize(
    ("shape", "axis"), [((2, 3, 8), -1), ((2, 3, 4, 5), 2), ((4, 7), 0)]
)
def test_rms_normalization(
    run_onnx: RunOnnx, rng: np.random.Generator, shape: tuple[int, ...], axis: int
) -> None:
    x = rng.standard_normal(shape).astype(F32)
    scale = rng.standard_normal(shape[axis:]).astype(F32)
    node = helper.make_node(
        "RMSNormalization", ["x", "s"], ["y"], axis=axis, epsilon=1e-4
    )
    run_onnx(
        node,
        {"x": x},
        {"s": scale},
        opset=23,
        rtol=1e-4,
        atol=1e-5,
        ort_differs="opset 23",
    )


@pytest.mark.parametrize(
    ("shape", "attrs"),
    [
        ((1, 2, 5, 6), {"kernel_shape": [2, 3]}),
        (
            (2, 3, 7, 7),
            {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "p": 3},
        ),
        ((1, 2, 9), {"kernel_shape": [4], "p": 1}),
        ((1, 1, 6, 5), {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER"}),
    ],
)
def test_lp_pool(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    attrs: dict[str, Any],
) -> None:
    x = rng.standard_normal(shape).astype(F32)
    run_onnx(
        helper.make_node("LpPool", ["x"], ["y"], **attrs),
        {"x": x},
        opset=18,
        rtol=1e-4,
        atol=1e-5,
    )
