"""The layout hooks of the ops (infer_correct_layout, convert_layout, alter_layout)
and the shared rules of layout_rules, asked directly."""

from __future__ import annotations

from typing import Any

import pytest
from xdsl.dialects.builtin import StringAttr, TensorType, f32

from xrelay.dialects.relay import OPS_BY_NAME, RelayOp
from xrelay.dialects.relay.base import get_int, get_ints, get_str
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    LayoutConversionError,
    adjust_subordinate_factors,
    broadcast_layouts,
    elementwise_layouts,
    expand_primal,
    isomorphic,
    try_transform_like,
)


def L(s: str) -> Layout:
    return Layout.parse(s)


def t(*shape: int) -> TensorType:
    return TensorType(f32, list(shape))


def op(name: str, n_results: int = 1, **attrs: Any) -> RelayOp:
    """A detached op (no operands) with ``attrs``: what the layout hooks are asked."""
    cls = OPS_BY_NAME[f"relay.{name}"]
    return cls.make([], attrs, result_types=[t(1)] * n_results)


def ask(
    o: RelayOp, new: list[str] | None, old: list[str | None], types: list[TensorType]
) -> InferredLayouts | None:
    return o.infer_correct_layout(
        None if new is None else [L(x) for x in new],
        [None if x is None else L(x) for x in old],
        types,
    )


def names(layouts: tuple[Layout, ...]) -> list[str]:
    return [x.name for x in layouts]


# ---------------------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------------------


def test_expand_primal_and_isomorphic():
    assert expand_primal(L("CHW"), L("NHWC")).name == "NCHW"
    assert expand_primal(L("C"), L("NCHW16c")).name == "NHWC"
    assert isomorphic(L("NCHW"), L("ABCD"))
    assert not isomorphic(L("NCHW8c"), L("NCHW4c"))


@pytest.mark.parametrize(
    ("old", "ref_old", "ref_new", "expected"),
    [
        ("CHW", "NCHW", "NHWC", "NHWC"),
        ("NCHW", "NCHW", "NCHW16c", "NCHW16c"),
        ("CHW", "NCHW", "NCHW16c", "NCHW16c"),
        ("", "NCHW", "NHWC", ""),
        ("HW", "NCHW", "NHWC", "NHWC"),
    ],
)
def test_try_transform_like(old: str, ref_old: str, ref_new: str, expected: str):
    got = try_transform_like(L(old), L(ref_old), L(ref_new))
    assert got is not None
    assert got.name == expected


def test_try_transform_like_refuses_mismatched_layouts():
    assert try_transform_like(L("NCHW8c"), L("NCHW"), L("NHWC")) is None


def test_adjust_subordinate_factors():
    assert (
        adjust_subordinate_factors(L("NCHW16c"), L("CHW"), (64, 1, 1)).name == "NCHW16c"
    )
    assert (
        adjust_subordinate_factors(L("NCHW16c"), L("CHW"), (1, 1, 1)).name == "NCHW1c"
    )
    assert adjust_subordinate_factors(L("NCHW16c"), L("HW"), (4, 4)).name == "NCHW1c"


def test_elementwise_rule():
    assert elementwise_layouts(None, [None]) is None
    first = elementwise_layouts(None, [None, L("NCHW")])
    assert first is not None
    assert names(first.inputs) == ["NCHW", "NCHW"]
    second = elementwise_layouts([L("NHWC")], [L("NCHW")], n_outputs=2)
    assert second is not None
    assert names(second.outputs) == ["NHWC", "NHWC"]


def test_broadcast_rule():
    shapes = [(1, 8, 4, 4), (8, 1, 1)]
    first = broadcast_layouts(None, [L("NCHW"), None], shapes)
    assert first is not None
    assert names(first.inputs) == ["NCHW", "CHW"]
    assert names(first.outputs) == ["NCHW"]
    second = broadcast_layouts([L("NHWC"), L("CHW")], [L("NCHW"), L("CHW")], shapes)
    assert second is not None
    assert names(second.inputs) == ["NHWC", "NHWC"]
    blocked = broadcast_layouts([L("NCHW8c"), L("CHW")], [L("NCHW"), L("CHW")], shapes)
    assert blocked is not None
    assert names(blocked.inputs) == ["NCHW8c", "NCHW8c"]
    # unknown on both sides, or only the smaller known: cannot tell
    assert broadcast_layouts(None, [None, None], shapes) is None
    assert broadcast_layouts(None, [None, L("CHW")], shapes) is None
    scalar = broadcast_layouts(None, [L("NCHW"), None], [(1, 8, 4, 4), ()])
    assert scalar is not None
    assert names(scalar.inputs) == ["NCHW", ""]


# ---------------------------------------------------------------------------------------
# per-op rules
# ---------------------------------------------------------------------------------------


def test_default_is_no_rule():
    assert ask(op("nn.softmax"), None, ["NCHW"], [t(1, 8, 4, 4)]) is None
    assert op("nn.softmax").convert_layout(["NHWC"], [t(1, 8, 4, 4)]) is None
    assert op("nn.softmax").alter_layout("llvm", [t(1, 8, 4, 4)]) is None


def test_conv_rule_insists_on_its_layouts():
    conv = op("nn.conv2d", data_layout="NHWC", kernel_layout="HWIO")
    got = ask(conv, ["NCHW", "OIHW"], ["NCHW", None], [t(1, 4, 4, 8), t(3, 3, 8, 8)])
    assert got is not None
    assert names(got.inputs) == ["NHWC", "HWIO"]
    assert names(got.outputs) == ["NHWC"]


def test_bias_add_moves_its_axis_unless_split():
    types = [t(1, 8, 4, 4), t(8)]
    got = ask(op("nn.bias_add"), ["NHWC", "C"], ["NCHW", "C"], types)
    assert got is not None
    assert got.attrs == {"axis": 3}
    assert ask(op("nn.bias_add"), ["NCHW8c", "C"], ["NCHW", "C"], types) is None


def test_pool_rule():
    pool = op("nn.max_pool2d", pool_size=(2, 2))
    got = ask(pool, ["NHWC"], ["NCHW"], [t(1, 8, 4, 4)])
    assert got is not None
    assert got.attrs == {"layout": "NHWC"}
    blocked = ask(pool, ["NCHW8c"], ["NCHW"], [t(1, 8, 4, 4)])
    assert blocked is not None
    assert names(blocked.inputs) == ["NCHW8c"]
    assert names(blocked.outputs) == ["NCHW8c"]
    assert blocked.attrs == {"layout": "NCHW8c"}
    # H split: not a channel block, back to the original layout
    split_h = ask(pool, ["NCHW2h"], ["NCHW"], [t(1, 8, 4, 4)])
    assert split_h is not None
    assert names(split_h.inputs) == ["NCHW"]
    fixed = op("nn.max_pool2d", pool_size=(2, 2), out_layout="NHWC")
    kept = ask(fixed, ["NHWC"], ["NCHW"], [t(1, 8, 4, 4)])
    assert kept is not None
    assert names(kept.outputs) == ["NHWC"]
    assert not kept.attrs


@pytest.mark.parametrize(
    ("attrs", "new", "in_", "out", "axis"),
    [
        ({"axis": [1]}, "NHWC", "NHWC", "NHW", [3]),
        ({"axis": [1], "keepdims": True}, "NCHW8c", "NCHW8c", "NCHW1c", [1, 4]),
        ({"axis": [2, 3], "keepdims": False}, "NCHW8c", "NCHW8c", "NC8c", [2, 3]),
        ({"axis": [1], "exclude": True}, "NHWC", "NHWC", "C", [3]),
        ({"axis": [1], "exclude": True}, "NCHW8c", "NCHW8c", "C8c", [1, 4]),
        ({}, "NHWC", "NHWC", "", [0, 1, 2, 3]),
    ],
)
def test_reduce_rule(attrs: Any, new: str, in_: str, out: str, axis: list[int]):
    got = ask(op("sum", **attrs), [new], ["NCHW"], [t(1, 8, 4, 4)])
    assert got is not None
    assert names(got.inputs) == [in_]
    assert names(got.outputs) == [out]
    assert got.attrs == {"axis": axis}


def test_argmax_adapts_when_the_reduced_axes_keep_their_order():
    one = ask(op("argmax", axis=[1]), ["NCHW8c"], ["NCHW"], [t(1, 8, 4, 4)])
    assert one is not None
    assert one.attrs == {"axis": [1, 4]}
    # H, W stay in that order in NHWC: the row-major index is the same
    hw = ask(op("argmax", axis=[2, 3]), ["NHWC"], ["NCHW"], [t(1, 8, 4, 4)])
    assert hw is not None
    assert hw.attrs == {"axis": [1, 2]}
    # C, H become H, C: the index would change, so the op keeps NCHW
    assert ask(op("argmax", axis=[1, 2]), ["NHWC"], ["NCHW"], [t(1, 8, 4, 4)]) is None
    # a split axis with another one: no
    assert ask(op("argmin", axis=[1, 2]), ["NCHW8c"], ["NCHW"], [t(1, 8, 4, 4)]) is None


def test_variance_takes_data_and_mean_in_one_layout():
    got = ask(
        op("variance", axis=[2, 3]),
        ["NHWC", "NHWC"],
        ["NCHW", "NCHW"],
        [t(1, 8, 4, 4), t(1, 8, 1, 1)],
    )
    assert got is not None
    assert names(got.inputs) == ["NHWC", "NHWC"]


def test_pad_rule():
    types = [t(1, 8, 4, 4), t()]
    hw = op("nn.pad", pad_width=[0, 0, 0, 0, 1, 1, 2, 2])
    got = ask(hw, ["NCHW8c", ""], ["NCHW", None], types)
    assert got is not None
    assert got.attrs == {"pad_width": [0, 0, 0, 0, 1, 1, 2, 2, 0, 0]}
    channels = op("nn.pad", pad_width=[0, 0, 1, 1, 0, 0, 0, 0])
    kept = ask(channels, ["NCHW8c", ""], ["NCHW", None], types)
    assert kept is not None
    assert names(kept.inputs) == ["NCHW", ""]


def test_concatenate_rule():
    types = [t(1, 8, 4, 4), t(1, 8, 4, 4)]
    cat = op("concatenate", axis=1)
    same = ask(cat, ["NHWC", "NHWC"], ["NCHW", "NCHW"], types)
    assert same is not None
    assert same.attrs == {"axis": 3}
    mixed = ask(cat, ["NHWC", "NCHW"], ["NCHW", None], types)
    assert mixed is not None
    assert names(mixed.inputs) == ["NCHW", "NCHW"]
    assert ask(cat, None, [None, None], types) is None


def test_split_rule():
    types = [t(1, 32, 4, 4)]
    sections = op("split", 2, indices_or_sections=2, axis=1)
    got = ask(sections, ["NCHW8c"], ["NCHW"], types)
    assert got is not None
    assert got.attrs == {"axis": 1}
    uneven = op("split", 2, indices_or_sections=[12], axis=1)
    kept = ask(uneven, ["NCHW8c"], ["NCHW"], types)
    assert kept is not None
    assert not kept.attrs
    assert names(kept.inputs) == ["NCHW"]
    points = op("split", 3, indices_or_sections=[8, 16], axis=1)
    moved = ask(points, ["NCHW8c"], ["NCHW"], types)
    assert moved is not None
    assert moved.attrs == {"axis": 1, "indices_or_sections": [1, 2]}


def test_squeeze_and_transpose_rules():
    sq = ask(op("squeeze", axis=[2, 3]), ["NHWC"], ["NCHW"], [t(1, 8, 1, 1)])
    assert sq is not None
    assert sq.attrs == {"axis": [1, 2]}
    assert names(sq.outputs) == ["NC"]
    tr = ask(op("transpose", axes=[0, 2, 3, 1]), ["NHWC"], ["NCHW"], [t(1, 8, 4, 4)])
    assert tr is not None
    assert tr.attrs == {"axes": [0, 1, 2, 3]}
    assert names(tr.outputs) == ["NHWC"]
    blocked = ask(op("transpose"), ["NCHW8c"], ["NCHW"], [t(1, 8, 4, 4)])
    assert blocked is not None
    assert names(blocked.inputs) == ["NCHW"]


def test_norm_rules():
    types = [t(1, 8, 4, 4), t(8), t(8)]
    ln = ask(
        op("nn.layer_norm", axis=1), ["NHWC", "C", "C"], ["NCHW", None, None], types
    )
    assert ln is not None
    assert ln.attrs == {"axis": 3}
    inst = op("nn.instance_norm", axis=1)
    assert ask(inst, ["NHWC", "C", "C"], ["NCHW", None, None], types) is not None
    assert ask(inst, ["HWNC", "C", "C"], ["NCHW", None, None], types) is None
    l2 = ask(
        op("nn.l2_normalize", eps=1e-3, axis=[1]), ["NCHW8c"], ["NCHW"], [t(1, 8, 4, 4)]
    )
    assert l2 is not None
    assert l2.attrs == {"axis": [1, 4]}


# ---------------------------------------------------------------------------------------
# convert / alter hooks and templates
# ---------------------------------------------------------------------------------------


def test_layout_variant_is_detached_and_keeps_attributes():
    conv = op("nn.conv2d", padding=(1, 1, 1, 1), channels=8)
    v = conv.layout_variant(updates={"data_layout": "NHWC", "channels": None})
    assert not v.operands
    assert v.parent is None
    assert get_str(v.properties["data_layout"]) == "NHWC"
    assert "channels" not in v.properties
    assert list(get_ints(v.properties["padding"])) == [1, 1, 1, 1]
    blocked = conv.layout_variant(OPS_BY_NAME["relay.nn.contrib_conv2d_NCHWc"])
    assert get_int(blocked.properties["channels"]) == 8


def test_conv_convert_hook():
    conv = op("nn.conv2d")
    types = [t(1, 8, 4, 4), t(8, 8, 3, 3)]
    nhwc = conv.convert_layout(["NHWC", "default"], types)
    assert nhwc is not None
    assert nhwc.properties["kernel_layout"] == StringAttr("HWIO")
    blocked = conv.convert_layout(["NCHW4c", "OIHW4i4o"], types)
    assert blocked is not None
    assert blocked.name == "relay.nn.contrib_conv2d_NCHWc"
    assert conv.convert_layout(["NCHW3c", "OIHW3i3o"], types) is None  # 8 % 3
    with pytest.raises(LayoutConversionError, match="cannot take the data layout"):
        conv.convert_layout(["NHW", "default"], types)
    with pytest.raises(LayoutConversionError, match="does not fit data layout"):
        conv.convert_layout(["NCHW4c", "OIHW8i4o"], types)


def test_pool_convert_hook():
    pool = op("nn.avg_pool2d", pool_size=(2, 2))
    got = pool.convert_layout(["NHWC"], [t(1, 8, 4, 4)])
    assert got is not None
    assert got.properties["out_layout"] == StringAttr("NHWC")
    with pytest.raises(LayoutConversionError, match="permutation of NCHW"):
        pool.convert_layout(["NCHW8c"], [t(1, 8, 4, 4)])


def test_alter_hooks():
    # the hooks ask the CPU layout policy, which importing the lowering installs
    # (every pipeline has it; this file alone would not)
    import xrelay.lowering.cpu_layout  # noqa: F401  # pyright: ignore[reportUnusedImport]

    conv = op("nn.conv2d")
    got = conv.alter_layout("llvm -mcpu=skylake", [t(1, 32, 4, 4), t(64, 32, 3, 3)])
    assert got is not None
    assert got.properties["kernel_layout"] == StringAttr("OIHW16i16o")
    assert conv.alter_layout("cuda", [t(1, 32, 4, 4), t(64, 32, 3, 3)]) is None
    dense = op("nn.dense")
    packed = dense.alter_layout("llvm", [t(4, 32), t(48, 32)])
    assert packed is not None
    assert packed.properties["weight_layout"] == StringAttr("NC16n")
