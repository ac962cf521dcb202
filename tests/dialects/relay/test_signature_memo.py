"""Relay ops remember verification and type relations by signature (the identities
of their types and attributes): a remembered success is never reused for an op that
differs, and an error is found every time."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.dialects.builtin import FloatAttr, ModuleOp, TensorType, f32, f64
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from xrelay.dialects.relay import base
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.dominance import verify_module

Parse = Callable[[str], ModuleOp]

TWO_ADDS = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1xf32>)
    -> (tensor<2x3xf32>, tensor<4x3xf32>) {
  %0 = relay.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = relay.add %c, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<4x3xf32>
}
"""


def _ops(module: ModuleOp, name: str) -> list[RelayOp]:
    return [op for op in module.walk() if isinstance(op, RelayOp) and op.name == name]


def test_distinct_operand_types_never_share_a_type_relation(parse: Parse) -> None:
    first, second = _ops(parse(TWO_ADDS), "relay.add")
    for _ in range(2):  # the second round answers from the memo
        assert list(first.infer_result_types()) == [TensorType(f32, [2, 3])]
        assert list(second.infer_result_types()) == [TensorType(f32, [4, 3])]
    assert first.signature(False) != second.signature(False)


def test_a_changed_result_type_is_verified_again(parse: Parse) -> None:
    module = parse(TWO_ADDS)
    verify_module(module)  # remembered
    first = _ops(module, "relay.add")[0]
    Rewriter.replace_value_with_new_type(first.results[0], TensorType(f64, [2, 3]))
    with pytest.raises(VerifyException, match="type relation gives"):
        first.verify()
    with pytest.raises(VerifyException, match="type relation gives"):
        first.verify()  # failures are never remembered


def test_a_changed_property_is_verified_again(parse: Parse) -> None:
    module = parse("""
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = relay.clip %a {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.clip %0 {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
""")
    verify_module(module)
    first = _ops(module, "relay.clip")[0]
    first.properties["a_min"] = FloatAttr(7.0, f64)
    with pytest.raises(VerifyException, match="larger than a_max"):
        first.verify()


def test_the_last_op_of_a_block_and_constants_are_not_remembered(
    parse: Parse,
) -> None:
    module = parse("""
func.func @main() -> tensor<2xf32> {
  %0 = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
""")
    (const,) = _ops(module, "relay.constant")
    assert const.signature(True) is None
    assert const.signature(False) is None


def test_the_memo_is_bounded(parse: Parse, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "_MEMO_LIMIT", 1)
    module = parse(TWO_ADDS)
    verify_module(module)
    assert len(base._VERIFIED) <= 1  # pyright: ignore[reportPrivateUsage]
