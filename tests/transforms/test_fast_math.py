"""FastMath: Relay's test_pass_fast_math (exp, tanh, erf, softmax), attributes and
types kept, numerics unchanged (the reference semantics of the fast ops are exact)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.runtime import interpret
from xrelay.transforms.fast_math import FastMath


def op_names(mod: Any, func: str = "main") -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == func:
            return [op.name for op in f.walk() if op is not f]
    raise KeyError(func)


@pytest.mark.parametrize(
    ("build", "slow", "fast"),
    [
        (relay.exp, "relay.exp", "relay.fast_exp"),
        (relay.tanh, "relay.tanh", "relay.fast_tanh"),
        (relay.erf, "relay.erf", "relay.fast_erf"),
        (
            lambda x: relay.nn.softmax(x, axis=0),
            "relay.nn.softmax",
            "relay.nn.fast_softmax",
        ),
    ],
)
def test_replaced(build: Any, slow: str, fast: str):
    x = relay.var("x", shape=(3, 4))
    mod = relay.IRModule.from_expr(relay.Function([x], build(x)))
    after = FastMath()(mod)
    names = op_names(after)
    assert slow not in names
    assert fast in names
    xs = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(interpret(after, xs), interpret(mod, xs), rtol=1e-6)


def test_softmax_axis_is_kept():
    x = relay.var("x", shape=(3, 4))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.softmax(x, axis=0)))
    after = FastMath()(mod)
    op = next(
        o for o in after.func_op("main").walk() if o.name == "relay.nn.fast_softmax"
    )
    assert (
        op.properties["axis"]
        == mod.func_op("main").body.block.first_op.properties["axis"]
    )  # type: ignore[union-attr]


def test_other_ops_are_untouched():
    x = relay.var("x", shape=(3,))
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.sigmoid(relay.log(relay.nn.log_softmax(x))))
    )
    assert op_names(FastMath()(mod)) == op_names(mod)


def test_opt_level_4_gating():
    x = relay.var("x", shape=(3,))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.exp(x)))
    with PassContext(opt_level=3):
        assert "relay.exp" in op_names(Sequential([FastMath()])(mod))
    with PassContext(opt_level=4):
        assert "relay.fast_exp" in op_names(Sequential([FastMath()])(mod))
    p = get_pass("fast-math")
    assert (p.info.name, p.info.opt_level, p.info.required) == (
        "FastMath",
        4,
        ("InferType",),
    )
