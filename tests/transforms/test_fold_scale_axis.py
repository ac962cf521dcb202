"""BackwardFoldScaleAxis / ForwardFoldScaleAxis / FoldScaleAxis: Relay's
test_pass_fold_scale_axis scenarios on builder models (plain NCHW/NHWC layouts; the
dialect's conv2d has no blocked layouts and there is no conv3d), checked by the shape
of the result and by the interpreter's numerics before and after."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import OpResult, SSAValue

from xrelay import relay
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.dtypes import numpy_dtype
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.pass_manager import PassContext, Sequential, get_pass, list_passes
from xrelay.pass_manager.registry import UnknownPassError
from xrelay.runtime import interpret
from xrelay.transforms.backward_fold_scale_axis import BackwardFoldScaleAxis
from xrelay.transforms.fold_scale_axis import FoldScaleAxis
from xrelay.transforms.forward_fold_scale_axis import ForwardFoldScaleAxis

RNG = np.random.default_rng(11)


def positive(*shape: int) -> np.ndarray[Any, Any]:
    return RNG.uniform(0.5, 1.0, size=shape).astype("float32")


def weights(*shape: int) -> np.ndarray[Any, Any]:
    return RNG.standard_normal(shape).astype("float32")


def fold_constant_available() -> bool:
    try:
        get_pass("FoldConstant")
    except UnknownPassError:
        return False
    return True


needs_fold_constant = pytest.mark.skipif(
    not fold_constant_available(), reason="FoldConstant is not registered yet"
)

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def module_of(mod: Any) -> ModuleOp:
    return mod if isinstance(mod, ModuleOp) else mod.module


def main_func(mod: Any) -> FuncOp:
    for f in module_of(mod).ops:
        if isinstance(f, FuncOp) and f.sym_name.data == "main":
            return f
    raise KeyError("main")


def ops_named(mod: Any, name: str) -> list[RelayOp]:
    return [
        op
        for op in main_func(mod).walk()
        if isinstance(op, RelayOp) and op.name == name
    ]


def op_names(mod: Any) -> list[str]:
    return [
        op.name
        for op in main_func(mod).walk()
        if isinstance(op, RelayOp) and not isinstance(op, ConstantOp)
    ]


def producer(value: SSAValue) -> str | None:
    return value.op.name if isinstance(value, OpResult) else None


def sample(mod: Any) -> list[np.ndarray[Any, Any]]:
    arrays: list[np.ndarray[Any, Any]] = []
    for arg in main_func(mod).body.block.args:
        ty = arg.type
        assert isinstance(ty, TensorType)
        npd = numpy_dtype(ty.get_element_type())
        arrays.append(RNG.standard_normal(ty.get_shape()).astype(npd))
    return arrays


def run(
    pass_: Callable[[], Any], body: Any, opt_level: int = 3
) -> tuple[relay.IRModule, Any]:
    """The module of ``body``, and the pass's result; the numerics must agree."""
    before = relay.IRModule.from_expr(body)
    with PassContext(opt_level=opt_level):
        after = pass_()(before)
    args = sample(before)
    expected = interpret(before, *args)
    got = interpret(after, *args)
    if isinstance(expected, tuple):
        for e, g in zip(expected, got, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    return before, after


def unchanged(before: Any, after: Any) -> bool:
    return str(module_of(before)) == str(module_of(after))


# ---------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------


def test_registered_with_relay_names_and_levels():
    listing = {p.name: p for p in list_passes()}
    for name, pipeline, level, required in (
        ("BackwardFoldScaleAxis", "backward-fold-scale-axis", 3, ("InferType",)),
        ("ForwardFoldScaleAxis", "forward-fold-scale-axis", 3, ("InferType",)),
        ("FoldScaleAxis", "fold-scale-axis", 0, ()),
    ):
        entry = listing[name]
        assert (entry.pipeline_name, entry.opt_level, entry.required) == (
            pipeline,
            level,
            required,
        )


@needs_fold_constant
def test_fold_scale_axis_is_a_sequential_of_three():
    p = FoldScaleAxis()
    assert isinstance(p, Sequential)
    assert [c.info.name for c in p.passes] == [
        "BackwardFoldScaleAxis",
        "ForwardFoldScaleAxis",
        "FoldConstant",
    ]


# ---------------------------------------------------------------------------------------
# Forward
# ---------------------------------------------------------------------------------------


def test_fold_fwd_simple():
    x = relay.var("x", shape=(2, 4, 10, 10))
    w = relay.var("w", shape=(2, 4, 3, 3))
    bias = relay.var("bias", shape=(4, 1, 1))
    y = relay.multiply(x, relay.const(positive(4, 1, 1)))
    y = relay.add(relay.nn.relu(y), bias)
    y = relay.nn.conv2d(y, w, channels=2, kernel_size=(3, 3), padding=(1, 1))
    _, after = run(ForwardFoldScaleAxis, relay.Function([x, w, bias], y))
    (conv,) = ops_named(after, "relay.nn.conv2d")
    assert producer(conv.operands[0]) == "relay.add"
    assert producer(conv.operands[1]) == "relay.multiply"
    (relu,) = ops_named(after, "relay.nn.relu")
    assert relu.operands[0] is main_func(after).body.block.args[0]
    assert len(ops_named(after, "relay.divide")) == 1


def test_fold_fwd_dual_path_depthwise_nhwc():
    channels = 3
    x = relay.var("x", shape=(2, 4, 10, channels))
    w = relay.var("w", shape=(3, 3, 1, channels))
    bias = relay.var("bias", shape=(channels,))
    y = relay.multiply(relay.const(positive(channels)), x)
    y = relay.subtract(relay.nn.relu(y), bias)
    convs = [
        relay.nn.conv2d(
            y,
            w,
            channels=channels,
            kernel_size=(3, 3),
            data_layout="NHWC",
            kernel_layout="HWIO",
            groups=channels,
            padding=(1, 1),
        )
        for _ in range(2)
    ]
    _, after = run(
        ForwardFoldScaleAxis,
        relay.Function([x, w, bias], relay.add(convs[0], convs[1])),
    )
    for conv in ops_named(after, "relay.nn.conv2d"):
        assert producer(conv.operands[0]) == "relay.subtract"
        assert producer(conv.operands[1]) == "relay.multiply"
    assert len(ops_named(after, "relay.multiply")) == 2  # the two weights


def test_fold_fwd_fail_other_consumer():
    x = relay.var("x", shape=(2, 11, 10, 4))
    w = relay.var("w", shape=(3, 3, 4, 4))
    y = relay.multiply(x, relay.const(positive(4)))
    conv = relay.nn.conv2d(
        relay.nn.leaky_relu(y, alpha=0.1),
        w,
        channels=4,
        kernel_size=(3, 3),
        data_layout="NHWC",
        kernel_layout="HWIO",
        padding=(1, 1),
    )
    before, after = run(
        ForwardFoldScaleAxis, relay.Function([x, w], relay.add(conv, y))
    )
    assert unchanged(before, after)


@pytest.mark.parametrize("scale", ["var", "negative"])
def test_fold_fwd_relu_fail(scale: str):
    x = relay.var("x", shape=(2, 11, 10, 4))
    w = relay.var("w", shape=(3, 3, 4, 4))
    params = [x, w]
    if scale == "var":
        s = relay.var("s", shape=(4,))
        params.append(s)
    else:
        s = relay.const(-positive(4))
    y = relay.nn.relu(relay.multiply(x, s))
    y = relay.nn.conv2d(
        y,
        w,
        kernel_size=(3, 3),
        data_layout="NHWC",
        kernel_layout="HWIO",
        padding=(1, 1),
    )
    before, after = run(ForwardFoldScaleAxis, relay.Function(params, y))
    assert unchanged(before, after)


def test_fold_fwd_negative_scale_without_relu():
    x = relay.var("x", shape=(2, 4, 10, 10))
    w = relay.var("w", shape=(4, 4, 3, 3))
    y = relay.multiply(x, relay.const(-positive(4, 1, 1)))
    y = relay.nn.conv2d(y, w, channels=4, kernel_size=(3, 3), padding=(1, 1))
    _, after = run(ForwardFoldScaleAxis, relay.Function([x, w], y))
    (conv,) = ops_named(after, "relay.nn.conv2d")
    assert conv.operands[0] is main_func(after).body.block.args[0]


@pytest.mark.parametrize(("dshape", "wshape"), [((2, 4), (3, 4)), ((3, 5), (4, 5))])
def test_fold_fwd_dense(dshape: tuple[int, int], wshape: tuple[int, int]):
    x = relay.var("x", shape=dshape)
    w = relay.var("w", shape=wshape)
    bias = relay.var("bias", shape=(dshape[1],))
    y = relay.multiply(x, relay.const(positive(dshape[1])))
    y = relay.add(relay.nn.relu(y), bias)
    _, after = run(
        ForwardFoldScaleAxis, relay.Function([x, w, bias], relay.nn.dense(y, w))
    )
    (dense,) = ops_named(after, "relay.nn.dense")
    assert producer(dense.operands[0]) == "relay.add"
    assert producer(dense.operands[1]) == "relay.multiply"


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_constant_scale_stays_off_a_weight_above_the_fold_bound(direction: str):
    # a constant scale moves into a constant weight only when FoldConstant will
    # bake the product (relay.FoldConstant.max_elements): a larger weight (a
    # language model's head) would be scaled on every run, and left unpacked
    x = relay.var("x", shape=(2, 4))
    w = relay.const(weights(6, 4))
    if direction == "forward":
        body = relay.nn.dense(relay.multiply(x, relay.const(positive(4))), w)
        pass_: Callable[[], Any] = ForwardFoldScaleAxis
    else:
        body = relay.multiply(relay.nn.dense(x, w), relay.const(positive(6)))
        pass_ = BackwardFoldScaleAxis
    before = relay.IRModule.from_expr(relay.Function([x], body))
    for bound, moved in ((24, True), (23, False)):
        config = {"relay.FoldConstant.max_elements": bound}
        with PassContext(opt_level=3, config=config):
            after = pass_()(before)
        (dense,) = ops_named(after, "relay.nn.dense")
        assert (producer(dense.operands[1]) == "relay.multiply") is moved
        args = sample(before)
        np.testing.assert_allclose(
            interpret(after, *args), interpret(before, *args), rtol=1e-5, atol=1e-6
        )


def test_fold_fwd_grouped_conv_fails():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.var("w", shape=(4, 2, 3, 3))
    y = relay.multiply(x, relay.const(positive(4, 1, 1)))
    y = relay.nn.conv2d(y, w, groups=2, padding=(1, 1))
    before, after = run(ForwardFoldScaleAxis, relay.Function([x, w], y))
    assert unchanged(before, after)


def test_fold_fwd_scalar_scale():
    x = relay.var("x", shape=(1, 3, 6, 6))
    w = relay.var("w", shape=(5, 3, 3, 3))
    y = relay.multiply(x, relay.const(2.0))
    y = relay.nn.conv2d(relay.nn.relu(y), w, padding=(1, 1))
    _, after = run(ForwardFoldScaleAxis, relay.Function([x, w], y))
    (conv,) = ops_named(after, "relay.nn.conv2d")
    assert producer(conv.operands[0]) == "relay.nn.relu"


# ---------------------------------------------------------------------------------------
# Backward
# ---------------------------------------------------------------------------------------


def test_fold_bwd_simple():
    x = relay.var("x", shape=(2, 4, 10, 10))
    w = relay.var("w", shape=(8, 4, 3, 3))
    bias = relay.var("bias", shape=(8,))
    y = relay.nn.conv2d(x, w, channels=8, kernel_size=(3, 3), padding=(1, 1))
    y = relay.add(y, relay.expand_dims(bias, axis=1, num_newaxis=2))
    y = relay.nn.relu(y)
    y = relay.multiply(y, relay.const(positive(8, 1, 1)))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w, bias], y))
    ret = main_func(after).body.block.last_op
    assert ret is not None
    assert producer(ret.operands[0]) == "relay.nn.relu"
    (conv,) = ops_named(after, "relay.nn.conv2d")
    assert producer(conv.operands[1]) == "relay.multiply"
    assert len(ops_named(after, "relay.multiply")) == 2  # weight and bias


def test_fold_bwd_dual_path():
    x = relay.var("x", shape=(2, 4, 10, 10))
    w = relay.var("w", shape=(8, 4, 3, 3))
    y1 = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    y2 = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    y = relay.multiply(relay.add(y1, y2), relay.const(positive(8, 1, 1)))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    ret = main_func(after).body.block.last_op
    assert ret is not None
    assert producer(ret.operands[0]) == "relay.add"
    for conv in ops_named(after, "relay.nn.conv2d"):
        assert producer(conv.operands[1]) == "relay.multiply"


@needs_fold_constant
def test_fold_bwd_simple_constant():
    x = relay.var("data", shape=(1, 3, 20, 20))
    w = relay.const(weights(16, 3, 3, 3))
    b = relay.const(weights(16, 1, 1))
    y = relay.nn.conv2d(x, w, kernel_size=(3, 3), channels=16, padding=(1, 1))
    y = relay.nn.relu(relay.add(y, b))
    y = relay.multiply(y, relay.const(2.0))
    _, after = run(
        lambda: Sequential([get_pass("InferType"), FoldScaleAxis()]),
        relay.Function([x], y),
    )
    assert op_names(after) == ["relay.nn.conv2d", "relay.add", "relay.nn.relu"]


def test_fold_bwd_dual_consumer():
    x = relay.var("x", shape=(2, 4, 10, 10))
    w = relay.var("w", shape=(4, 4, 3, 3))
    s = relay.const(positive(4, 1, 1))

    def block(v: Any) -> Any:
        return relay.nn.relu(relay.multiply(relay.nn.conv2d(v, w, padding=(1, 1)), s))

    y0 = block(x)
    y = relay.add(block(y0), block(y0))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    for conv in ops_named(after, "relay.nn.conv2d"):
        assert producer(conv.operands[1]) == "relay.multiply"
    for relu in ops_named(after, "relay.nn.relu"):
        assert producer(relu.operands[0]) == "relay.nn.conv2d"


def test_fold_bwd_fail_layouts_differ():
    x = relay.var("x", shape=(4, 4, 10, 10))
    w = relay.var("w", shape=(4, 4, 3, 3))
    y1 = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    y2 = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1), out_layout="CNHW"))
    y = relay.multiply(relay.add(y1, y2), relay.const(positive(4, 1, 1)))
    before, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    assert unchanged(before, after)


def test_fold_bwd_fail_conv_used_twice():
    x = relay.var("x", shape=(4, 4, 10, 10))
    w = relay.var("w", shape=(4, 4, 3, 3))
    y1 = relay.nn.conv2d(x, w, padding=(1, 1))
    y2 = relay.nn.relu(y1)
    y = relay.add(relay.multiply(y1, relay.const(positive(4, 1, 1))), y2)
    before, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    assert unchanged(before, after)


@pytest.mark.parametrize("scale", ["var", "negative"])
def test_fold_bwd_relu_fail(scale: str):
    x = relay.var("x", shape=(4, 4, 10, 10))
    w = relay.var("w", shape=(4, 4, 3, 3))
    params = [x, w]
    if scale == "var":
        s = relay.var("s", shape=(4, 1, 1))
        params.append(s)
    else:
        s = relay.const(RNG.uniform(-1.0, 0.0, size=(4, 1, 1)).astype("float32"))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    before, after = run(
        BackwardFoldScaleAxis, relay.Function(params, relay.multiply(y, s))
    )
    assert unchanged(before, after)


def test_fold_bwd_negative_scale():
    x = relay.var("x", shape=(2, 4, 10, 10))
    w = relay.var("w", shape=(8, 4, 3, 3))
    y = relay.nn.conv2d(x, w, padding=(1, 1))
    y = relay.multiply(y, relay.const(-positive(8, 1, 1)))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    ret = main_func(after).body.block.last_op
    assert ret is not None
    assert producer(ret.operands[0]) == "relay.nn.conv2d"


@pytest.mark.parametrize(("dshape", "wshape"), [((2, 4), (3, 4)), ((3, 5), (4, 5))])
def test_fold_bwd_dense(dshape: tuple[int, int], wshape: tuple[int, int]):
    x = relay.var("x", shape=dshape)
    w = relay.var("w", shape=wshape)
    bias = relay.var("bias", shape=(wshape[0],))
    y = relay.nn.relu(relay.add(relay.nn.dense(x, w), bias))
    y = relay.multiply(y, relay.const(positive(wshape[0])))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w, bias], y))
    ret = main_func(after).body.block.last_op
    assert ret is not None
    assert producer(ret.operands[0]) == "relay.nn.relu"
    (dense,) = ops_named(after, "relay.nn.dense")
    assert producer(dense.operands[1]) == "relay.multiply"


def test_fold_bwd_bias_add():
    x = relay.var("x", shape=(2, 4, 10, 10))
    w = relay.var("w", shape=(4, 4, 3, 3))
    bias = relay.var("bias", shape=(4,))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), bias))
    y = relay.multiply(y, relay.const(positive(4, 1, 1)))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w, bias], y))
    (bias_add,) = ops_named(after, "relay.nn.bias_add")
    assert producer(bias_add.operands[1]) == "relay.multiply"


def test_fold_bwd_nhwc_hwio():
    x = relay.var("x", shape=(1, 6, 6, 3))
    w = relay.var("w", shape=(3, 3, 3, 5))
    y = relay.nn.conv2d(
        x, w, data_layout="NHWC", kernel_layout="HWIO", padding=(1, 1), channels=5
    )
    y = relay.multiply(relay.nn.relu(y), relay.const(positive(5)))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    (conv,) = ops_named(after, "relay.nn.conv2d")
    assert producer(conv.operands[1]) == "relay.multiply"
    ret = main_func(after).body.block.last_op
    assert ret is not None
    assert producer(ret.operands[0]) == "relay.nn.relu"


def test_fold_bwd_grouped_conv_fails():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.var("w", shape=(4, 2, 3, 3))
    y = relay.nn.conv2d(x, w, groups=2, padding=(1, 1))
    y = relay.multiply(y, relay.const(positive(4, 1, 1)))
    before, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    assert unchanged(before, after)


def test_fold_bwd_depthwise():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.var("w", shape=(4, 1, 3, 3))
    y = relay.nn.conv2d(x, w, groups=4, padding=(1, 1))
    y = relay.multiply(y, relay.const(positive(4, 1, 1)))
    _, after = run(BackwardFoldScaleAxis, relay.Function([x, w], y))
    ret = main_func(after).body.block.last_op
    assert ret is not None
    assert producer(ret.operands[0]) == "relay.nn.conv2d"


# ---------------------------------------------------------------------------------------
# FoldScaleAxis: gating and folding into constants
# ---------------------------------------------------------------------------------------


def _conv_bn_relu() -> Any:
    """conv → per-channel scale and shift (batch_norm after SimplifyInference) → relu
    → per-channel scale → conv."""
    x = relay.var("x", shape=(1, 3, 8, 8))
    y = relay.nn.conv2d(x, relay.const(weights(6, 3, 3, 3)), padding=(1, 1))
    y = relay.multiply(y, relay.const(positive(6, 1, 1)))
    y = relay.add(y, relay.const(weights(6, 1, 1)))
    y = relay.nn.relu(y)
    y = relay.multiply(y, relay.const(positive(6, 1, 1)))
    y = relay.nn.conv2d(y, relay.const(weights(4, 6, 3, 3)), padding=(1, 1))
    return relay.Function([x], y)


@needs_fold_constant
def test_fold_scale_axis_bakes_the_weights():
    _, after = run(FoldScaleAxis, _conv_bn_relu())
    assert op_names(after) == [
        "relay.nn.conv2d",
        "relay.add",
        "relay.nn.relu",
        "relay.nn.conv2d",
    ]
    for conv in ops_named(after, "relay.nn.conv2d"):
        assert producer(conv.operands[1]) == "relay.constant"


@needs_fold_constant
def test_fold_scale_axis_gated_below_opt_level_3():
    before, after = run(FoldScaleAxis, _conv_bn_relu(), opt_level=2)
    assert op_names(after) == op_names(before)


def test_pipeline_names_run_from_the_registry():
    before = relay.IRModule.from_expr(_conv_bn_relu())
    with PassContext(opt_level=3):
        after = get_pass("backward-fold-scale-axis")(before)
        after = get_pass("forward-fold-scale-axis")(after)
    assert len(ops_named(after, "relay.multiply")) >= 2  # on the weights only
    for conv in ops_named(after, "relay.nn.conv2d"):
        assert producer(conv.operands[0]) != "relay.multiply"


# ---------------------------------------------------------------------------------------
# Random conv chains keep their numerics through all three passes
# ---------------------------------------------------------------------------------------


def _random_chain(rng: np.random.Generator) -> Any:
    c = 4
    nhwc = bool(rng.integers(2))
    data_layout = "NHWC" if nhwc else "NCHW"
    kernel_layout = str(rng.choice(["HWIO", "OIHW"]))
    axis = 3 if nhwc else 1
    x = relay.var("x", shape=(1, 5, 5, c) if nhwc else (1, c, 5, 5))
    channel_shape = (c,) if nhwc else (c, 1, 1)

    def scale() -> Any:
        shape = [channel_shape, tuple(c if i == axis else 1 for i in range(4)), ()][
            int(rng.integers(3))
        ]
        low = -1.0 if rng.random() < 0.3 else 0.2
        return relay.const(rng.uniform(low, 2.0, shape).astype("float32"))

    def weight() -> Any:
        shape = (c, c, 3, 3) if kernel_layout == "OIHW" else (3, 3, c, c)
        return relay.const(rng.standard_normal(shape).astype("float32"))

    v: Any = x
    for _ in range(int(rng.integers(2, 8))):
        kind = int(rng.integers(7))
        if kind == 0:
            v = relay.multiply(v, scale())
        elif kind == 1:
            v = relay.nn.relu(v)
        elif kind == 2:
            v = relay.nn.leaky_relu(v, 0.2)
        elif kind == 3:
            v = relay.add(
                v, relay.const(rng.standard_normal(channel_shape).astype("float32"))
            )
        elif kind == 4:
            v = relay.nn.conv2d(
                v,
                weight(),
                padding=(1, 1),
                data_layout=data_layout,
                kernel_layout=kernel_layout,
            )
        elif kind == 5:
            bias = relay.const(rng.standard_normal((c,)).astype("float32"))
            v = relay.nn.bias_add(v, bias, axis=axis)
        else:
            other = relay.const(rng.standard_normal(channel_shape).astype("float32"))
            v = relay.subtract(other, v)
    if rng.random() < 0.3:
        v = relay.add(v, relay.nn.relu(v))
    return relay.Function([x], v)


@pytest.mark.parametrize("seed", range(40))
def test_random_chains_keep_numerics(seed: int):
    rng = np.random.default_rng(seed)
    passes: list[Callable[[], Any]] = [BackwardFoldScaleAxis, ForwardFoldScaleAxis]
    if fold_constant_available():
        passes.append(FoldScaleAxis)
    body = _random_chain(rng)
    for pass_ in passes:
        run(pass_, body)


def test_fold_scale_axis_without_fold_constant(monkeypatch: pytest.MonkeyPatch):
    import xrelay.transforms.fold_scale_axis as module

    def missing(name: str, **options: Any) -> Any:
        raise UnknownPassError(f"Cannot use {name} to create the pass")

    monkeypatch.setattr(module, "get_pass", missing)
    p = module.FoldScaleAxis()  # can be made (and listed) without FoldConstant
    assert [c.info.name for c in p.passes] == [
        "BackwardFoldScaleAxis",
        "ForwardFoldScaleAxis",
    ]
    with pytest.raises(UnknownPassError, match="FoldConstant"):
        p(relay.IRModule.from_expr(_conv_bn_relu()))
