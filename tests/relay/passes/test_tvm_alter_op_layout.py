"""AlterOpLayout as a TVM user tests it (Relay's ``test_pass_alter_op_layout.py``,
v0.18): hooks registered with ``TempOpAttr(op, "FTVMAlterOpLayout", fn)`` inside a
``Target`` scope.

Covered: test_alter_op (a conv2d hook changing the layout; transforms inserted
around it), test_alter_return_none (a hook returning None keeps the op),
test_alter_layout (the CPU policy under ``Target("llvm")``: blocked NCHWc conv, the
relu following the blocked layout, one transform back at the end), a non-CPU target
leaves the program alone, test_alter_layout_dense (dense_pack).
test_alter_op / test_alter_op_with_global_var (a hook computing an argument from an
input: ``conv2d(data, weight * 2)``), strided_slice with ``axes`` following a blocked
channel axis.
Out of scope: hooks returning a bigger expression than one op (xrelay's rewriter
replaces one op by one op: a clear LayoutHookError), QNN, conv3d/conv1d, ``topi`` x86 schedules' exact
block sizes (xrelay's come from lowering/cpu_layout.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from xrelay import relay
from xrelay.ir import TempOpAttr, assert_structural_equal
from xrelay.relay import transform
from xrelay.target import Target


def run_opt_pass(expr: Any, passes: Any) -> Any:
    passes = passes if isinstance(passes, list) else [passes]
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        mod = transform.Sequential([transform.InferType(), *passes])(mod)
    return mod["main"]


def before_conv() -> Any:
    x = relay.var("x", shape=(1, 64, 56, 56))
    weight = relay.var("weight", shape=(64, 64, 3, 3))
    y = relay.nn.conv2d(x, weight, channels=64, kernel_size=(3, 3), padding=(1, 1))
    return relay.Function([x, weight], relay.nn.relu(y))


def test_alter_op():
    def alter_conv2d(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        data, weight = inputs
        new_attrs = dict(attrs)
        new_attrs["data_layout"] = "NHWC"
        new_attrs["kernel_layout"] = "HWIO"
        return relay.nn.conv2d(data, weight, **new_attrs)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NCHW", "NHWC"),
            relay.layout_transform(weight, "OIHW", "HWIO"),
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.layout_transform(relay.nn.relu(y), "NHWC", "NCHW")
        return relay.Function([x, weight], y)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        a = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(expected(), transform.InferType()))


def test_alter_return_none():
    called = [False]

    def alter_conv2d(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        called[0] = True
        return None

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        a = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert called[0]
    assert_structural_equal(a, run_opt_pass(before_conv(), transform.InferType()))


def test_alter_layout_cpu_target():
    def expected() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        y = relay.nn.contrib_conv2d_nchwc(
            relay.layout_transform(x, "NCHW", "NCHW16c"),
            relay.layout_transform(weight, "OIHW", "OIHW16i16o"),
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NCHW16c",
            kernel_layout="OIHW16i16o",
            out_layout="NCHW16c",
        )
        y = relay.layout_transform(relay.nn.relu(y), "NCHW16c", "NCHW")
        return relay.Function([x, weight], y)

    with Target("llvm -mcpu=skylake-avx512"):
        a = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(expected(), transform.InferType()))
    with Target("cuda"):
        b = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert_structural_equal(b, run_opt_pass(before_conv(), transform.InferType()))


def test_alter_layout_dense():
    x = relay.var("x", shape=(4, 32))
    w = relay.var("w", shape=(16, 32))
    with Target("llvm"):
        a = run_opt_pass(
            relay.Function([x, w], relay.nn.dense(x, w)), transform.AlterOpLayout()
        )
    text = a.astext(fmt="relay")
    assert "contrib_dense_pack" in text
    assert 'dst_layout="NC16n"' in text


# -- convolutions written in blocked layouts (Relay's NCHW16c / OIHW16i16o) --------------


def _blocked_conv_pair() -> tuple[Any, Any]:
    """The same 3x3 convolution (32 -> 32 channels) + 2x2 max pool, once in blocked
    layouts and once in NCHW / OIHW."""
    xb = relay.var("x", shape=(1, 2, 6, 6, 16))
    wb = relay.var("w", shape=(2, 2, 3, 3, 16, 16))
    yb = relay.nn.conv2d(
        xb,
        wb,
        channels=32,
        kernel_size=(3, 3),
        padding=(1, 1),
        data_layout="NCHW16c",
        kernel_layout="OIHW16i16o",
    )
    yb = relay.nn.max_pool2d(yb, pool_size=(2, 2), strides=(2, 2), layout="NCHW16c")
    x = relay.var("x", shape=(1, 32, 6, 6))
    w = relay.var("w", shape=(32, 32, 3, 3))
    y = relay.nn.conv2d(x, w, channels=32, kernel_size=(3, 3), padding=(1, 1))
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    return relay.Function([xb, wb], yb), relay.Function([x, w], y)


def test_blocked_conv2d_type():
    blocked, _ = _blocked_conv_pair()
    t = transform.InferTypeLocal(blocked)
    assert t.ret_type == relay.TensorType((1, 2, 3, 3, 16), "float32")


def test_blocked_conv2d_computes_the_unblocked_convolution():
    import numpy as np

    import xrelay
    from xrelay.contrib import graph_executor
    from xrelay.dialects.relay.layout import transform_array

    blocked, plain = _blocked_conv_pair()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 32, 6, 6)).astype("float32")
    w = rng.standard_normal((32, 32, 3, 3)).astype("float32")
    want = (
        relay.create_executor(mod=relay.IRModule.from_expr(plain))
        .evaluate()(x, w)
        .numpy()
    )
    xb = transform_array(x, "NCHW", "NCHW16c")
    wb = transform_array(w, "OIHW", "OIHW16i16o")
    mod = relay.IRModule.from_expr(blocked)
    ref = relay.create_executor(mod=mod).evaluate()(xb, wb).numpy()
    np.testing.assert_allclose(transform_array(ref, "NCHW16c", "NCHW"), want, rtol=1e-5)
    lib = xrelay.build(mod)
    run = graph_executor.GraphModule(lib["default"](xrelay.cpu()))
    run.set_input("x", xb)
    run.set_input("w", wb)
    run.run()
    got = transform_array(run.get_output(0).numpy(), "NCHW16c", "NCHW")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_blocked_conv2d_with_a_wrong_block_is_a_type_error():
    x = relay.var("x", shape=(1, 2, 6, 6, 8))
    w = relay.var("w", shape=(2, 2, 3, 3, 16, 16))
    y = relay.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o")
    with pytest.raises(relay.BuildError, match="sub-axis '16c' has extent 8"):
        transform.InferTypeLocal(y)


def test_strided_slice_with_axes_follows_a_blocked_channel_axis():
    """A hook blocking an NHWC convolution's channels by 4: a slice of channels
    8..16 with ``axes`` becomes blocks 2..4, its whole-batch entry kept."""

    def alter_conv2d(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        data, weight = inputs
        return relay.nn.conv2d(data, weight, **{**dict(attrs), "data_layout": "NHWC4c"})

    def conv(x: Any, w: Any, layout: str) -> Any:
        return relay.nn.conv2d(
            x, w, channels=16, padding=(1, 1), data_layout=layout, kernel_layout="HWIO"
        )

    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 8, 16))
        w = relay.var("w", shape=(3, 3, 16, 16))
        y = relay.strided_slice(
            conv(x, w, "NHWC"), begin=[0, 8], end=[1, 16], strides=[1, 1], axes=[0, 3]
        )
        return relay.Function([x, w], y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 8, 8, 16))
        w = relay.var("w", shape=(3, 3, 16, 16))
        y = conv(relay.layout_transform(x, "NHWC", "NHWC4c"), w, "NHWC4c")
        y = relay.strided_slice(
            y, begin=[0, 2], end=[1, 4], strides=[1, 1], axes=[0, 3]
        )
        y = relay.layout_transform(y, "NHWC4c", "NHWC")
        return relay.Function([x, w], y)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        a = run_opt_pass(before(), transform.AlterOpLayout())
    b = run_opt_pass(expected(), transform.InferType())
    assert_structural_equal(a, b)


def test_hook_computing_an_argument_from_an_input():
    """The hook returns ``conv2d(data, weight * 0.5)``: the multiply is built before
    the convolution, in a function called from main as in a module with a global."""

    def halve_weight(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        data, weight = inputs
        return relay.nn.conv2d(data, weight * relay.const(0.5), **attrs)

    def body(weight_scale: float | None) -> Any:
        x = relay.var("x", shape=(1, 4, 6, 6))
        w = relay.var("w", shape=(4, 4, 3, 3))
        wv = w if weight_scale is None else relay.multiply(w, relay.const(weight_scale))
        y = relay.nn.conv2d(x, wv, channels=4, kernel_size=(3, 3), padding=(1, 1))
        return relay.Function([x, w], relay.nn.relu(y))

    def module(weight_scale: float | None) -> Any:
        mod = relay.IRModule()
        foo = relay.GlobalVar("foo")
        mod[foo] = body(weight_scale)
        x = relay.var("x", shape=(1, 4, 6, 6))
        w = relay.var("w", shape=(4, 4, 3, 3))
        mod["main"] = relay.Function([x, w], foo(x, w))
        return transform.InferType()(mod)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", halve_weight):
        after = transform.AlterOpLayout()(module(None))
    assert_structural_equal(after, module(0.5))


@pytest.mark.parametrize("scale", [2, relay.const(2.0)])
def test_upsampling_and_pool_follow_a_blocked_convolution(scale: Any):
    """A hook blocking the convolution's channels by 4: upsampling (its scale a
    number or a constant) and the average pool after it work in ``NCHW4c``."""

    def block(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        return relay.nn.conv2d(*inputs, **{**dict(attrs), "data_layout": "NCHW4c"})

    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 5, 5))
        w = relay.var("w", shape=(8, 8, 3, 3))
        y = relay.nn.conv2d(x, w, channels=8, kernel_size=(3, 3), padding=(1, 1))
        y = relay.nn.upsampling(y, scale_h=scale, scale_w=scale)
        return relay.Function([x, w], relay.nn.avg_pool2d(y, pool_size=(2, 2)))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 8, 5, 5))
        w = relay.var("w", shape=(8, 8, 3, 3))
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NCHW", "NCHW4c"),
            w,
            channels=8,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NCHW4c",
        )
        y = relay.nn.upsampling(y, scale_h=2, scale_w=2, layout="NCHW4c")
        y = relay.nn.avg_pool2d(y, pool_size=(2, 2), layout="NCHW4c")
        return relay.Function([x, w], relay.layout_transform(y, "NCHW4c", "NCHW"))

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", block):
        a = run_opt_pass(before(), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(expected(), transform.InferType()))


def test_two_outputs_with_untyped_weights_one_back_in_the_old_layout():
    """Weights without types (InferType solves them from ``channels`` and
    ``kernel_size``) and a tuple of two results: the branch through another blocked
    convolution stays blocked until the end, the one through ``batch_flatten``
    goes back to NCHW first."""

    def block(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        return relay.nn.conv2d(*inputs, **{**dict(attrs), "data_layout": "NCHW4c"})

    def body(layout: str | None) -> Any:
        x = relay.var("x", shape=(1, 8, 5, 5))
        w1, w2 = relay.var("w1"), relay.var("w2")
        attrs: dict[str, Any] = {
            "channels": 8,
            "kernel_size": (3, 3),
            "padding": (1, 1),
        }
        if layout is None:
            y = relay.nn.relu(relay.nn.conv2d(x, w1, **attrs))
            a = relay.nn.relu(relay.nn.conv2d(y, w2, **attrs))
            b = relay.nn.batch_flatten(y)
        else:
            xt = relay.layout_transform(x, "NCHW", layout)
            y = relay.nn.relu(relay.nn.conv2d(xt, w1, data_layout=layout, **attrs))
            a = relay.nn.relu(relay.nn.conv2d(y, w2, data_layout=layout, **attrs))
            a = relay.layout_transform(a, layout, "NCHW")
            b = relay.nn.batch_flatten(relay.layout_transform(y, layout, "NCHW"))
        return relay.Function([x, w1, w2], relay.Tuple([a, b]))

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", block):
        a = run_opt_pass(body(None), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(body("NCHW4c"), transform.InferType()))


def test_prelu_with_an_untyped_alpha_after_a_blocked_convolution():
    """InferType gives the untyped ``alpha`` the data's channel count; prelu's
    channel axis is split in the blocked layout, so the value goes back to NCHW
    before it."""

    def block(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        return relay.nn.conv2d(*inputs, **{**dict(attrs), "data_layout": "NCHW4c"})

    def body(blocked: bool) -> Any:
        x = relay.var("x", shape=(1, 8, 5, 5))
        w, alpha = relay.var("w"), relay.var("alpha")
        attrs: dict[str, Any] = {
            "channels": 8,
            "kernel_size": (3, 3),
            "padding": (1, 1),
        }
        if not blocked:
            y = relay.nn.prelu(relay.nn.conv2d(x, w, **attrs), alpha)
            return relay.Function([x, w, alpha], y)
        xt = relay.layout_transform(x, "NCHW", "NCHW4c")
        y = relay.nn.conv2d(xt, w, data_layout="NCHW4c", **attrs)
        y = relay.layout_transform(y, "NCHW4c", "NCHW")
        return relay.Function([x, w, alpha], relay.nn.prelu(y, alpha))

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", block):
        a = run_opt_pass(body(False), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(body(True), transform.InferType()))


def test_one_element_operands_broadcast_without_transforms():
    """After a blocked NHWC convolution, a per-channel bias is expanded and blocked,
    but multipliers of one element (``[1]``, ``[1, 1]``) are used as they are."""

    def block(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        return relay.nn.conv2d(*inputs, **{**dict(attrs), "data_layout": "NCHW4c"})

    def params() -> list[Any]:
        return [
            relay.var("x", shape=(1, 6, 6, 8)),
            relay.var("k", shape=(3, 3, 8, 8)),
            relay.var("bias", shape=(8,)),
            relay.var("m1", shape=(1,)),
            relay.var("m2", shape=(1, 1)),
        ]

    def before() -> Any:
        x, k, bias, m1, m2 = params()
        y = relay.nn.conv2d(
            x, k, kernel_size=(3, 3), data_layout="NHWC", kernel_layout="HWIO"
        )
        y = relay.nn.relu(bias + y) * m1 * m2
        return relay.Function([x, k, bias, m1, m2], y)

    def expected() -> Any:
        x, k, bias, m1, m2 = params()
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NHWC", "NCHW4c"),
            k,
            kernel_size=(3, 3),
            data_layout="NCHW4c",
            kernel_layout="HWIO",
        )
        b = relay.layout_transform(relay.expand_dims(bias, 0, 3), "NHWC", "NCHW4c")
        y = relay.nn.relu(b + y) * m1 * m2
        y = relay.layout_transform(y, "NCHW4c", "NHWC")
        return relay.Function([x, k, bias, m1, m2], y)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", block):
        a = run_opt_pass(before(), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(expected(), transform.InferType()))
