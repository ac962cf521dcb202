"""ONNX reductions: axes as attributes (before opset 18, 13 for ReduceSum) or inputs,
keepdims, noop_with_empty_axes; ArgMax / ArgMin."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

RunOnnx = Callable[..., Any]
F32 = np.float32

OPS = [
    "ReduceMean",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceSumSquare",
    "ReduceLogSumExp",
]

AXES_CASES: list[tuple[list[int] | None, int, int]] = [
    ([1], 1, 0),
    ([0, -1], 0, 0),
    ([2, 0], 1, 0),
    (None, 1, 0),
    (None, 0, 0),
    ([], 1, 1),  # noop_with_empty_axes (input form only)
]


CASES = [
    (op, axes, keepdims, noop, opset)
    for op in OPS
    for axes, keepdims, noop in AXES_CASES
    for opset in (13, 18)
    # noop_with_empty_axes exists only where the axes are an input
    if not noop or opset >= 18 or op == "ReduceSum"
]


@pytest.mark.parametrize(("op", "axes", "keepdims", "noop", "opset"), CASES)
def test_reduce(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    op: str,
    axes: list[int] | None,
    keepdims: int,
    noop: int,
    opset: int,
) -> None:
    x = rng.uniform(0.5, 1.5, (3, 4, 5)).astype(F32) * rng.choice(
        [-1, 1], (3, 4, 5)
    ).astype(F32)
    axes_as_input = opset >= 18 or op == "ReduceSum"
    attrs: dict[str, Any] = {"keepdims": keepdims}
    inits: dict[str, np.ndarray] = {}
    names = ["x"]
    if noop:
        attrs["noop_with_empty_axes"] = 1
    if axes is not None:
        if axes_as_input:
            inits["axes"] = np.array(axes, np.int64)
            names.append("axes")
        elif axes:
            attrs["axes"] = axes
    node = helper.make_node(op, names, ["y"], **attrs)
    run_onnx(node, {"x": x}, inits, opset=opset, rtol=1e-5, atol=1e-5)


def test_reduce_int(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    x = rng.integers(-9, 9, (3, 4)).astype(np.int64)
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)
    run_onnx(node, {"x": x}, {"axes": np.array([1], np.int64)})


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize(
    "attrs", [{}, {"axis": 1, "keepdims": 0}, {"axis": -1, "select_last_index": 1}]
)
def test_arg_reduce(
    run_onnx: RunOnnx, rng: np.random.Generator, op: str, attrs: dict[str, Any]
) -> None:
    x = rng.integers(0, 3, (3, 4, 5)).astype(F32)  # ties, for select_last_index
    run_onnx(helper.make_node(op, ["x"], ["y"], **attrs), {"x": x})
