"""Window functions and the mel weight matrix (windows.py): constants computed at
import time, against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError

RunOnnx = Callable[..., Any]
WINDOWS = ["HannWindow", "HammingWindow", "BlackmanWindow"]


@pytest.mark.parametrize("op", WINDOWS)
@pytest.mark.parametrize("size", [2, 7, 10, 33])
@pytest.mark.parametrize("periodic", [0, 1])
def test_window(run_onnx: RunOnnx, op: str, size: int, periodic: int) -> None:
    node = helper.make_node(op, ["n"], ["y"], periodic=periodic)
    (got,) = run_onnx(node, {}, {"n": np.array(size, np.int32)}, rtol=1e-6, atol=1e-6)
    assert got.shape == (size,)


@pytest.mark.parametrize("op", WINDOWS)
@pytest.mark.parametrize(
    ("elem", "dtype"),
    [(TensorProto.DOUBLE, np.float64), (TensorProto.FLOAT16, np.float16)],
)
def test_window_output_datatype(
    run_onnx: RunOnnx, op: str, elem: int, dtype: Any
) -> None:
    node = helper.make_node(op, ["n"], ["y"], output_datatype=elem)
    (got,) = run_onnx(node, {}, {"n": np.array(9, np.int64)}, rtol=1e-3, atol=1e-3)
    assert got.dtype == dtype


def test_window_of_one_point_and_none(run_onnx: RunOnnx) -> None:
    (one,) = run_onnx(
        helper.make_node("HannWindow", ["n"], ["y"]), {}, {"n": np.array(1, np.int32)}
    )
    np.testing.assert_array_equal(one, [0.0])
    (empty,) = run_onnx(
        helper.make_node("HammingWindow", ["n"], ["y"]),
        {},
        {"n": np.array(0, np.int32)},
    )
    assert empty.shape == (0,)


def test_window_size_from_a_graph_input_is_named(build_model: Any) -> None:
    node = helper.make_node("BlackmanWindow", ["n"], ["y"])
    model = build_model(
        node, {"n": np.array(4, np.int32)}, output_values=[np.zeros(4, np.float32)]
    )
    with pytest.raises(OnnxImportError, match=r"\('n'\) must be known") as info:
        from_onnx(model)
    assert info.value.static_input == "n"


def test_negative_window_size_is_an_error(build_model: Any) -> None:
    node = helper.make_node("HannWindow", ["n"], ["y"])
    model = build_model(
        node, {}, {"n": np.array(-3, np.int32)}, output_values=[np.zeros(0, np.float32)]
    )
    with pytest.raises(OnnxImportError, match="must not be negative"):
        from_onnx(model)


@pytest.mark.parametrize(
    ("bins", "length", "rate", "low", "high"),
    [
        (8, 16, 8192, 0.0, 4096.0),
        (5, 31, 16000, 20.0, 7000.0),
        (13, 64, 22050, 125.0, 3800.0),
        (1, 9, 100, 0.0, 50.0),
    ],
)
def test_mel_weight_matrix(
    run_onnx: RunOnnx, bins: int, length: int, rate: int, low: float, high: float
) -> None:
    names = ["bins", "length", "rate", "low", "high"]
    inits = {
        "bins": np.array(bins, np.int32),
        "length": np.array(length, np.int32),
        "rate": np.array(rate, np.int32),
        "low": np.array(low, np.float32),
        "high": np.array(high, np.float32),
    }
    node = helper.make_node("MelWeightMatrix", names, ["y"])
    (got,) = run_onnx(node, {}, inits, rtol=0, atol=0)
    assert got.shape == (length // 2 + 1, bins)


def test_mel_weight_matrix_output_datatype(run_onnx: RunOnnx) -> None:
    names = ["bins", "length", "rate", "low", "high"]
    values = [8, 16, 8192, 0.0, 4096.0]
    inits = {
        n: np.array(v, np.float64 if isinstance(v, float) else np.int64)
        for n, v in zip(names, values, strict=True)
    }
    node = helper.make_node(
        "MelWeightMatrix", names, ["y"], output_datatype=TensorProto.DOUBLE
    )
    (got,) = run_onnx(node, {}, inits, rtol=0, atol=0)
    assert got.dtype == np.float64


def test_mel_edges_outside_the_spectrum_are_an_error(build_model: Any) -> None:
    names = ["bins", "length", "rate", "low", "high"]
    inits = {
        "bins": np.array(4, np.int32),
        "length": np.array(16, np.int32),
        "rate": np.array(1000, np.int32),
        "low": np.array(0.0, np.float32),
        "high": np.array(4000.0, np.float32),  # above the Nyquist frequency
    }
    node = helper.make_node("MelWeightMatrix", names, ["y"])
    model = build_model(node, {}, inits, output_values=[np.zeros((9, 4), np.float32)])
    with pytest.raises(OnnxImportError, match="outside the 9 bins"):
        from_onnx(model)
