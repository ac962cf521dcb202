"""TensorScatter (kv_cache.py) against the ONNX reference evaluator; write indices
from data never write outside the cache."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

import xrelay
from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.status import IndexOutOfRangeError

RunOnnx = Callable[..., Any]
F32 = np.float32
I64 = np.int64


@pytest.mark.parametrize(
    ("cache", "seq", "axis", "writes"),
    [
        ((2, 3, 7, 4), 2, -2, [0, 5]),
        ((3, 6, 5), 1, 1, [5, 0, 2]),
        ((2, 4, 3), 3, 1, [-3, 1]),  # negative: from the end, as numpy indexes
        ((2, 3, 5, 6), 6, 3, [0, 0]),
        ((1, 9, 2), 4, 1, None),
    ],
)
@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    cache: tuple[int, ...],
    seq: int,
    axis: int,
    writes: list[int] | None,
    mode: str,
) -> None:
    update_shape = list(cache)
    update_shape[axis] = seq
    inputs = {
        "cache": rng.standard_normal(cache).astype(F32),
        "update": rng.standard_normal(update_shape).astype(F32),
    }
    names = ["cache", "update"]
    if writes is not None:
        inputs["w"] = np.array(writes, I64)
        names.append("w")
    node = helper.make_node("TensorScatter", names, ["y"], axis=axis, mode=mode)
    run_onnx(node, inputs, opset=24, rtol=0, atol=0)


def test_circular_wraps_any_write_index(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    inputs = {
        "cache": rng.standard_normal((3, 5, 2)).astype(F32),
        "update": rng.standard_normal((3, 3, 2)).astype(F32),
        "w": np.array([4, 13, -7], I64),
    }
    node = helper.make_node(
        "TensorScatter", ["cache", "update", "w"], ["y"], axis=1, mode="circular"
    )
    run_onnx(node, inputs, opset=24, rtol=0, atol=0)


def _compiled(build_model: Any, mode: str) -> Any:
    feeds = {
        "cache": np.zeros((2, 4, 3), F32),
        "update": np.ones((2, 2, 3), F32),
        "w": np.array([0, 0], I64),
    }
    node = helper.make_node(
        "TensorScatter", ["cache", "update", "w"], ["y"], axis=1, mode=mode
    )
    model = build_model(node, feeds, opset=24, output_values=[np.zeros((2, 4, 3), F32)])
    mod, params = from_onnx(model)
    return xrelay.build(mod, params=params), feeds


def test_compiled_linear_write_past_the_cache_fails_the_run(build_model: Any) -> None:
    lib, feeds = _compiled(build_model, "linear")
    feeds["w"] = np.array([2, 1], I64)
    got = lib(*feeds.values())
    want = np.zeros((2, 4, 3), F32)
    want[0, 2:4] = 1
    want[1, 1:3] = 1
    np.testing.assert_array_equal(got, want)
    feeds["w"] = np.array([1, 3], I64)  # rows 3 and 4 of batch 1: 4 is past the end
    with pytest.raises(IndexOutOfRangeError, match="index 4 is out of range"):
        lib(*feeds.values())


def test_compiled_circular_wraps(build_model: Any) -> None:
    lib, feeds = _compiled(build_model, "circular")
    feeds["update"] = np.arange(12, dtype=F32).reshape(2, 2, 3)
    feeds["w"] = np.array([3, 1 << 40], I64)
    got = lib(*feeds.values())
    want = np.zeros((2, 4, 3), F32)
    want[0, 3], want[0, 0] = feeds["update"][0, 0], feeds["update"][0, 1]
    want[1, 0], want[1, 1] = feeds["update"][1, 0], feeds["update"][1, 1]
    np.testing.assert_array_equal(got, want)


def test_batch_axis_is_an_error(build_model: Any) -> None:
    feeds = {"cache": np.zeros((4, 3), F32), "update": np.zeros((2, 3), F32)}
    node = helper.make_node("TensorScatter", ["cache", "update"], ["y"], axis=0)
    model = build_model(node, feeds, opset=24, output_values=[np.zeros((4, 3), F32)])
    with pytest.raises(OnnxImportError, match="axis cannot be 0"):
        from_onnx(model)


def test_update_longer_than_the_cache_is_an_error(build_model: Any) -> None:
    feeds = {"cache": np.zeros((1, 2, 3), F32), "update": np.zeros((1, 3, 3), F32)}
    node = helper.make_node("TensorScatter", ["cache", "update"], ["y"], axis=1)
    model = build_model(node, feeds, opset=24, output_values=[np.zeros((1, 2, 3), F32)])
    with pytest.raises(OnnxImportError, match="does not fit"):
        from_onnx(model)
