"""BitwiseAnd/Or/Xor/Not and BitShift (bitwise.py) against the ONNX reference
evaluator; the builder wrappers (relay.bitwise_and ...) through the interpreter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay import relay

RunOnnx = Callable[..., Any]


@pytest.mark.parametrize("op", ["BitwiseAnd", "BitwiseOr", "BitwiseXor"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64])
def test_bitwise_binary(
    run_onnx: RunOnnx, rng: np.random.Generator, op: str, dtype: Any
) -> None:
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (2, 3, 4), dtype=dtype)
    b = rng.integers(info.min, info.max, (4,), dtype=dtype)
    run_onnx(helper.make_node(op, ["a", "b"], ["y"]), {"a": a, "b": b}, opset=18)


def test_bitwise_not(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    a = rng.integers(-100, 100, (3, 5), dtype=np.int16)
    run_onnx(helper.make_node("BitwiseNot", ["a"], ["y"]), {"a": a}, opset=18)


@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64])
def test_bit_shift(
    run_onnx: RunOnnx, rng: np.random.Generator, direction: str, dtype: Any
) -> None:
    bits = np.dtype(dtype).itemsize * 8
    x = rng.integers(0, np.iinfo(dtype).max, (3, 4), dtype=dtype)
    y = rng.integers(0, bits, (4,)).astype(dtype)
    node = helper.make_node("BitShift", ["x", "y"], ["z"], direction=direction)
    run_onnx(node, {"x": x, "y": y}, ort_differs="uint64 shifts")


def test_builder_wrappers() -> None:
    x = relay.var("x", shape=(4,), dtype="int32")
    y = relay.right_shift(
        relay.left_shift(relay.bitwise_xor(relay.bitwise_not(x), 5), 2), 1
    )
    y = relay.bitwise_or(relay.bitwise_and(y, 0xFF), 1)
    run = relay.create_executor(
        "debug", mod=relay.IRModule.from_expr(relay.Function([x], y))
    ).evaluate()
    v = np.array([0, 1, -7, 100], np.int32)
    want = ((((~v) ^ 5) << 2) >> 1) & 0xFF | 1
    np.testing.assert_array_equal(run(v).numpy(), want)
