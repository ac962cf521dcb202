"""infer_types: filling incomplete types, callee-first signatures, mismatches."""

from __future__ import annotations

import pytest

from xrelay.transforms.infer_type import TypeInferenceError, infer_types

INCOMPLETE = """
func.func @f(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  %0 = relay.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  %1 = func.call @f(%0) : (tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.less %1, %1 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xi1>
  func.return %2 : tensor<*xi1>
}
"""


def test_fills_incomplete_types_callee_first(parse):
    mod = parse(INCOMPLETE)
    infer_types(mod)
    mod.verify()
    text = str(mod)
    assert "*x" not in text
    assert "func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32>" in text
    assert "func.call @f(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>" in text
    assert "-> tensor<2x3xi1>" in text


def test_idempotent(parse):
    mod = parse(INCOMPLETE)
    infer_types(mod)
    once = str(mod)
    infer_types(mod)
    assert str(mod) == once


def test_declared_type_mismatch_is_reported_at_the_op(parse):
    mod = parse(
        """
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}
"""
    )
    with pytest.raises(
        TypeInferenceError, match="relay.nn.relu: result #0 is declared"
    ) as info:
        infer_types(mod)
    assert info.value.op.name == "relay.nn.relu"


def test_relation_failure_names_the_op(parse):
    mod = parse(
        """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<*xf32> {
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
"""
    )
    with pytest.raises(
        TypeInferenceError, match=r"relay.add: shapes \[2, 3\] and \[4\]"
    ):
        infer_types(mod)
