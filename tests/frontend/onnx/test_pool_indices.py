"""MaxPool's Indices output against the ONNX reference evaluator: 1-D, 2-D and 3-D,
strides, dilations, pads, ceil_mode, storage_order=1, ties (the first wins),
windows holding only -inf next to the padding, int data."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

RunOnnx = Callable[..., Any]
F32 = np.float32


@pytest.mark.parametrize(
    ("shape", "attrs"),
    [
        ((1, 2, 7), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
        ((2, 3, 6, 7), {"kernel_shape": [2, 2], "strides": [2, 2]}),
        (
            (1, 2, 7, 5),
            {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1]},
        ),
        (
            (1, 1, 8, 7),
            {"kernel_shape": [2, 3], "strides": [3, 2], "dilations": [2, 1]},
        ),
        ((1, 2, 7, 6), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
        ((1, 2, 5, 6), {"kernel_shape": [2, 3], "strides": [2, 2], "storage_order": 1}),
        ((1, 1, 4, 5, 6), {"kernel_shape": [2, 2, 3], "strides": [2, 2, 2]}),
    ],
)
def test_max_pool_indices(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    attrs: dict[str, Any],
) -> None:
    x = rng.standard_normal(shape).astype(F32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **attrs)
    run_onnx(node, {"x": x}, opset=12)


def test_max_pool_indices_ties_and_lowest(run_onnx: RunOnnx) -> None:
    x = np.array(
        [[[[1, 1, 0, -np.inf], [1, 1, -np.inf, -np.inf], [2, 0, 2, 2], [0, 2, 2, 2]]]],
        F32,
    )
    node = helper.make_node(
        "MaxPool",
        ["x"],
        ["y", "i"],
        kernel_shape=[2, 2],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
    )
    run_onnx(node, {"x": x}, opset=12)
    node = helper.make_node(
        "MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[1, 2]
    )
    run_onnx(node, {"x": x}, opset=12)


def test_max_pool_indices_int_data(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    x = rng.integers(-3, 3, (1, 2, 5, 5)).astype(np.int8)
    node = helper.make_node(
        "MaxPool",
        ["x"],
        ["y", "i"],
        kernel_shape=[3, 3],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
    )
    run_onnx(node, {"x": x}, opset=12)
