"""Elementwise ONNX ops: one-node models against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

RunOnnx = Callable[..., Any]

F32 = np.float32


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize(
    ("sa", "sb"),
    [((2, 3), (2, 3)), ((2, 3, 4), (4,)), ((1, 3, 1), (2, 1, 5)), ((), (3,))],
)
def test_arithmetic_broadcasts(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    op: str,
    sa: tuple[int, ...],
    sb: tuple[int, ...],
) -> None:
    a = rng.standard_normal(sa).astype(F32)
    b = (rng.uniform(0.5, 2.0, sb) * rng.choice([-1, 1], sb)).astype(F32)
    run_onnx(helper.make_node(op, ["a", "b"], ["y"]), {"a": a, "b": b})


def test_integer_arithmetic(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    a = rng.integers(-50, 50, (3, 4)).astype(np.int64)
    b = rng.integers(1, 9, (4,)).astype(np.int64)
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s"]),
        helper.make_node("Mul", ["s", "b"], ["y"]),
    ]
    run_onnx(nodes, {"a": a, "b": b})


@pytest.mark.parametrize("exp_dtype", [np.float32, np.int64])
def test_pow(run_onnx: RunOnnx, rng: np.random.Generator, exp_dtype: type) -> None:
    x = rng.uniform(0.5, 2.0, (2, 3)).astype(F32)
    e = np.array([2, 3, 1], dtype=exp_dtype)
    run_onnx(helper.make_node("Pow", ["x", "e"], ["y"]), {"x": x, "e": e})


@pytest.mark.parametrize(
    "op",
    [
        "Sqrt",
        "Reciprocal",
        "Exp",
        "Log",
        "Erf",
        "Tanh",
        "Sigmoid",
        "Relu",
        "Neg",
        "Abs",
        "Floor",
        "Ceil",
        "Sin",
        "Cos",
    ],
)
def test_unary(run_onnx: RunOnnx, rng: np.random.Generator, op: str) -> None:
    x = rng.uniform(-3, 3, (2, 3, 4)).astype(F32)
    if op in ("Sqrt", "Log", "Reciprocal"):
        x = np.abs(x) + F32(0.1)
    run_onnx(helper.make_node(op, ["x"], ["y"]), {"x": x})


@pytest.mark.parametrize("attrs", [{}, {"alpha": 0.2}])
def test_leaky_relu(
    run_onnx: RunOnnx, rng: np.random.Generator, attrs: dict[str, float]
) -> None:
    x = rng.standard_normal((2, 5)).astype(F32)
    run_onnx(helper.make_node("LeakyRelu", ["x"], ["y"], **attrs), {"x": x})


@pytest.mark.parametrize(
    "slope_shape", [(3, 1, 1), (1,), (5,), (1, 3, 1, 1), (3, 4, 5), ()]
)
def test_prelu_slope_broadcasting(
    run_onnx: RunOnnx, rng: np.random.Generator, slope_shape: tuple[int, ...]
) -> None:
    x = rng.standard_normal((2, 3, 4, 5)).astype(F32)
    slope = rng.uniform(0.05, 0.5, slope_shape).astype(F32)
    run_onnx(
        helper.make_node("PRelu", ["x", "slope"], ["y"]), {"x": x}, {"slope": slope}
    )


@pytest.mark.parametrize(
    ("bounds", "opset"),
    [
        ((-0.5, 0.5), 13),
        ((-0.5, None), 13),
        ((None, 0.25), 13),
        ((None, None), 13),
        ((0.5, -0.5), 13),  # min > max: everything becomes max
        ((-1.0, 1.0), 6),  # attributes before opset 11
        ((None, 0.3), 6),
    ],
)
def test_clip(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    bounds: tuple[float | None, float | None],
    opset: int,
) -> None:
    x = rng.standard_normal((3, 4)).astype(F32)
    lo, hi = bounds
    if opset >= 11:
        inits: dict[str, np.ndarray] = {}
        names = ["x", "", ""]
        if lo is not None:
            inits["lo"], names[1] = np.array(lo, F32), "lo"
        if hi is not None:
            inits["hi"], names[2] = np.array(hi, F32), "hi"
        while names[-1] == "":
            names.pop()
        node = helper.make_node("Clip", names, ["y"])
    else:
        attrs = {k: v for k, v in (("min", lo), ("max", hi)) if v is not None}
        node, inits = helper.make_node("Clip", ["x"], ["y"], **attrs), {}
    run_onnx(node, {"x": x}, inits, opset=opset)


def test_clip_runtime_bounds(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    x = rng.standard_normal((3, 4)).astype(F32)
    run_onnx(
        helper.make_node("Clip", ["x", "lo", "hi"], ["y"]),
        {"x": x, "lo": np.array(-0.3, F32), "hi": np.array(0.6, F32)},
    )


@pytest.mark.parametrize("attrs", [{}, {"alpha": 0.3, "beta": 0.4}])
def test_hard_sigmoid(
    run_onnx: RunOnnx, rng: np.random.Generator, attrs: dict[str, float]
) -> None:
    x = rng.uniform(-5, 5, (4, 6)).astype(F32)
    run_onnx(helper.make_node("HardSigmoid", ["x"], ["y"], **attrs), {"x": x})


def test_hard_swish(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    x = rng.uniform(-5, 5, (4, 6)).astype(F32)
    run_onnx(helper.make_node("HardSwish", ["x"], ["y"]), {"x": x})


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(run_onnx: RunOnnx, rng: np.random.Generator, approximate: str) -> None:
    x = rng.uniform(-4, 4, (3, 5)).astype(F32)
    node = helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)
    run_onnx(node, {"x": x}, opset=20)


@pytest.mark.parametrize(
    ("to", "src"),
    [
        (TensorProto.INT64, np.float32),
        (TensorProto.INT32, np.float32),
        (TensorProto.FLOAT, np.int64),
        (TensorProto.BOOL, np.float32),
        (TensorProto.FLOAT16, np.float32),
        (TensorProto.FLOAT, np.float32),
        (TensorProto.DOUBLE, np.float32),
    ],
)
def test_cast(run_onnx: RunOnnx, rng: np.random.Generator, to: int, src: type) -> None:
    x = (rng.uniform(-10, 10, (3, 4)) * (rng.random((3, 4)) > 0.3)).astype(src)
    run_onnx(helper.make_node("Cast", ["x"], ["y"], to=to), {"x": x})


def test_where_and_comparisons(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    a = rng.integers(-3, 3, (2, 3, 4)).astype(F32)
    b = rng.integers(-3, 3, (3, 1)).astype(F32)
    nodes = [
        helper.make_node("Equal", ["a", "b"], ["eq"]),
        helper.make_node("Less", ["a", "b"], ["lt"]),
        helper.make_node("Greater", ["a", "b"], ["gt"]),
        helper.make_node("Not", ["eq"], ["ne"]),
        helper.make_node("Where", ["gt", "a", "b"], ["w"]),
    ]
    run_onnx(nodes, {"a": a, "b": b}, outputs=["eq", "lt", "gt", "ne", "w"])


@pytest.mark.parametrize(
    "op", ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]
)
def test_integer_comparisons(
    run_onnx: RunOnnx, rng: np.random.Generator, op: str
) -> None:
    a = rng.integers(-3, 3, (4, 5)).astype(np.int64)
    b = rng.integers(-3, 3, (5,)).astype(np.int64)
    run_onnx(helper.make_node(op, ["a", "b"], ["y"]), {"a": a, "b": b})


@pytest.mark.parametrize("op", ["Max", "Min", "Sum"])
def test_variadic(run_onnx: RunOnnx, rng: np.random.Generator, op: str) -> None:
    inputs = {
        "a": rng.standard_normal((2, 3)).astype(F32),
        "b": rng.standard_normal((3,)).astype(F32),
        "c": rng.standard_normal((2, 1)).astype(F32),
    }
    run_onnx(helper.make_node(op, list(inputs), ["y"]), inputs)


def test_identity(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    x = rng.standard_normal((2, 3)).astype(F32)
    run_onnx(helper.make_node("Identity", ["x"], ["y"]), {"x": x})
