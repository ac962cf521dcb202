"""ReverseSequence against the ONNX reference evaluator (both axis orders, trailing
dims, integer data, int32 lengths) and the compiled model on lengths the reference
refuses (negative, beyond the time axis): the indices stay inside the axis; import
errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

import xrelay
from xrelay.frontend import OnnxImportError, from_onnx

RunOnnx = Callable[..., Any]


def _node(time_axis: int = 0, batch_axis: int = 1) -> Any:
    return helper.make_node(
        "ReverseSequence",
        ["x", "lens"],
        ["y"],
        time_axis=time_axis,
        batch_axis=batch_axis,
    )


@pytest.mark.parametrize(
    ("shape", "time_axis", "dtype"),
    [
        ((4, 4), 0, np.float32),
        ((4, 4), 1, np.float32),
        ((5, 3, 2), 0, np.int64),
        ((3, 7, 2, 3), 1, np.float16),
        ((1, 1), 0, np.float32),
    ],
)
def test_reverse_sequence(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    time_axis: int,
    dtype: Any,
) -> None:
    batch_axis = 1 - time_axis
    steps, batch = shape[time_axis], shape[batch_axis]
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    lens = rng.integers(1, steps + 1, batch).astype(np.int64)
    run_onnx(_node(time_axis, batch_axis), {"x": x, "lens": lens}, opset=10)


def _expected(x: np.ndarray[Any, Any], lens: list[int], time_axis: int) -> Any:
    steps = x.shape[time_axis]
    xt = np.moveaxis(x, time_axis, 0)  # [T, B, ...] either way
    want = xt.copy()
    for b, n in enumerate(lens):
        n = min(max(n, 0), steps)
        want[:n, b] = xt[:n, b][::-1]
    return np.moveaxis(want, 0, time_axis)


@pytest.mark.parametrize("time_axis", [0, 1])
def test_lengths_out_of_range_stay_inside(
    build_model: Callable[..., Any], rng: np.random.Generator, time_axis: int
) -> None:
    shape = (5, 4, 3) if time_axis == 0 else (4, 5, 3)
    x = rng.standard_normal(shape).astype(np.float32)
    lens = np.array([3, 5, 2, 4], np.int64)
    node = _node(time_axis, 1 - time_axis)
    model = build_model(node, {"x": x, "lens": lens}, opset=10, output_values=[x])
    mod, params = from_onnx(model)
    lib = xrelay.build(mod, params=params)
    got = lib(x, lens)
    np.testing.assert_array_equal(got, _expected(x, lens.tolist(), time_axis))
    # negative, zero and too-long lengths: nothing, nothing, the whole axis reversed
    odd = [-7, 0, 9, 2**62]
    got = lib(x, np.array(odd, np.int64))
    np.testing.assert_array_equal(got, _expected(x, odd, time_axis))


@pytest.mark.parametrize(
    ("attrs", "lens", "message"),
    [
        ({"time_axis": 0, "batch_axis": 0}, 3, "must be 0 and 1 in some order"),
        ({"time_axis": 2, "batch_axis": 1}, 3, "must be 0 and 1 in some order"),
        ({}, 2, r"sequence_lens must have shape \[3\]"),
    ],
)
def test_errors(
    build_model: Callable[..., Any], attrs: dict[str, int], lens: int, message: str
) -> None:
    x = np.zeros((4, 3, 2), np.float32)
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], **attrs)
    model = build_model(
        node, {"x": x, "lens": np.ones(lens, np.int64)}, output_values=[x]
    )
    with pytest.raises(OnnxImportError, match=message):
        from_onnx(model)
