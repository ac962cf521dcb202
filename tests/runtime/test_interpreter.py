"""The reference interpreter on hand-written IR: calls, if, tuples, input checks."""

from __future__ import annotations

import numpy as np
import pytest

from xrelay.runtime import InterpreterError, interpret

MODULE = """
func.func @double(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %flag: tensor<i1>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %0 = relay.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = func.call @double(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.if %flag : tensor<i1> -> (tensor<2x3xf32>) {
    %n = relay.negative %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    relay.yield %n : tensor<2x3xf32>
  } else {
    relay.yield %1 : tensor<2x3xf32>
  }
  %t = relay.tuple %2, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tuple<tensor<2x3xf32>, tensor<3xf32>>
  %3 = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<2x3xf32>, tensor<3xf32>>) -> tensor<2x3xf32>
  %4 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2x3xf32>, tensor<3xf32>>) -> tensor<3xf32>
  func.return %3, %4 : tensor<2x3xf32>, tensor<3xf32>
}
"""


@pytest.mark.parametrize("flag", [True, False])
def test_calls_if_and_tuples(parse, flag: bool):
    mod = parse(MODULE)
    mod.verify()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1, 2, 3], dtype=np.float32)
    out, bias = interpret(mod, x, b, np.array(flag))
    expected = 2 * (x + b)
    np.testing.assert_array_equal(out, -expected if flag else expected)
    np.testing.assert_array_equal(bias, b)
    assert out.dtype == np.float32


def test_other_entry_and_casting_of_inputs(parse):
    mod = parse(MODULE)
    out = interpret(mod, [[1, 2, 3], [4, 5, 6]], entry="double")
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[2, 4, 6], [8, 10, 12]])


def test_wrong_input_shape_is_a_clear_error(parse):
    mod = parse(MODULE)
    with pytest.raises(
        InterpreterError, match=r"argument #0 of @double has shape \[3\]"
    ):
        interpret(mod, np.zeros(3), entry="double")


def test_wrong_argument_count(parse):
    with pytest.raises(InterpreterError, match="takes 3 arguments, 1 were given"):
        interpret(parse(MODULE), np.zeros((2, 3)))


def test_unknown_entry(parse):
    with pytest.raises(InterpreterError, match=r"no function @nope .*double, main"):
        interpret(parse(MODULE), entry="nope")
