"""AlterOpLayout as a TVM user tests it (Relay's ``test_pass_alter_op_layout.py``,
v0.18): hooks registered with ``TempOpAttr(op, "FTVMAlterOpLayout", fn)`` inside a
``Target`` scope.

Covered: test_alter_op (a conv2d hook changing the layout; transforms inserted
around it), test_alter_return_none (a hook returning None keeps the op),
test_alter_layout (the CPU policy under ``Target("llvm")``: blocked NCHWc conv, the
relu following the blocked layout, one transform back at the end), a non-CPU target
leaves the program alone, test_alter_layout_dense (dense_pack).
Out of scope: hooks returning several ops (xrelay's rewriter replaces one op by one
op: a clear LayoutHookError), QNN, conv3d/conv1d, ``topi`` x86 schedules' exact
block sizes (xrelay's come from lowering/cpu_layout.py).
"""

from __future__ import annotations

from typing import Any

from xrelay import relay
from xrelay.ir import TempOpAttr, assert_structural_equal
from xrelay.relay import transform
from xrelay.target import Target


def run_opt_pass(expr: Any, passes: Any) -> Any:
    passes = passes if isinstance(passes, list) else [passes]
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        mod = transform.Sequential([transform.InferType(), *passes])(mod)
    return mod["main"]


def before_conv() -> Any:
    x = relay.var("x", shape=(1, 64, 56, 56))
    weight = relay.var("weight", shape=(64, 64, 3, 3))
    y = relay.nn.conv2d(x, weight, channels=64, kernel_size=(3, 3), padding=(1, 1))
    return relay.Function([x, weight], relay.nn.relu(y))


def test_alter_op():
    def alter_conv2d(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        data, weight = inputs
        new_attrs = dict(attrs)
        new_attrs["data_layout"] = "NHWC"
        new_attrs["kernel_layout"] = "HWIO"
        return relay.nn.conv2d(data, weight, **new_attrs)

    def expected() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        y = relay.nn.conv2d(
            relay.layout_transform(x, "NCHW", "NHWC"),
            relay.layout_transform(weight, "OIHW", "HWIO"),
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NHWC",
            kernel_layout="HWIO",
        )
        y = relay.layout_transform(relay.nn.relu(y), "NHWC", "NCHW")
        return relay.Function([x, weight], y)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        a = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(expected(), transform.InferType()))


def test_alter_return_none():
    called = [False]

    def alter_conv2d(attrs: Any, inputs: Any, tinfos: Any, out_type: Any) -> Any:
        called[0] = True
        return None

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        a = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert called[0]
    assert_structural_equal(a, run_opt_pass(before_conv(), transform.InferType()))


def test_alter_layout_cpu_target():
    def expected() -> Any:
        x = relay.var("x", shape=(1, 64, 56, 56))
        weight = relay.var("weight", shape=(64, 64, 3, 3))
        y = relay.nn.contrib_conv2d_nchwc(
            relay.layout_transform(x, "NCHW", "NCHW16c"),
            relay.layout_transform(weight, "OIHW", "OIHW16i16o"),
            channels=64,
            kernel_size=(3, 3),
            padding=(1, 1),
            data_layout="NCHW16c",
            kernel_layout="OIHW16i16o",
            out_layout="NCHW16c",
        )
        y = relay.layout_transform(relay.nn.relu(y), "NCHW16c", "NCHW")
        return relay.Function([x, weight], y)

    with Target("llvm -mcpu=skylake-avx512"):
        a = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert_structural_equal(a, run_opt_pass(expected(), transform.InferType()))
    with Target("cuda"):
        b = run_opt_pass(before_conv(), transform.AlterOpLayout())
    assert_structural_equal(b, run_opt_pass(before_conv(), transform.InferType()))


def test_alter_layout_dense():
    x = relay.var("x", shape=(4, 32))
    w = relay.var("w", shape=(16, 32))
    with Target("llvm"):
        a = run_opt_pass(
            relay.Function([x, w], relay.nn.dense(x, w)), transform.AlterOpLayout()
        )
    text = a.astext(fmt="relay")
    assert "contrib_dense_pack" in text
    assert 'dst_layout="NC16n"' in text
