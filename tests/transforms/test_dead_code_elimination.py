"""DeadCodeElimination: Relay's test_pass_dead_code_elimination scenarios on SSA
(dead/live values, nested regions, calls and purity, ignore_impurity, inline_once),
with numerics before/after."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp

from xrelay import relay
from xrelay.dialects.relay.elementwise import ExpOp
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.runtime import interpret
from xrelay.transforms.dead_code_elimination import DeadCodeElimination


def op_names(mod: Any, func: str = "main") -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == func:
            return [op.name for op in f.walk() if op is not f]
    raise KeyError(func)


def assert_same(before: Any, after: Any, *args: Any) -> None:
    np.testing.assert_allclose(
        interpret(after, *args), interpret(before, *args), rtol=1e-5, atol=1e-6
    )


DEAD = """
func.func @main(%x: tensor<2xf32>, %flag: tensor<i1>) -> tensor<2xf32> {
  %c = relay.constant dense<1.0> : tensor<2xf32>
  %a = relay.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = relay.exp %a : (tensor<2xf32>) -> tensor<2xf32>
  %t = relay.tuple %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %g = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %0 = relay.if %flag : tensor<i1> -> (tensor<2xf32>) {
    %d = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
    %e = relay.abs %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %e : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  %1 = relay.nn.relu %0 : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
"""


def test_dead_values_and_chains_go(parse):
    mod = parse(DEAD)
    after = DeadCodeElimination()(mod)
    assert op_names(after) == [
        "relay.if",
        "relay.abs",
        "relay.yield",
        "relay.yield",
        "relay.nn.relu",
        "func.return",
    ]
    x = np.array([-1.0, 2.0], dtype="float32")
    for flag in (True, False):
        assert_same(mod, after, x, np.array(flag))


def test_live_code_is_kept():
    x = relay.var("x", shape=(3,))
    y = relay.exp(x)
    body = relay.add(y, relay.nn.relu(y))
    mod = relay.IRModule.from_expr(relay.Function([x], body))
    after = DeadCodeElimination()(mod)
    assert op_names(after) == op_names(mod)


def test_unused_if_with_pure_regions_goes(parse):
    mod = parse(
        """
func.func @main(%x: tensor<2xf32>, %flag: tensor<i1>) -> tensor<2xf32> {
  %0 = relay.if %flag : tensor<i1> -> (tensor<2xf32>) {
    %e = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %e : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  func.return %x : tensor<2xf32>
}
"""
    )
    assert op_names(DeadCodeElimination()(mod)) == ["func.return"]


CALLS = """
func.func private @external(tensor<2xf32>) -> tensor<2xf32>
func.func @pure(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @impure(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @external(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %x : tensor<2xf32>
}
func.func @recursive(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @recursive(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @pure(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @impure(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = func.call @recursive(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %x : tensor<2xf32>
}
"""


def test_calls_follow_the_callee_purity(parse):
    """Relay's test_impure_func / test_recursion: a call of a pure function goes, a
    call reaching an external function stays; a recursive function is assumed
    pure while it is analysed."""
    after = DeadCodeElimination()(parse(CALLS))
    main = next(
        f for f in after.ops if isinstance(f, FuncOp) and f.sym_name.data == "main"
    )
    calls = [op.callee.string_value() for op in main.walk() if isinstance(op, CallOp)]
    assert calls == ["impure"]
    # the impure callee keeps its own call
    assert op_names(after, "impure") == ["func.call", "func.return"]


def test_ignore_impurity_removes_impure_calls(parse):
    after = DeadCodeElimination(ignore_impurity=True)(parse(CALLS))
    assert op_names(after) == ["func.return"]
    assert op_names(after, "impure") == ["func.return"]


UNUSED_EXP = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %x : tensor<2xf32>
}
"""


def test_stateful_relay_ops_are_impure(parse, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ExpOp, "STATEFUL", True)
    assert "relay.exp" in op_names(DeadCodeElimination()(parse(UNUSED_EXP)))
    after = DeadCodeElimination(ignore_impurity=True)(parse(UNUSED_EXP))
    assert op_names(after) == ["func.return"]


def test_inline_once_moves_single_use_ops_into_branches(parse):
    mod = parse(
        """
func.func @main(%flag: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.abs %0 : (tensor<2xf32>) -> tensor<2xf32>
  %shared = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
  %2 = relay.if %flag : tensor<i1> -> (tensor<2xf32>) {
    %3 = relay.add %1, %shared : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    relay.yield %3 : tensor<2xf32>
  } else {
    relay.yield %shared : tensor<2xf32>
  }
  func.return %2 : tensor<2xf32>
}
"""
    )
    plain = DeadCodeElimination()(mod)
    assert op_names(plain) == op_names(mod)
    after = DeadCodeElimination(inline_once=True)(mod)
    assert op_names(after) == [
        "relay.negative",
        "relay.if",
        "relay.exp",
        "relay.abs",
        "relay.add",
        "relay.yield",
        "relay.yield",
        "func.return",
    ]
    after.verify()
    x = np.array([-1.0, 0.5], dtype="float32")
    for flag in (True, False):
        assert_same(mod, after, np.array(flag), x)


def test_registration_and_gating(parse):
    p = get_pass("dead-code-elimination")
    assert (p.info.name, p.info.opt_level, p.info.required) == (
        "DeadCodeElimination",
        1,
        ("InferType",),
    )
    mod = parse(UNUSED_EXP)
    # gated out at opt_level 0 inside a Sequential, runs at 1
    with PassContext(opt_level=0):
        assert "relay.exp" in op_names(Sequential([DeadCodeElimination()])(mod))
    with PassContext(opt_level=1):
        assert op_names(Sequential([DeadCodeElimination()])(mod)) == ["func.return"]


def test_model_numerics_preserved():
    from xrelay.tools.example import example_module

    module, inputs = example_module()
    after = DeadCodeElimination()(module)
    assert_same(module, after, *inputs)
