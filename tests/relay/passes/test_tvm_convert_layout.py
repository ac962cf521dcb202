"""ConvertLayout as a TVM user tests it (Relay's ``test_pass_convert_op_layout.py``,
v0.18).

Covered: test_no_convert_layout, test_conv_convert_layout (NHWC → NCHW),
test_conv_nhwc_convert_layout (NCHW → NHWC), test_conv_bias_pool_convert_layout
(bias_add canonicalized, pool following), test_conv_concat_convert_layout,
test_conv_strided_slice_convert_layout (Relay's full-rank bounds),
test_conv_convert_kernel_layout (OHWI), test_default_keyword, a custom
``FTVMConvertOpLayout`` through TempOpAttr (tests/relay/test_op_hooks.py).
Out of scope: QNN, deformable/3-D/1-D convolutions, ``roi_align``/``roi_pool``,
``topk`` and other ops xrelay does not define; infer-layout of ops with dynamic
shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import ir, relay
from xrelay.ir import TempOpAttr, assert_structural_equal
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


def test_no_convert_layout():
    def before() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        y = relay.nn.conv2d(x, weight, channels=64, kernel_size=(3, 3), padding=(1, 1))
        return relay.Function([x, weight], relay.nn.relu(y))

    check(before(), before(), {"nn.conv2d": ["NCHW", "default"]})


def test_conv_convert_layout():
    def before() -> Any:
        x = relay.var("x", shape=(1, 56, 56, 64))
        weight = relay.var("weight", shape=(3, 3, 64, 64))
        y = relay.nn.conv2d(
            x,
            weight,
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        return relay.Function([x, weight], relay.nn.relu(y))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 56, 56, 64))
        weight = relay.var("weight", shape=(3, 3, 64, 64))
        x2 = relay.layout_transform(x, "NHWC", "NCHW")
        w2 = relay.layout_transform(weight, "HWIO", "OIHW")
        y = relay.nn.conv2d(x2, w2, channels=64, kernel_size=(3, 3), padding=(1, 1))
        y = relay.layout_transform(relay.nn.relu(y), "NCHW", "NHWC")
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"nn.conv2d": ["NCHW", "default"]})


def test_conv_nhwc_convert_layout():
    def before() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        y = relay.nn.conv2d(x, weight, channels=64, kernel_size=(3, 3), padding=(1, 1))
        return relay.Function([x, weight], relay.nn.relu(y))

    def expected() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        x2 = relay.layout_transform(x, "NCHW", "NHWC")
        w2 = relay.layout_transform(weight, "OIHW", "HWIO")
        y = relay.nn.conv2d(
            x2,
            w2,
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.layout_transform(relay.nn.relu(y), "NHWC", "NCHW")
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"nn.conv2d": ["NHWC", "default"]})


def test_conv_bias_pool_convert_layout():
    def before() -> Any:
        x = relay.var("x", shape=(1, 56, 56, 64))
        bias = relay.var("bias", shape=(64,))
        weight = relay.var("weight", shape=(3, 3, 64, 64))
        y = relay.nn.conv2d(
            x,
            weight,
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.nn.bias_add(y, bias, axis=3)
        y = relay.nn.relu(y)
        y = relay.nn.max_pool2d(y, pool_size=(2, 2), layout="NHWC")
        y = relay.cast(y, "int32")
        y = relay.nn.batch_flatten(y)
        return relay.Function(analysis.free_vars(y), y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 56, 56, 64))
        bias = relay.var("bias", shape=(64,))
        weight = relay.var("weight", shape=(3, 3, 64, 64))
        x2 = relay.layout_transform(x, "NHWC", "NCHW")
        w2 = relay.layout_transform(weight, "HWIO", "OIHW")
        y = relay.nn.conv2d(x2, w2, channels=64, kernel_size=(3, 3), padding=(1, 1))
        b = relay.expand_dims(bias, axis=0, num_newaxis=3)
        b = relay.layout_transform(b, "NHWC", "NCHW")
        y = relay.nn.relu(relay.add(y, b))
        y = relay.nn.max_pool2d(y, pool_size=(2, 2))
        y = relay.cast(y, "int32")
        y = relay.layout_transform(y, "NCHW", "NHWC")
        y = relay.nn.batch_flatten(y)
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"nn.conv2d": ["NCHW", "default"]})


def test_conv_concat_convert_layout():
    def before() -> Any:
        x = relay.var("x", shape=(1, 56, 56, 64))
        w1 = relay.var("weight1", shape=(3, 3, 64, 64))
        w2 = relay.var("weight2", shape=(3, 3, 64, 64))
        kw = dict(
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.nn.conv2d(x, w1, **kw)
        y1 = relay.nn.conv2d(y, w2, **kw)
        ret = relay.concatenate([y, y1], axis=3)
        return relay.Function(analysis.free_vars(ret), ret)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 56, 56, 64))
        w1 = relay.var("weight1", shape=(3, 3, 64, 64))
        w2 = relay.var("weight2", shape=(3, 3, 64, 64))
        w1t = relay.layout_transform(w1, "HWIO", "OIHW")
        w2t = relay.layout_transform(w2, "HWIO", "OIHW")
        y = relay.layout_transform(x, "NHWC", "NCHW")
        y = relay.nn.conv2d(y, w1t, channels=64, kernel_size=(3, 3), padding=(1, 1))
        y1 = relay.nn.conv2d(y, w2t, channels=64, kernel_size=(3, 3), padding=(1, 1))
        ret = relay.layout_transform(relay.concatenate([y, y1], axis=1), "NCHW", "NHWC")
        return relay.Function([x, w1, w2], ret)

    check(before(), expected(), {"nn.conv2d": ["NCHW", "default"]})


def test_conv_strided_slice_convert_layout():
    def before() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        y = relay.nn.conv2d(x, weight, channels=64, kernel_size=(3, 3), padding=(1, 1))
        y = relay.nn.relu(y)
        y = relay.strided_slice(y, begin=[0, 1], end=[1, -1, 10], strides=[1, 1, 2, 1])
        return relay.Function([x, weight], y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        x2 = relay.layout_transform(x, "NCHW", "NHWC")
        w2 = relay.layout_transform(weight, "OIHW", "HWIO")
        y = relay.nn.conv2d(
            x2,
            w2,
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.nn.relu(y)
        y = relay.strided_slice(
            y, begin=[0, 0, 0, 1], end=[1, 10, 56, -1], strides=[1, 2, 1, 1]
        )
        y = relay.layout_transform(y, "NHWC", "NCHW")
        return relay.Function(analysis.free_vars(y), y)

    check(before(), expected(), {"nn.conv2d": ["NHWC", "default"]})


def test_default_keyword():
    def before() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 3, 3, 64))
        y = relay.nn.conv2d(
            x,
            weight,
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NCHW",
            kernel_layout="OHWI",
        )
        return relay.Function(analysis.free_vars(y), y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        w = relay.var("weight", shape=(64, 3, 3, 64))
        w2 = relay.layout_transform(w, "OHWI", "OIHW")
        y = relay.nn.conv2d(x, w2, channels=64, kernel_size=(3, 3), padding=(1, 1))
        return relay.Function([x, w], y)

    check(before(), expected(), {"nn.conv2d": ["NCHW", "default"]})


def test_infer_layout_hook_returning_undefined_layouts():
    """A user FInferCorrectLayout hook that knows no layout (TVM's undefined
    ``tir.layout("")``) leaves the op's operands as they were; it is still asked."""
    from xrelay import tir
    from xrelay.ir import TempOpAttr
    from xrelay.relay.transform.infer_layout_utils import InferCorrectLayoutOutput

    asked: list[bool] = []

    def relu_layout(attrs: Any, new: Any, old: Any, types: Any) -> Any:
        asked.append(True)
        ret = new[0] if new and new[0] else tir.layout("")
        return InferCorrectLayoutOutput([ret] * len(old), [ret], attrs)

    x = relay.var("x", shape=(1, 56, 56, 64))
    w = relay.var("w", shape=(3, 3, 64, 64))
    y = relay.nn.conv2d(
        x, w, channels=64, kernel_size=(3, 3), padding=(1, 1),
        data_layout="NHWC", kernel_layout="HWIO",
    )  # fmt: skip
    fn = relay.Function([x, w], relay.nn.relu(y))
    with (
        TempOpAttr("nn.relu", "FInferCorrectLayout", relu_layout),
        transform.PassContext(opt_level=3),
    ):
        mod = transform.Sequential(
            [
                transform.InferType(),
                transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"]}),
            ]
        )(relay.IRModule.from_expr(fn))
    assert asked
    assert mod["main"].ret_type == relay.TensorType((1, 56, 56, 64), "float32")


@pytest.mark.parametrize(
    ("data_layout", "kernel_layout"), [("NCHW1c", "OIHW1i1o"), ("NCHW4c", "OIHW4i4o")]
)
def test_small_resnet_block_to_blocked_channels(data_layout: str, kernel_layout: str):
    """A stem convolution (3 channels: only a block of 1 divides them), a max pool,
    two branches added and a global max pool, converted to ``NCHW{x}c``: the
    convolutions become ``contrib_conv2d_NCHWc`` keeping ``out_layout`` empty, the
    pools and the add follow the blocked layout."""
    x = relay.var("x", shape=(1, 3, 16, 16))
    w1 = relay.var("w1", shape=(8, 3, 3, 3))
    w2 = relay.var("w2", shape=(8, 8, 3, 3))
    w3 = relay.var("w3", shape=(8, 8, 1, 1))

    def before() -> Any:
        y = relay.nn.conv2d(x, w1, strides=(2, 2), padding=(1, 1), channels=8)
        y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2), strides=(2, 2))
        a = relay.nn.relu(relay.nn.conv2d(y, w2, padding=(1, 1), channels=8))
        b = relay.nn.relu(relay.nn.conv2d(y, w3, channels=8))
        return relay.Function([x, w1, w2, w3], relay.nn.global_max_pool2d(a + b))

    def blocked(data: Any, w: Any, **attrs: Any) -> Any:
        return relay.nn.contrib_conv2d_nchwc(
            data,
            relay.layout_transform(w, "OIHW", kernel_layout),
            channels=8,
            data_layout=data_layout,
            kernel_layout=kernel_layout,
            **attrs,
        )

    def expected() -> Any:
        if data_layout == "NCHW1c":
            xt = relay.layout_transform(x, "NCHW", data_layout)
            y = blocked(xt, w1, strides=(2, 2), padding=(1, 1))
            y = relay.nn.max_pool2d(
                relay.nn.relu(y), pool_size=(2, 2), strides=(2, 2), layout=data_layout
            )
        else:
            y = relay.nn.conv2d(x, w1, strides=(2, 2), padding=(1, 1), channels=8)
            y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2), strides=(2, 2))
            y = relay.layout_transform(y, "NCHW", data_layout)
        a = relay.nn.relu(blocked(y, w2, padding=(1, 1)))
        b = relay.nn.relu(blocked(y, w3))
        out = relay.nn.global_max_pool2d(a + b, layout=data_layout)
        out = relay.layout_transform(out, data_layout, "NCHW")
        return relay.Function([x, w1, w2, w3], out)

    check(before(), expected(), {"nn.conv2d": [data_layout, kernel_layout]})


def test_strided_slice_with_axes_keeps_every_given_axis():
    """A slice with ``axes`` whose entry covers a whole axis (the batch of 1) keeps
    that entry; the axes are renumbered for the new layout."""

    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 8, 16))
        w = relay.var("w", shape=(3, 3, 16, 16))
        y = relay.nn.conv2d(
            x, w, channels=16, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO"
        )
        y = relay.strided_slice(
            y, begin=[0, 4], end=[1, 20], strides=[1, 1], axes=[0, 3]
        )
        return relay.Function([x, w], y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 8, 8, 16))
        w = relay.var("w", shape=(3, 3, 16, 16))
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NHWC", "NCHW"),
            relay.layout_transform(w, "HWIO", "OIHW"),
            channels=16,
            padding=(1, 1),
        )
        y = relay.strided_slice(
            y, begin=[0, 4], end=[1, 20], strides=[1, 1], axes=[0, 1]
        )
        y = relay.layout_transform(y, "NCHW", "NHWC")
        return relay.Function([x, w], y)

    check(before(), expected(), {"nn.conv2d": ["NCHW", "default"]})


def test_relu_rule_written_as_relay_does_sees_no_new_layouts_first():
    """A registered ``FInferCorrectLayout`` that asks ``if new_in_layouts:`` (the
    first call has none: ``None``, as in Relay) makes relu follow the converted
    convolution, exactly like the built-in rule."""
    calls: list[bool] = []

    def follow(attrs: Any, new_in: Any, old_in: Any, types: Any) -> Any:
        calls.append(bool(new_in))
        layout = new_in[0] if new_in else next(x for x in old_in if x)
        return relay.op.InferCorrectLayoutOutput(
            [layout] * len(old_in), [layout], attrs
        )

    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 6, 6))
        w = relay.var("w", shape=(8, 8, 3, 3))
        y = relay.nn.conv2d(x, w, channels=8, padding=(1, 1))
        y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2))
        return relay.Function([x, w], relay.nn.batch_flatten(y))

    desired = {"nn.conv2d": ["NHWC", "default"], "nn.max_pool2d": ["NHWC"]}
    plain = run_opt_pass(before(), transform.ConvertLayout(desired))
    with TempOpAttr("nn.relu", "FInferCorrectLayout", follow):
        hooked = run_opt_pass(before(), transform.ConvertLayout(desired))
    assert calls[:2] == [False, True]
    assert_structural_equal(hooked, plain)
    assert plain.astext(fmt="relay").count("layout_transform") == 3


@pytest.mark.parametrize(("src", "dst"), [("NCHW", "NHWC"), ("NHWC", "NCHW")])
def test_resize2d_named_in_the_desired_layouts(src: str, dst: str):
    shape = {"NCHW": (1, 3, 4, 5), "NHWC": (1, 4, 5, 3)}[src]

    def before() -> Any:
        x = relay.var("x", shape=shape)
        return relay.Function([x], relay.image.resize2d(x, (6, 6), layout=src))

    def expected() -> Any:
        x = relay.var("x", shape=shape)
        y = relay.image.resize2d(
            relay.layout_transform(x, src, dst), (6, 6), layout=dst
        )
        return relay.Function([x], relay.layout_transform(y, dst, src))

    check(before(), expected(), {"image.resize2d": [dst]})


def test_resize2d_follows_a_converted_convolution():
    def before() -> Any:
        x = relay.var("x", shape=(1, 6, 6, 8))
        w = relay.var("w", shape=(3, 3, 8, 8))
        y = relay.nn.conv2d(
            x, w, channels=8, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO"
        )
        y = relay.image.resize2d(y, (12, 12), layout="NHWC", method="nearest_neighbor")
        return relay.Function([x, w], y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 6, 6, 8))
        w = relay.var("w", shape=(3, 3, 8, 8))
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NHWC", "NCHW"),
            relay.layout_transform(w, "HWIO", "OIHW"),
            channels=8,
            padding=(1, 1),
        )
        y = relay.image.resize2d(y, (12, 12), layout="NCHW", method="nearest_neighbor")
        return relay.Function([x, w], relay.layout_transform(y, "NCHW", "NHWC"))

    check(before(), expected(), {"nn.conv2d": ["NCHW", "default"]})


def test_topk_follows_a_converted_convolution_with_both_results():
    def conv(x: Any, w: Any, nhwc: bool) -> Any:
        if nhwc:
            return relay.nn.conv2d(
                x,
                w,
                channels=8,
                padding=(1, 1),
                data_layout="NHWC",
                kernel_layout="HWIO",
            )
        return relay.nn.conv2d(x, w, channels=8, padding=(1, 1))

    def before() -> Any:
        x = relay.var("x", shape=(1, 6, 6, 8))
        w = relay.var("w", shape=(3, 3, 8, 8))
        y = relay.topk(conv(x, w, True), k=2, axis=2).astuple()
        return relay.Function([x, w], y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 6, 6, 8))
        w = relay.var("w", shape=(3, 3, 8, 8))
        xt = relay.layout_transform(x, "NHWC", "NCHW")
        wt = relay.layout_transform(w, "HWIO", "OIHW")
        t = relay.topk(conv(xt, wt, False), k=2, axis=3).astuple()
        out = relay.Tuple(
            [
                relay.layout_transform(relay.TupleGetItem(t, i), "NCHW", "NHWC")
                for i in range(2)
            ]
        )
        return relay.Function([x, w], out)

    check(before(), expected(), {"nn.conv2d": ["NCHW", "default"]})


def test_topk_along_a_split_axis_takes_the_original_layout():
    """Converted to NCHW4c, a topk along the channels cannot follow: it gets its
    data back in NCHW."""

    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 4, 4))
        w = relay.var("w", shape=(8, 8, 1, 1))
        y = relay.topk(
            relay.nn.conv2d(x, w, channels=8), k=1, axis=1, ret_type="values"
        )
        return relay.Function([x, w], y)

    a = run_opt_pass(
        before(), transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o"]})
    )
    text = a.astext(fmt="relay")
    assert 'src_layout="NCHW4c", dst_layout="NCHW"' in text
    assert text.index("contrib_conv2d_NCHWc") < text.index("topk")
    assert "axis=1" in text


def test_layout_config_skips_the_listed_convolutions():
    """``LayoutConfig(skip_layers=[0])``: the first convolution keeps NHWC, the
    second is converted to HWNC (its default kernel HWOI) and its input follows."""

    def conv(x: Any, w: Any, data: str, kernel: str) -> Any:
        return relay.nn.conv2d(
            x, w, channels=8, padding=(1, 1), data_layout=data, kernel_layout=kernel
        )

    def params() -> list[Any]:
        return [
            relay.var("x", shape=(1, 6, 6, 8)),
            relay.var("w1", shape=(3, 3, 8, 8)),
            relay.var("w2", shape=(3, 3, 8, 8)),
        ]

    def before() -> Any:
        x, w1, w2 = params()
        y = relay.nn.relu(conv(x, w1, "NHWC", "HWIO"))
        return relay.Function([x, w1, w2], relay.nn.relu(conv(y, w2, "NHWC", "HWIO")))

    def expected() -> Any:
        x, w1, w2 = params()
        y = relay.nn.relu(conv(x, w1, "NHWC", "HWIO"))
        y = relay.layout_transform(y, "NHWC", "HWNC")
        w2t = relay.layout_transform(w2, "HWIO", "HWOI")
        y = relay.nn.relu(conv(y, w2t, "HWNC", "HWOI"))
        return relay.Function([x, w1, w2], relay.layout_transform(y, "HWNC", "NHWC"))

    desired = {"nn.conv2d": ["HWNC", "default"]}
    with transform.LayoutConfig(skip_layers=[0]) as config:
        assert transform.LayoutConfig.current() is config
        check(before(), expected(), desired)
    assert transform.LayoutConfig.current() is None
    with transform.LayoutConfig(skip_layers=[0, 1]):
        a = run_opt_pass(before(), transform.ConvertLayout(desired))
    assert_structural_equal(a, run_opt_pass(before(), transform.InferType()))


def test_converted_ops_keep_their_spans():
    """Calls rebuilt as TVM users do (``relay.Call(c.op, c.args, c.attrs,
    c.type_args, span)``) keep their spans through the conversion: the converted
    convolution and the ops following it are located where the originals were."""

    def spanned(call: Any, name: str) -> Any:
        return relay.Call(
            call.op, call.args, call.attrs, call.type_args, ir.Span(name, 1, 1, 0, 0)
        )

    x = relay.var("x", shape=(1, 6, 6, 8))
    w = relay.var("w", shape=(3, 3, 8, 8))
    y = relay.nn.conv2d(x, w, channels=8, data_layout="NHWC", kernel_layout="HWIO")
    assert y.type_args == []
    y = spanned(y, "SpanConv")
    y = spanned(relay.nn.relu(y), "SpanRelu")
    y = spanned(relay.sum(y, axis=(3,), keepdims=True), "SpanSum")
    a = run_opt_pass(
        relay.Function([x, w], y),
        transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"]}),
    )
    names: dict[str, str] = {}
    relay.analysis.post_order_visit(
        a.body,
        lambda e: (
            names.__setitem__(e.op.name, e.span.source_name.name)
            if isinstance(e, relay.Call) and e.span is not None
            else None
        ),
    )
    assert names == {"nn.conv2d": "SpanConv", "nn.relu": "SpanRelu", "sum": "SpanSum"}


def test_roi_align_named_in_the_desired_layouts_follows_to_nhwc():
    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 6, 6))
        w = relay.var("w", shape=(8, 8, 3, 3))
        rois = relay.var("rois", shape=(3, 5))
        y = relay.nn.conv2d(x, w, channels=8, padding=(1, 1))
        y = relay.vision.roi_align(y, rois, pooled_size=(2, 2), spatial_scale=0.5)
        return relay.Function([x, w, rois], y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 8, 6, 6))
        w = relay.var("w", shape=(8, 8, 3, 3))
        rois = relay.var("rois", shape=(3, 5))
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NCHW", "NHWC"),
            relay.layout_transform(w, "OIHW", "HWIO"),
            channels=8,
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.vision.roi_align(
            y, rois, pooled_size=(2, 2), spatial_scale=0.5, layout="NHWC"
        )
        return relay.Function([x, w, rois], relay.layout_transform(y, "NHWC", "NCHW"))

    desired = {"nn.conv2d": ["NHWC", "HWIO"], "vision.roi_align": ["NHWC", "default"]}
    check(before(), expected(), desired)
    with pytest.raises(Exception, match=r"roi_align takes the desired layouts"):
        run_opt_pass(
            before(), transform.ConvertLayout({"vision.roi_align": ["HWNC", "default"]})
        )


def test_slice_like_follows_when_both_operands_convert():
    """``slice_like(y, y, axes=[1, 2])`` after an NHWC convolution converted to NCHW
    follows it (axes [2, 3]); with a ``shape_like`` of unknown layout (a parameter)
    it keeps NHWC."""

    def before(like_param: bool) -> Any:
        x = relay.var("x", shape=(1, 6, 6, 8))
        w = relay.var("w", shape=(3, 3, 8, 4))
        y = relay.nn.conv2d(
            x, w, channels=4, padding=(1, 1), data_layout="NHWC", kernel_layout="HWIO"
        )
        params = [x, w]
        like = y
        if like_param:
            like = relay.var("like", shape=(1, 3, 3, 4))
            params.append(like)
        return relay.Function(params, relay.slice_like(y, like, axes=[1, 2]))

    def axes_of(fn: Any) -> list[list[int]]:
        found: list[list[int]] = []
        relay.analysis.post_order_visit(
            fn.body,
            lambda e: (
                found.append(list(e.attrs["axes"]))
                if isinstance(e, relay.Call) and e.op.name == "slice_like"
                else None
            ),
        )
        return found

    desired = {"nn.conv2d": ["NCHW", "default"]}
    assert axes_of(run_opt_pass(before(False), transform.ConvertLayout(desired))) == [
        [2, 3]
    ]
    kept = run_opt_pass(before(True), transform.ConvertLayout(desired))
    assert axes_of(kept) == [[1, 2]]
    assert 'src_layout="NCHW", dst_layout="NHWC"' in kept.astext(fmt="relay")


def test_blocked_data_with_a_kernel_blocked_on_output_channels_only():
    """``{"nn.conv2d": ["NCHW4c", "OIHW4o"]}``: ``contrib_conv2d_NCHWc`` with a kernel
    ``[O/4, C, KH, KW, 4]``; a split after the relu follows the blocks (8 channels
    are 2 blocks); the compiled program computes what the original does."""

    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 5, 5))
        w = relay.var("w", shape=(16, 8, 3, 3))
        y = relay.nn.relu(relay.nn.conv2d(x, w, channels=16, kernel_size=(3, 3)))
        parts = relay.split(y, indices_or_sections=[8], axis=1).astuple()
        return relay.Function([x, w], parts)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 8, 5, 5))
        w = relay.var("w", shape=(16, 8, 3, 3))
        y = relay.nn.contrib_conv2d_nchwc(
            relay.layout_transform(x, "NCHW", "NCHW4c"),
            relay.layout_transform(w, "OIHW", "OIHW4o"),
            channels=16,
            kernel_size=(3, 3),
            data_layout="NCHW4c",
            kernel_layout="OIHW4o",
        )
        t = relay.split(relay.nn.relu(y), indices_or_sections=[2], axis=1).astuple()
        out = relay.Tuple(
            [
                relay.layout_transform(relay.TupleGetItem(t, i), "NCHW4c", "NCHW")
                for i in range(2)
            ]
        )
        return relay.Function([x, w], out)

    desired = {"nn.conv2d": ["NCHW4c", "OIHW4o"]}
    check(before(), expected(), desired)
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(1, 8, 5, 5)).astype("float32")
    ws = rng.normal(size=(16, 8, 3, 3)).astype("float32")
    want = interpret(relay.IRModule.from_expr(before()), xs, ws)
    converted = relay.IRModule.from_expr(
        run_opt_pass(before(), transform.ConvertLayout(desired))
    )
    got = xrelay.build(converted)(xs, ws)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("src", "dst"), [("NHWC", "NCHW"), ("NCHW", "NHWC")])
def test_deformable_conv2d_with_an_untyped_offset_converts(src: str, dst: str):
    """The offset has no type (InferType gives it the data layout's shape); data and
    offset are transformed alike, the weight to the default kernel layout, and the
    pool after the bias follows."""
    kernels = {"NCHW": "OIHW", "NHWC": "HWIO"}
    shapes = {
        "NCHW": ((1, 3, 6, 6), (4, 3, 3, 3), (1, 18, 4, 4)),
        "NHWC": ((1, 6, 6, 3), (3, 3, 3, 4), (1, 4, 4, 18)),
    }

    def deform(d: Any, o: Any, w: Any, layout: str) -> Any:
        return relay.nn.deformable_conv2d(
            d, o, w, kernel_size=(3, 3), channels=4,
            data_layout=layout, kernel_layout=kernels[layout],
        )  # fmt: skip

    def before() -> Any:
        data_shape, weight_shape, _ = shapes[src]
        d, o = relay.var("d", shape=data_shape), relay.var("o")
        w, b = relay.var("w", shape=weight_shape), relay.var("b", shape=(4,))
        y = relay.nn.bias_add(deform(d, o, w, src), b, axis=src.index("C"))
        y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2), layout=src)
        return relay.Function([d, o, w, b], y)

    def expected() -> Any:
        data_shape, weight_shape, offset_shape = shapes[src]
        d, o = relay.var("d", shape=data_shape), relay.var("o", shape=offset_shape)
        w, b = relay.var("w", shape=weight_shape), relay.var("b", shape=(4,))
        y = deform(
            relay.layout_transform(d, src, dst),
            relay.layout_transform(o, src, dst),
            relay.layout_transform(w, kernels[src], kernels[dst]),
            dst,
        )
        if src == "NHWC":
            bias = relay.expand_dims(b, axis=0, num_newaxis=3)
        else:
            bias = relay.expand_dims(
                relay.expand_dims(b, axis=1, num_newaxis=2), axis=0
            )
        y = relay.add(y, relay.layout_transform(bias, src, dst))
        y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2), layout=dst)
        return relay.Function([d, o, w, b], relay.layout_transform(y, dst, src))

    a = run_opt_pass(
        before(),
        [
            transform.CanonicalizeOps(),
            transform.ConvertLayout({"nn.deformable_conv2d": [dst, "default"]}),
        ],
    )
    assert_structural_equal(a, run_opt_pass(expected(), transform.InferType()))


def test_roi_pool_named_in_the_desired_layouts_follows_to_nhwc():
    def before() -> Any:
        x = relay.var("x", shape=(1, 8, 6, 6))
        w = relay.var("w", shape=(8, 8, 3, 3))
        rois = relay.var("rois", shape=(3, 5))
        y = relay.nn.conv2d(x, w, channels=8, padding=(1, 1))
        y = relay.vision.roi_pool(y, rois, pooled_size=(2, 2), spatial_scale=0.5)
        return relay.Function([x, w, rois], y)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 8, 6, 6))
        w = relay.var("w", shape=(8, 8, 3, 3))
        rois = relay.var("rois", shape=(3, 5))
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NCHW", "NHWC"),
            relay.layout_transform(w, "OIHW", "HWIO"),
            channels=8,
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.vision.roi_pool(
            y, rois, pooled_size=(2, 2), spatial_scale=0.5, layout="NHWC"
        )
        return relay.Function([x, w, rois], relay.layout_transform(y, "NHWC", "NCHW"))

    desired = {"nn.conv2d": ["NHWC", "HWIO"], "vision.roi_pool": ["NHWC", "default"]}
    check(before(), expected(), desired)
