"""Inline: Relay's test_pass_inline scenarios (leaf, chains, recursion, non-inline
callees, entry functions), on modules built with the builder and on IR, with
numerics before/after."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.pass_manager import get_pass
from xrelay.runtime import interpret
from xrelay.transforms.inline import Inline, InlineError, inline_module


def functions(mod: Any) -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    return [f.sym_name.data for f in module.ops if isinstance(f, FuncOp)]


def op_names(mod: Any, func: str = "main") -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == func:
            return [op.name for op in f.walk() if op is not f]
    raise KeyError(func)


def chain_module(inline_g: bool = True, inline_h: bool = True) -> relay.IRModule:
    """main → g → h; g and h marked Inline as asked."""
    mod = relay.IRModule()
    a, b = relay.var("a", shape=(2,)), relay.var("b", shape=(2,))
    h = relay.Function([a, b], relay.add(a, b))
    if inline_h:
        h = h.with_attr("Inline", 1)
    gv_h = relay.GlobalVar("h")
    mod[gv_h] = h
    p = relay.var("p", shape=(2,))
    g = relay.Function([p], relay.multiply(gv_h(p, p), p))
    if inline_g:
        g = g.with_attr("Inline", 1)
    gv_g = relay.GlobalVar("g")
    mod[gv_g] = g
    x = relay.var("x", shape=(2,))
    mod["main"] = relay.Function([x], relay.add(gv_g(x), gv_h(x, x)))
    return mod


XS = np.array([1.5, -2.0], dtype="float32")


def test_call_chain_inlined_callees_first():
    mod = chain_module()
    after = Inline()(mod)
    assert functions(after) == ["main"]
    assert "func.call" not in op_names(after)
    np.testing.assert_allclose(interpret(after, XS), interpret(mod, XS))


def test_leaf_inlined_into_non_inline_caller():
    mod = chain_module(inline_g=False)
    after = Inline()(mod)
    assert functions(after) == ["g", "main"]
    assert "func.call" not in op_names(after, "g")
    assert op_names(after).count("func.call") == 1
    np.testing.assert_allclose(interpret(after, XS), interpret(mod, XS))


def test_inline_caller_of_non_inline_callee_is_not_inlined():
    mod = chain_module(inline_h=False)
    after = Inline()(mod)
    assert functions(after) == functions(mod)
    assert op_names(after) == op_names(mod)


def test_recursive_and_entry_functions(parse):
    mod = parse(
        """
func.func @rec(%a: tensor<2xf32>, %n: tensor<i1>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = relay.if %n : tensor<i1> -> (tensor<2xf32>) {
    %f = relay.constant dense<false> : tensor<i1>
    %1 = func.call @rec(%a, %f) : (tensor<2xf32>, tensor<i1>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %a : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}
func.func @lonely(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  func.return %a : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %n: tensor<i1>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = func.call @rec(%x, %n) : (tensor<2xf32>, tensor<i1>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
    )
    after = Inline()(mod)
    assert functions(after) == ["rec", "lonely", "main"]
    assert op_names(after) == op_names(mod)
    np.testing.assert_array_equal(interpret(after, XS, np.array(True)), XS)


def test_multiple_calls_and_results(parse):
    mod = parse(
        """
func.func @two(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {relay.inline} {
  %0 = relay.subtract %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %a : tensor<2xf32>, tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %0, %1 = func.call @two(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %2, %3 = func.call @two(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %4 = relay.add %2, %3 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %4 : tensor<2xf32>
}
"""
    )
    after = Inline()(mod)
    assert functions(after) == ["main"]
    assert op_names(after) == [
        "relay.subtract",
        "relay.subtract",
        "relay.add",
        "func.return",
    ]
    ys = np.array([0.25, 4.0], dtype="float32")
    np.testing.assert_array_equal(interpret(after, XS, ys), interpret(mod, XS, ys))


def test_calls_of_fused_kernels_do_not_block_inlining(parse):
    """FuseOps' kernels are local functions in Relay: a relay.inline function calling
    one is still a leaf, and the kernel call is copied into the caller."""
    mod = parse(
        """
func.func private @kernel(%p: tensor<2xf32>) -> tensor<2xf32> attributes {relay.primitive} {
  %0 = relay.exp %p : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @helper(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = func.call @kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
    )
    after = Inline()(mod)
    assert functions(after) == ["kernel", "main"]
    np.testing.assert_allclose(interpret(after, XS), np.exp(XS), rtol=1e-6)


def test_mismatched_call_is_reported(parse):
    """The verifier rejects such IR before a pass runs; the pass itself reports it
    too (for callers of inline_module on unverified IR)."""
    mod = parse(
        """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  func.return %a : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @f(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
""",
    )
    with pytest.raises(InlineError, match="cannot inline @f: it takes 1 arguments"):
        inline_module(mod)


def test_registration():
    p = get_pass("inline")
    assert (p.info.name, p.info.opt_level, p.info.required) == ("Inline", 1, ())
