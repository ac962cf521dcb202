"""ai.onnx.ml Binarizer and ArrayFeatureExtractor (ml_features.py) against the ONNX
reference evaluator: interpreted and compiled; the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.frontend.onnx.backend import XrelayBackend
from xrelay.runtime.interpreter import interpret


def _info(name: str, array: np.ndarray[Any, Any]) -> onnx.ValueInfoProto:
    elem = helper.np_dtype_to_tensor_dtype(array.dtype)
    return helper.make_tensor_value_info(name, elem, list(array.shape))


def ml_model(
    node: onnx.NodeProto,
    inputs: dict[str, np.ndarray[Any, Any]],
    out: np.ndarray[Any, Any],
    initializers: dict[str, np.ndarray[Any, Any]] | None = None,
) -> onnx.ModelProto:
    """A one-node model importing only the ai.onnx.ml domain (as the node tests do)."""
    graph = helper.make_graph(
        [node],
        "ml",
        [_info(k, v) for k, v in inputs.items()],
        [_info(node.output[0], out)],
        [numpy_helper.from_array(v, k) for k, v in (initializers or {}).items()],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("ai.onnx.ml", 3)]
    )
    model.ir_version = min(model.ir_version, 10)
    return model


def check(
    node: onnx.NodeProto,
    inputs: dict[str, np.ndarray[Any, Any]],
    initializers: dict[str, np.ndarray[Any, Any]] | None = None,
    compiled: bool = False,
) -> np.ndarray[Any, Any]:
    """Run ``node`` with the reference and xrelay; compare exactly; xrelay's result."""
    placeholder = np.zeros(0, np.float32)
    draft = ml_model(node, inputs, placeholder, initializers)
    want = np.asarray(
        ReferenceEvaluator(draft).run(None, {**inputs, **(initializers or {})})[0]
    )
    model = ml_model(node, inputs, want, initializers)
    if compiled:
        (got,) = XrelayBackend.prepare(model).run(list(inputs.values()))
    else:
        mod, _ = from_onnx(model)
        got = interpret(mod, *inputs.values())
    got = np.asarray(got)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    return got


def binarizer(threshold: float) -> onnx.NodeProto:
    return helper.make_node(
        "Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=threshold
    )


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int64, np.int32], ids=lambda d: d.__name__
)
@pytest.mark.parametrize("threshold", [0.0, 0.5, -1.5, 2.0])
def test_binarizer(dtype: Any, threshold: float, compiled: bool) -> None:
    x = np.arange(-7, 8).reshape(3, 5).astype(dtype)
    if dtype in (np.float32, np.float64):
        x = x / 2
        x[1, 1] = np.nan  # not above any threshold
    check(binarizer(threshold), {"x": x}, compiled=compiled)


def test_binarizer_float16_compares_with_the_float32_threshold() -> None:
    # float16(0.3) rounds above the float32 threshold 0.3: it is above it
    x = np.array([0.3, 0.2998, 0.5, -1.0], np.float16)
    got = check(binarizer(0.3), {"x": x})
    assert got.tolist() == [1.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("threshold", [float("inf"), -float("inf"), 1e30, -1e30])
def test_binarizer_integer_thresholds_beyond_the_dtype(threshold: float) -> None:
    x = np.array([np.iinfo(np.int32).min, -1, 0, 1, np.iinfo(np.int32).max], np.int32)
    got = check(binarizer(threshold), {"x": x})
    assert got.tolist() == ([1] * 5 if threshold < 0 else [0] * 5)


def test_binarizer_of_bools_is_an_error() -> None:
    x = np.array([True, False])
    with pytest.raises(OnnxImportError, match="float or integer"):
        from_onnx(ml_model(binarizer(0.0), {"x": x}, x))


def extractor() -> onnx.NodeProto:
    return helper.make_node(
        "ArrayFeatureExtractor", ["x", "y"], ["z"], domain="ai.onnx.ml"
    )


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize(
    ("shape", "idx"),
    [
        ((7,), [6, 0, -1]),
        ((3, 5), [[4, 1]]),
        ((2, 3, 5), [[0, 2], [-5, 4]]),
        ((1, 1), [0, 0, 0]),
    ],
)
@pytest.mark.parametrize("static", [False, True])
def test_array_feature_extractor(
    shape: tuple[int, ...], idx: list[Any], static: bool, compiled: bool
) -> None:
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3
    y = np.asarray(idx, np.int64)
    if static:
        check(extractor(), {"x": x}, {"y": y}, compiled=compiled)
    else:
        check(extractor(), {"x": x, "y": y}, compiled=compiled)


def test_array_feature_extractor_constant_index_out_of_range_is_an_error() -> None:
    x = np.zeros((2, 3), np.float32)
    model = ml_model(extractor(), {"x": x}, x, {"y": np.array([3], np.int64)})
    with pytest.raises(OnnxImportError, match=r"out of range for a last dim of 3"):
        from_onnx(model)


def test_array_feature_extractor_runtime_index_out_of_range_fails_the_run() -> None:
    x = np.zeros((2, 3), np.float32)
    y = np.array([1, 3], np.int64)
    model = ml_model(extractor(), {"x": x, "y": y}, np.zeros((2, 2), np.float32))
    with pytest.raises(Exception, match=r"relay\.take: index 3 is out of range"):
        XrelayBackend.prepare(model).run([x, y])


def test_other_ml_operators_are_one_unsupported_error() -> None:
    node = helper.make_node("Normalizer", ["x"], ["y"], domain="ai.onnx.ml", norm="MAX")
    x = np.ones((2, 2), np.float32)
    with pytest.raises(
        OnnxImportError,
        match=r"unsupported ONNX operator: "
        r"ai\.onnx\.ml\.Normalizer",
    ):
        from_onnx(ml_model(node, {"x": x}, x))
