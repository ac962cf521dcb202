"""ConvertLayout on quantized programs, as a TVM user tests it (the QNN scenarios of
Relay's ``test_pass_convert_op_layout.py``, v0.18).

Covered: ``qnn.conv2d`` converted either way (NHWC to NCHW and back) with the
``requantize`` after it moving its ``axis``; ``qnn.concatenate`` and ``qnn.add``
following the converted convolutions; ``qnn.conv2d_transpose`` with its ``IOHW``
default kernel; ``qnn.avg_pool2d`` named in the desired layouts; float and integer
convolutions converted together. The scales and zero points are channel vectors: a
per-tensor one is never transformed, a per-channel one moves its axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import analysis, transform
from xrelay.runtime.interpreter import interpret


def run_opt_pass(expr: Any, passes: Any) -> Any:
    passes = passes if isinstance(passes, list) else [passes]
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        mod = transform.Sequential(passes)(mod)
    return mod["main"]


def check(before: Any, expected: Any, desired: dict[str, list[str]]) -> None:
    a = run_opt_pass(before, transform.ConvertLayout(desired))
    b = run_opt_pass(expected, transform.InferType())
    assert_structural_equal(a, b)


def one(value: float | int, dtype: str) -> Any:
    return relay.const(value, dtype)


def qconv(x: Any, w: Any, **attrs: Any) -> Any:
    """An integer 3x3 convolution to 8 channels with unit parameters."""
    return relay.qnn.op.conv2d(
        x,
        w,
        one(0, "int32"),
        one(0, "int32"),
        one(0.5, "float32"),
        one(0.5, "float32"),
        channels=8,
        kernel_size=(3, 3),
        padding=(1, 1),
        **attrs,
    )


def requant(y: Any, **attrs: Any) -> Any:
    return relay.qnn.op.requantize(
        y,
        one(0.25, "float32"),
        one(0, "int32"),
        one(1.0, "float32"),
        one(3, "int32"),
        **attrs,
    )


NHWC = {"data_layout": "NHWC", "kernel_layout": "HWIO"}


def nhwc_vars() -> tuple[Any, Any]:
    x = relay.var("x", shape=(1, 6, 6, 8), dtype="int8")
    w = relay.var("w", shape=(3, 3, 8, 8), dtype="int8")
    return x, w


def test_qnn_conv2d_to_nchw_moves_the_requantize_axis():
    def before() -> Any:
        x, w = nhwc_vars()
        y = relay.nn.relu(requant(qconv(x, w, **NHWC), out_dtype="int8"))
        return relay.Function([x, w], y)

    def expected() -> Any:
        x, w = nhwc_vars()
        xt = relay.layout_transform(x, "NHWC", "NCHW")
        wt = relay.layout_transform(w, "HWIO", "OIHW")
        y = requant(qconv(xt, wt), axis=1, out_dtype="int8")
        y = relay.layout_transform(relay.nn.relu(y), "NCHW", "NHWC")
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"qnn.conv2d": ["NCHW", "default"]})


def test_qnn_conv2d_to_nhwc():
    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 6, 6), dtype="uint8")
        w = relay.var("w", shape=(8, 8, 3, 3), dtype="int8")
        return relay.Function([x, w], relay.nn.relu(qconv(x, w)))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 8, 6, 6), dtype="uint8")
        w = relay.var("w", shape=(8, 8, 3, 3), dtype="int8")
        xt = relay.layout_transform(x, "NCHW", "NHWC")
        wt = relay.layout_transform(w, "OIHW", "HWIO")
        y = relay.nn.relu(qconv(xt, wt, **NHWC))
        y = relay.layout_transform(y, "NHWC", "NCHW")
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"qnn.conv2d": ["NHWC", "default"]})


def test_qnn_concatenate_follows_with_its_axis():
    def body(x: Any, w: Any, axis: int, **attrs: Any) -> Any:
        y = relay.cast(qconv(x, w, **attrs), "int8")
        z = relay.cast(qconv(y, w, **attrs), "int8")
        return relay.qnn.op.concatenate(
            [y, z],
            [one(0.5, "float32"), one(0.25, "float32")],
            [one(0, "int32"), one(2, "int32")],
            one(0.5, "float32"),
            one(0, "int32"),
            axis=axis,
        )

    def before() -> Any:
        x, w = nhwc_vars()
        return relay.Function([x, w], body(x, w, 3, **NHWC))

    def expected() -> Any:
        x, w = nhwc_vars()
        xt = relay.layout_transform(x, "NHWC", "NCHW")
        wt = relay.layout_transform(w, "HWIO", "OIHW")
        y = relay.layout_transform(body(xt, wt, 1), "NCHW", "NHWC")
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"qnn.conv2d": ["NCHW", "default"]})


def qadd(a: Any, b: Any, lhs: Any, **attrs: Any) -> Any:
    return relay.qnn.op.add(
        a,
        b,
        lhs[0],
        lhs[1],
        one(0.5, "float32"),
        one(0, "int32"),
        one(1.0, "float32"),
        one(0, "int32"),
        **attrs,
    )


def test_qnn_add_follows_and_keeps_per_tensor_axes():
    per_tensor = (one(0.5, "float32"), one(1, "int32"))

    def before() -> Any:
        x, w = nhwc_vars()
        y = relay.cast(qconv(x, w, **NHWC), "int8")
        z = relay.cast(qconv(y, w, **NHWC), "int8")
        return relay.Function([x, w], qadd(y, z, per_tensor))

    def expected() -> Any:
        x, w = nhwc_vars()
        xt = relay.layout_transform(x, "NHWC", "NCHW")
        wt = relay.layout_transform(w, "HWIO", "OIHW")
        y = relay.cast(qconv(xt, wt), "int8")
        z = relay.cast(qconv(y, wt), "int8")
        out = relay.layout_transform(qadd(y, z, per_tensor), "NCHW", "NHWC")
        return relay.Function(analysis.free_vars(out), out)

    check(before(), expected(), {"qnn.conv2d": ["NCHW", "default"]})


def test_qnn_add_with_per_channel_lhs_moves_lhs_axis():
    """xrelay moves ``lhs_axis`` with a per-channel side (the numbers stay the
    same: checked by the interpreter)."""
    per_channel = (
        relay.const(np.linspace(0.1, 0.8, 8, dtype="float32")),
        relay.const(np.arange(8, dtype="int32")),
    )

    def before() -> Any:
        x, w = nhwc_vars()
        y = relay.cast(qconv(x, w, **NHWC), "int8")
        return relay.Function([x, w], qadd(y, y, per_channel, lhs_axis=3))

    def expected() -> Any:
        x, w = nhwc_vars()
        xt = relay.layout_transform(x, "NHWC", "NCHW")
        wt = relay.layout_transform(w, "HWIO", "OIHW")
        y = relay.cast(qconv(xt, wt), "int8")
        out = qadd(y, y, per_channel, lhs_axis=1)
        out = relay.layout_transform(out, "NCHW", "NHWC")
        return relay.Function(analysis.free_vars(out), out)

    check(before(), expected(), {"qnn.conv2d": ["NCHW", "default"]})
    rng = np.random.default_rng(0)
    xs = rng.integers(-4, 4, size=(1, 6, 6, 8)).astype("int8")
    ws = rng.integers(-2, 2, size=(3, 3, 8, 8)).astype("int8")
    mod = relay.IRModule.from_expr(before())
    converted = relay.IRModule.from_expr(
        run_opt_pass(
            before(), transform.ConvertLayout({"qnn.conv2d": ["NCHW", "default"]})
        )
    )
    np.testing.assert_array_equal(interpret(converted, xs, ws), interpret(mod, xs, ws))


def test_qnn_conv2d_transpose_to_nchw_takes_iohw():
    def tconv(x: Any, w: Any, **attrs: Any) -> Any:
        return relay.qnn.op.conv2d_transpose(
            x,
            w,
            one(0, "int32"),
            one(0, "int32"),
            one(0.5, "float32"),
            one(0.5, "float32"),
            channels=8,
            kernel_size=(3, 3),
            padding=(1, 1),
            **attrs,
        )

    def before() -> Any:
        x, w = nhwc_vars()
        y = relay.nn.relu(requant(tconv(x, w, **NHWC), out_dtype="int32"))
        return relay.Function([x, w], y)

    def expected() -> Any:
        x, w = nhwc_vars()
        xt = relay.layout_transform(x, "NHWC", "NCHW")
        wt = relay.layout_transform(w, "HWIO", "IOHW")
        y = relay.nn.relu(requant(tconv(xt, wt), axis=1, out_dtype="int32"))
        y = relay.layout_transform(y, "NCHW", "NHWC")
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"qnn.conv2d_transpose": ["NCHW", "default"]})


def test_qnn_avg_pool2d_named_in_the_desired_layouts():
    def pool(y: Any, layout: str) -> Any:
        return relay.qnn.op.avg_pool2d(
            relay.cast(y, "int8"),
            one(0.5, "float32"),
            one(0, "int32"),
            one(0.5, "float32"),
            one(0, "int32"),
            layout=layout,
            out_layout=layout,
            pool_size=(2, 2),
            padding=(0, 0),
            strides=(1, 1),
            dilation=(1, 1),
        )

    def before() -> Any:
        x, w = nhwc_vars()
        return relay.Function([x, w], pool(qconv(x, w, **NHWC), "NHWC"))

    def expected() -> Any:
        x, w = nhwc_vars()
        xt = relay.layout_transform(x, "NHWC", "NCHW")
        wt = relay.layout_transform(w, "HWIO", "OIHW")
        y = relay.layout_transform(pool(qconv(xt, wt), "NCHW"), "NCHW", "NHWC")
        return relay.Function(analysis.free_vars(y), y)

    desired = {"qnn.conv2d": ["NCHW", "default"], "qnn.avg_pool2d": ["NCHW"]}
    check(before(), expected(), desired)


def test_float_and_integer_convolutions_convert_together():
    def body(x: Any, w: Any, xq: Any, wq: Any, **attrs: Any) -> Any:
        f = relay.nn.conv2d(
            x, w, channels=8, kernel_size=(3, 3), padding=(1, 1), **attrs
        )
        q = qconv(xq, wq, **attrs)
        return relay.Tuple([f, q])

    def vars_() -> list[Any]:
        return [
            relay.var("x", shape=(1, 6, 6, 8)),
            relay.var("w", shape=(3, 3, 8, 8)),
            *nhwc_vars(),
        ]

    def before() -> Any:
        vs = vars_()
        return relay.Function(vs, body(*vs, **NHWC))

    def expected() -> Any:
        x, w, xq, wq = vars_()
        args = [
            relay.layout_transform(x, "NHWC", "NCHW"),
            relay.layout_transform(w, "HWIO", "OIHW"),
            relay.layout_transform(xq, "NHWC", "NCHW"),
            relay.layout_transform(wq, "HWIO", "OIHW"),
        ]
        t = body(*args)
        out = relay.Tuple(
            [
                relay.layout_transform(relay.TupleGetItem(t, 0), "NCHW", "NHWC"),
                relay.layout_transform(relay.TupleGetItem(t, 1), "NCHW", "NHWC"),
            ]
        )
        return relay.Function([x, w, xq, wq], out)

    desired = {"nn.conv2d": ["NCHW", "OIHW"], "qnn.conv2d": ["NCHW", "OIHW"]}
    check(before(), expected(), desired)


def test_qnn_conv2d_refuses_a_blocked_layout():
    x, w = nhwc_vars()
    f = relay.Function([x, w], qconv(x, w, **NHWC))
    with pytest.raises(
        Exception, match="qnn.conv2d cannot take the blocked data layout"
    ):
        run_opt_pass(f, transform.ConvertLayout({"qnn.conv2d": ["NCHW4c", "OIHW4i4o"]}))
