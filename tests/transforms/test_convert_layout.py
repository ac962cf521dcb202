"""ConvertLayout: Relay's test_pass_convert_op_layout.py scenarios on builder models,
with the interpreter's numbers before and after (rtol 1e-5)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from xrelay import relay
from xrelay.dialects.relay.base import get_ints, get_str
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.runtime import interpret
from xrelay.transforms.convert_layout import (
    ConvertLayout,
    ConvertLayoutError,
    check_desired_layouts,
    parse_desired_layouts,
)

DT = "float64"  # exact enough that rtol 1e-5 only sees real differences

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def module_of(mod: Any) -> ModuleOp:
    return mod if isinstance(mod, ModuleOp) else mod.module


def main_ops(mod: Any) -> list[Operation]:
    for f in module_of(mod).ops:
        if isinstance(f, FuncOp) and f.sym_name.data == "main":
            return [op for op in f.walk() if op is not f]
    raise KeyError("main")


def names(mod: Any) -> list[str]:
    return [op.name for op in main_ops(mod)]


def transforms(mod: Any) -> list[tuple[str, str]]:
    return [
        (get_str(op.properties["src_layout"]), get_str(op.properties["dst_layout"]))
        for op in main_ops(mod)
        if op.name == "relay.layout_transform"
    ]


def ops_named(mod: Any, name: str) -> list[Operation]:
    return [op for op in main_ops(mod) if op.name == name]


def prop(op: Operation, name: str) -> Any:
    return op.properties.get(name)


def var(name: str, shape: Sequence[int], dtype: str = DT) -> Any:
    return relay.var(name, shape=tuple(shape), dtype=dtype)


def inputs_for(mod: Any, seed: int = 0) -> list[np.ndarray[Any, Any]]:
    rng = np.random.default_rng(seed)
    func = next(f for f in module_of(mod).ops if isinstance(f, FuncOp))
    out: list[np.ndarray[Any, Any]] = []
    for arg in func.body.block.args:
        ty = arg.type
        assert isinstance(ty, TensorType)
        out.append(rng.uniform(-1, 1, ty.get_shape()).astype(DT))
    return out


def flat(value: Any) -> list[np.ndarray[Any, Any]]:
    if isinstance(value, tuple):
        return [a for v in value for a in flat(v)]
    return [np.asarray(value)]


def assert_same_numbers(before: Any, after: Any) -> None:
    args = inputs_for(before)
    expected, got = flat(interpret(before, *args)), flat(interpret(after, *args))
    assert len(expected) == len(got)
    for e, g in zip(expected, got, strict=True):
        assert e.shape == g.shape
        assert e.dtype == g.dtype
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-12)


def convert(body: Callable[[], Any], desired: dict[str, list[str]]) -> tuple[Any, Any]:
    """Build ``body()`` into a module, run ConvertLayout, verify, check numerics."""
    out = body()
    from xrelay.frontend.relay.analysis import free_vars

    mod = relay.IRModule.from_expr(relay.Function(free_vars(out), out))
    after = ConvertLayout(desired)(mod)
    module_of(after).verify()
    assert_same_numbers(mod, after)
    return mod, after


def conv(x: Any, w: Any, layout: str = "NCHW", kernel: str = "OIHW", **kw: Any) -> Any:
    return relay.nn.conv2d(x, w, data_layout=layout, kernel_layout=kernel, **kw)


def weight(shape: Sequence[int], seed: int = 1) -> Any:
    rng = np.random.default_rng(seed)
    return relay.const(rng.uniform(-1, 1, tuple(shape)).astype(DT), dtype=DT)


NHWC = {"nn.conv2d": ["NHWC", "default"]}
NCHW = {"nn.conv2d": ["NCHW", "default"]}

# ---------------------------------------------------------------------------------------
# scenarios
# ---------------------------------------------------------------------------------------


def test_no_convert_layout():
    """Relay's test_no_convert_layout: NCHW wanted, NCHW given: nothing changes."""

    def body() -> Any:
        x, w = var("x", (1, 64, 56, 56)), var("w", (64, 64, 3, 3))
        return relay.nn.relu(conv(x, w, padding=(1, 1)))

    mod, after = convert(body, NCHW)
    assert str(module_of(after)) == str(module_of(mod))


def test_conv_nhwc_to_nchw():
    """Relay's test_conv_convert_layout: data and kernel at the entry, one transform
    at the exit."""

    def body() -> Any:
        x, w = var("x", (1, 8, 8, 16)), var("w", (3, 3, 16, 8))
        return relay.nn.relu(conv(x, w, "NHWC", "HWIO", padding=(1, 1)))

    _, after = convert(body, NCHW)
    assert transforms(after) == [("NHWC", "NCHW"), ("HWIO", "OIHW"), ("NCHW", "NHWC")]
    (c,) = ops_named(after, "relay.nn.conv2d")
    assert c.attr("data_layout") == relay_str("NCHW")


def relay_str(s: str) -> Any:
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(s)


def test_conv_bias_pool_cast_flatten():
    """Relay's test_conv_bias_pool_convert_layout: bias_add, relu, pool and cast
    follow NCHW; batch_flatten cannot, so the value goes back to NHWC before it."""

    def body() -> Any:
        x = var("x", (1, 8, 8, 16))
        b = var("b", (16,))
        w = var("w", (3, 3, 16, 16))
        y = conv(x, w, "NHWC", "HWIO", padding=(1, 1), channels=16, kernel_size=(3, 3))
        y = relay.nn.bias_add(y, b, axis=3)
        y = relay.nn.relu(y)
        y = relay.nn.max_pool2d(y, pool_size=(2, 2), layout="NHWC")
        y = relay.cast(y, "int32")
        return relay.nn.batch_flatten(y)

    _, after = convert(body, NCHW)
    assert transforms(after) == [("NHWC", "NCHW"), ("HWIO", "OIHW"), ("NCHW", "NHWC")]
    order = names(after)
    assert order.index("relay.layout_transform", 3) == order.index("relay.cast") + 1
    (bias,) = ops_named(after, "relay.nn.bias_add")
    assert bias.attr("axis").value.data == 1  # type: ignore[union-attr]
    (pool,) = ops_named(after, "relay.nn.max_pool2d")
    assert get_str(prop(pool, "layout")) == "NCHW"


def test_conv_bias_pool_uses_specified_pool_layout():
    """Relay's test_conv_bias_pool_uses_specified_convert_layout: the pool is asked
    to stay NHWC, so the value goes back to NHWC before it."""

    def body() -> Any:
        x = var("x", (1, 8, 8, 16))
        b = var("b", (16,))
        w = var("w", (3, 3, 16, 16))
        y = conv(x, w, "NHWC", "HWIO", padding=(1, 1))
        y = relay.nn.relu(relay.nn.bias_add(y, b, axis=3))
        y = relay.nn.max_pool2d(y, pool_size=(2, 2), layout="NHWC")
        return relay.nn.batch_flatten(relay.cast(y, "int32"))

    _, after = convert(body, {"nn.conv2d": ["NCHW", "OIHW"], "nn.max_pool2d": ["NHWC"]})
    assert transforms(after) == [("NHWC", "NCHW"), ("HWIO", "OIHW"), ("NCHW", "NHWC")]
    order = names(after)
    assert (
        order.index("relay.nn.max_pool2d")
        == order.index("relay.layout_transform", 3) + 1
    )
    (pool,) = ops_named(after, "relay.nn.max_pool2d")
    assert get_str(prop(pool, "out_layout")) == "NHWC"


def test_conv_concat():
    """Relay's test_conv_concat_convert_layout: concatenate's axis moves to C."""

    def body() -> Any:
        x = var("x", (1, 8, 8, 16))
        w1, w2 = var("w1", (3, 3, 16, 16)), var("w2", (3, 3, 16, 16))
        y = conv(x, w1, "NHWC", "HWIO", padding=(1, 1))
        y1 = conv(y, w2, "NHWC", "HWIO", padding=(1, 1))
        return relay.concatenate([y, y1], axis=3)

    _, after = convert(body, NCHW)
    (cat,) = ops_named(after, "relay.concatenate")
    assert cat.attr("axis").value.data == 1  # type: ignore[union-attr]
    assert transforms(after)[-1] == ("NCHW", "NHWC")
    assert len(transforms(after)) == 4  # x, w1, w2, the result


def test_dual_path():
    """Relay's test_dual_path_convert_layout: a value used by a converted branch and
    by batch_flatten is transformed back only for batch_flatten."""

    def body() -> Any:
        x = var("x", (1, 8, 8, 16))
        w1, w2 = var("w1", (3, 3, 16, 8)), var("w2", (3, 3, 8, 8))
        y = relay.nn.relu(conv(x, w1, "NHWC", "HWIO", padding=(1, 1)))
        y1 = relay.nn.relu(conv(y, w2, "NHWC", "HWIO", padding=(1, 1)))
        y2 = relay.nn.batch_flatten(y)
        return relay.Tuple([y1, y2])

    _, after = convert(body, NCHW)
    assert sorted(transforms(after)) == sorted(
        [
            ("NHWC", "NCHW"),
            ("HWIO", "OIHW"),
            ("HWIO", "OIHW"),
            ("NCHW", "NHWC"),
            ("NCHW", "NHWC"),
        ]
    )


def test_batch_norm_axis_moves():
    """Relay's test_bn_convert_layout: one NCHW -> NHWC transform (the result)."""

    def body() -> Any:
        x = var("x", (1, 8, 8, 16))
        w = var("w", (3, 3, 16, 8))
        y = conv(x, w, "NHWC", "HWIO", padding=(1, 1))
        gamma, beta = var("gamma", (8,)), var("beta", (8,))
        mean = var("mean", (8,))
        variance = relay.const(np.linspace(0.5, 2.0, 8), dtype=DT)
        return relay.nn.batch_norm(y, gamma, beta, mean, variance, axis=3)[0]

    mod, after = convert(body, NCHW)
    assert transforms(after).count(("NCHW", "NHWC")) == 1
    (bn,) = ops_named(after, "relay.nn.batch_norm")
    assert bn.attr("axis").value.data == 1  # type: ignore[union-attr]
    del mod


@pytest.mark.parametrize(
    ("src", "kernel", "axes", "expected_axes"),
    [
        ("NHWC", "HWIO", [0, 3, 1, 2], [0, 1, 2, 3]),
        ("NCHW", "OIHW", [0, 2, -1, 1], [0, 1, 2, 3]),
        ("NCHW", "OIHW", None, [2, 1, 3, 0]),
    ],
)
def test_transpose(
    src: str, kernel: str, axes: list[int] | None, expected_axes: list[int]
):
    """Relay's test_transpose_convert_layout: transposes follow (3 transforms: data,
    kernel and the broadcast operand)."""
    to = "NCHW" if src == "NHWC" else "NHWC"

    def body() -> Any:
        shape = (1, 8, 8, 16) if src == "NHWC" else (1, 16, 8, 8)
        kshape = (3, 3, 16, 8) if kernel == "HWIO" else (8, 16, 3, 3)
        x, w = var("x", shape), var("w", kshape)
        y = conv(x, w, src, kernel, padding=(1, 1))
        z = var("z", (8, 8, 8))
        out = relay.transpose(relay.add(y, z), axes=axes)
        return relay.nn.batch_flatten(out) if axes is not None else out

    _, after = convert(body, {"nn.conv2d": [to, "default"]})
    (t,) = ops_named(after, "relay.transpose")
    assert list(get_ints(prop(t, "axes"))) == expected_axes
    assert len(transforms(after)) == 3


def test_resnet_block():
    """Relay's test_resnet_convert_layout: conv/relu, a second conv, a residual add
    and a global pool: one transform at the entry, none in between."""

    def body() -> Any:
        x = var("x", (1, 8, 8, 16))
        w1, w2 = weight((3, 3, 16, 16), 1), weight((1, 1, 16, 16), 2)
        y = relay.nn.relu(conv(x, w1, "NHWC", "HWIO", padding=(1, 1)))
        y2 = conv(y, w2, "NHWC", "HWIO")
        y = relay.nn.relu(relay.add(y, y2))
        return relay.nn.global_max_pool2d(y, layout="NHWC")

    _, after = convert(body, NCHW)
    data = [t for t in transforms(after) if t[0] in ("NHWC", "NCHW")]
    assert data == [("NHWC", "NCHW"), ("NCHW", "NHWC")]
    (pool,) = ops_named(after, "relay.nn.global_max_pool2d")
    assert get_str(prop(pool, "layout")) == "NCHW"


def test_scalar_and_vector_operands():
    """Relay's test_scalar_convert_layout: a scalar operand needs no transform; a
    lower-rank operand is expanded and transformed."""

    def body() -> Any:
        x, w = var("x", (1, 8, 8, 16)), var("w", (3, 3, 16, 16))
        y = conv(x, w, "NHWC", "HWIO", padding=(1, 1))
        y = relay.multiply(y, relay.const(2.0, dtype=DT))
        return relay.add(y, var("v", (8, 16)))

    _, after = convert(body, NCHW)
    assert ops_named(after, "relay.expand_dims")
    assert ("NHWC", "NCHW") in transforms(after)


@pytest.mark.parametrize("norm", ["layer_norm", "instance_norm"])
def test_conv_norms(norm: str):
    """Relay's test_conv_ln_convert_layout / test_conv_InstanceNorm_convert_layout."""

    def body() -> Any:
        x, w = var("x", (1, 8, 8, 16)), var("w", (3, 3, 16, 8))
        y = conv(x, w, "NHWC", "HWIO", padding=(1, 1))
        g, b = var("g", (8,)), var("b", (8,))
        return getattr(relay.nn, norm)(y, g, b, axis=3)

    _, after = convert(body, NCHW)
    (op,) = ops_named(after, f"relay.nn.{norm}")
    assert op.attr("axis").value.data == 1  # type: ignore[union-attr]
    assert transforms(after)[-1] == ("NCHW", "NHWC")


def test_conv_l2_normalize():
    """Relay's test_conv_l2n_convert_layout."""

    def body() -> Any:
        x, w = var("x", (1, 8, 8, 16)), var("w", (3, 3, 16, 8))
        y = conv(x, w, "NHWC", "HWIO", padding=(1, 1))
        return relay.nn.l2_normalize(y, eps=1e-3, axis=[3])

    _, after = convert(body, NCHW)
    (op,) = ops_named(after, "relay.nn.l2_normalize")
    assert list(get_ints(prop(op, "axis"))) == [1]


def test_explicit_kernel_layout():
    """Relay's test_conv_convert_kernel_layout: NHWC with an OHWI kernel."""

    def body() -> Any:
        x, w = var("x", (1, 16, 8, 8)), var("w", (8, 16, 3, 3))
        return conv(x, w, padding=(1, 1))

    _, after = convert(body, {"nn.conv2d": ["NHWC", "OHWI"]})
    assert ("OIHW", "OHWI") in transforms(after)


def test_strided_slice():
    """Relay's test_conv_strided_slice_convert_layout (without and with axes)."""

    def body() -> Any:
        x, w = var("x", (1, 8, 8, 16)), var("w", (3, 3, 16, 8))
        y = relay.nn.relu(conv(x, w, "NHWC", "HWIO", padding=(1, 1)))
        a = relay.strided_slice(y, begin=[0, 1], end=[1, -1], strides=[1, 2])
        b = relay.strided_slice(
            y, begin=[2, 1], end=[6, 7], strides=[1, 1], axes=[3, 1]
        )
        return relay.Tuple([a, b])

    _, after = convert(body, NCHW)
    slices = ops_named(after, "relay.strided_slice")
    # without axes: full-rank bounds in NCHW order, as Relay writes them (the
    # unsliced axes run over their extent); with axes: the axes move
    first, second = slices
    assert first.properties.get("axes") is None
    assert list(get_ints(prop(first, "begin"))) == [0, 0, 1, 0]
    assert list(get_ints(prop(first, "end"))) == [1, 8, -1, 8]
    assert list(get_ints(prop(first, "strides"))) == [1, 1, 2, 1]
    assert list(get_ints(prop(second, "axes"))) == [1, 2]


def test_split():
    """Relay's test_conv_split_convert_layout."""

    def body() -> Any:
        x, w = var("x", (1, 8, 8, 16)), var("w", (3, 3, 16, 8))
        y = relay.nn.relu(conv(x, w, "NHWC", "HWIO", padding=(1, 1)))
        parts = relay.split(y, indices_or_sections=2, axis=3)
        other = relay.split(y, indices_or_sections=[3, 5], axis=2)
        return relay.Tuple([parts[0], parts[1], other[2]])

    _, after = convert(body, NCHW)
    splits = ops_named(after, "relay.split")
    assert [s.attr("axis").value.data for s in splits] == [1, 3]  # type: ignore[union-attr]


def test_squeeze_and_reductions():
    """Relay's test_conv_squeeze_convert_layout / test_conv_reduce_convert_layout."""

    def body() -> Any:
        x, w = var("x", (1, 1, 1, 16)), var("w", (1, 1, 16, 8))
        y = conv(x, w, "NHWC", "HWIO")
        s = relay.squeeze(y, axis=[1, 2])
        m = relay.mean(y, axis=[1, 2], keepdims=True)
        t = relay.sum(y, axis=3, exclude=True)
        a = relay.argmax(relay.nn.relu(y), axis=3)
        return relay.Tuple([s, m, t, a])

    _, after = convert(body, NCHW)
    (sq,) = ops_named(after, "relay.squeeze")
    assert list(get_ints(prop(sq, "axis"))) == [2, 3]
    (mean,) = ops_named(after, "relay.mean")
    assert list(get_ints(prop(mean, "axis"))) == [2, 3]
    (total,) = ops_named(after, "relay.sum")
    assert list(get_ints(prop(total, "axis"))) == [1]
    (am,) = ops_named(after, "relay.argmax")
    assert list(get_ints(prop(am, "axis"))) == [1]


def test_pad():
    """Relay's pad rule: pad_width follows the axes."""

    def body() -> Any:
        x, w = var("x", (1, 16, 8, 8)), var("w", (8, 16, 3, 3))
        y = conv(x, w)
        return relay.nn.pad(y, ((0, 0), (0, 0), (1, 2), (3, 4)))

    _, after = convert(body, NHWC)
    (pad,) = ops_named(after, "relay.nn.pad")
    assert list(get_ints(prop(pad, "pad_width"))) == [0, 0, 1, 2, 3, 4, 0, 0]


def test_conv_transpose_default_kernel():
    """Relay's test_conv_transpose_convert_layout / test_default_keyword."""

    def body() -> Any:
        x, w = var("x", (1, 8, 8, 16)), var("w", (3, 3, 16, 8))
        y = relay.nn.conv2d_transpose(
            x, w, data_layout="NHWC", kernel_layout="HWIO", strides=(2, 2)
        )
        return relay.nn.relu(y)

    _, after = convert(body, {"nn.conv2d_transpose": ["NCHW", "default"]})
    (c,) = ops_named(after, "relay.nn.conv2d_transpose")
    assert get_str(prop(c, "kernel_layout")) == "IOHW"


def test_different_ops():
    """Relay's test_different_ops_convert_layout: several ops with their own layouts;
    an op that is not named keeps its layout (test_no_desired_layout)."""

    def body() -> Any:
        x = var("x", (1, 16, 8, 8))
        w1, w2 = var("w1", (8, 16, 3, 3)), var("w2", (8, 8, 3, 3))
        y = relay.nn.relu(conv(x, w1, padding=(1, 1)))
        y = relay.nn.conv2d_transpose(y, w2, kernel_layout="OIHW", padding=(1, 1))
        return relay.nn.avg_pool2d(y, pool_size=(2, 2))

    _, after = convert(body, {"nn.conv2d": ["NHWC", "HWIO"], "nn.avg_pool2d": ["NHWC"]})
    (ct,) = ops_named(after, "relay.nn.conv2d_transpose")
    assert get_str(prop(ct, "data_layout")) == "NCHW"  # not named: unchanged
    (pool,) = ops_named(after, "relay.nn.avg_pool2d")
    assert get_str(prop(pool, "layout")) == "NHWC"


def test_depthwise_default_kernel_is_hwoi():
    def body() -> Any:
        x, w = var("x", (1, 8, 6, 6)), var("w", (8, 1, 3, 3))
        return conv(x, w, groups=8, padding=(1, 1))

    _, after = convert(body, NHWC)
    (c,) = ops_named(after, "relay.nn.conv2d")
    assert get_str(prop(c, "kernel_layout")) == "HWOI"


def test_blocked_desired_layout_makes_nchwc():
    """Relay's test_resnet_convert_layout_nchwc: NCHW4c with OIHW4i4o kernels."""

    def body() -> Any:
        x = var("x", (1, 8, 6, 6))
        w1, w2 = weight((8, 8, 3, 3), 1), weight((8, 8, 1, 1), 2)
        y = relay.nn.relu(conv(x, w1, padding=(1, 1)))
        return relay.add(conv(y, w2), y)

    _, after = convert(body, {"nn.conv2d": ["NCHW4c", "OIHW4i4o"]})
    assert len(ops_named(after, "relay.nn.contrib_conv2d_NCHWc")) == 2
    assert [t for t in transforms(after) if t[0].startswith("NCHW")] == [
        ("NCHW", "NCHW4c"),
        ("NCHW4c", "NCHW"),
    ]


def test_float32_residual_model():
    """A float32 model: the numbers agree to float32 rounding of the sums."""

    def body() -> Any:
        x = var("x", (1, 8, 8, 8), "float32")
        w = relay.const(np.full((8, 8, 3, 3), 0.1, "float32"))
        y = relay.nn.relu(conv(x, w, padding=(1, 1)))
        return relay.add(y, x)

    out = body()
    mod = relay.IRModule.from_expr(relay.Function([free(out)], out))
    after = ConvertLayout(NHWC)(mod)
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, (1, 8, 8, 8)).astype("float32")
    np.testing.assert_allclose(
        interpret(after, xs), interpret(mod, xs), rtol=1e-5, atol=1e-5
    )


def free(expr: Any) -> Any:
    from xrelay.frontend.relay.analysis import free_vars

    (v,) = free_vars(expr)
    return v


# ---------------------------------------------------------------------------------------
# the pass object, the option string, errors
# ---------------------------------------------------------------------------------------


def test_pass_info_and_registry():
    p = ConvertLayout(NHWC)
    assert (p.info.name, p.info.opt_level) == ("ConvertLayout", 3)
    assert p.info.required == ("InferType", "CanonicalizeOps")
    q = get_pass("convert-layout", desired_layouts="nn.conv2d=NHWC:default")
    assert isinstance(q, ConvertLayout)
    assert q.desired_layouts == {"relay.nn.conv2d": ["NHWC", "default"]}


def test_option_string_syntax():
    assert parse_desired_layouts("nn.conv2d=NHWC:default; nn.max_pool2d=NHWC,") == {
        "nn.conv2d": ["NHWC", "default"],
        "nn.max_pool2d": ["NHWC"],
    }
    assert parse_desired_layouts("") == {}


@pytest.mark.parametrize(
    ("desired", "message"),
    [
        ("nn.conv2d", "is not op=layout"),
        ("nn.conv2d=NHWC", "takes 2 desired layout"),
        ("nn.conv2d=default:default", "cannot be 'default'"),
        ("nn.nothing=NHWC", "unknown op 'nn.nothing'"),
        ("relay.add=NCHW", "has no layout conversion"),
        ("nn.max_pool2d=NH1", "desired data layout of relay.nn.max_pool2d"),
        ("nn.conv2d=NHWC:default,relay.nn.conv2d=NCHW:default", "twice"),
        ({"nn.conv2d": "NHWC"}, "takes 2 desired layout"),
    ],
)
def test_bad_desired_layouts(desired: Any, message: str):
    with pytest.raises(ConvertLayoutError, match=message):
        check_desired_layouts(desired)


def test_unsupported_layout_is_reported_at_the_op():
    x, w = var("x", (1, 16, 8, 8)), var("w", (8, 16, 3, 3))
    mod = relay.IRModule.from_expr(relay.Function([x, w], conv(x, w)))
    with pytest.raises(Exception, match="cannot take the data layout 'NCHWD'") as info:
        ConvertLayout({"nn.conv2d": ["NCHWD", "default"]})(mod)
    assert getattr(info.value, "op", None) is not None


def test_runs_in_sequential_with_required_passes():
    """In a Sequential at opt_level 3 the required InferType and CanonicalizeOps run
    first (bias_add becomes expand_dims + add, then follows the layout)."""
    x, w, b = var("x", (1, 16, 8, 8)), var("w", (8, 16, 3, 3)), var("b", (8,))
    out = relay.nn.relu(relay.nn.bias_add(conv(x, w, padding=(1, 1)), b))
    mod = relay.IRModule.from_expr(relay.Function([x, w, b], out))
    with PassContext(opt_level=3):
        after = Sequential([ConvertLayout(NHWC)])(mod)
    assert "relay.nn.bias_add" not in names(after)
    assert len(ops_named(after, "relay.layout_transform")) == 4  # x, w, b, result
    assert_same_numbers(mod, after)
    with PassContext(opt_level=2):
        skipped = Sequential([ConvertLayout(NHWC)])(mod)
    assert "relay.layout_transform" not in names(skipped)


def test_input_module_is_left_alone():
    x, w = var("x", (1, 16, 8, 8)), var("w", (8, 16, 3, 3))
    mod = relay.IRModule.from_expr(relay.Function([x, w], conv(x, w)))
    before = str(module_of(mod))
    ConvertLayout(NHWC)(mod)
    assert str(module_of(mod)) == before
