"""GatherElements, GatherND, ScatterND, ScatterElements, OneHot and Trilu: one-node
models against the ONNX reference evaluator (through the interpreter), out-of-range
constant indices rejected at import, and one graph of them built for the CPU."""

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


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gather_elements(run_onnx: RunOnnx, rng: Gen, axis: int) -> None:
    x = randn(rng, 3, 4, 5)
    shape = list(x.shape)
    shape[axis] = 2
    dim = x.shape[axis]
    idx = rng.integers(-dim, dim, shape).astype(I64)
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=axis)
    run_onnx(node, {"x": x, "i": idx})  # run-time indices
    run_onnx(node, {"x": x}, {"i": idx})  # constant indices


def test_gather_elements_negative_axis(import_run: RunOnnx, rng: Gen) -> None:
    """(The reference evaluator rejects a negative axis: numpy computes it.)"""
    x = randn(rng, 3, 4)
    idx = np.array([[0, -1], [3, 1], [-4, 2]], I64)
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=-1)
    got = import_run(node, {"x": x, "i": idx}, expected=[np.zeros((3, 2), F32)])
    np.testing.assert_array_equal(got[0], np.take_along_axis(x, idx % 4, axis=1))


def test_gather_elements_constant_out_of_range(build_model: Any) -> None:
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1)
    model = build_model(
        node,
        {"x": np.zeros((2, 3), F32)},
        {"i": np.array([[0, 3], [1, 1]], I64)},
        output_values=[np.zeros((2, 2), F32)],
    )
    with pytest.raises(OnnxImportError, match="out of range"):
        from_onnx(model)


@pytest.mark.parametrize(
    ("data_shape", "idx_shape", "batch"),
    [((4, 5, 6), (3, 2), 0), ((4, 5, 6), (2, 3), 0), ((2, 5, 6), (2, 4, 1), 1)],
)
def test_gather_nd(
    run_onnx: RunOnnx,
    rng: Gen,
    data_shape: tuple[int, ...],
    idx_shape: tuple[int, ...],
    batch: int,
) -> None:
    x = randn(rng, *data_shape)
    m = idx_shape[-1]
    dims = np.array(data_shape[batch : batch + m])
    idx = (rng.integers(0, 1 << 20, idx_shape) % dims).astype(I64)
    idx[..., 0] -= dims[0] * (idx[..., 0] % 2)  # some negative indices
    node = helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=batch)
    run_onnx(node, {"x": x, "i": idx})


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "min", "max"])
def test_scatter_nd(run_onnx: RunOnnx, rng: Gen, reduction: str) -> None:
    x = randn(rng, 4, 3, 2)
    # distinct positions for "none" (ONNX leaves duplicates undefined there)
    idx = np.array([[[0, 1]], [[3, 2]], [[-2, 0]]], I64)
    upd = randn(rng, 3, 1, 2)
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction=reduction)
    run_onnx(node, {"x": x, "i": idx, "u": upd}, opset=18)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "min", "max"])
@pytest.mark.parametrize("axis", [0, -1])
def test_scatter_elements(
    run_onnx: RunOnnx, rng: Gen, reduction: str, axis: int
) -> None:
    x = randn(rng, 3, 4)
    idx = np.array([[1, 0, 2], [0, 2, 1]], I64)
    if axis == -1:
        idx = np.array([[3, -1, 0], [1, 2, 0]], I64)
    upd = randn(rng, 2, 3)
    node = helper.make_node(
        "ScatterElements", ["x", "i", "u"], ["y"], axis=axis, reduction=reduction
    )
    run_onnx(node, {"x": x, "i": idx, "u": upd}, opset=18)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(run_onnx: RunOnnx, axis: int) -> None:
    idx = np.array([[0, 3, -1], [5, -6, 2]], I64)
    node = helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=axis)
    run_onnx(
        node,
        {"i": idx},
        {"d": np.array(5, I64), "v": np.array([-1.0, 2.5], F32)},
        opset=11,
    )


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [None, 0, 2, -1, -9])
def test_trilu(run_onnx: RunOnnx, rng: Gen, upper: int, k: int | None) -> None:
    x = randn(rng, 2, 4, 5)
    if k is None:
        node = helper.make_node("Trilu", ["x"], ["y"], upper=upper)
        run_onnx(node, {"x": x}, opset=14)
    else:
        node = helper.make_node("Trilu", ["x", "k"], ["y"], upper=upper)
        run_onnx(node, {"x": x, "k": np.array(k, I64)}, opset=14)


def test_built_indexing_graph_matches_reference(build_model: Any, rng: Gen) -> None:
    """The converters' relay ops through the LLVM path, with run-time indices,
    including out-of-range ones."""
    from onnx.reference import ReferenceEvaluator

    nodes = [
        helper.make_node("GatherElements", ["x", "i"], ["a"], axis=1),
        helper.make_node("ScatterElements", ["x", "i", "u"], ["b"], axis=1),
        helper.make_node("GatherND", ["x", "j"], ["c"]),
        helper.make_node("ScatterND", ["x", "j", "v"], ["d"], reduction="add"),
        helper.make_node("Trilu", ["x", "k"], ["e"], upper=0),
        helper.make_node("OneHot", ["n", "depth", "vals"], ["f"]),
    ]
    feeds = {
        "x": randn(rng, 3, 5),
        "i": np.array([[4, -5, 1], [0, 2, -1], [3, 3, 0]], I64),
        "u": randn(rng, 3, 3),
        "j": np.array([[2, -1], [0, 0], [1, 3]], I64),
        "v": randn(rng, 3),
        "k": np.array(1, I64),
        "n": np.array([1, -2, 7], I64),
    }
    consts = {"depth": np.array(4, I64), "vals": np.array([0.0, 1.0], F32)}
    outs = ["a", "b", "c", "d", "e", "f"]
    model = build_model(nodes, feeds, consts, outs, opset=18)
    expected = ReferenceEvaluator(model).run(None, feeds)
    mod, params = from_onnx(build_model(nodes, feeds, consts, outs, 18, expected))
    got = xrelay.build(mod, params=params)(*feeds.values())
    for name, g, e in zip(outs, got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, err_msg=name)
    # an out-of-range run-time index fails the run (GatherElements is checked), it is
    # never read outside the buffer
    from xrelay.status import IndexOutOfRangeError

    feeds["i"] = np.array([[9, -50, 1], [0, 2, 99], [3, 3, 0]], I64)
    lib = xrelay.build(mod, params=params)
    with pytest.raises(IndexOutOfRangeError, match="relay.gather: index 9"):
        lib(*feeds.values())
