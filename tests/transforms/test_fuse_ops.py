"""FuseOps: Relay's test_pass_fuse_ops.py scenarios as checks on the groups (which ops
end up in which primitive function), plus interpreter numerics before/after."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp

from xrelay import relay
from xrelay.dialects.relay import PRIMITIVE
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.runtime.interpreter import interpret
from xrelay.transforms._fusion import build_graph, partition, post_dfs_order
from xrelay.transforms.fuse_ops import FuseOps, fuse_ops, kernel_name

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

Array = np.ndarray[Any, Any]
Parse = Callable[[str], ModuleOp]


def build(expr: Any) -> relay.IRModule:
    return relay.IRModule.from_expr(expr)


def fuse(mod: relay.IRModule, level: int = 2, **config: Any) -> relay.IRModule:
    cfg = {f"relay.FuseOps.{k}": v for k, v in config.items()}
    with PassContext(opt_level=2, config=cfg):
        return FuseOps(fuse_opt_level=level)(mod)


def functions(mod: relay.IRModule) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in mod.module.ops if isinstance(f, FuncOp)}


def body_ops(func: FuncOp, skip_constants: bool = True) -> list[str]:
    """The op names of a function body (``relay.`` dropped), without the return."""
    names: list[str] = []
    for op in func.body.block.ops:
        if isinstance(op, ReturnOp):
            continue
        if skip_constants and op.name == "relay.constant":
            continue
        names.append(op.name.removeprefix("relay."))
    return names


def groups(mod: relay.IRModule) -> list[list[str]]:
    """The ops of each primitive function, in the order main calls them."""
    funcs = functions(mod)
    out: list[list[str]] = []
    for op in funcs["main"].walk():
        if isinstance(op, CallOp):
            callee = funcs[op.callee.string_value()]
            assert PRIMITIVE in callee.attributes
            out.append(body_ops(callee))
    return out


def main_ops(mod: relay.IRModule) -> list[str]:
    return body_ops(functions(mod)["main"], skip_constants=False)


def f32(*shape: int, seed: int = 0) -> Array:
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def same_numerics(before: relay.IRModule, after: relay.IRModule, *args: Any) -> None:
    want = interpret(before, *args)
    got = interpret(after, *args)
    for w, g in zip(_flat(want), _flat(got), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _flat(value: Any) -> list[Array]:
    if isinstance(value, tuple):
        return [a for v in value for a in _flat(v)]
    return [np.asarray(value)]


def conv(data: Any, weight: Any, kernel: int = 3) -> Any:
    pad = (kernel // 2, kernel // 2)
    return relay.nn.conv2d(data, weight, kernel_size=(kernel, kernel), padding=pad)


# ---------------------------------------------------------------------------------------
# Relay's scenarios
# ---------------------------------------------------------------------------------------


def test_fuse_simple():
    x = relay.var("x", shape=(10, 20))
    y = relay.squeeze(relay.exp(relay.add(x, relay.const(1, "float32"))))
    mod = build(relay.Function([x], y))
    fused = fuse(mod)
    assert groups(fused) == [["add", "exp", "squeeze"]]
    funcs = functions(fused)
    assert list(funcs) == ["fused_add_exp_squeeze", "main"]
    kernel = funcs["fused_add_exp_squeeze"]
    # the scalar constant is fused into the kernel, x is its only parameter
    assert body_ops(kernel, skip_constants=False)[0] == "constant"
    assert [a.name_hint for a in kernel.body.block.args] == ["p0"]
    assert kernel.sym_visibility is not None
    assert kernel.sym_visibility.data == "private"
    assert main_ops(fused) == ["func.call"]
    same_numerics(mod, fused, f32(10, 20))


def test_conv2d_fuse():
    dshape = (1, 4, 8, 8)
    x = relay.var("x", shape=dshape)
    w1, w2, w3 = (relay.var(f"w{i}", shape=(4, 4, 3, 3)) for i in (1, 2, 3))
    w2 = relay.var("w2", shape=(4, 4, 1, 1))
    y = conv(relay.add(x, relay.const(1, "float32")), w1)
    y1 = relay.add(relay.const(1, "float32"), y)  # the next post-dominator
    y = relay.add(y, y1)
    z2 = conv(y, w2, kernel=1)
    z3 = conv(y, w3)
    z = relay.add(z2, z3)  # can only take one of the convs
    mod = build(relay.Function([x, w1, w2, w3], z))
    fused = fuse(mod)
    assert groups(fused) == [
        ["add"],
        ["nn.conv2d", "add", "add"],
        ["nn.conv2d"],  # z3
        ["nn.conv2d", "add"],  # z2 + z
    ]
    kernel = functions(fused)["fused_nn_conv2d_add"]
    conv_op = next(iter(kernel.body.block.ops))
    assert str(conv_op.operands[1].type) == "tensor<4x4x1x1xf32>"  # the 1x1 conv
    same_numerics(
        mod, fused, f32(*dshape), f32(4, 4, 3, 3, seed=1), f32(4, 4, 1, 1, seed=2),
        f32(4, 4, 3, 3, seed=3),
    )  # fmt: skip


def _pool_upsample(x: Any) -> Any:
    pooled = relay.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2))
    return relay.repeat(relay.repeat(pooled, 2, axis=2), 2, axis=3)


def test_concatenate():
    dshape = (1, 4, 8, 8)
    x = relay.var("x", shape=dshape)
    concat = relay.concatenate((_pool_upsample(x), x), axis=1)
    out = relay.add(concat, relay.const(1, "float32"))
    mod = build(relay.Function([x], out))
    assert groups(fuse(mod, level=0)) == [
        ["nn.max_pool2d"], ["repeat"], ["repeat"], ["concatenate"], ["add"]
    ]  # fmt: skip
    fused = fuse(mod)
    assert groups(fused) == [
        ["nn.max_pool2d"],
        ["repeat", "repeat", "concatenate", "add"],
    ]
    # the concatenate kernel takes the pooled value and x, de-duplicated
    kernel = functions(fused)["fused_repeat_repeat_concatenate_add"]
    assert [str(a.type) for a in kernel.body.block.args] == [
        "tensor<1x4x4x4xf32>",
        "tensor<1x4x8x8xf32>",
    ]
    same_numerics(mod, fused, f32(*dshape))


def test_tuple_root():
    dshape = (1, 4, 8, 8)
    x = relay.var("x", shape=dshape)
    out = relay.Tuple((_pool_upsample(x), x))
    mod = build(relay.Function([x], out))
    fused = fuse(mod)
    assert groups(fused) == [["nn.max_pool2d"], ["repeat", "repeat"]]
    # a tuple at the root of its group stays in the caller
    assert main_ops(fused) == ["func.call", "func.call", "tuple"]
    same_numerics(mod, fused, f32(*dshape))


def test_tuple_intermediate():
    x = relay.var("x", shape=(1, 4, 8, 8))
    one = relay.const(1, "float32")
    inj = relay.squeeze(x)
    y1 = relay.add(inj, one)
    tmp = relay.add(relay.squeeze(inj), one)
    y2 = relay.add(tmp, one)
    y3 = relay.add(inj, one)
    out = relay.add(relay.squeeze(relay.concatenate((y1, y2, y3), axis=1)), one)
    mod = build(relay.Function([x], out))
    fused = fuse(mod)
    assert len(groups(fused)) == 1
    assert sorted(groups(fused)[0]) == sorted(
        ["squeeze", "add", "squeeze", "add", "add", "add", "concatenate", "squeeze",
         "add"]
    )  # fmt: skip
    same_numerics(mod, fused, f32(1, 4, 8, 8))


def _intermediate_tuple(x: Any) -> Any:
    ys = [relay.add(x, relay.const(1, "float32")) for _ in range(3)]
    return relay.add(relay.concatenate(ys, axis=1), relay.const(1, "float32"))


def test_tuple_consecutive():
    x = relay.var("x", shape=(1, 2, 4, 4))
    concat = relay.concatenate([_intermediate_tuple(x) for _ in range(3)], axis=1)
    pooled = relay.nn.max_pool2d(concat, pool_size=(2, 2), strides=(2, 2))
    out = relay.add(pooled, relay.const(1, "float32"))
    out2 = relay.add(out, relay.const(1, "float32"))
    mod = build(relay.Function([x], relay.Tuple((out, out2))))
    fused = fuse(mod)
    inner = ["add", "add", "add", "concatenate", "add"]
    assert groups(fused) == [
        [*inner, *inner, *inner, "concatenate"],
        ["nn.max_pool2d", "add"],
        ["add"],
    ]
    same_numerics(mod, fused, f32(1, 2, 4, 4))


def _inception_like(data: Any, channels: int, tag: str) -> Any:
    c0 = relay.nn.relu(conv(data, relay.var(f"w{tag}0", shape=(4, channels, 3, 3))))
    c1 = relay.nn.relu(conv(data, relay.var(f"w{tag}1", shape=(4, channels, 3, 3))))
    return relay.concatenate((c0, c1), axis=1)


def test_inception_like():
    x = relay.var("x", shape=(1, 4, 6, 6))
    out = _inception_like(_inception_like(x, 4, "a"), 8, "b")
    mod = build(relay.Function(relay.analysis.free_vars(out), out))
    fused = fuse(mod)
    conv_relu = ["nn.conv2d", "nn.relu"]
    assert groups(fused) == [
        conv_relu, conv_relu, ["concatenate"], conv_relu, conv_relu, ["concatenate"]
    ]  # fmt: skip
    names = list(functions(fused))
    assert names[:3] == [
        "fused_nn_conv2d_nn_relu",
        "fused_nn_conv2d_nn_relu_1",
        "fused_concatenate",
    ]
    args = [f32(1, 4, 6, 6)] + [
        f32(4, c, 3, 3, seed=i) for i, c in enumerate((4, 4, 8, 8), start=1)
    ]
    same_numerics(mod, fused, *args)


def test_fuse_parallel_injective():
    x = relay.var("x", shape=(10, 20))
    y = relay.add(x, relay.const(1, "float32"))
    out = relay.subtract(relay.squeeze(y), relay.transpose(y, axes=[0, 1]))
    mod = build(relay.Function([x], out))
    assert len(groups(fuse(mod, level=0))) == 4
    fused = fuse(mod)
    assert groups(fused) == [["add", "squeeze", "transpose", "subtract"]]
    same_numerics(mod, fused, f32(10, 20))


def test_split_with_opaque_branch():
    """An opaque op on one path keeps split alone: its kernel returns every field."""
    x = relay.var("x", shape=(6, 9))
    parts = relay.split(x, 3)
    out = relay.add(
        relay.add(parts[0], relay.nn.l2_normalize(parts[1], 1e-5)), parts[2]
    )
    mod = build(relay.Function([x], out))
    fused = fuse(mod)
    assert groups(fused) == [["split"], ["nn.l2_normalize"], ["add", "add"]]
    split_kernel = functions(fused)["fused_split"]
    assert len(split_kernel.function_type.outputs.data) == 3
    same_numerics(mod, fused, f32(6, 9))


def test_fuse_tuple_get_elemwise():
    x = relay.var("X", shape=(1, 10))
    w = relay.var("W", shape=(30, 10))
    parts = relay.split(relay.nn.dense(x, w), indices_or_sections=3, axis=1)
    out = relay.add(
        relay.sigmoid(parts[0]),
        relay.multiply(relay.tanh(parts[1]), relay.exp(parts[2])),
    )
    mod = build(relay.Function([x, w], out))
    fused = fuse(mod)
    assert groups(fused) == [
        ["nn.dense"],
        ["split", "sigmoid", "tanh", "exp", "multiply", "add"],
    ]
    same_numerics(mod, fused, f32(1, 10), f32(30, 10, seed=1))


def test_tuple_get_root():
    x = relay.var("X", shape=(1, 30))
    w = relay.var("W", shape=(10, 10))
    out = relay.nn.dense(relay.split(x, 3, axis=1)[0], w)
    mod = build(relay.Function([x, w], out))
    fused = fuse(mod)
    assert groups(fused) == [["split"], ["nn.dense"]]
    same_numerics(mod, fused, f32(1, 30), f32(10, 10, seed=1))


TUPLE_PROJECTION = """
func.func @main(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = relay.exp %x : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = relay.transpose %x : (tensor<4x5xf32>) -> tensor<5x4xf32>
  %2 = relay.transpose %1 : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %t = relay.tuple %0, %2 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tuple<tensor<4x5xf32>, tensor<4x5xf32>>
  %3 = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<4x5xf32>, tensor<4x5xf32>>) -> tensor<4x5xf32>
  %4 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<4x5xf32>, tensor<4x5xf32>>) -> tensor<4x5xf32>
  %5 = relay.add %3, %4 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  func.return %5 : tensor<4x5xf32>
}
"""


def test_intermediate_tuple_pulls_its_fields_in(parse: Parse):
    """A relay.tuple projected by tuple_get_item joins the projections' consumer in
    phase 1; phase 2 then pulls the producers of its fields into that group."""
    mod = relay.IRModule(parse(TUPLE_PROJECTION))
    fused = fuse(mod)
    assert len(groups(fused)) == 1
    assert sorted(groups(fused)[0]) == sorted(
        ["exp", "transpose", "transpose", "tuple", "tuple_get_item", "tuple_get_item",
         "add"]
    )  # fmt: skip
    same_numerics(mod, fused, f32(4, 5))


def test_projection_of_outside_tuple_stays(parse: Parse):
    """At level 0 a projection whose tuple is in another group is left in place."""
    mod = relay.IRModule(parse(TUPLE_PROJECTION))
    fused = fuse(mod, level=0)
    assert main_ops(fused) == [
        "func.call", "func.call", "func.call", "tuple", "tuple_get_item",
        "tuple_get_item", "func.call",
    ]  # fmt: skip
    same_numerics(mod, fused, f32(4, 5))


def _exp_chain(n: int) -> relay.IRModule:
    x = relay.var("x", shape=(10, 20))
    y: Any = x
    for _ in range(n):
        y = relay.exp(y)
    return build(relay.Function([x], y))


def test_fuse_max():
    mod = _exp_chain(20)
    fused = fuse(mod, max_depth=10)
    assert groups(fused) == [["exp"] * 10, ["exp"] * 10]
    same_numerics(mod, fused, f32(10, 20) * 0.01)


def test_fuse_max_default_depth():
    fused = fuse(_exp_chain(300))
    assert [len(g) for g in groups(fused)] == [256, 44]
    names = list(functions(fused))
    assert all(len(n) <= 80 for n in names)
    assert names[0] != names[1]


def test_fuse_max_diamond():
    def diamond(x: Any, branch_len: int) -> Any:
        x1 = x2 = x
        for _ in range(branch_len):
            x1, x2 = relay.exp(x1), relay.exp(x2)
        return relay.add(x1, x2)

    x = relay.var("x", shape=(10, 20))
    out: Any = x
    for _ in range(3):
        out = diamond(out, 5)
    mod = build(relay.Function([x], out))
    fused = fuse(mod, max_depth=11)  # exactly one diamond
    assert [sorted(g) for g in groups(fused)] == [sorted(["exp"] * 10 + ["add"])] * 3
    same_numerics(mod, fused, f32(10, 20) * 0.001)


@pytest.mark.parametrize("link_params", [False, True])
def test_fuse_take(link_params: bool):
    x = relay.var("x", shape=(10, 1))
    concat = relay.concatenate([x, x], axis=-1)
    out = relay.take(concat, indices=relay.const([0], dtype="int64"))
    mod = build(relay.Function([x], out))
    fused = fuse(mod, link_params=link_params)
    funcs = functions(fused)
    kernel = funcs["fused_concatenate_take"]
    assert groups(fused) == [["concatenate", "take"]]
    args = [str(a.type) for a in kernel.body.block.args]
    if link_params:
        assert args == ["tensor<10x1xf32>"]
        assert body_ops(kernel, skip_constants=False) == [
            "concatenate", "constant", "take"
        ]  # fmt: skip
        assert main_ops(fused) == ["func.call"]
    else:  # the non-scalar constant is an input; x is passed once
        assert args == ["tensor<10x1xf32>", "tensor<1xi64>"]
        assert main_ops(fused) == ["constant", "func.call"]
    same_numerics(mod, fused, f32(10, 1))


@pytest.mark.parametrize("link_params", [False, True])
def test_fuse_gather_nd(link_params: bool):
    x = relay.var("x", shape=(10, 1))
    concat = relay.concatenate([x, x], axis=-1)
    out = relay.gather_nd(concat, indices=relay.const([[0, 1], [1, 0]], dtype="int64"))
    mod = build(relay.Function([x], out))
    fused = fuse(mod, link_params=link_params)
    assert groups(fused) == [["concatenate", "gather_nd"]]
    kernel = functions(fused)["fused_concatenate_gather_nd"]
    assert len(kernel.body.block.args) == (1 if link_params else 2)
    same_numerics(mod, fused, f32(10, 1))


def test_fuse_bcast_reduce_scalar():
    x = relay.var("x", shape=(), dtype="int32")
    out = relay.min(relay.less(x, relay.const(10, dtype="int32")))
    mod = build(relay.Function([x], out))
    fused = fuse(mod)
    assert groups(fused) == [["less", "min"]]
    assert body_ops(functions(fused)["fused_less_min"], skip_constants=False) == [
        "constant", "less", "min"
    ]  # fmt: skip
    for value in (3, 12):
        same_numerics(mod, fused, np.array(value, dtype="int32"))


def test_fuse_softmax():
    x = relay.var("x", shape=(16, 16))
    out = relay.cast(relay.nn.softmax(x), "float16")
    mod = build(relay.Function([x], out))
    fused = fuse(mod)
    assert groups(fused) == [["nn.softmax", "cast"]]
    same_numerics(mod, fused, f32(16, 16))


# ---------------------------------------------------------------------------------------
# The rules, one by one
# ---------------------------------------------------------------------------------------


def test_conv_bias_relu_one_group():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(8, 3, 3, 3))
    b = relay.var("b", shape=(8,))
    out = relay.nn.relu(relay.nn.bias_add(conv(x, w), b))
    mod = build(relay.Function([x, w, b], out))
    fused = fuse(mod)
    assert groups(fused) == [["nn.conv2d", "nn.bias_add", "nn.relu"]]
    assert "fused_nn_conv2d_nn_bias_add_nn_relu" in functions(fused)
    same_numerics(mod, fused, f32(1, 3, 8, 8), f32(8, 3, 3, 3, seed=1), f32(8, seed=2))


def test_two_anchors_never_share_a_group():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w1 = relay.var("w1", shape=(4, 4, 3, 3))
    w2 = relay.var("w2", shape=(4, 4, 3, 3))
    out = relay.nn.relu(conv(relay.nn.relu(conv(x, w1)), w2))
    mod = build(relay.Function([x, w1, w2], out))
    fused = fuse(mod)
    assert groups(fused) == [["nn.conv2d", "nn.relu"], ["nn.conv2d", "nn.relu"]]
    same_numerics(mod, fused, f32(1, 4, 6, 6), f32(4, 4, 3, 3, seed=1), f32(4, 4, 3, 3))


def test_anchor_does_not_take_a_broadcasting_consumer():
    """conv2d's post-dominator edge must be elementwise: an add that broadcasts the
    conv output up to a larger shape stays out of the conv's group."""
    x = relay.var("x", shape=(1, 4, 6, 1))
    w = relay.var("w", shape=(4, 4, 1, 1))
    y = relay.var("y", shape=(1, 4, 6, 6))
    out = relay.add(conv(x, w, kernel=1), y)
    mod = build(relay.Function([x, w, y], out))
    fused = fuse(mod)
    assert groups(fused) == [["nn.conv2d"], ["add"]]
    same_numerics(mod, fused, f32(1, 4, 6, 1), f32(4, 4, 1, 1), f32(1, 4, 6, 6))


def test_reduce_never_starts_a_fusion():
    x = relay.var("x", shape=(4, 8))
    out = relay.exp(relay.sum(relay.exp(x), axis=1))
    mod = build(relay.Function([x], out))
    fused = fuse(mod)
    # elemwise → reduce fuses; reduce → elemwise does not
    assert groups(fused) == [["exp", "sum"], ["exp"]]
    same_numerics(mod, fused, f32(4, 8))


def test_opaque_op_never_fuses():
    x = relay.var("x", shape=(1, 4, 3, 3))
    g, b, m, v = vecs = [relay.var(n, shape=(4,)) for n in ("g", "b", "m", "v")]
    bn = relay.nn.batch_norm(relay.exp(x), g, b, m, v)
    out = relay.nn.relu(bn[0])
    mod = build(relay.Function([x, *vecs], out))
    fused = fuse(mod)
    assert groups(fused) == [["exp"], ["nn.batch_norm"], ["nn.relu"]]
    bn_kernel = functions(fused)["fused_nn_batch_norm"]
    assert len(bn_kernel.function_type.outputs.data) == 3
    var = np.abs(f32(4, seed=4)) + 0.5
    same_numerics(mod, fused, f32(1, 4, 3, 3), f32(4, seed=1), f32(4, seed=2),
                  f32(4, seed=3), var)  # fmt: skip


def test_level_zero_one_function_per_op():
    x = relay.var("x", shape=(10, 20))
    y = relay.squeeze(relay.exp(relay.add(x, relay.const(1, "float32"))))
    mod = build(relay.Function([x], y))
    fused = fuse(mod, level=0)
    assert groups(fused) == [["add"], ["exp"], ["squeeze"]]
    # the scalar constant stays in the caller and is passed in, as in Relay
    assert main_ops(fused) == ["constant", "func.call", "func.call", "func.call"]
    same_numerics(mod, fused, f32(10, 20))


def test_level_from_pass_context():
    x = relay.var("x", shape=(10, 20))
    mod = build(relay.Function([x], relay.exp(relay.exp(x))))
    with PassContext(opt_level=0):
        assert groups(FuseOps()(mod)) == [["exp"], ["exp"]]
    with PassContext(opt_level=3):
        assert groups(FuseOps()(mod)) == [["exp", "exp"]]


def test_max_depth_one_keeps_every_op_alone():
    mod = _exp_chain(4)
    assert groups(fuse(mod, max_depth=1)) == [["exp"]] * 4


def test_dead_op_gets_its_own_kernel():
    x = relay.var("x", shape=(3,))
    mod = build(relay.Function([x], relay.exp(x)))
    main = functions(mod)["main"]
    from xrelay.dialects.relay import OPS_BY_NAME

    block = main.body.block
    ret = block.last_op
    assert ret is not None
    dead = OPS_BY_NAME["relay.negative"].make([block.args[0]])
    block.insert_op_before(dead, ret)
    fused = fuse(mod)
    assert sorted(map(tuple, groups(fused))) == [("exp",), ("negative",)]
    same_numerics(mod, fused, f32(3))


def test_if_branches_are_fused_separately():
    x = relay.var("x", shape=(4,))
    c = relay.var("c", shape=(), dtype="bool")
    then = relay.exp(relay.nn.relu(x))
    other = relay.negative(relay.add(x, relay.const(1, "float32")))
    out = relay.multiply(relay.If(c, then, other), relay.const(2, "float32"))
    mod = build(relay.Function([c, x], out))
    fused = fuse(mod)
    funcs = functions(fused)
    kernels = {n: body_ops(f) for n, f in funcs.items() if n != "main"}
    assert sorted(kernels.values()) == [
        ["add", "negative"],
        ["multiply"],
        ["nn.relu", "exp"],
    ]
    assert "if" in main_ops(fused)
    for cond in (True, False):
        same_numerics(mod, fused, np.array(cond), f32(4))


def test_already_fused_module_is_unchanged():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(8, 3, 3, 3))
    out = relay.nn.relu(conv(x, w))
    fused = fuse(build(relay.Function([x, w], out)))
    again = fuse(fused)
    assert again.module.is_structurally_equivalent(fused.module)


def test_input_module_is_left_unchanged():
    mod = _exp_chain(3)
    before = mod.module.clone()
    fuse(mod)
    assert mod.module.is_structurally_equivalent(before)


def test_runs_in_sequential_after_infer_type():
    mod = _exp_chain(3)
    seq = Sequential([get_pass("fuse-ops", fuse_opt_level=2)])
    with PassContext(opt_level=2):
        out = seq(mod)
    assert groups(out) == [["exp"] * 3]


def test_registration():
    p = get_pass("FuseOps")
    assert (p.info.name, p.info.opt_level, tuple(p.info.required)) == (
        "FuseOps",
        0,
        ("InferType",),
    )


def test_bad_options():
    with pytest.raises(ValueError, match="fuse_opt_level"):
        FuseOps(fuse_opt_level=-2)
    with pytest.raises(ValueError, match="max_depth"):
        fuse_ops(_exp_chain(2).module, 2, max_depth=-1)


def test_unique_names_and_skip_primitive(parse: Parse):
    mod = parse(
        """
func.func private @fused_exp(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = relay.exp %p0 : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.nn.relu %0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = relay.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.sum %0 : (tensor<3xf32>) -> tensor<f32>
  %2 = relay.exp %1 : (tensor<f32>) -> tensor<f32>
  %3 = relay.add %0, %2 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %3 : tensor<3xf32>
}
"""
    )
    fuse_ops(mod, 2)
    names = [f.sym_name.data for f in mod.ops if isinstance(f, FuncOp)]
    # exp → sum → exp → add: the first exp cannot pass the reduction, the second
    # (scalar) exp broadcasts into the add
    assert names == ["fused_exp", "fused_exp_1", "fused_sum", "fused_exp_add", "main"]
    # the existing primitive function is untouched (still exp + relu)
    first = next(iter(mod.ops))
    assert isinstance(first, FuncOp)
    assert [op.name for op in first.body.block.ops] == [
        "relay.exp", "relay.nn.relu", "func.return"
    ]  # fmt: skip


def test_kernel_name_is_cut():
    mod = _exp_chain(40)
    order = post_dfs_order(functions(mod)["main"].body.block)
    name = kernel_name(order)
    assert len(name) <= 80
    assert name.startswith("fused_exp_exp")
    assert not name.endswith("_")


def test_partition_level_zero_and_post_dfs(parse: Parse):
    mod = parse(
        """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = relay.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %b = relay.log %x : (tensor<3xf32>) -> tensor<3xf32>
  %c = relay.add %b, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}
"""
    )
    main = next(iter(mod.ops))
    assert isinstance(main, FuncOp)
    block = main.body.block
    # post-DFS from the return visits add's operands in order: log before exp
    assert [op.name for op in post_dfs_order(block)] == [
        "relay.log", "relay.exp", "relay.add"
    ]  # fmt: skip
    nodes = build_graph(block)
    assert partition(nodes, 0, 256) == [0, 1, 2]
    assert partition(nodes, 2, 256) == [2, 2, 2]


def test_builder_models_are_in_post_dfs_order():
    """The builder emits ops in post-DFS order, which DefuseOps restores."""
    x = relay.var("x", shape=(1, 4, 6, 6))
    out = _inception_like(_inception_like(x, 4, "a"), 8, "b")
    mod = build(relay.Function(relay.analysis.free_vars(out), out))
    block = functions(mod)["main"].body.block
    assert post_dfs_order(block) == list(block.ops)[:-1]


# ---------------------------------------------------------------------------------------
# Random programs: numerics, the one-output-per-group invariant and the round trip
# ---------------------------------------------------------------------------------------

SHAPE = (2, 3, 4, 4)


def random_program(seed: int) -> relay.IRModule:
    """A random DAG over elementwise, broadcast, injective (incl. split), reduction,
    anchor (conv2d, softmax) and opaque ops, all values of shape SHAPE."""
    rng = np.random.default_rng(seed)
    params = [relay.var("x", shape=SHAPE)]
    values: list[Any] = [params[0]]

    def pick() -> Any:
        # prefer recent values so chains form, sometimes reach back (diamonds)
        k = len(values)
        return values[max(0, k - 1 - int(rng.geometric(0.4)) + 1)]

    for i in range(int(rng.integers(4, 14))):
        kind = int(rng.integers(0, 11))
        a = pick()
        if kind == 0:
            v = relay.nn.relu(a)
        elif kind == 1:
            v = relay.tanh(a)
        elif kind == 2:
            v = relay.add(a, pick())
        elif kind == 3:
            v = relay.multiply(a, relay.const(float(rng.uniform(0.5, 1.5)), "float32"))
        elif kind == 4:
            bias = relay.const(rng.standard_normal((3, 1, 1)).astype("float32"))
            v = relay.add(a, bias)
        elif kind == 5:
            v = relay.transpose(a, axes=[0, 1, 3, 2])
        elif kind == 6:
            parts = relay.split(relay.concatenate([a, pick()], axis=1), 2, axis=1)
            v = relay.subtract(parts[0], parts[1])
        elif kind == 7:
            v = relay.add(a, relay.sum(a, axis=1, keepdims=True))
        elif kind == 8:
            w = relay.var(f"w{i}", shape=(3, 3, 3, 3))
            params.append(w)
            v = relay.nn.conv2d(a, w, kernel_size=(3, 3), padding=(1, 1))
        elif kind == 9:
            v = relay.nn.softmax(a, axis=1)
        else:
            v = relay.nn.l2_normalize(a, 1e-5, axis=[1])
        values.append(v)
    outs = [values[-1]]
    if rng.random() < 0.5 and len(values) > 2:
        outs.append(values[int(rng.integers(1, len(values) - 1))])
    body = outs[0] if len(outs) == 1 else relay.Tuple(outs)
    return build(relay.Function(params, body))


def _random_inputs(mod: relay.IRModule) -> list[Array]:
    main = functions(mod)["main"]
    out: list[Array] = []
    for i, arg in enumerate(main.body.block.args):
        shape = tuple(int(d) for d in str(arg.type)[7:-5].split("x"))
        out.append(f32(*shape, seed=i) * (0.3 if i else 1.0))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_random_programs(seed: int):
    mod = random_program(seed)
    args = _random_inputs(mod)
    want = interpret(mod, *args)
    for level, depth in ((0, 256), (2, 256), (2, 3)):
        fused = fuse(mod, level=level, max_depth=depth)
        fused.module.verify()
        for f in functions(fused).values():  # a group never exceeds max_depth
            if PRIMITIVE in f.attributes:
                assert len(body_ops(f, skip_constants=False)) <= depth
        got = interpret(fused, *args)
        for w, g in zip(_flat(want), _flat(got), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        defused = get_pass("DefuseOps")(fused)
        assert defused.module.is_structurally_equivalent(mod.module), seed


def test_fused_node_count_stops_at_max_depth(parse: Parse):
    """A scalar constant used by the first and the last op of a long chain has its
    post-dominator at the end of the chain: the size check walks no further than
    ``max_depth`` nodes (a walk over the whole chain per such node made FuseOps
    quadratic on large programs), and the grouping is the same."""
    from xrelay.transforms._fusion import _Partitioner, post_dominators

    t = "tensor<3xf32>"
    n = 400
    lines = [
        f"func.func @main(%x: {t}) -> {t} {{",
        "  %c = relay.constant dense<2.0> : tensor<f32>",
        f"  %v0 = relay.multiply %x, %c : ({t}, tensor<f32>) -> {t}",
    ]
    lines += [f"  %v{i} = relay.exp %v{i - 1} : ({t}) -> {t}" for i in range(1, n)]
    lines += [
        f"  %r = relay.multiply %v{n - 1}, %c : ({t}, tensor<f32>) -> {t}",
        f"  func.return %r : {t}",
        "}",
    ]
    main = next(iter(parse("\n".join(lines) + "\n").ops))
    assert isinstance(main, FuncOp)
    nodes = build_graph(main.body.block)
    tree = post_dominators(nodes)
    const = next(node for node in nodes if node.op.name == "relay.constant")
    sink = nodes[tree[const.index].parent or 0]
    assert sink.op.name == "relay.multiply"
    assert sink.index == len(nodes) - 1
    parts = _Partitioner(nodes, max_depth=8)
    assert parts.too_many_fused_nodes(const, sink)
    assert len(parts.visited) <= 9
    roots = partition(nodes, 2, 8)
    assert max(roots.count(r) for r in set(roots)) <= 8


def test_executor_link_params_is_the_default_and_the_config_wins():
    """A module whose ``executor`` attribute asks for linked params gets its
    constants inside the kernels (Relay's FuseOps reads the executor); an explicit
    ``relay.FuseOps.link_params`` config overrides it."""
    from xrelay.relay.backend import Executor

    x = relay.var("x", shape=(10, 1))
    concat = relay.concatenate([x, x], axis=-1)
    out = relay.take(concat, indices=relay.const([0], dtype="int64"))
    mod = build(relay.Function([x], out))
    aot = mod.with_attr("executor", Executor("aot", {"link-params": True}))
    assert main_ops(fuse(aot)) == ["func.call"]  # the constant went in
    assert main_ops(fuse(aot, link_params=False)) == ["constant", "func.call"]
    graph = mod.with_attr("executor", Executor("graph"))
    assert main_ops(fuse(graph)) == ["constant", "func.call"]
    same_numerics(mod, fuse(aot), f32(10, 1))
