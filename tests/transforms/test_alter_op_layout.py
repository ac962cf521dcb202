"""AlterOpLayout: Relay's test_pass_alter_op_layout.py scenarios with the x86 hooks
(blocked NCHW{c}c convolutions, packed dense weights) on builder models, with the
interpreter's numbers before and after (rtol 1e-5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from xrelay import relay
from xrelay.dialects.relay.base import get_int, get_ints, get_str
from xrelay.frontend.relay.analysis import free_vars
from xrelay.lowering import cpu_layout
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.pass_manager.registry import UnknownPassError, lookup
from xrelay.runtime import interpret
from xrelay.transforms.alter_op_layout import AlterOpLayout

DT = "float64"

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


def ops_named(mod: Any, name: str) -> list[Operation]:
    return [op for op in main_ops(mod) if op.name == name]


def transforms(mod: Any) -> list[tuple[str, str]]:
    return [
        (get_str(op.properties["src_layout"]), get_str(op.properties["dst_layout"]))
        for op in ops_named(mod, "relay.layout_transform")
    ]


def prop_str(op: Operation, name: str) -> str:
    return get_str(op.properties[name])


def var(name: str, shape: Sequence[int], dtype: str = DT) -> Any:
    return relay.var(name, shape=tuple(shape), dtype=dtype)


def weight(shape: Sequence[int], seed: int = 1) -> Any:
    rng = np.random.default_rng(seed)
    return relay.const(rng.uniform(-1, 1, tuple(shape)).astype(DT), dtype=DT)


def build(out: Any) -> Any:
    return relay.IRModule.from_expr(relay.Function(free_vars(out), out))


def flat(value: Any) -> list[np.ndarray[Any, Any]]:
    if isinstance(value, tuple):
        return [a for v in value for a in flat(v)]
    return [np.asarray(value)]


def assert_same_numbers(before: Any, after: Any) -> None:
    rng = np.random.default_rng(0)
    func = next(f for f in module_of(before).ops if isinstance(f, FuncOp))
    args: list[Any] = []
    for arg in func.body.block.args:
        ty = arg.type
        assert isinstance(ty, TensorType)
        args.append(rng.uniform(-1, 1, ty.get_shape()).astype(DT))
    expected, got = flat(interpret(before, *args)), flat(interpret(after, *args))
    for e, g in zip(expected, got, strict=True):
        assert e.shape == g.shape
        assert e.dtype == g.dtype
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-12)


def alter(out: Any, target: str = "llvm") -> tuple[Any, Any]:
    mod = build(out)
    after = AlterOpLayout(target)(mod)
    module_of(after).verify()
    assert_same_numbers(mod, after)
    return mod, after


def conv(x: Any, w: Any, **kw: Any) -> Any:
    return relay.nn.conv2d(x, w, **kw)


# ---------------------------------------------------------------------------------------
# scenarios
# ---------------------------------------------------------------------------------------


def test_alter_conv_to_nchwc():
    """Relay's test_alter_layout: conv2d -> contrib_conv2d_NCHWc, the constant weight
    transformed, the result back in NCHW."""
    x = var("x", (1, 8, 6, 6))
    _, after = alter(relay.nn.relu(conv(x, weight((16, 8, 3, 3)), padding=(1, 1))))
    (c,) = ops_named(after, "relay.nn.contrib_conv2d_NCHWc")
    assert prop_str(c, "data_layout") == "NCHW8c"
    assert prop_str(c, "kernel_layout") == "OIHW8i16o"
    assert prop_str(c, "out_layout") == "NCHW16c"
    assert transforms(after) == [
        ("NCHW", "NCHW8c"),
        ("OIHW", "OIHW8i16o"),
        ("NCHW16c", "NCHW"),
    ]
    # the relu runs on the blocked value: the last transform is after it
    assert names(after)[-2:] == ["relay.layout_transform", "func.return"]
    (w,) = [
        op
        for op in ops_named(after, "relay.layout_transform")
        if prop_str(op, "src_layout") == "OIHW"
    ]
    assert w.operands[0].owner.name == "relay.constant"  # type: ignore[union-attr]


def test_alter_layout_multi():
    """Relay's test_alter_layout_multi / test_alter_layout_resnet: a conv chain with a
    residual add and a canonicalized bias keeps the blocked layout throughout."""
    x = var("x", (1, 8, 6, 6))
    y = conv(x, weight((16, 8, 3, 3), 1), padding=(1, 1))
    y = relay.add(y, relay.expand_dims(var("b", (16,)), axis=1, num_newaxis=2))
    y = relay.nn.relu(y)
    y2 = conv(y, weight((16, 16, 1, 1), 2))
    out = relay.nn.relu(relay.add(y2, y))
    _, after = alter(out)
    data = [t for t in transforms(after) if not t[0].startswith("OIHW")]
    assert data == [("NCHW", "NCHW8c"), ("NCHW", "NCHW16c"), ("NCHW16c", "NCHW")]
    assert len(ops_named(after, "relay.nn.contrib_conv2d_NCHWc")) == 2


def test_alter_layout_dual_path():
    """Relay's test_alter_layout_dual_path: a blocked value feeding batch_flatten goes
    back to NCHW for it only."""
    x = var("x", (1, 8, 4, 4))
    y = relay.nn.relu(conv(x, weight((8, 8, 3, 3), 1), padding=(1, 1)))
    y1 = relay.nn.relu(conv(y, weight((8, 8, 3, 3), 2), padding=(1, 1)))
    y2 = relay.nn.batch_flatten(y)
    _, after = alter(relay.Tuple([y1, y2]))
    data = [t for t in transforms(after) if not t[0].startswith("OIHW")]
    assert sorted(data) == sorted(
        [("NCHW", "NCHW8c"), ("NCHW8c", "NCHW"), ("NCHW8c", "NCHW")]
    )


def test_alter_layout_broadcast_scalar():
    """Relay's test_alter_layout_broadcast_scalar_op / test_alter_layout_scalar."""
    x = var("x", (1, 8, 4, 4))
    y = conv(x, weight((8, 8, 1, 1)))
    y = relay.multiply(y, relay.const(2.0, dtype=DT))
    y = relay.add(y, relay.const(np.ones((8, 1, 1)), dtype=DT))
    _, after = alter(relay.nn.relu(y))
    assert ("NCHW", "NCHW8c") in transforms(after)
    (mul,) = ops_named(after, "relay.multiply")
    assert mul.operands[1].type == TensorType(mul.operands[1].type.element_type, [])  # type: ignore[attr-defined]


def test_alter_layout_concatenate():
    """Relay's test_alter_layout_concatenate: concatenation along C of two blocked
    values stays blocked (axis 1, the outer part of C)."""
    x = var("x", (1, 8, 4, 4))
    y = conv(x, weight((8, 8, 3, 3), 1), padding=(1, 1))
    y1 = conv(y, weight((8, 8, 3, 3), 2), padding=(1, 1))
    _, after = alter(relay.concatenate([y, y1], axis=1))
    (cat,) = ops_named(after, "relay.concatenate")
    assert get_int(cat.properties["axis"]) == 1
    assert cat.results[0].type.get_shape() == (1, 2, 4, 4, 8)  # type: ignore[attr-defined]


def test_alter_layout_sum_and_mean():
    """Relay's test_alter_layout_sum / test_conv2d_reduce_channels: reducing C reduces
    both parts of the split axis."""
    x = var("x", (1, 8, 4, 4))
    y = conv(x, weight((8, 8, 1, 1)))
    s = relay.sum(y, axis=1)
    m = relay.mean(y, axis=[2, 3], keepdims=True)
    _, after = alter(relay.Tuple([s, m]))
    (total,) = ops_named(after, "relay.sum")
    assert list(get_ints(total.properties["axis"])) == [1, 4]
    (mean,) = ops_named(after, "relay.mean")
    assert list(get_ints(mean.properties["axis"])) == [2, 3]
    assert ("NCHW8c", "NCHW") in transforms(after)


def test_alter_layout_pad():
    """Relay's test_alter_layout_pad: padding H/W follows; padding C goes back."""
    x = var("x", (1, 8, 4, 4))
    y = conv(x, weight((8, 8, 1, 1)))
    p1 = relay.nn.pad(y, ((0, 0), (0, 0), (1, 1), (1, 1)))
    p2 = relay.nn.pad(y, ((0, 0), (1, 1), (0, 0), (0, 0)))
    _, after = alter(relay.Tuple([p1, p2]))
    pads = ops_named(after, "relay.nn.pad")
    assert list(get_ints(pads[0].properties["pad_width"])) == [
        0,
        0,
        0,
        0,
        1,
        1,
        1,
        1,
        0,
        0,
    ]
    assert list(get_ints(pads[1].properties["pad_width"])) == [0, 0, 1, 1, 0, 0, 0, 0]


def test_strided_slice_packed_to_unpacked():
    """Relay's test_conv2d_strided_slice_packed_to_unpacked /
    test_conv2d_strided_slice_arbitrary_stride: a slice of C on block boundaries stays
    blocked; any other slice of C goes back to NCHW."""
    x = var("x", (1, 16, 4, 4))
    y = conv(x, weight((32, 16, 1, 1)))
    a = relay.strided_slice(y, begin=[0, 16], end=[1, 32])
    b = relay.strided_slice(y, begin=[0, 2], end=[1, 10])
    c = relay.strided_slice(y, begin=[0, 0], end=[1, 32], strides=[1, 2])
    _, after = alter(relay.Tuple([a, b, c]))
    slices = ops_named(after, "relay.strided_slice")
    assert list(get_ints(slices[0].properties["begin"])) == [1]
    assert list(get_ints(slices[0].properties["end"])) == [2]
    assert list(get_ints(slices[0].properties["axes"])) == [1]
    assert slices[0].operands[0].type.get_shape() == (1, 2, 4, 4, 16)  # type: ignore[attr-defined]
    for s in slices[1:]:
        assert s.operands[0].type.get_shape() == (1, 32, 4, 4)  # type: ignore[attr-defined]


def test_alter_layout_prelu_and_bias_add_go_back():
    """Relay's test_alter_layout_prelu: per-channel ops along a split axis get their
    operand back in NCHW."""
    x = var("x", (1, 8, 4, 4))
    y = conv(x, weight((8, 8, 1, 1)))
    y = relay.nn.prelu(y, var("alpha", (8,)))
    y = relay.nn.bias_add(y, var("b", (8,)))
    _, after = alter(y)
    (p,) = ops_named(after, "relay.nn.prelu")
    assert p.operands[0].type.get_shape() == (1, 8, 4, 4)  # type: ignore[attr-defined]


def test_alter_layout_pool_keeps_blocked():
    """Relay's test_alter_layout_pool: the pool takes the blocked layout of its
    producer (NCHW8c here); the only transform back to NCHW is after it."""
    x = var("x", (1, 8, 4, 4))
    y = relay.nn.relu(conv(x, weight((8, 8, 1, 1))))
    _, after = alter(relay.nn.avg_pool2d(y, pool_size=(2, 2)))
    order = names(after)
    assert order.index("relay.nn.avg_pool2d") == order.index("relay.nn.relu") + 1
    (pool,) = ops_named(after, "relay.nn.avg_pool2d")
    assert prop_str(pool, "layout") == "NCHW8c"
    assert ("NCHW8c", "NCHW") in transforms(after)


def test_alter_op_dense():
    """Relay's test_alter_op_dense: dense -> contrib_dense_pack with the weight packed
    NC{n}n."""
    x = var("x", (4, 32))
    _, after = alter(relay.nn.relu(relay.nn.dense(x, weight((24, 32)))))
    (d,) = ops_named(after, "relay.nn.contrib_dense_pack")
    assert prop_str(d, "weight_layout") == "NC8n"
    assert transforms(after) == [("NC", "NC8n")]


def test_dense_with_3d_data_is_packed_in_place():
    """N-D data keeps its shape (no reshape to 2-D): contrib_dense_pack takes it."""
    x = var("x", (2, 4, 32))
    _, after = alter(relay.nn.dense(x, weight((16, 32))))
    assert names(after).count("relay.nn.dense") == 0
    assert names(after).count("relay.nn.contrib_dense_pack") == 1
    assert "relay.reshape" not in names(after)
    assert transforms(after) == [("NC", "NC16n")]


def test_dense_with_1d_data_is_kept():
    x = var("x", (32,))
    _, after = alter(relay.nn.dense(x, weight((16, 32))))
    assert names(after).count("relay.nn.dense") == 1


def test_rgb_input_is_one_block():
    """Relay's x86 fallback blocks a 3-channel input as NCHW3c (the weights are then
    packed once, at build time)."""
    _, after = alter(conv(var("x", (1, 3, 8, 8)), weight((16, 3, 3, 3))))
    (c,) = ops_named(after, "relay.nn.contrib_conv2d_NCHWc")
    assert prop_str(c, "kernel_layout") == "OIHW3i16o"
    assert ("NCHW", "NCHW3c") in transforms(after)


@pytest.mark.parametrize(
    ("data", "wshape", "kw"),
    [
        ((1, 3, 6, 6), (5, 3, 3, 3), {}),  # no block > 1
        ((1, 17, 6, 6), (16, 17, 3, 3), {}),  # input channels have no block
        ((1, 9, 6, 6), (18, 3, 3, 3), {"groups": 3}),  # 3 channels per group
        ((1, 8, 6, 6), (16, 1, 3, 3), {"groups": 8}),  # one channel per group
        ((1, 17, 6, 6), (17, 1, 3, 3), {"groups": 17}),  # depthwise, no block
        ((1, 6, 6, 8), (3, 3, 8, 8), {"data_layout": "NHWC", "kernel_layout": "HWIO"}),
    ],
)
def test_conv_not_altered(data: tuple[int, ...], wshape: tuple[int, ...], kw: Any):
    """Relay's test_alter_return_none: no block fits (grouped: a group's channels),
    the convolution stays as it is."""
    mod, after = alter(conv(var("x", data), weight(wshape), **kw))
    assert str(module_of(after)) == str(module_of(mod))


def test_non_cpu_target_keeps_everything():
    x = var("x", (1, 8, 6, 6))
    mod, after = alter(conv(x, weight((16, 8, 3, 3))), target="cuda")
    assert str(module_of(after)) == str(module_of(mod))


def test_twice_is_a_fixed_point():
    """Running AlterOpLayout on its own output changes nothing (contrib ops have no
    hook) — Relay's test_not_inplace_modify spirit."""
    x = var("x", (1, 8, 6, 6))
    _, once = alter(relay.nn.relu(conv(x, weight((16, 8, 3, 3)))))
    twice = AlterOpLayout()(once)
    assert str(module_of(twice)) == str(module_of(once))


def test_blocking_policy_is_the_tunable_hook(monkeypatch: pytest.MonkeyPatch):
    """The block sizes come from cpu_layout.choose_conv2d_blocking (via the op)."""
    monkeypatch.setattr(cpu_layout, "min_group_block", lambda: 4)
    assert cpu_layout.choose_conv2d_blocking(64, 32) == (16, 16)
    assert cpu_layout.choose_conv2d_blocking(24, 12) == (8, 4)
    assert cpu_layout.choose_conv2d_blocking(3, 64) == (3, 16)  # Relay's NCHW3c
    assert cpu_layout.choose_conv2d_blocking(17, 64) is None
    assert cpu_layout.choose_conv2d_blocking(64, 3) is None
    assert cpu_layout.choose_dense_packing(24, 7) == 8
    assert cpu_layout.choose_dense_packing(7, 24) is None
    # the op asks the installed policy (the lowering's cpu_layout module)
    monkeypatch.setattr(
        cpu_layout, "choose_conv2d_blocking", lambda ic, oc, pixels=None: (4, 2)
    )
    x = var("x", (1, 8, 6, 6))
    _, after = alter(conv(x, weight((16, 8, 3, 3))))
    (c,) = ops_named(after, "relay.nn.contrib_conv2d_NCHWc")
    assert prop_str(c, "kernel_layout") == "OIHW4i2o"


def test_pass_info_and_options():
    p = AlterOpLayout()
    assert (p.info.name, p.info.opt_level, p.info.required) == (
        "AlterOpLayout",
        3,
        ("InferType",),
    )
    q = get_pass("alter-op-layout", target="cuda")
    assert isinstance(q, AlterOpLayout)
    assert q.target == "cuda"


def test_in_a_sequential_then_fold_constant():
    """AlterOpLayout at opt_level 3, then FoldConstant folds the weight transform (when
    FoldConstant is registered)."""
    x = var("x", (1, 8, 6, 6))
    mod = build(relay.nn.relu(conv(x, weight((16, 8, 3, 3)), padding=(1, 1))))
    try:
        lookup("FoldConstant")
    except UnknownPassError:
        pytest.skip("FoldConstant is not registered")
    with PassContext(opt_level=3):
        after = Sequential([AlterOpLayout(), get_pass("FoldConstant")])(mod)
    assert transforms(after) == [("NCHW", "NCHW8c"), ("NCHW16c", "NCHW")]
    assert_same_numbers(mod, after)
    with PassContext(opt_level=2):
        skipped = Sequential([AlterOpLayout()])(mod)
    assert "relay.nn.conv2d" in names(skipped)


@pytest.mark.parametrize(
    ("data", "wshape", "groups", "layouts"),
    [
        # depthwise: data and output in blocks of the channels, kernel OIHW1i{c}o
        ((1, 24, 6, 6), (24, 1, 3, 3), 24, ("NCHW8c", "OIHW1i8o", "NCHW8c")),
        # grouped: the blocks divide a group's channels (16 in, 8 out per group)
        ((1, 64, 6, 6), (32, 16, 3, 3), 4, ("NCHW16c", "OIHW16i8o", "NCHW8c")),
        ((1, 32, 6, 6), (32, 16, 1, 1), 2, ("NCHW16c", "OIHW16i16o", "NCHW16c")),
    ],
)
def test_grouped_and_depthwise_conv_blocked(
    data: tuple[int, ...],
    wshape: tuple[int, ...],
    groups: int,
    layouts: tuple[str, str, str],
):
    """Relay's x86 group_conv2d_NCHWc / depthwise_conv2d_NCHWc: the convolution
    keeps its groups on blocked tiles."""
    _, after = alter(
        conv(var("x", data), weight(wshape), groups=groups, padding=(1, 1))
    )
    (c,) = ops_named(after, "relay.nn.contrib_conv2d_NCHWc")
    got = tuple(prop_str(c, k) for k in ("data_layout", "kernel_layout", "out_layout"))
    assert got == layouts
    assert get_int(c.properties["groups"]) == groups


def test_mobilenet_block_has_no_transform_between_convs():
    """1x1 -> depthwise 3x3 -> 1x1 (with clips): one transform into the blocked
    layout, one out of it, none between the convolutions."""
    x = var("x", (1, 16, 8, 8))
    y = relay.clip(conv(x, weight((64, 16, 1, 1), 1)), 0.0, 6.0)
    y = relay.clip(
        conv(y, weight((64, 1, 3, 3), 2), groups=64, padding=(1, 1), strides=(2, 2)),
        0.0,
        6.0,
    )
    y = conv(y, weight((24, 64, 1, 1), 3))
    _, after = alter(y)
    convs = ops_named(after, "relay.nn.contrib_conv2d_NCHWc")
    assert len(convs) == 3
    data_transforms = [t for t in transforms(after) if not t[0].startswith("OIHW")]
    assert data_transforms == [("NCHW", "NCHW16c"), ("NCHW8c", "NCHW")]


@pytest.mark.parametrize("smallest", [4, 8])
def test_grouped_blocks_below_the_host_minimum_stay_plain(
    monkeypatch: pytest.MonkeyPatch, smallest: int
):
    """A group of 4 channels is blocked only when the host's smallest useful block
    (half its vector lanes) is at most 4."""
    monkeypatch.setattr(cpu_layout, "min_group_block", lambda: smallest)
    mod, after = alter(conv(var("x", (1, 16, 6, 6)), weight((16, 4, 3, 3)), groups=4))
    blocked = ops_named(after, "relay.nn.contrib_conv2d_NCHWc")
    assert len(blocked) == (1 if smallest <= 4 else 0)
    if not blocked:
        assert str(module_of(after)) == str(module_of(mod))


@pytest.mark.parametrize("smallest", [4, 8])
def test_narrow_output_blocks_stay_plain(
    monkeypatch: pytest.MonkeyPatch, smallest: int
):
    """A convolution whose output channels only take a block narrower than the
    host's smallest useful block (ShuffleNet's 58 and 116 channels: blocks of 2 and
    4), and a depthwise one whose channels do, stay plain: their kernels on narrow
    blocks ran 2-4x slower than the plain ones. Narrow input blocks are kept (the
    lanes run along the output block)."""
    monkeypatch.setattr(cpu_layout, "min_group_block", lambda: smallest)
    assert cpu_layout.choose_conv2d_blocking(58, 58) is None
    assert cpu_layout.choose_conv2d_blocking(116, 116) == (
        (4, 4) if smallest <= 4 else None
    )
    assert cpu_layout.choose_conv2d_blocking(58, 64) == (2, 16)
    assert cpu_layout.choose_conv2d_blocking(3, 8) == (
        (3, 8) if smallest <= 8 else None
    )
    # a small input (an SE gate's pooled 1 x 1 map) keeps its narrow blocks
    assert cpu_layout.choose_conv2d_blocking(32, 2, pixels=1) == (16, 2)
    assert cpu_layout.choose_conv2d_blocking(32, 2, pixels=28 * 28) is None
    assert cpu_layout.choose_grouped_conv2d_blocking(58, 58, 58, pixels=49) == (1, 2)
    assert cpu_layout.choose_grouped_conv2d_blocking(116, 116, 116) == (
        (1, 4) if smallest <= 4 else None
    )
    assert cpu_layout.choose_grouped_conv2d_blocking(232, 232, 232) == (1, 8)
    mod, after = alter(conv(var("x", (1, 58, 9, 9)), weight((58, 58, 1, 1))))
    assert not ops_named(after, "relay.nn.contrib_conv2d_NCHWc")
    assert str(module_of(after)) == str(module_of(mod))
