"""BitCast (bitcast.py, relay.reinterpret) against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.frontend.onnx.backend import XrelayBackend

RunOnnx = Callable[..., Any]
PAIRS = [
    (np.float32, TensorProto.INT32),
    (np.int32, TensorProto.FLOAT),
    (np.float16, TensorProto.UINT16),
    (np.int16, TensorProto.FLOAT16),
    (np.float64, TensorProto.UINT64),
    (np.bool_, TensorProto.INT8),
    (np.uint8, TensorProto.BOOL),
    (np.int64, TensorProto.INT64),
]


def _data(rng: np.random.Generator, dtype: Any, shape: tuple[int, ...]) -> Any:
    """An array (never a numpy scalar, which onnxruntime refuses as an input)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.asarray(rng.integers(0, 2, shape).astype(bool))
    if dt.kind == "f":
        return np.asarray((rng.standard_normal(shape) * 100).astype(dt))
    info = np.iinfo(dt)
    return np.asarray(rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True))


@pytest.mark.parametrize(("src", "to"), PAIRS)
@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 5)])
def test_bitcast(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    src: Any,
    to: int,
    shape: tuple[int, ...],
) -> None:
    x = _data(rng, src, shape)
    node = helper.make_node("BitCast", ["x"], ["y"], to=to)
    bools = np.dtype(src).kind == "b" or to == TensorProto.BOOL
    no_ort = "onnxruntime has no BitCast kernel for bool" if bools else None
    run_onnx(node, {"x": x}, opset=26, rtol=0, atol=0, ort_differs=no_ort)


@pytest.mark.parametrize(("src", "to"), PAIRS)
def test_bitcast_compiled(
    build_model: Any, rng: np.random.Generator, src: Any, to: int
) -> None:
    x = _data(rng, src, (4, 9))
    want = x.view(helper.tensor_dtype_to_np_dtype(to))
    node = helper.make_node("BitCast", ["x"], ["y"], to=to)
    model = build_model(node, {"x": x}, opset=26, output_values=[want])
    (got,) = XrelayBackend.prepare(model).run([x])
    assert got.dtype == want.dtype
    if want.dtype == np.bool_:  # a byte other than 0 or 1 is True, stored as 1
        want = x != 0
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_bitcast_needs_one_width(build_model: Any) -> None:
    x = np.zeros(3, np.float32)
    node = helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.INT64)
    model = build_model(node, {"x": x}, opset=26, output_values=[np.zeros(3, np.int64)])
    with pytest.raises(OnnxImportError, match="types of one width"):
        from_onnx(model)
