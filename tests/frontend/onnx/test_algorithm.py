"""CumSum, TopK, Einsum, Mod and LRN: one-node models against the ONNX reference
evaluator (through the interpreter), their import errors, and one graph of them
built for the CPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

import xrelay
from xrelay.frontend import OnnxImportError, from_onnx

RunOnnx = Callable[..., Any]
Gen = np.random.Generator
F32 = np.float32
I64 = np.int64


def randn(rng: Gen, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(F32)


@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("dtype", [F32, np.int32])
def test_cumsum(
    run_onnx: RunOnnx, rng: Gen, exclusive: int, reverse: int, axis: int, dtype: Any
) -> None:
    x = (randn(rng, 3, 5) * 10).astype(dtype)
    node = helper.make_node(
        "CumSum", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse
    )
    run_onnx(node, {"x": x}, {"axis": np.array(axis, I64)}, opset=14)


@pytest.mark.parametrize("largest", [0, 1])
@pytest.mark.parametrize(("axis", "k"), [(-1, 3), (0, 2), (1, 4)])
def test_topk(run_onnx: RunOnnx, rng: Gen, largest: int, axis: int, k: int) -> None:
    x = randn(rng, 4, 6)
    x[1, 2] = x[1, 4]  # a tie: the lower index first
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis, largest=largest)
    run_onnx(node, {"x": x}, {"k": np.array([k], I64)}, opset=11)


def test_topk_int(run_onnx: RunOnnx) -> None:
    x = np.array([[3, 1, 3, 7, -2]], np.int32)
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"])
    run_onnx(node, {"x": x}, {"k": np.array([3], I64)}, opset=11)


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("ij,jk->ik", [(3, 4), (4, 5)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("ii->i", [(4, 4)]),
        ("ij->", [(3, 4)]),
        ("i,j", [(3,), (4,)]),
        ("...ij,...jk->...ik", [(2, 3, 4), (1, 4, 2)]),
        ("ij", [(3, 4)]),
        ("ji", [(3, 4)]),
    ],
)
def test_einsum(
    run_onnx: RunOnnx, rng: Gen, equation: str, shapes: list[tuple[int, ...]]
) -> None:
    feeds = {f"x{n}": randn(rng, *s) for n, s in enumerate(shapes)}
    node = helper.make_node("Einsum", list(feeds), ["y"], equation=equation)
    run_onnx(node, feeds, opset=12, rtol=1e-5, atol=1e-5)


def test_einsum_mismatch(build_model: Any) -> None:
    feeds = {"a": np.zeros((3, 4), F32), "b": np.zeros((5, 2), F32)}
    node = helper.make_node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik")
    model = build_model(node, feeds, output_values=[np.zeros((3, 2), F32)])
    with pytest.raises(OnnxImportError, match="label 'j' has size 4 and 5"):
        from_onnx(model)


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, F32])
def test_mod(run_onnx: RunOnnx, fmod: int, dtype: Any) -> None:
    if fmod == 0 and dtype == F32:
        pytest.skip("ONNX defines fmod=0 for integers only")
    a = np.array([-7, 7, -7, 7, 5, -4, 0], dtype)
    b = np.array([3, -3, -3, 3, 2, 3, 5], dtype)
    node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)
    run_onnx(node, {"a": a, "b": b}, opset=13)


def lrn_numpy(x: np.ndarray, size: int, alpha: float, beta: float, bias: float):
    """ONNX's LRN formula, by hand (the reference evaluator only normalises
    channel 0... up to the batch size: it loops over the wrong axis)."""
    c = x.shape[1]
    lo, hi = (size - 1) // 2, -(-(size - 1) // 2)
    sq = np.zeros_like(x)
    for ch in range(c):
        window = x[:, max(0, ch - lo) : min(c, ch + hi + 1)]
        sq[:, ch] = np.sum(window**2, axis=1)
    return (x / (bias + alpha / size * sq) ** beta).astype(x.dtype)


@pytest.mark.parametrize("size", [1, 3, 4])
def test_lrn(import_run: RunOnnx, rng: Gen, size: int) -> None:
    x = randn(rng, 2, 6, 3, 3)
    node = helper.make_node(
        "LRN", ["x"], ["y"], size=size, alpha=1e-2, beta=0.6, bias=1.5
    )
    got = import_run(node, {"x": x}, expected=[x])
    want = lrn_numpy(x, size, 1e-2, 0.6, 1.5)
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-6)


def test_topk_k_must_be_constant(build_model: Any) -> None:
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"])
    feeds = {"x": np.zeros((2, 3), F32), "k": np.array([1], I64)}
    model = build_model(
        node, feeds, output_values=[np.zeros((2, 1), F32), np.zeros((2, 1), I64)]
    )
    with pytest.raises(OnnxImportError, match="K.*must be known at import time"):
        from_onnx(model)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_built_algorithm_graph_matches_reference(build_model: Any, rng: Gen) -> None:
    """The converters' relay ops through the LLVM path."""
    from onnx.reference import ReferenceEvaluator

    nodes = [
        helper.make_node("CumSum", ["x", "ax"], ["a"], reverse=1),
        helper.make_node("TopK", ["x", "k"], ["b", "c"], axis=0),
        helper.make_node("Einsum", ["x", "x"], ["d"], equation="ij,kj->ik"),
        helper.make_node("Mod", ["n", "m"], ["e"]),
        helper.make_node("LRN", ["p"], ["f"], size=3),
    ]
    feeds = {
        "x": randn(rng, 5, 7),
        "n": np.array([-7, 7, 9, 0], I64),
        "m": np.array([3, -3, 0, 2], I64),
        "p": randn(rng, 1, 5, 2, 3),
    }
    consts = {"ax": np.array(1, I64), "k": np.array([3], I64)}
    outs = ["a", "b", "c", "d", "e", "f"]
    model = build_model(nodes, feeds, consts, outs, opset=13)
    expected = ReferenceEvaluator(model).run(None, feeds)
    mod, params = from_onnx(build_model(nodes, feeds, consts, outs, 13, expected))
    got = xrelay.build(mod, params=params)(*feeds.values())
    for name, g, e in zip(outs, got, expected, strict=True):
        if name == "e":  # integer division by zero: 0 here, undefined in ONNX
            e = np.where(feeds["m"] == 0, 0, e)
        if name == "f":
            e = lrn_numpy(feeds["p"], 3, 1e-4, 0.75, 1.0)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=name)
