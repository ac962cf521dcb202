"""CanonicalizeOps as a TVM user tests it (Relay's canonicalization of
``nn.bias_add``; Relay has no separate test file, the scenario is part of
``test_pass_alter_op_layout.py`` / ``test_pass_convert_op_layout.py`` expectations).

Covered: ``bias_add`` on axis 1 of NCHW becomes ``expand_dims`` + ``add``; on the last
axis the bias broadcasts without ``expand_dims``.
Out of scope: none for this pass.
"""

from __future__ import annotations

from typing import Any

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run(expr: Any, *passes: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def test_bias_add_axis_1():
    x = relay.var("x", shape=(1, 8, 4, 4))
    b = relay.var("b", shape=(8,))
    after = run(
        relay.Function([x, b], relay.nn.bias_add(x, b)), transform.CanonicalizeOps()
    )
    x2, b2 = relay.var("x", shape=(1, 8, 4, 4)), relay.var("b", shape=(8,))
    expected = relay.Function(
        [x2, b2], relay.add(x2, relay.expand_dims(b2, axis=1, num_newaxis=2))
    )
    assert_structural_equal(after, run(expected))


def test_bias_add_last_axis():
    x = relay.var("x", shape=(2, 8))
    b = relay.var("b", shape=(8,))
    after = run(
        relay.Function([x, b], relay.nn.bias_add(x, b, axis=-1)),
        transform.CanonicalizeOps(),
    )
    x2, b2 = relay.var("x", shape=(2, 8)), relay.var("b", shape=(8,))
    assert_structural_equal(after, run(relay.Function([x2, b2], relay.add(x2, b2))))
