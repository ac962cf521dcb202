"""SimplifyInference as a TVM user tests it (Relay's
``test_pass_simplify_inference.py``, v0.18).

Covered: batch_norm (several axes, shared between projections) becomes the affine
form ``(x - mean) * scale + shift``, checked numerically against the unsimplified
program; dropout becomes its input.
Out of scope: layer_norm / group_norm / instance_norm structural forms (xrelay's
SimplifyInference writes its own, equivalent, op sequence: checked by value).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform
from xrelay.runtime import interpret


def run(expr: Any, *passes: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


@pytest.mark.parametrize(
    ("shape", "axis"), [((2, 3, 4, 4), 1), ((2, 4, 4, 3), 3), ((2, 3), 1)]
)
def test_batch_norm_becomes_affine(shape: tuple[int, ...], axis: int):
    c = shape[axis]
    x = relay.var("x", shape=shape)
    gamma, beta, mean, var = (relay.var(n, shape=(c,)) for n in ("g", "b", "m", "v"))
    bn = relay.nn.batch_norm(x, gamma, beta, mean, var, axis=axis, epsilon=0.01)
    before = relay.Function([x, gamma, beta, mean, var], relay.add(bn[0], bn[0]))
    after = run(before, transform.SimplifyInference())
    text = after.astext(fmt="relay")
    assert "batch_norm" not in text
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(shape, dtype="float32")]
    args += [rng.random(c, dtype="float32") + 0.5 for _ in range(4)]
    np.testing.assert_allclose(
        interpret(after, *args), interpret(run(before), *args), rtol=1e-4, atol=1e-5
    )


def test_dropout_is_removed():
    x = relay.var("x", shape=(2, 3))
    before = relay.Function([x], relay.nn.relu(relay.nn.dropout(x, rate=0.3)))
    after = run(before, transform.SimplifyInference())
    x2 = relay.var("x", shape=(2, 3))
    assert_structural_equal(after, run(relay.Function([x2], relay.nn.relu(x2))))
