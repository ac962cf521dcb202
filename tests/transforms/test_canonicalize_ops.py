"""CanonicalizeOps: bias_add → expand_dims + add over ranks and axes, numerics
before/after."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.pass_manager import get_pass
from xrelay.runtime import interpret
from xrelay.transforms.canonicalize_ops import CanonicalizeOps


def op_names(mod: Any, func: str = "main") -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == func:
            return [op.name for op in f.walk() if op is not f]
    raise KeyError(func)


@pytest.mark.parametrize(
    ("shape", "axis", "expands"),
    [
        ((1, 8, 4, 4), 1, True),
        ((1, 4, 4, 8), 3, False),
        ((1, 4, 4, 8), -1, False),
        ((2, 10), 1, False),
        ((3, 2, 5), 0, True),
        ((3, 2, 5), -2, True),
    ],
)
def test_bias_add(shape: tuple[int, ...], axis: int, expands: bool):
    x = relay.var("x", shape=shape)
    b = relay.var("b", shape=(shape[axis],))
    mod = relay.IRModule.from_expr(
        relay.Function([x, b], relay.nn.bias_add(x, b, axis=axis))
    )
    after = CanonicalizeOps()(mod)
    names = op_names(after)
    assert "relay.nn.bias_add" not in names
    assert names.count("relay.add") == 1
    assert ("relay.expand_dims" in names) == expands
    rng = np.random.default_rng(0)
    xs = rng.standard_normal(shape).astype("float32")
    bs = rng.standard_normal(shape[axis]).astype("float32")
    np.testing.assert_array_equal(interpret(after, xs, bs), interpret(mod, xs, bs))


def test_other_ops_are_untouched():
    x = relay.var("x", shape=(2, 10))
    b = relay.var("b", shape=(10,))
    mod = relay.IRModule.from_expr(relay.Function([x, b], relay.add(x, b)))
    assert op_names(CanonicalizeOps()(mod)) == op_names(mod)


def test_example_model_numerics():
    from xrelay.tools.example import example_module

    module, inputs = example_module()
    after = CanonicalizeOps()(module)
    assert "relay.nn.bias_add" not in op_names(after)
    np.testing.assert_allclose(
        interpret(after, *inputs), interpret(module, *inputs), rtol=1e-5, atol=1e-7
    )


def test_registration():
    p = get_pass("canonicalize-ops")
    assert (p.info.name, p.info.opt_level, p.info.required) == (
        "CanonicalizeOps",
        3,
        ("InferType",),
    )
