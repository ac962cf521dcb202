"""3-D Conv, ConvTranspose, MaxPool, AveragePool and LpPool (composed from the 2-D
relay ops) against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

RunOnnx = Callable[..., Any]
F32 = np.float32

CONV_CASES: list[dict[str, Any]] = [
    {},
    {"strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 1]},
    {"dilations": [2, 1, 1], "pads": [2, 1, 0, 1, 1, 0]},
    {"auto_pad": "SAME_UPPER", "strides": [2, 2, 1]},
    {"group": 2},
]


@pytest.mark.parametrize("attrs", CONV_CASES)
def test_conv3d(
    run_onnx: RunOnnx, rng: np.random.Generator, attrs: dict[str, Any]
) -> None:
    groups = attrs.get("group", 1)
    x = rng.standard_normal((2, 4, 5, 6, 5)).astype(F32)
    w = rng.standard_normal((6, 4 // groups, 3, 2, 3)).astype(F32)
    b = rng.standard_normal(6).astype(F32)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)
    run_onnx(node, {"x": x}, {"w": w, "b": b}, opset=17, rtol=1e-4, atol=1e-4)


TRANSPOSE_CASES: list[dict[str, Any]] = [
    {},
    {"strides": [2, 1, 2], "pads": [1, 0, 0, 0, 1, 1]},
    {"strides": [3, 2, 1], "dilations": [2, 1, 1], "output_padding": [1, 1, 0]},
    {"output_shape": [9, 6, 5], "strides": [2, 1, 1]},
]


@pytest.mark.parametrize("attrs", TRANSPOSE_CASES)
def test_conv_transpose3d(
    run_onnx: RunOnnx, rng: np.random.Generator, attrs: dict[str, Any]
) -> None:
    x = rng.standard_normal((1, 4, 4, 5, 3)).astype(F32)
    w = rng.standard_normal((4, 6, 3, 2, 3)).astype(F32)
    b = rng.standard_normal(6).astype(F32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)
    run_onnx(node, {"x": x}, {"w": w, "b": b}, opset=17, rtol=1e-4, atol=1e-4)


POOL_CASES: list[dict[str, Any]] = [
    {"kernel_shape": [2, 2, 2]},
    {"kernel_shape": [3, 2, 3], "strides": [2, 1, 2], "pads": [1, 0, 1, 1, 1, 0]},
    {"kernel_shape": [2, 3, 2], "strides": [2, 2, 2], "ceil_mode": 1},
    {"kernel_shape": [2, 2, 2], "dilations": [2, 1, 2], "pads": [1, 1, 1, 1, 1, 1]},
    {"kernel_shape": [1, 3, 2], "strides": [1, 2, 2]},
]


@pytest.mark.parametrize("attrs", POOL_CASES)
@pytest.mark.parametrize(
    ("op", "extra"),
    [
        ("MaxPool", {}),
        ("AveragePool", {"count_include_pad": 0}),
        ("AveragePool", {"count_include_pad": 1}),
    ],
)
def test_pool3d(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    attrs: dict[str, Any],
    op: str,
    extra: dict[str, Any],
) -> None:
    x = rng.standard_normal((2, 3, 5, 6, 7)).astype(F32)
    node = helper.make_node(op, ["x"], ["y"], **attrs, **extra)
    run_onnx(node, {"x": x}, opset=19, rtol=1e-5, atol=1e-5, ort_differs="opset 19")


@pytest.mark.parametrize("p", [1, 2, 3])
def test_lp_pool3d(run_onnx: RunOnnx, rng: np.random.Generator, p: int) -> None:
    x = rng.standard_normal((1, 2, 5, 4, 6)).astype(F32)
    node = helper.make_node(
        "LpPool",
        ["x"],
        ["y"],
        kernel_shape=[2, 3, 2],
        strides=[2, 1, 2],
        pads=[1, 0, 1, 0, 1, 1],
        p=p,
    )
    run_onnx(node, {"x": x}, opset=18, rtol=1e-4, atol=1e-4, ort_differs="opset 18")


def test_conv_transpose3d_groups(
    import_run: RunOnnx, onnx_reference: RunOnnx, rng: np.random.Generator
) -> None:
    """Grouped: each group's result is the reference's ungrouped transposed
    convolution of its channels (the reference has no grouped 3-D case)."""
    x = rng.standard_normal((1, 4, 3, 4, 3)).astype(F32)
    w = rng.standard_normal((4, 3, 2, 3, 2)).astype(F32)
    attrs = {"strides": [2, 1, 2], "pads": [1, 0, 0, 0, 1, 1]}
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], group=2, **attrs)
    plain = helper.make_node("ConvTranspose", ["x", "w"], ["y"], **attrs)
    want = np.concatenate(
        [
            onnx_reference(
                plain, {"x": x[:, 2 * g : 2 * g + 2], "w": w[2 * g : 2 * g + 2]}
            )[0]
            for g in range(2)
        ],
        axis=1,
    )
    (got,) = import_run(node, {"x": x}, {"w": w}, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_maxpool3d_int(
    import_run: RunOnnx, onnx_reference: RunOnnx, rng: np.random.Generator
) -> None:
    """Integer max pooling pads the depth with the dtype's minimum (compared with
    the reference on the same values as floats: its integer path fails on pads)."""
    x = rng.integers(-100, 100, (1, 2, 5, 6, 7)).astype(np.int32)
    node = helper.make_node("MaxPool", ["x"], ["y"], **POOL_CASES[1])
    (want,) = onnx_reference(node, {"x": x.astype(F32)}, opset=19)
    (got,) = import_run(node, {"x": x}, opset=12, expected=[want.astype(np.int32)])
    np.testing.assert_array_equal(got, want.astype(np.int32))
