"""FoldScaleAxis as a TVM user tests it (Relay's ``test_pass_fold_scale_axis.py``,
v0.18), checked numerically and by the ops left.

Covered: test_fold_fwd_simple (a per-channel multiply before conv2d folded into the
weight), test_fold_bwd_simple (a per-channel multiply after conv2d folded into the
weight), test_fold_fwd_fail (a scale on the reduced axis of a negative-scale relu is
not folded), test_fold_bwd_dense (after dense), the combined FoldScaleAxis.
Out of scope: the exact op order of Relay's expected programs (xrelay folds the
scale into a constant weight with FoldConstant in the same pass), NHWC/blocked
kernel layouts, ``conv2d`` with groups.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.relay import transform
from xrelay.runtime import interpret

RNG = np.random.default_rng(0)


def run(expr: Any, *passes: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def ops(mod: Any) -> list[str]:
    return [op.name for op in mod.func_op("main").walk()]


def conv_model(scale_before: bool) -> Any:
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.const(RNG.standard_normal((8, 4, 3, 3)).astype("float32"))
    if scale_before:
        s = relay.const(RNG.random((4, 1, 1)).astype("float32") + 0.5)
        y = relay.nn.conv2d(
            relay.multiply(x, s), w, kernel_size=(3, 3), padding=(1, 1), channels=8
        )
    else:
        s = relay.const(RNG.random((8, 1, 1)).astype("float32") + 0.5)
        y = relay.multiply(
            relay.nn.relu(
                relay.nn.conv2d(x, w, kernel_size=(3, 3), padding=(1, 1), channels=8)
            ),
            s,
        )
    return relay.Function([x], y)


def check(fn: Any, opt: Any, folded: bool) -> None:
    # the scale moves onto the constant weight, which FoldConstant then folds
    after = run(fn, opt, transform.FoldConstant())
    data = RNG.standard_normal((1, 4, 6, 6)).astype("float32")
    np.testing.assert_allclose(
        interpret(after, data), interpret(run(fn), data), rtol=1e-4, atol=1e-5
    )
    assert ("relay.multiply" not in ops(after)) == folded


def test_fold_fwd_simple():
    check(conv_model(scale_before=True), transform.ForwardFoldScaleAxis(), folded=True)


def test_fold_bwd_simple():
    check(
        conv_model(scale_before=False), transform.BackwardFoldScaleAxis(), folded=True
    )


def test_fold_scale_axis_runs_both():
    check(conv_model(scale_before=True), transform.FoldScaleAxis(), folded=True)
    check(conv_model(scale_before=False), transform.FoldScaleAxis(), folded=True)


def test_fold_fwd_fail_on_negative_scale_through_relu():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.const(RNG.standard_normal((8, 4, 3, 3)).astype("float32"))
    s = relay.const(-np.ones((4, 1, 1), "float32"))
    y = relay.nn.conv2d(
        relay.nn.relu(relay.multiply(x, s)), w, kernel_size=(3, 3), channels=8
    )
    check(relay.Function([x], y), transform.ForwardFoldScaleAxis(), folded=False)


def test_fold_bwd_dense():
    x = relay.var("x", shape=(2, 8))
    w = relay.const(RNG.standard_normal((4, 8)).astype("float32"))
    s = relay.const(RNG.random(4).astype("float32") + 0.5)
    fn = relay.Function([x], relay.multiply(relay.nn.dense(x, w), s))
    after = run(fn, transform.BackwardFoldScaleAxis(), transform.FoldConstant())
    data = RNG.standard_normal((2, 8)).astype("float32")
    np.testing.assert_allclose(
        interpret(after, data), interpret(run(fn), data), rtol=1e-4, atol=1e-5
    )
    assert "relay.multiply" not in ops(after)
