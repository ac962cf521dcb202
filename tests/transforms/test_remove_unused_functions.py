"""RemoveUnusedFunctions: reachability from the entry functions (calls, nested
regions, transitive), the entry_functions option and a missing entry."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.pass_manager import get_pass
from xrelay.runtime import interpret
from xrelay.transforms.remove_unused_functions import (
    MissingEntryError,
    RemoveUnusedFunctions,
)


def functions(mod: Any) -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    return [f.sym_name.data for f in module.ops if isinstance(f, FuncOp)]


def build() -> relay.IRModule:
    mod = relay.IRModule()
    for name in ("leaf", "unused", "other_entry"):
        a = relay.var("a", shape=(2,))
        mod[name] = relay.Function([a], relay.negative(a))
    a = relay.var("a", shape=(2,))
    mod["middle"] = relay.Function([a], relay.GlobalVar("leaf")(a))
    x = relay.var("x", shape=(2,))
    mod["main"] = relay.Function([x], relay.add(relay.GlobalVar("middle")(x), x))
    return mod


def test_unreachable_functions_go():
    mod = build()
    after = RemoveUnusedFunctions()(mod)
    assert functions(after) == ["leaf", "middle", "main"]
    xs = np.array([1.0, 2.0], dtype="float32")
    np.testing.assert_array_equal(interpret(after, xs), interpret(mod, xs))


def test_entry_functions_option():
    after = RemoveUnusedFunctions(entry_functions=["main", "other_entry"])(build())
    assert functions(after) == ["leaf", "other_entry", "middle", "main"]
    after = get_pass("remove-unused-functions", entry_functions=("leaf",))(build())
    assert functions(after) == ["leaf"]


def test_calls_in_regions_count(parse):
    mod = parse(
        """
func.func @branch(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    %1 = func.call @branch(%x) : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}
"""
    )
    assert functions(RemoveUnusedFunctions()(mod)) == ["branch", "main"]


def test_missing_entry_is_an_error():
    mod = relay.IRModule()
    a = relay.var("a", shape=(2,))
    mod["f"] = relay.Function([a], a)
    with pytest.raises(
        MissingEntryError,
        match=r"entry function @main is not in the module \(functions: @f\)",
    ):
        RemoveUnusedFunctions()(mod)


def test_registration():
    p = get_pass("RemoveUnusedFunctions")
    assert (p.info.name, p.info.opt_level, p.info.required) == (
        "RemoveUnusedFunctions",
        1,
        (),
    )
