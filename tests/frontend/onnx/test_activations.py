"""Activations and math ops composed from relay ops (activations.py, math_ops.py,
reduce_log.py): one-node models against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

RunOnnx = Callable[..., Any]
F32 = np.float32


@pytest.mark.parametrize(
    ("op", "attrs"),
    [
        ("Elu", {}),
        ("Elu", {"alpha": 0.3}),
        ("Selu", {}),
        ("Selu", {"alpha": 2.0, "gamma": 3.0}),
        ("Celu", {"alpha": 0.7}),
        ("Softplus", {}),
        ("Softsign", {}),
        ("Mish", {}),
        ("ThresholdedRelu", {"alpha": 0.4}),
        ("Shrink", {"lambd": 0.6, "bias": 0.2}),
        ("Sign", {}),
    ],
)
@pytest.mark.parametrize("shape", [(2, 3, 5), (7,), (1, 1)])
def test_activation(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    op: str,
    attrs: dict[str, Any],
    shape: tuple[int, ...],
) -> None:
    x = (rng.standard_normal(shape) * 3).astype(F32)
    run_onnx(helper.make_node(op, ["x"], ["y"], **attrs), {"x": x}, opset=18)


def test_softplus_does_not_overflow(run_onnx: RunOnnx) -> None:
    x = np.array([-200.0, -30.0, 0.0, 30.0, 200.0], F32)
    (got,) = run_onnx(helper.make_node("Softplus", ["x"], ["y"]), {"x": x}, rtol=1e-6)
    assert np.all(np.isfinite(got))


def test_sign_int(run_onnx: RunOnnx) -> None:
    x = np.array([-3, 0, 5], np.int32)
    run_onnx(helper.make_node("Sign", ["x"], ["y"]), {"x": x})


def test_round_halves_to_even(run_onnx: RunOnnx) -> None:
    x = np.array(
        [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.4, -0.6, 2.51, 1e7 + 0.5], F32
    )
    (got,) = run_onnx(helper.make_node("Round", ["x"], ["y"]), {"x": x})
    np.testing.assert_array_equal(got, np.round(x))


@pytest.mark.parametrize("count", [1, 2, 3])
def test_mean_broadcasts(
    run_onnx: RunOnnx, rng: np.random.Generator, count: int
) -> None:
    shapes = [(2, 3, 4), (4,), (3, 1)][:count]
    inputs = {f"x{k}": rng.standard_normal(s).astype(F32) for k, s in enumerate(shapes)}
    run_onnx(helper.make_node("Mean", list(inputs), ["y"]), inputs)


def test_xor(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    a = rng.integers(0, 2, (3, 4)).astype(bool)
    b = rng.integers(0, 2, (4,)).astype(bool)
    run_onnx(helper.make_node("Xor", ["a", "b"], ["y"]), {"a": a, "b": b})


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_hardmax(run_onnx: RunOnnx, rng: np.random.Generator, axis: int) -> None:
    x = rng.standard_normal((2, 3, 5)).astype(F32)
    x[0, 1, 2] = x[0, 1, 4] = 9.0  # a tie: the first one wins
    run_onnx(helper.make_node("Hardmax", ["x"], ["y"], axis=axis), {"x": x}, opset=13)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_hardmax_opset11_flattens(
    import_run: RunOnnx, rng: np.random.Generator, axis: int
) -> None:
    # before opset 13 the input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])]
    # (the reference evaluator implements only opset 13's form: numpy is the reference)
    x = rng.standard_normal((2, 3, 5)).astype(F32)
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
    want = np.zeros_like(flat)
    want[np.arange(flat.shape[0]), flat.argmax(axis=1)] = 1
    node = helper.make_node("Hardmax", ["x"], ["y"], axis=axis)
    (got,) = import_run(node, {"x": x}, opset=11, expected=[want.reshape(x.shape)])
    np.testing.assert_array_equal(got, want.reshape(x.shape))


@pytest.mark.parametrize(("p", "axis"), [(1, -1), (2, -1), (2, 0), (1, 1)])
def test_lp_normalization(
    import_run: RunOnnx, rng: np.random.Generator, p: int, axis: int
) -> None:
    # numpy is the reference: the reference evaluator forgets |x| for p=1
    x = rng.standard_normal((3, 4, 5)).astype(F32)
    x[0, 0] = 0  # a zero norm along the last axis gives 0
    norm = np.sum(np.abs(x) ** p, axis=axis, keepdims=True) ** (1 / p)
    want = np.where(norm == 0, 0, x / np.where(norm == 0, 1, norm)).astype(F32)
    node = helper.make_node("LpNormalization", ["x"], ["y"], p=p, axis=axis)
    (got,) = import_run(node, {"x": x}, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize(("axes", "keepdims"), [([1], 1), ([0, 2], 0), (None, 1)])
def test_reduce_log_sum(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    opset: int,
    axes: list[int] | None,
    keepdims: int,
) -> None:
    x = rng.uniform(0.1, 2.0, (3, 4, 5)).astype(F32)
    inits: dict[str, Any] = {}
    if axes is not None and opset >= 18:
        node = helper.make_node("ReduceLogSum", ["x", "axes"], ["y"], keepdims=keepdims)
        inits["axes"] = np.array(axes, np.int64)
    elif axes is not None:
        node = helper.make_node(
            "ReduceLogSum", ["x"], ["y"], axes=axes, keepdims=keepdims
        )
    else:
        node = helper.make_node("ReduceLogSum", ["x"], ["y"], keepdims=keepdims)
    run_onnx(node, {"x": x}, inits, opset=opset)


def test_prelu_opset6_is_per_channel(
    import_run: RunOnnx, rng: np.random.Generator
) -> None:
    # opset 6: a 1-D slope of C values applies per channel (axis 1), not numpy-aligned
    x = rng.standard_normal((2, 3, 4, 4)).astype(F32)
    slope = np.array([0.1, 0.2, 0.3], F32)
    node = helper.make_node("PRelu", ["x", "slope"], ["y"])
    want = np.where(x > 0, x, x * slope.reshape(1, 3, 1, 1))
    (got,) = import_run(node, {"x": x}, {"slope": slope}, opset=6, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_prelu_opset7_broadcasts_numpy_style(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    x = rng.standard_normal((2, 3, 4, 3)).astype(F32)
    slope = np.array([0.1, 0.2, 0.3], F32)
    run_onnx(
        helper.make_node("PRelu", ["x", "slope"], ["y"]),
        {"x": x},
        {"slope": slope},
        opset=9,
    )


@pytest.mark.parametrize("op", ["Swish", "Tan", "Sinh", "Cosh"])
def test_more_unary(run_onnx: RunOnnx, rng: np.random.Generator, op: str) -> None:
    x = rng.uniform(-1.2, 1.2, (3, 4)).astype(F32)
    attrs = {"alpha": 0.7} if op == "Swish" else {}
    run_onnx(
        helper.make_node(op, ["x"], ["y"], **attrs),
        {"x": x},
        opset=24 if op == "Swish" else 17,
        rtol=1e-5,
        atol=1e-6,
        ort_differs="opset 24",
    )


@pytest.mark.parametrize(("pos", "neg"), [(1, 1), (1, 0), (0, 1)])
def test_isinf_isnan(run_onnx: RunOnnx, pos: int, neg: int) -> None:
    x = np.array([np.inf, -np.inf, np.nan, 0.0, 1.5], F32)
    node = helper.make_node(
        "IsInf", ["x"], ["y"], detect_positive=pos, detect_negative=neg
    )
    run_onnx(node, {"x": x})
    run_onnx(helper.make_node("IsNaN", ["x"], ["y"]), {"x": x})


def test_mean_variance_normalization(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    x = rng.standard_normal((2, 3, 4, 5)).astype(F32)
    run_onnx(
        helper.make_node("MeanVarianceNormalization", ["x"], ["y"]),
        {"x": x},
        rtol=1e-4,
        atol=1e-5,
    )
    node = helper.make_node("MeanVarianceNormalization", ["x"], ["y"], axes=[1, -1])
    run_onnx(node, {"x": x}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_eye_like(run_onnx: RunOnnx, k: int) -> None:
    x = np.zeros((3, 4), np.int32)
    run_onnx(helper.make_node("EyeLike", ["x"], ["y"], k=k, dtype=1), {"x": x})
