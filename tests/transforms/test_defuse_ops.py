"""DefuseOps: DefuseOps(FuseOps(m)) is structurally equal to m on several models;
inlining details; removal of the primitive functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp

from xrelay import relay
from xrelay.dialects.relay import PRIMITIVE
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.runtime.interpreter import interpret
from xrelay.transforms.defuse_ops import DefuseError, DefuseOps, defuse_ops, reschedule

Array = np.ndarray[Any, Any]
Parse = Callable[[str], ModuleOp]


def f32(*shape: int, seed: int = 0) -> Array:
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def conv(data: Any, weight: Any, kernel: int = 3, strides: int = 1) -> Any:
    pad = (kernel // 2, kernel // 2)
    return relay.nn.conv2d(
        data, weight, strides=(strides, strides), kernel_size=(kernel, kernel),
        padding=pad,
    )  # fmt: skip


def bn_relu(data: Any, channels: int, tag: str, relu: bool = True) -> Any:
    g, b, m, v = (
        relay.var(f"{tag}_{n}", shape=(channels,)) for n in ("g", "b", "m", "v")
    )
    out = relay.nn.batch_norm(data, g, b, m, v)[0]
    return relay.nn.relu(out) if relu else out


# ---------------------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------------------


def simple() -> Any:
    x = relay.var("x", shape=(10, 20))
    return relay.squeeze(relay.exp(relay.add(x, relay.const(1, "float32"))))


def inception_like() -> Any:
    def block(data: Any, channels: int, tag: str) -> Any:
        cs = [
            relay.nn.relu(
                conv(data, relay.var(f"w{tag}{i}", shape=(4, channels, 3, 3)))
            )
            for i in range(2)
        ]
        return relay.concatenate(cs, axis=1)

    return block(block(relay.var("x", shape=(1, 4, 6, 6)), 4, "a"), 8, "b")


def mlp() -> Any:
    x = relay.var("input", shape=(1, 32))
    h = relay.nn.relu(
        relay.nn.bias_add(
            relay.nn.dense(x, relay.var("w1", shape=(16, 32))),
            relay.var("b1", shape=(16,)),
        )
    )
    logits = relay.nn.bias_add(
        relay.nn.dense(h, relay.var("w2", shape=(10, 16))), relay.var("b2", shape=(10,))
    )
    return relay.nn.softmax(logits)


def cnn_small() -> Any:
    x = relay.var("input", shape=(1, 3, 8, 8))
    y = bn_relu(conv(x, relay.var("w1", shape=(8, 3, 3, 3))), 8, "bn1")
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    y = bn_relu(conv(y, relay.var("w2", shape=(8, 8, 3, 3))), 8, "bn2")
    y = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y))
    y = relay.nn.dense(y, relay.var("w3", shape=(10, 8)))
    return relay.nn.softmax(relay.add(y, relay.const(np.arange(10, dtype="float32"))))


def resnet_block() -> Any:
    x = relay.var("input", shape=(1, 4, 6, 6))
    y = bn_relu(conv(x, relay.var("w1", shape=(4, 4, 3, 3))), 4, "bn1")
    y = bn_relu(conv(y, relay.var("w2", shape=(4, 4, 3, 3))), 4, "bn2", relu=False)
    y = relay.nn.relu(relay.add(y, x))
    return relay.nn.dense(relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y)),
                          relay.var("fc", shape=(3, 4)))  # fmt: skip


def split_tuple() -> Any:
    x = relay.var("x", shape=(6, 9))
    parts = relay.split(x, 3)
    a = relay.add(parts[0], relay.nn.l2_normalize(parts[1], 1e-5))
    return relay.Tuple((relay.exp(a), relay.concatenate([parts[2], a], axis=1), x))


def with_if() -> Any:
    c = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(4,))
    y = relay.exp(x)
    branch = relay.If(c, relay.nn.relu(relay.add(y, y)), relay.negative(x))
    return relay.multiply(branch, relay.const(2, "float32"))


def take_model() -> Any:
    x = relay.var("x", shape=(10, 1))
    concat = relay.concatenate([x, x], axis=-1)
    return relay.take(concat, indices=relay.const([0], dtype="int64"))


MODELS: dict[str, Callable[[], Any]] = {
    "simple": simple,
    "inception_like": inception_like,
    "mlp": mlp,
    "cnn_small": cnn_small,
    "resnet_block": resnet_block,
    "split_tuple": split_tuple,
    "with_if": with_if,
    "take": take_model,
}


def build(name: str) -> relay.IRModule:
    out = MODELS[name]()
    return relay.IRModule.from_expr(relay.Function(relay.analysis.free_vars(out), out))


def inputs(mod: relay.IRModule) -> list[Array]:
    main = mod.func_op("main")
    args: list[Array] = []
    for i, arg in enumerate(main.body.block.args):
        ty: Any = arg.type
        shape = tuple(ty.get_shape())
        if str(ty.get_element_type()) == "i1":
            args.append(np.array(True))
        elif (arg.name_hint or "").endswith("_v"):
            args.append(np.abs(f32(*shape, seed=i)) + 0.5)
        else:
            args.append(f32(*shape, seed=i) * 0.5)
    return args


def primitive_calls(mod: ModuleOp) -> int:
    return sum(isinstance(op, CallOp) for op in mod.walk())


# ---------------------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("level", [0, 2])
def test_round_trip(name: str, level: int):
    mod = build(name)
    with PassContext(opt_level=3):
        fused = get_pass("FuseOps", fuse_opt_level=level)(mod)
        assert primitive_calls(fused.module) > 0
        defused = DefuseOps()(fused)
    assert defused.module.is_structurally_equivalent(mod.module), str(defused.module)
    assert str(defused.module) == str(mod.module)  # names come back as well
    args = inputs(mod)
    for want, got in zip(
        _flat(interpret(mod, *args)), _flat(interpret(fused, *args)), strict=True
    ):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_round_trip_with_linked_params():
    mod = build("take")
    with PassContext(config={"relay.FuseOps.link_params": True}):
        fused = get_pass("FuseOps")(mod)
    defused = DefuseOps()(fused)
    assert defused.module.is_structurally_equivalent(mod.module)


def test_round_trip_in_a_sequential():
    mod = build("cnn_small")
    seq = Sequential([get_pass("FuseOps"), get_pass("DefuseOps")], opt_level=3)
    with PassContext(opt_level=3):
        out = seq(mod)
    assert out.module.is_structurally_equivalent(mod.module)


def _flat(value: Any) -> list[Array]:
    if isinstance(value, tuple):
        return [a for v in value for a in _flat(v)]
    return [np.asarray(value)]


# ---------------------------------------------------------------------------------------
# inlining details
# ---------------------------------------------------------------------------------------

SHARED_KERNEL = """
func.func private @k(%p0: tensor<3xf32>, %p1: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = relay.add %p0, %p1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.exp %0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @k(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = func.call @k(%0, %0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
"""


def test_kernel_called_twice_is_inlined_twice(parse: Parse):
    mod = parse(SHARED_KERNEL)
    x, y = f32(3), f32(3, seed=1)
    want = interpret(mod, x, y)
    defuse_ops(mod)
    funcs = [f for f in mod.ops if isinstance(f, FuncOp)]
    assert [f.sym_name.data for f in funcs] == ["main"]
    assert [op.name for op in funcs[0].body.block.ops] == [
        "relay.add", "relay.exp", "relay.add", "relay.exp", "func.return"
    ]  # fmt: skip
    np.testing.assert_allclose(interpret(mod, x, y), want, rtol=1e-6)


def test_kernel_used_by_skipped_function_is_kept(parse: Parse):
    text = (
        SHARED_KERNEL
        + """
func.func @other(%x: tensor<3xf32>) -> tensor<3xf32> attributes {relay.skip_optimization} {
  %0 = func.call @k(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""
    )
    mod = parse(text)
    defuse_ops(mod)
    names = [f.sym_name.data for f in mod.ops if isinstance(f, FuncOp)]
    assert names == ["k", "main", "other"]
    main = next(
        f for f in mod.ops if isinstance(f, FuncOp) and f.sym_name.data == "main"
    )
    assert not any(isinstance(op, CallOp) for op in main.walk())


def test_nested_kernels_are_inlined(parse: Parse):
    mod = parse(
        """
func.func private @inner(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = relay.exp %p0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
func.func private @outer(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = func.call @inner(%p0) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.negative %0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @outer(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""
    )
    defuse_ops(mod)
    assert [f.sym_name.data for f in mod.ops if isinstance(f, FuncOp)] == ["main"]
    assert [op.name for op in mod.walk() if op.name.startswith("relay.")] == [
        "relay.exp", "relay.negative"
    ]  # fmt: skip


def test_recursive_kernels_are_an_error(parse: Parse):
    mod = parse(
        """
func.func private @k(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = func.call @k(%p0) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @k(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""
    )
    with pytest.raises(DefuseError, match=r"@main: cannot inline @k.*k -> k"):
        defuse_ops(mod)


def test_no_primitive_functions_is_a_no_op(parse: Parse):
    text = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = relay.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.log %x : (tensor<3xf32>) -> tensor<3xf32>
  %2 = relay.add %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}
"""
    mod = parse(text)
    defuse_ops(mod)  # not in post-DFS order, but nothing is inlined: left alone
    assert mod.is_structurally_equivalent(parse(text))


def test_round_trip_of_hand_ordered_ir_is_equal_up_to_order(parse: Parse):
    text = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = relay.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.sum %y : (tensor<3xf32>) -> tensor<f32>
  %2 = relay.add %0, %1 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}
"""
    mod = parse(text)
    with PassContext(opt_level=2):
        out = DefuseOps()(get_pass("FuseOps")(mod))
    # this input is already in post-DFS order (exp, then sum): exact
    assert out.is_structurally_equivalent(parse(text))

    reordered = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %1 = relay.sum %y : (tensor<3xf32>) -> tensor<f32>
  %0 = relay.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %2 = relay.add %0, %1 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}
"""
    mod = parse(reordered)
    with PassContext(opt_level=2):
        out = DefuseOps()(get_pass("FuseOps")(mod))
    assert not out.is_structurally_equivalent(parse(reordered))
    expected = parse(reordered)
    main = next(iter(expected.ops))
    assert isinstance(main, FuncOp)
    reschedule(main.body.block)  # the same module in post-DFS order
    assert out.is_structurally_equivalent(expected)


def test_registration():
    p = get_pass("defuse-ops")
    assert (p.info.name, p.info.opt_level, tuple(p.info.required)) == (
        "DefuseOps",
        3,
        ("InferType",),
    )


def test_primitive_attribute_constant():
    assert PRIMITIVE == "relay.primitive"
