"""``xrelay.ir.structural_equal`` / ``assert_structural_equal`` with TVM's rules."""

from __future__ import annotations

import numpy as np
import pytest

from xrelay import relay
from xrelay.ir import assert_structural_equal, structural_equal
from xrelay.relay import transform


def test_sharing_must_match():
    x = relay.var("x", shape=(2, 3))
    e = relay.exp(x)
    shared = relay.add(e, e)
    copied = relay.add(relay.exp(x), relay.exp(x))
    assert structural_equal(shared, shared)
    assert structural_equal(copied, relay.add(relay.exp(x), relay.exp(x)))
    assert not structural_equal(shared, copied)
    assert not structural_equal(copied, shared)
    with pytest.raises(AssertionError, match="sharing differs") as info:
        assert_structural_equal(shared, copied)
    text = str(info.value)
    assert "--- lhs ---" in text
    assert "--- rhs ---" in text
    assert "operand #1" in text  # the first differing point


def test_free_vars_by_identity_unless_mapped():
    x = relay.var("x", shape=(4,))
    y = relay.var("y", shape=(4,))
    assert structural_equal(relay.exp(x), relay.exp(x))
    assert not structural_equal(relay.exp(x), relay.exp(y))
    assert structural_equal(relay.exp(x), relay.exp(y), map_free_vars=True)
    with pytest.raises(AssertionError, match="free variables differ"):
        assert_structural_equal(relay.exp(x), relay.exp(y))


def test_bound_params_map_by_position():
    x = relay.var("x", shape=(4,))
    y = relay.var("y", shape=(4,))
    assert structural_equal(
        relay.Function([x, y], relay.subtract(x, y)),
        relay.Function([y, x], relay.subtract(y, x)),
    )
    assert not structural_equal(
        relay.Function([x, y], relay.subtract(x, y)),
        relay.Function([x, y], relay.subtract(y, x)),
    )


def test_attributes_types_and_constants():
    x = relay.var("x", shape=(2, 3))
    assert not structural_equal(relay.sum(x, axis=1), relay.sum(x, axis=0))
    # an attribute written at its default equals one left out
    assert structural_equal(relay.sum(x, axis=1), relay.sum(x, axis=1, keepdims=False))
    assert not structural_equal(relay.add(x, x), relay.multiply(x, x))
    assert structural_equal(relay.const(np.float32(1.5)), relay.const(np.float32(1.5)))
    assert not structural_equal(relay.const(1.5), relay.const(2.5))
    assert not structural_equal(relay.const(1.0), relay.const(1.0, "float16"))
    assert not structural_equal(
        relay.const(np.zeros(2, "float32")), relay.const(np.zeros(3, "float32"))
    )
    nan = relay.const(np.array([np.nan], "float32"))
    assert structural_equal(nan, relay.const(np.array([np.nan], "float32")))
    z = relay.var("x", shape=(2, 3), dtype="float16")
    assert not structural_equal(
        relay.Function([x], relay.exp(x)), relay.Function([z], relay.exp(z))
    )


def test_modules_and_fused_functions():
    x = relay.var("x", shape=(2, 3))
    ones = np.ones((2, 3), "float32")
    mod = relay.IRModule.from_expr(relay.exp(relay.add(x, relay.const(ones))))
    fused = transform.FuseOps(fuse_opt_level=2)(transform.InferType()(mod))
    p0 = relay.var("p0", shape=(2, 3))
    p1 = relay.var("p1", shape=(2, 3))
    kernel = relay.Function([p0, p1], relay.exp(relay.add(p0, p1)))
    kernel = kernel.with_attr("Primitive", 1)
    x2 = relay.var("x", shape=(2, 3))
    expected = relay.IRModule.from_expr(
        relay.Function([x2], kernel(x2, relay.const(ones)))
    )
    assert_structural_equal(fused, expected)  # local function names do not matter
    assert_structural_equal(fused["main"], expected["main"])
    assert not structural_equal(fused, mod)
    other = relay.IRModule.from_expr(relay.Function([x2], relay.exp(x2)))
    other["g"] = relay.Function([p0], relay.negative(p0))
    with pytest.raises(AssertionError, match="different functions"):
        assert_structural_equal(other, mod)


def test_calls_of_public_functions_compare_names():
    a = relay.var("a", shape=(3,))
    x = relay.var("x", shape=(3,))

    def module(callee: str) -> relay.IRModule:
        mod = relay.IRModule({callee: relay.Function([a], relay.negative(a))})
        mod["main"] = relay.Function([x], mod.get_global_var(callee)(x))
        return mod

    assert structural_equal(module("f"), module("f"))
    assert not structural_equal(module("f")["main"], module("g")["main"])
