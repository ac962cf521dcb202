"""EliminateCommonSubexpr: Relay's test_pass_eliminate_common_subexpr scenarios
(simple, callback, tuple_get_item, tuple arg), the seed example after FoldConstant,
scoping in if regions, and numerics before/after."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.dialects.relay.elementwise import ExpOp
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.runtime import interpret
from xrelay.transforms.eliminate_common_subexpr import EliminateCommonSubexpr
from xrelay.transforms.fold_constant import FoldConstant


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


def simple_model() -> relay.IRModule:
    x = relay.var("x", shape=(1, 16))
    y1 = relay.add(relay.nn.relu(x), relay.const(1.0, "float32"))
    y2 = relay.add(relay.nn.relu(x), relay.const(1.0, "float32"))
    return relay.IRModule.from_expr(relay.Function([x], relay.add(y1, y2)))


X16 = np.linspace(-1, 1, 16, dtype="float32").reshape(1, 16)


def test_simple():
    mod = simple_model()
    after = EliminateCommonSubexpr()(mod)
    assert op_names(after) == [
        "relay.nn.relu",
        "relay.constant",
        "relay.add",
        "relay.add",
        "func.return",
    ]
    assert_same(mod, after, X16)


def test_callback():
    """Relay's test_callback: fskip rejects the adds, so only relu merges."""

    def fskip(expr: Any) -> bool:  # TVM's callback: a relay.Call
        return isinstance(expr, relay.Call) and expr.op.name == "add"

    mod = simple_model()
    after = EliminateCommonSubexpr(fskip)(mod)
    names = op_names(after)
    assert names.count("relay.nn.relu") == 1
    assert names.count("relay.add") == 3
    assert_same(mod, after, X16)


def test_tuple_arg():
    """Relay's test_tuple_arg: concatenates of merged values merge too."""
    x = relay.var("x", shape=(1, 16))
    c0 = relay.const(np.ones((1, 16), "float32"))
    y1 = relay.add(relay.nn.relu(x), relay.const(1.0, "float32"))
    y2 = relay.add(relay.nn.relu(x), relay.const(1.0, "float32"))
    z1 = relay.concatenate([y1, c0], axis=0)
    z2 = relay.concatenate([y2, c0], axis=0)
    mod = relay.IRModule.from_expr(relay.Function([x], relay.add(z1, z2)))
    after = EliminateCommonSubexpr()(mod)
    names = op_names(after)
    assert names.count("relay.concatenate") == 1
    assert names.count("relay.nn.relu") == 1
    assert_same(mod, after, X16)


def test_tuple_get_item(parse):
    mod = parse(
        """
func.func @main(%x: tensor<1x16x1x1xf32>, %v: tensor<16xf32>) -> tensor<1x16x1x1xf32> {
  %bn:3 = relay.nn.batch_norm %x, %v, %v, %v, %v : (tensor<1x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<1x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>)
  %t = relay.tuple %bn#0, %bn#1 : (tensor<1x16x1x1xf32>, tensor<16xf32>) -> tuple<tensor<1x16x1x1xf32>, tensor<16xf32>>
  %a = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<1x16x1x1xf32>, tensor<16xf32>>) -> tensor<1x16x1x1xf32>
  %b = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<1x16x1x1xf32>, tensor<16xf32>>) -> tensor<1x16x1x1xf32>
  %0 = relay.add %a, %b : (tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  func.return %0 : tensor<1x16x1x1xf32>
}
"""
    )
    after = EliminateCommonSubexpr()(mod)
    assert op_names(after).count("relay.tuple_get_item") == 1
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 16, 1, 1)).astype("float32")
    v = rng.uniform(0.5, 1.5, 16).astype("float32")
    assert_same(mod, after, x, v)


def test_seed_example_after_fold_constant():
    """The pass-infra tutorial's example: after FoldConstant, y = conv + const((c+c)*2)
    and the two equal `y + c` merge, leaving z + z."""
    rng = np.random.default_rng(2)
    c = relay.const(rng.standard_normal((1, 4, 6, 6)).astype("float32"))
    weight = relay.var("weight", shape=(4, 4, 3, 3))
    x = relay.var("x", shape=(1, 4, 8, 8))
    conv = relay.nn.conv2d(x, weight)
    y = relay.add(conv, relay.multiply(relay.add(c, c), relay.const(2.0, "float32")))
    z = relay.add(relay.add(y, c), relay.add(y, c))
    mod = relay.IRModule.from_expr(relay.Function([x, weight], z))
    with PassContext(opt_level=3):
        after = Sequential([FoldConstant(), EliminateCommonSubexpr()])(mod)
    names = op_names(after)
    assert names.count("relay.add") == 3
    assert "relay.multiply" not in names
    main = after.func_op("main")
    last_add = main.body.block.last_op.prev_op  # type: ignore[union-attr]
    assert last_add.operands[0] is last_add.operands[1]  # type: ignore[union-attr]
    args = (
        rng.standard_normal((1, 4, 8, 8)).astype("float32"),
        rng.standard_normal((4, 4, 3, 3)).astype("float32"),
    )
    assert_same(mod, after, *args)


def test_different_attributes_or_operands_are_kept(parse):
    mod = parse(
        """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0 = relay.sum %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %1 = relay.sum %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %2 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = relay.nn.relu %y : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = relay.constant dense<1.0> : tensor<f32>
  %5 = relay.constant dense<2.0> : tensor<f32>
  %6 = relay.add %4, %5 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %0, %1, %2, %3, %6 : tensor<3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}
"""
    )
    assert op_names(EliminateCommonSubexpr()(mod)) == op_names(mod)


def test_stateful_ops_are_never_merged(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ExpOp, "STATEFUL", True)
    x = relay.var("x", shape=(2,))
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.add(relay.exp(x), relay.exp(x)))
    )
    assert op_names(EliminateCommonSubexpr()(mod)).count("relay.exp") == 2


def test_if_regions_are_scoped():
    flag = relay.var("flag", shape=(), dtype="bool")
    x = relay.var("x", shape=(3,))
    outer = relay.exp(x)
    body = relay.If(flag, relay.add(relay.exp(x), relay.abs(x)), relay.abs(x))
    body = relay.add(relay.add(outer, body), relay.abs(x))
    mod = relay.IRModule.from_expr(relay.Function([flag, x], body))
    after = EliminateCommonSubexpr()(mod)
    names = op_names(after)
    assert names.count("relay.exp") == 1
    assert names.count("relay.abs") == 3
    after.verify()
    xs = np.array([-1.0, 0.0, 2.0], dtype="float32")
    for f in (True, False):
        assert_same(mod, after, np.array(f), xs)


def test_registration():
    p = get_pass("eliminate-common-subexpr")
    assert (p.info.name, p.info.opt_level, p.info.required) == (
        "EliminateCommonSubexpr",
        3,
        ("InferType",),
    )


def test_model_numerics_preserved():
    from xrelay.tools.example import example_module

    module, inputs = example_module()
    after = EliminateCommonSubexpr()(module)
    assert_same(module, after, *inputs)
