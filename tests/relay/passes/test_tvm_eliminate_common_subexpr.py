"""EliminateCommonSubexpr as a TVM user tests it (Relay's
``test_pass_eliminate_common_subexpr.py``, v0.18).

Covered: test_simple (equal relu/add merged), test_callback (fskip on
``expr.op.name``), test_tuple_get_time (equal projections of batch_norm merged),
test_tuple_arg (concatenates of merged values merge), constants equal by value, a
stateful op (dropout) not merged.
Out of scope: ``let``-bound duplicates as separate nodes (SSA names here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run_opt_pass(expr: Any, opt_pass: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        mod = transform.Sequential([transform.InferType(), opt_pass])(mod)
    return mod["main"]


def infer(expr: Any) -> Any:
    return run_opt_pass(expr, transform.InferType())


def test_simple():
    def before() -> Any:
        x = relay.var("x", shape=(1, 16))
        y1 = relay.nn.relu(x)
        y2 = relay.nn.relu(x)
        y1 = relay.add(y1, relay.const(1.0, "float32"))
        y2 = relay.add(y2, relay.const(1.0, "float32"))
        return relay.Function([x], relay.add(y1, y2))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 16))
        y = relay.nn.relu(x)
        y = relay.add(y, relay.const(1.0, "float32"))
        return relay.Function([x], relay.add(y, y))

    z = run_opt_pass(before(), transform.EliminateCommonSubexpr())
    assert_structural_equal(z, infer(expected()))


def test_callback():
    def before() -> Any:
        x = relay.var("x", shape=(1, 16))
        y1 = relay.nn.relu(x)
        y2 = relay.nn.relu(x)
        y1 = relay.add(y1, relay.const(1.0, "float32"))
        y2 = relay.add(y2, relay.const(1.0, "float32"))
        return relay.Function([x], relay.add(y1, y2))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 16))
        y = relay.nn.relu(x)
        y1 = relay.add(y, relay.const(1.0, "float32"))
        y2 = relay.add(y, relay.const(1.0, "float32"))
        return relay.Function([x], relay.add(y1, y2))

    def fskip(expr: Any) -> bool:
        return isinstance(expr, relay.Call) and expr.op.name == "add"

    z = run_opt_pass(before(), transform.EliminateCommonSubexpr(fskip))
    assert_structural_equal(z, infer(expected()))


def test_tuple_get_item():
    def before() -> Any:
        x = relay.var("x", shape=(1, 16, 1, 1))
        var = relay.var("var", shape=(16,))
        mean = relay.var("mean", shape=(16,))
        beta = relay.var("beta", shape=(16,))
        gamma = relay.var("gamma", shape=(16,))
        bn1 = relay.nn.batch_norm(x, gamma, beta, mean, var, epsilon=1e-5)
        bn2 = relay.nn.batch_norm(x, gamma, beta, mean, var, epsilon=1e-5)
        return relay.Function([x, var, mean, beta, gamma], relay.add(bn1[0], bn2[0]))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 16, 1, 1))
        var = relay.var("var", shape=(16,))
        mean = relay.var("mean", shape=(16,))
        beta = relay.var("beta", shape=(16,))
        gamma = relay.var("gamma", shape=(16,))
        bn = relay.nn.batch_norm(x, gamma, beta, mean, var, epsilon=1e-5)
        return relay.Function([x, var, mean, beta, gamma], relay.add(bn[0], bn[0]))

    z = run_opt_pass(before(), transform.EliminateCommonSubexpr())
    assert_structural_equal(z, infer(expected()))


def test_tuple_arg():
    def before() -> Any:
        x = relay.var("x", shape=(1, 16))
        c = relay.const(np.ones((1, 16), "float32"))
        y1 = relay.add(relay.nn.relu(x), relay.const(1.0, "float32"))
        y2 = relay.add(relay.nn.relu(x), relay.const(1.0, "float32"))
        z1 = relay.concatenate([y1, c], axis=0)
        z2 = relay.concatenate([y2, c], axis=0)
        return relay.Function([x], relay.add(z1, z2))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 16))
        c = relay.const(np.ones((1, 16), "float32"))
        y = relay.add(relay.nn.relu(x), relay.const(1.0, "float32"))
        z = relay.concatenate([y, c], axis=0)
        return relay.Function([x], relay.add(z, z))

    z = run_opt_pass(before(), transform.EliminateCommonSubexpr())
    assert_structural_equal(z, infer(expected()))


def test_dropout_is_not_merged():
    x = relay.var("x", shape=(4,))
    before = relay.Function([x], relay.add(relay.nn.dropout(x), relay.nn.dropout(x)))
    z = run_opt_pass(before, transform.EliminateCommonSubexpr())
    assert_structural_equal(z, infer(before))
