"""Issue 25: float -> integer conversions have one defined result, the same in the
interpreter and in compiled code: truncation toward zero, NaN -> 0, and values beyond
the integer type's range (±inf too) saturate to its minimum or maximum. Compiled code
used ``fptosi.sat`` (NaN -> 0, +inf -> INT_MAX) while the interpreter used numpy's
undefined conversion (``INT_MIN`` on x86)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.dialects.relay.dtypes import BFLOAT16, float_to_int
from xrelay.runtime.interpreter import interpret

INT_TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]

SPECIAL = [
    math.nan,
    -math.nan,
    math.inf,
    -math.inf,
    1e30,
    -1e30,
    3.0e38,
    -3.0e38,
    0.0,
    -0.0,
    0.5,
    -0.5,
    0.99,
    -0.99,
    1.5,
    -1.5,
    2.7,
    -2.7,
    127.5,
    128.0,
    -128.5,
    -129.0,
    255.9,
    256.0,
    32767.5,
    32768.0,
    -32768.9,
    -32769.0,
    65535.5,
    65536.0,
    2.0**31,
    -(2.0**31),
    -(2.0**31) - 4096,
    2.0**32,
    2.0**32 - 256,
    2.0**53 + 2,
    2.0**63,
    -(2.0**63),
    2.0**64,
    -(2.0**64),
    2.0**62 + 2.0**40,
]


def expected(values: np.ndarray[Any, Any], dtype: str) -> np.ndarray[Any, Any]:
    """The defined result, element by element, in Python integers."""
    info = np.iinfo(dtype)
    out: list[int] = []
    for v in values.astype(np.float64).tolist():
        if math.isnan(v):
            out.append(0)
        elif math.isinf(v):
            out.append(info.max if v > 0 else info.min)
        else:
            out.append(min(max(math.trunc(v), int(info.min)), int(info.max)))
    return np.array(out, dtype=dtype)


def _inputs(src: str) -> np.ndarray[Any, Any]:
    """Every special value, repeated so that vectorised loops (and their scalar
    tails) see them in every lane."""
    with np.errstate(over="ignore"):  # float16: the huge values become ±inf
        base = np.array(SPECIAL, dtype=np.float64).astype(src)
    return np.concatenate([base, base[::-1], base[1:], base[:7]])


@pytest.mark.parametrize("src", ["float32", "float64", "float16"])
def test_cast_to_every_int_type_agrees(src: str) -> None:
    data = _inputs(src)
    x = relay.var("x", shape=data.shape, dtype=src)
    outs = [relay.cast(x, dt) for dt in INT_TYPES]
    mod = relay.IRModule.from_expr(relay.Function([x], relay.Tuple(outs)))
    compiled = xrelay.build(mod, cache=False)(data)
    interpreted = interpret(mod, data)
    for k, dt in enumerate(INT_TYPES):
        want = expected(data, dt)
        np.testing.assert_array_equal(
            np.asarray(interpreted[k]), want, err_msg=f"interpreter, {src} -> {dt}"
        )
        np.testing.assert_array_equal(
            np.asarray(compiled[k]), want, err_msg=f"compiled, {src} -> {dt}"
        )


def test_bfloat16_and_cast_like_agree() -> None:
    data = _inputs("float32").astype(BFLOAT16)
    x = relay.var("x", shape=data.shape, dtype="bfloat16")
    likes = [relay.var(f"l{k}", shape=(1,), dtype=dt) for k, dt in enumerate(INT_TYPES)]
    outs = [relay.cast_like(x, like) for like in likes]
    mod = relay.IRModule.from_expr(relay.Function([x, *likes], relay.Tuple(outs)))
    feeds = [data, *(np.zeros(1, dt) for dt in INT_TYPES)]
    compiled = xrelay.build(mod, cache=False)(*feeds)
    interpreted = interpret(mod, *feeds)
    for k, dt in enumerate(INT_TYPES):
        want = expected(data.astype(np.float32), dt)
        np.testing.assert_array_equal(np.asarray(interpreted[k]), want, err_msg=dt)
        np.testing.assert_array_equal(np.asarray(compiled[k]), want, err_msg=dt)


def test_constant_folding_saturates_too() -> None:
    """FoldConstant computes with the interpreter: a folded cast of a constant gives
    what the compiled cast gives."""
    data = _inputs("float32")
    c = relay.const(data)
    mod = relay.IRModule.from_expr(relay.Function([], relay.cast(c, "int32")))
    np.testing.assert_array_equal(
        np.asarray(xrelay.build(mod, cache=False)()), expected(data, "int32")
    )


def test_float_to_int_scalar_and_empty() -> None:
    assert float_to_int(np.float32(np.nan), np.dtype("int32")) == 0
    assert float_to_int(np.float64(-np.inf), np.dtype("uint64")) == 0
    assert (
        float_to_int(np.float64(np.inf), np.dtype("uint64")) == np.iinfo("uint64").max
    )
    assert float_to_int(np.zeros((0, 3)), np.dtype("int8")).shape == (0, 3)


def test_onnx_cast_agrees() -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from xrelay.frontend import from_onnx

    data = _inputs("float32")
    n = data.shape[0]
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT32)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [n])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert onnx.checker.check_model(model) is None
    mod, params = from_onnx(model)
    want = expected(data, "int32")
    np.testing.assert_array_equal(np.asarray(interpret(mod, data)), want)
    lib = xrelay.build(mod, params=params, cache=False)
    np.testing.assert_array_equal(np.asarray(lib(data)), want)
