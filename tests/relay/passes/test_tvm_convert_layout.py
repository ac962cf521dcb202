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

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import analysis, transform


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
