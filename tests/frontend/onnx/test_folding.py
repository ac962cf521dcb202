"""Constant subgraphs are folded during import (folding.py): an operator without a
converter is evaluated by onnx.reference when its inputs are constants; with a
runtime input it is listed as unsupported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError, from_onnx

RunOnnx = Callable[..., Any]
F32 = np.float32


def test_window_of_a_constant_size_is_a_constant(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    x = rng.standard_normal((3, 8)).astype(F32)
    nodes = [
        helper.make_node("HannWindow", ["n"], ["w"]),
        helper.make_node("Mul", ["x", "w"], ["y"]),
    ]
    run_onnx(nodes, {"x": x}, {"n": np.array(8, np.int64)})


def test_shape_arithmetic_through_an_unsupported_op(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    # Unique on a constant feeds a Reshape's shape (via Cast): folded, then static
    x = rng.standard_normal((2, 6)).astype(F32)
    m = np.array([3.0, 3.0, 3.0], F32)  # unique: [3]
    nodes = [
        helper.make_node("Unique", ["m"], ["u"]),
        helper.make_node("Cast", ["u"], ["d1"], to=7),
        helper.make_node("Concat", ["d1", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    inits = {"m": m, "minus1": np.array([-1], np.int64)}
    (got,) = run_onnx(nodes, {"x": x}, inits)
    assert got.shape == (3, 4)


def test_unsupported_op_on_a_runtime_value_is_listed(
    build_model: Callable[..., Any],
) -> None:
    x = np.zeros((3, 3), F32)
    nodes = [
        helper.make_node("Unique", ["x"], ["d"], name="unique"),
        helper.make_node("Neg", ["d"], ["y"]),
    ]
    model = build_model(nodes, {"x": x}, output_values=[np.zeros((1,), F32)])
    with pytest.raises(
        OnnxImportError,
        match=r"1 unsupported ONNX operator: Unique \(first at node 'unique'\)$",
    ):
        from_onnx(model)


def test_unsupported_listing_comes_before_other_errors(
    build_model: Callable[..., Any],
) -> None:
    x = np.zeros((2, 3), F32)
    nodes = [
        # a conversion error (a dynamic shape input) before the unsupported op
        helper.make_node("Reshape", ["x", "s"], ["r"]),
        helper.make_node("Unique", ["x"], ["y"], name="unique"),
    ]
    model = build_model(
        nodes,
        {"x": x, "s": np.array([3, 2], np.int64)},
        outputs=["r", "y"],
        output_values=[np.zeros((3, 2), F32), np.zeros((1,), F32)],
    )
    with pytest.raises(OnnxImportError, match=r"unsupported ONNX operator: Unique"):
        from_onnx(model)
