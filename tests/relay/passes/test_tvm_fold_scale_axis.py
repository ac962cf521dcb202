"""FoldScaleAxis as a TVM user tests it (Relay's ``test_pass_fold_scale_axis.py``,
v0.18), checked numerically and by the ops left.

Covered: test_fold_fwd_simple (a per-channel multiply before conv2d folded into the
weight), test_fold_bwd_simple (a per-channel multiply after conv2d folded into the
weight), test_fold_fwd_fail (a scale on the reduced axis of a negative-scale relu is
not folded), test_fold_bwd_dense (after dense), the combined FoldScaleAxis,
blocked layouts (``NCHW2c`` data with ``OIHW2i4o``-style kernels, the scale on the
``C`` and ``c`` axes; a kernel whose ``i`` block differs from the data's ``c``
block; blocked depthwise convs), test_fold_bwd_simple_constant (a scalar scale).
Out of scope: ``conv3d`` (not an xrelay op), ``conv2d`` with groups that is not
depthwise.
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


def blocked_conv(x: Any, w: Any, kernel_layout: str, **kw: Any) -> Any:
    return relay.nn.conv2d(
        x,
        w,
        kernel_size=(3, 3),
        padding=(1, 1),
        data_layout="NCHW2c",
        kernel_layout=kernel_layout,
        **kw,
    )


def test_fold_fwd_blocked_layout_scales_both_channel_axes():
    """A scale on ``C`` and ``c`` of NCHW2c data moves onto ``I`` and ``i`` of an
    OIHW2i2o weight: ``squeeze`` to ``[C/2, 2]``, then ``reshape`` to the weight's
    rank; a bias after the relu is divided by it."""
    scale = RNG.random((1, 2, 1, 1, 2)).astype("float32") + 0.5

    def before() -> Any:
        x = relay.var("x", shape=(1, 2, 6, 6, 2))
        w = relay.var("w", shape=(2, 2, 3, 3, 2, 2))
        b = relay.var("b", shape=(1, 2, 1, 1, 2))
        y = relay.add(relay.nn.relu(relay.multiply(x, relay.const(scale))), b)
        return relay.Function([x, w, b], blocked_conv(y, w, "OIHW2i2o", channels=4))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 2, 6, 6, 2))
        w = relay.var("w", shape=(2, 2, 3, 3, 2, 2))
        b = relay.var("b", shape=(1, 2, 1, 1, 2))
        squeezed = relay.squeeze(relay.const(scale), axis=[0, 2, 3])
        y = relay.add(
            relay.nn.relu(x),
            relay.divide(b, relay.reshape(squeezed, (1, 2, 1, 1, 2))),
        )
        w2 = relay.multiply(w, relay.reshape(squeezed, (1, 2, 1, 1, 2, 1)))
        return relay.Function([x, w, b], blocked_conv(y, w2, "OIHW2i2o", channels=4))

    from xrelay.ir import assert_structural_equal

    assert_structural_equal(
        run(before(), transform.ForwardFoldScaleAxis()), run(expected())
    )


def _numerically_folded(fn: Any, opt: Any, shape: tuple[int, ...]) -> None:
    after = run(fn, opt, transform.FoldConstant())
    data = RNG.standard_normal(shape).astype("float32")
    np.testing.assert_allclose(
        interpret(after, data), interpret(run(fn), data), rtol=1e-4, atol=1e-5
    )
    assert "relay.multiply" not in ops(after)


def test_fold_fwd_blocked_kernel_with_another_block_size():
    """NCHW2c data into an OIHW4i2o kernel: both flatten to the channel index, so
    the ``[2, 2]`` scale is reshaped to the weight's ``[1, 4]`` there."""
    x = relay.var("x", shape=(1, 2, 6, 6, 2))
    w = relay.const(RNG.standard_normal((4, 1, 3, 3, 4, 2)).astype("float32"))
    s = relay.const(RNG.random((1, 2, 1, 1, 2)).astype("float32") + 0.5)
    fn = relay.Function(
        [x], blocked_conv(relay.multiply(x, s), w, "OIHW4i2o", channels=8)
    )
    _numerically_folded(fn, transform.ForwardFoldScaleAxis(), (1, 2, 6, 6, 2))


def test_fold_fwd_blocked_depthwise():
    """A depthwise conv (groups = channels) in NHWC2c / HWIO1i2o takes the scale on
    its ``O`` and ``o`` axes."""
    x = relay.var("x", shape=(1, 6, 6, 2, 2))
    w = relay.const(RNG.standard_normal((3, 3, 1, 2, 1, 2)).astype("float32"))
    s = relay.const(RNG.random((2, 2)).astype("float32") + 0.5)
    y = relay.nn.conv2d(
        relay.nn.relu(relay.multiply(x, s)),
        w,
        kernel_size=(3, 3),
        padding=(1, 1),
        groups=4,
        channels=4,
        data_layout="NHWC2c",
        kernel_layout="HWIO1i2o",
    )
    _numerically_folded(
        relay.Function([x], y), transform.ForwardFoldScaleAxis(), (1, 6, 6, 2, 2)
    )


def test_fold_bwd_blocked_layout():
    x = relay.var("x", shape=(1, 2, 6, 6, 2))
    w = relay.const(RNG.standard_normal((2, 2, 3, 3, 2, 2)).astype("float32"))
    s = relay.const(RNG.random((1, 2, 1, 1, 2)).astype("float32") + 0.5)
    y = relay.multiply(relay.nn.relu(blocked_conv(x, w, "OIHW2i2o", channels=4)), s)
    _numerically_folded(
        relay.Function([x], y), transform.BackwardFoldScaleAxis(), (1, 2, 6, 6, 2)
    )


def test_mixed_blocking_is_left_alone():
    """Blocked data with a plain kernel layout is not a pattern Relay folds."""
    x = relay.var("x", shape=(1, 2, 6, 6, 2))
    w = relay.const(RNG.standard_normal((4, 4, 3, 3)).astype("float32"))
    s = relay.const(RNG.random((1, 2, 1, 1, 2)).astype("float32") + 0.5)
    conv = blocked_conv(relay.multiply(x, s), w, "OIHW", channels=4)
    after = run(relay.Function([x], conv), transform.ForwardFoldScaleAxis())
    assert "relay.multiply" in ops(after)


def test_fold_bwd_scalar_scale():
    """A scalar multiplier after conv + bias + relu folds into the weight and bias
    (Relay's test_fold_bwd_simple_constant)."""
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.const(RNG.standard_normal((8, 4, 3, 3)).astype("float32"))
    b = relay.const(RNG.standard_normal((8, 1, 1)).astype("float32"))
    y = relay.nn.conv2d(x, w, kernel_size=(3, 3), padding=(1, 1), channels=8)
    y = relay.multiply(relay.nn.relu(relay.add(y, b)), relay.const(2.0))
    _numerically_folded(relay.Function([x], y), transform.FoldScaleAxis(), (1, 4, 6, 6))
