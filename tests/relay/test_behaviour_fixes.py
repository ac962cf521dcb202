"""The six differences from Relay found while porting TVM's pass tests (issue 15),
each checked the way a TVM test checks it."""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.ir import assert_structural_equal, structural_equal
from xrelay.relay import transform
from xrelay.runtime import interpret


def run_opt_pass(expr: Any, *passes: Any) -> relay.IRModule:
    mod = expr if isinstance(expr, relay.IRModule) else relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def test_fold_constant_keeps_a_folded_scalar_0d():
    x = relay.var("x", shape=(2,))
    before = relay.Function(
        [x], relay.multiply(x, relay.add(relay.const(1.0), relay.const(2.0)))
    )
    after = run_opt_pass(before, transform.FoldConstant())
    x2 = relay.var("x", shape=(2,))
    expected = relay.Function([x2], relay.multiply(x2, relay.const(3.0)))
    assert_structural_equal(after, run_opt_pass(expected))
    const = after["main"].body.args[1]  # type: ignore[union-attr]
    assert const.data.shape == ()


def test_cse_fskip_sees_relay_calls():
    x = relay.var("x", shape=(4,))
    a = relay.nn.dropout(x)
    b = relay.nn.dropout(x)
    c = relay.add(relay.exp(x), relay.exp(x))
    before = relay.Function([x], relay.Tuple([a, b, c]))
    seen: list[str] = []

    def fskip(expr: Any) -> bool:
        if isinstance(expr, relay.Call):
            seen.append(expr.op.name)
            assert all(isinstance(arg, relay.Expr) for arg in expr.args)
            return expr.op.name == "exp"
        return False

    after = run_opt_pass(before, transform.EliminateCommonSubexpr(fskip))
    assert "exp" in seen
    assert_structural_equal(after, run_opt_pass(before))  # the exps stay apart
    merged = run_opt_pass(before, transform.EliminateCommonSubexpr())
    assert not structural_equal(merged, after)


def test_inline_calls_external_functions_as_literals():
    """An Inline function for an external compiler is not spliced: main calls a
    copy of it of its own (Relay's call of the function literal), the global goes."""
    a = relay.var("a", shape=(3,))
    mod = relay.IRModule()
    ext = relay.Function([a], relay.negative(a)).with_attr("Inline", 1)
    mod["ext"] = ext.with_attr("Compiler", "ccompiler")
    mod["local"] = relay.Function([a], relay.exp(a)).with_attr("Inline", 1)
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function(
        [x], relay.add(mod.get_global_var("ext")(x), mod.get_global_var("local")(x))
    )
    after = run_opt_pass(mod, transform.Inline())
    assert "ext" not in after
    assert "local" not in after
    body = after["main"].body
    assert isinstance(body, relay.Call)
    assert isinstance(body.args[0], relay.Call)
    callee = body.args[0].op
    assert isinstance(callee, relay.GlobalVar)
    literal = after.func_op(callee.name_hint)
    assert literal.attributes["Compiler"] == mod.func_op("ext").attributes["Compiler"]
    assert next(op.name for op in literal.body.walk()) == "relay.negative"
    assert body.args[1].op.name == "exp"  # type: ignore[union-attr]


def nhwc_conv(x: Any, w: Any) -> Any:
    return relay.nn.conv2d(
        x,
        w,
        padding=(1, 1),
        channels=8,
        kernel_size=(3, 3),
        data_layout="NHWC",
        kernel_layout="HWIO",
    )


def test_convert_layout_carries_through_argmax_and_argmin():
    for reduce in (relay.argmax, relay.argmin):
        x = relay.var("x", shape=(1, 6, 6, 8))
        w = relay.var("w", shape=(3, 3, 8, 8))
        before = relay.Function([x, w], reduce(nhwc_conv(x, w), axis=[3]))
        after = run_opt_pass(
            before, transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"]})
        )
        x2 = relay.var("x", shape=(1, 6, 6, 8))
        w2 = relay.var("w", shape=(3, 3, 8, 8))
        y = relay.nn.conv2d(
            relay.layout_transform(x2, "NHWC", "NCHW"),
            relay.layout_transform(w2, "HWIO", "OIHW"),
            padding=(1, 1),
            channels=8,
            kernel_size=(3, 3),
        )
        expected = relay.Function([x2, w2], reduce(y, axis=[1]))
        assert_structural_equal(after, run_opt_pass(expected))
        data = np.random.default_rng(0).standard_normal((1, 6, 6, 8), "float32")
        weight = np.random.default_rng(1).standard_normal((3, 3, 8, 8), "float32")
        np.testing.assert_array_equal(
            interpret(after, data, weight),
            interpret(run_opt_pass(before), data, weight),
        )


def test_simplify_expr_binomial():
    x = relay.var("x", shape=(4,))
    y = relay.var("y", shape=(4,))
    two = relay.const(2.0)
    before = relay.Function([x, y], x * x + two * (x * y) + y * y)
    after = run_opt_pass(before, transform.SimplifyExpr())
    x2, y2 = relay.var("x", shape=(4,)), relay.var("y", shape=(4,))
    s = x2 + y2
    assert_structural_equal(after, run_opt_pass(relay.Function([x2, y2], s * s)))
    # a*x*x + b*x*y + c*y*y with real roots: a * (x + p*y) * (x + q*y)
    general = relay.Function(
        [x, y],
        relay.const(1.0) * (x * x)
        + relay.const(5.0) * (x * y)
        + relay.const(6.0) * (y * y),
    )
    out = run_opt_pass(general, transform.SimplifyExpr())
    a = np.array([1.0, -2.0, 0.5, 3.0], "float32")
    b = np.array([0.5, 1.0, -1.0, 2.0], "float32")
    np.testing.assert_allclose(
        interpret(out, a, b), a * a + 5 * a * b + 6 * b * b, rtol=1e-5
    )
    assert "add(%x, %y)" not in out.astext(fmt="relay")
    # no real roots: left alone
    none = relay.Function([x, y], x * x + x * y + y * y)
    assert_structural_equal(
        run_opt_pass(none, transform.SimplifyExpr()), run_opt_pass(none)
    )


def test_layout_rules_write_relays_forms():
    desired = {"nn.conv2d": ["NCHW", "default"]}
    x = relay.var("x", shape=(1, 6, 6, 8))
    w = relay.var("w", shape=(3, 3, 8, 8))
    y = nhwc_conv(x, w)
    before = relay.Function(
        [x, w],
        relay.Tuple(
            [
                relay.strided_slice(
                    y, begin=[0, 1], end=[1, -1, 4], strides=[1, 1, 2, 1]
                ),
                relay.nn.l2_normalize(y, 1e-5, axis=[3, 1]),
            ]
        ),
    )
    after = run_opt_pass(before, transform.ConvertLayout(desired))
    x2 = relay.var("x", shape=(1, 6, 6, 8))
    w2 = relay.var("w", shape=(3, 3, 8, 8))
    y2 = relay.nn.conv2d(
        relay.layout_transform(x2, "NHWC", "NCHW"),
        relay.layout_transform(w2, "HWIO", "OIHW"),
        padding=(1, 1),
        channels=8,
        kernel_size=(3, 3),
    )
    sliced = relay.strided_slice(
        y2, begin=[0, 0, 1, 0], end=[1, 8, -1, 4], strides=[1, 1, 1, 2]
    )
    normed = relay.nn.l2_normalize(y2, 1e-5, axis=[1, 2])  # C then H, as written
    expected = relay.Function(
        [x2, w2],
        relay.Tuple(
            [
                relay.layout_transform(sliced, "NCHW", "NHWC"),
                relay.layout_transform(normed, "NCHW", "NHWC"),
            ]
        ),
    )
    assert_structural_equal(after, run_opt_pass(expected))
