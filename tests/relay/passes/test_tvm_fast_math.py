"""FastMath as a TVM user tests it (Relay's ``test_pass_fast_math.py``, v0.18).

Covered: exp, tanh, erf, softmax become fast_exp, fast_tanh, fast_erf,
fast_softmax; other ops stay.
Out of scope: checking through ``relay.build`` with ``required_pass`` /
``disabled_pass`` on the graph executor's text (the pass-context gating is tested in
tests/pass_manager).
"""

from __future__ import annotations

from typing import Any

import pytest

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run(expr: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=4):
        return transform.Sequential([transform.InferType(), transform.FastMath()])(mod)


@pytest.mark.parametrize(
    ("slow", "fast"),
    [
        (relay.exp, lambda x: relay.Call(relay.op.get("fast_exp"), [x])),
        (relay.tanh, lambda x: relay.Call(relay.op.get("fast_tanh"), [x])),
        (relay.erf, lambda x: relay.Call(relay.op.get("fast_erf"), [x])),
        (relay.nn.softmax, relay.nn.fast_softmax),
    ],
)
def test_fast_forms(slow: Any, fast: Any):
    x = relay.var("x", shape=(1, 16, 16, 16), dtype="float32")
    after = run(relay.Function([x], slow(x)))
    x2 = relay.var("x", shape=(1, 16, 16, 16), dtype="float32")
    expected = relay.IRModule.from_expr(relay.Function([x2], fast(x2)))
    assert_structural_equal(after, transform.InferType()(expected))


def test_other_ops_stay():
    x = relay.var("x", shape=(4,))
    before = relay.Function([x], relay.sigmoid(relay.log(x)))
    after = run(before)
    assert_structural_equal(
        after, transform.InferType()(relay.IRModule.from_expr(before))
    )
