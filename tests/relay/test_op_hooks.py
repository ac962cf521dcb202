"""TVM's op hooks for the layout passes (``register_alter_op_layout``,
``register_convert_op_layout``, ``register_infer_correct_layout``, ``TempOpAttr``) and
``Target`` as the context AlterOpLayout reads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.dialects.relay.op_attrs import (
    ALTER_OP_LAYOUT,
    OpAttrError,
    get_op_attr,
    reset_op_attr,
)
from xrelay.ir import TempOpAttr, assert_structural_equal, structural_equal
from xrelay.relay import transform
from xrelay.target import Target


def before() -> relay.IRModule:
    x = relay.var("x", shape=(1, 8, 6, 6))
    w = relay.var("w", shape=(8, 8, 3, 3))
    y = relay.nn.conv2d(x, w, padding=(1, 1), channels=8, kernel_size=(3, 3))
    return relay.IRModule.from_expr(relay.Function([x, w], relay.nn.relu(y)))


def nhwc_expected(kernel_layout: str = "HWIO") -> relay.IRModule:
    x = relay.var("x", shape=(1, 8, 6, 6))
    w = relay.var("w", shape=(8, 8, 3, 3))
    xt = relay.layout_transform(x, "NCHW", "NHWC")
    wt = relay.layout_transform(w, "OIHW", kernel_layout)
    y = relay.nn.conv2d(
        xt,
        wt,
        padding=(1, 1),
        channels=8,
        kernel_size=(3, 3),
        data_layout="NHWC",
        kernel_layout=kernel_layout,
    )
    out = relay.layout_transform(relay.nn.relu(y), "NHWC", "NCHW")
    return relay.IRModule.from_expr(relay.Function([x, w], out))


def run(mod: relay.IRModule, *passes: Any) -> relay.IRModule:
    """TVM's ``run_opt_pass``: InferType then the passes, at opt_level 3."""
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def test_temp_op_attr_overrides_alter_layout_for_the_block():
    seen: list[Any] = []

    def alter_conv2d(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        seen.append((dict(attrs), tinfos, out_type))
        new_attrs = dict(attrs)
        new_attrs["data_layout"] = "NHWC"
        new_attrs["kernel_layout"] = "HWIO"
        return relay.nn.conv2d(*inputs, **new_attrs)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        after = run(before(), transform.AlterOpLayout())
    assert_structural_equal(after, run(nhwc_expected()))
    attrs, tinfos, out_type = seen[0]
    assert attrs["channels"] == 8
    assert attrs["data_layout"] == "NCHW"
    assert tinfos[1] == relay.TensorType((8, 8, 3, 3), "float32")
    assert out_type == relay.TensorType((1, 8, 6, 6), "float32")
    # outside the block the op's own (CPU blocking) hook applies again
    assert get_op_attr("nn.conv2d", ALTER_OP_LAYOUT) is None
    default = run(before(), transform.AlterOpLayout())
    assert "contrib_conv2d_NCHWc" in default.astext(fmt="relay")


def test_hook_returning_none_keeps_the_op():
    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", lambda *args: None):
        after = run(before(), transform.AlterOpLayout())
    assert_structural_equal(after, run(before()))


def test_hook_returning_a_bigger_expression_is_a_clear_error():
    def wrap(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        return relay.nn.relu(relay.nn.conv2d(*inputs, **attrs))

    with (
        TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", wrap),
        pytest.raises(ValueError, match="one op by one op"),
    ):
        run(before(), transform.AlterOpLayout())


def test_hook_argument_that_does_not_build_is_a_clear_error():
    def bad(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        data, weight = inputs
        return relay.nn.conv2d(
            data, weight + relay.const(np.ones((5,), "float32")), **attrs
        )

    with (
        TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", bad),
        pytest.raises(
            Exception, match="layout hook of relay.nn.conv2d returned arguments"
        ),
    ):
        run(before(), transform.AlterOpLayout())


def test_register_alter_op_layout_with_levels():
    def alter(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        new_attrs = dict(attrs)
        new_attrs["data_layout"] = "NHWC"
        new_attrs["kernel_layout"] = "HWIO"
        return relay.nn.conv2d(*inputs, **new_attrs)

    try:
        relay.op.register_alter_op_layout("nn.conv2d", level=101)(alter)
        assert get_op_attr("nn.conv2d", ALTER_OP_LAYOUT) is alter
        with pytest.raises(OpAttrError, match="level 101"):
            relay.op.register_alter_op_layout("nn.conv2d", alter, level=10)
        after = run(before(), transform.AlterOpLayout())
        assert_structural_equal(after, run(nhwc_expected()))
        with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", None):  # hidden
            hidden = run(before(), transform.AlterOpLayout())
        assert "contrib_conv2d_NCHWc" in hidden.astext(fmt="relay")
        assert get_op_attr("nn.conv2d", ALTER_OP_LAYOUT) is alter  # restored
    finally:
        reset_op_attr("nn.conv2d", ALTER_OP_LAYOUT)


def test_register_convert_op_layout():
    got: list[list[str]] = []

    def convert(attrs: Any, inputs: Any, tinfos: Any, desired: Any) -> Any:
        got.append(desired)
        new_attrs = dict(attrs)
        new_attrs["data_layout"] = desired[0]
        new_attrs["kernel_layout"] = "OHWI"
        return relay.nn.conv2d(*inputs, **new_attrs)

    with TempOpAttr("nn.conv2d", "FTVMConvertOpLayout", convert):
        after = run(
            before(), transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]})
        )
    assert got == [["NHWC", "default"]]
    assert_structural_equal(after, run(nhwc_expected("OHWI")))


def test_register_infer_correct_layout():
    def refuse(attrs: Any, new_in: Any, old_in: Any, types: Any) -> Any:
        return None  # relu cannot adapt: it gets its input back in NCHW

    def follow(attrs: Any, new_in: Any, old_in: Any, types: Any) -> Any:
        # the first call has no new layouts (None), as in TVM
        layout = new_in[0] if new_in else old_in[0]
        return relay.op.InferCorrectLayoutOutput([layout], [layout], attrs)

    desired = {"nn.conv2d": ["NHWC", "default"]}
    with TempOpAttr("nn.relu", "FInferCorrectLayout", refuse):
        refused = run(before(), transform.ConvertLayout(desired))
    text = refused.astext(fmt="relay")
    relu_line = next(line for line in text.splitlines() if "nn.relu" in line)
    assert "(1, 8, 6, 6)" in relu_line  # relu runs in NCHW
    with TempOpAttr("nn.relu", "FInferCorrectLayout", follow):
        followed = run(before(), transform.ConvertLayout(desired))
    plain = run(before(), transform.ConvertLayout(desired))
    assert_structural_equal(followed, plain)
    assert not structural_equal(refused, plain)


def test_target_context_drives_alter_op_layout():
    mod = before()
    with Target("cuda"):
        assert Target.current() == Target("cuda")
        untouched = run(mod, transform.AlterOpLayout())
    assert_structural_equal(untouched, run(mod))
    with Target("llvm -mcpu=skylake-avx512 -mattr=+avx512f,+fma") as target:
        assert target.kind == "llvm"
        assert target.mcpu == "skylake-avx512"
        assert target.mattr == ["+avx512f", "+fma"]
        assert target.keys == ["cpu"]
        blocked = run(mod, transform.AlterOpLayout())
    assert Target.current() is None
    assert "contrib_conv2d_NCHWc" in blocked.astext(fmt="relay")
    # an explicit pass option wins over the context
    with Target("cuda"):
        explicit = run(mod, transform.AlterOpLayout(target="llvm"))
    assert_structural_equal(explicit, blocked)
    with pytest.raises(ValueError, match="must start with '-'"):
        Target("llvm mcpu=x")


def test_target_stack_is_per_thread():
    import threading

    seen: dict[str, Any] = {}
    entered, checked = threading.Event(), threading.Event()

    def other() -> None:
        entered.wait(timeout=10)
        seen["other_before"] = Target.current()
        with Target("c"):
            seen["other_inside"] = Target.current()
            blocked = run(before(), transform.AlterOpLayout())
            seen["other_blocked"] = "contrib_conv2d_NCHWc" in blocked.astext(
                fmt="relay"
            )
        checked.set()

    thread = threading.Thread(target=other)
    thread.start()
    with Target("cuda"):
        entered.set()
        assert checked.wait(timeout=30)
        # the other thread's `with Target("c")` did not become current here
        assert Target.current() == Target("cuda")
    thread.join()
    assert seen["other_before"] is None  # our `with` is not current there
    assert seen["other_inside"] == Target("c")
    assert seen["other_blocked"]  # "c" is a CPU target: blocked layouts
    assert Target.current() is None
