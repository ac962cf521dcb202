"""SimplifyExpr / SimplifyExprPostAlterOp as a TVM user tests them (Relay's
``test_pass_simplify_expr.py``, v0.18).

Covered: test_simplify_reshape (reshape chains → one, reverse_reshape included), test_simplify_transpose
(transpose chains → one, identity transposes dropped), test_simplify_full_elementwise
(``ones``/``full`` operands → scalar constants), test_eliminate_identity, test_simplify_consecutive_add /
multiply (constants merged), test_simplify_rsqrt, test_concretize_*_like,
test_simplify_consecutive_cast, test_simplify_binomial, SimplifyExprPostAlterOp's
identity rewrite.
Out of scope: the QNN rewrites (dequantize + argmax/argmin/argsort: no QNN ops),
dynamic-shape ``*_like`` forms (xrelay's ``_like`` ops need static shapes to
concretize), ``clip``/``cast`` rewrites on dtypes xrelay lacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run_opt_pass(expr: Any, *passes: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def simplified(expr: Any) -> Any:
    return run_opt_pass(expr, transform.SimplifyExpr())


def test_simplify_reshape():
    x = relay.var("x", shape=(1, 16, 16, 16))
    y = relay.reshape(relay.reshape(x, newshape=(1, 16, -1)), newshape=(16, 256))
    y = relay.reshape(y, newshape=(4, 8, -1, 16))
    x2 = relay.var("x", shape=(1, 16, 16, 16))
    expected = relay.reshape(x2, newshape=(4, 8, 8, 16))
    assert_structural_equal(
        simplified(relay.Function([x], y)), run_opt_pass(relay.Function([x2], expected))
    )


def test_reverse_reshape_joins_a_reshape_chain():
    """A conv result reshaped twice and then reverse-reshaped (its codes read from
    the right: 0 copies the second-last dim) is one reshape to the final shape, in a
    pass pipeline too (Relay's test_nested_sequential_with_scoping)."""

    def before() -> Any:
        x = relay.var("x", shape=(1, 16, 16, 16))
        w = relay.var("w", shape=(32, 16, 3, 3))
        y = relay.nn.conv2d(x, w, padding=(1, 1))
        y = relay.reshape(relay.reshape(y, newshape=(1, 16, -1)), (4, 8, -1, 16))
        return relay.Function([x, w], relay.reverse_reshape(y, newshape=(32, 0, -1)))

    x = relay.var("x", shape=(1, 16, 16, 16))
    w = relay.var("w", shape=(32, 16, 3, 3))
    conv = relay.nn.conv2d(x, w, padding=(1, 1))
    expected = relay.Function([x, w], relay.reshape(conv, newshape=(32, 16, 16)))
    assert_structural_equal(simplified(before()), run_opt_pass(expected))
    with transform.PassContext(opt_level=1):
        nested = transform.Sequential(
            [transform.Sequential([transform.SimplifyExpr()])]
        )(relay.IRModule.from_expr(before()))
    assert_structural_equal(nested, run_opt_pass(expected))


def test_reverse_reshape_runs_like_numpy():
    x = relay.var("x", shape=(10, 5, 4))
    f = relay.Function([x], relay.reverse_reshape(x, (-1, 0)))
    data = np.arange(200, dtype="float32").reshape(10, 5, 4)
    got = relay.create_executor(mod=relay.IRModule.from_expr(f)).evaluate()(data)
    np.testing.assert_array_equal(got.numpy(), data.reshape(50, 4))


def test_simplify_transpose():
    x = relay.var("x", shape=(1, 2, 3, 4))
    y = relay.transpose(relay.transpose(x, axes=[0, 2, 3, 1]), axes=[0, 3, 1, 2])
    z = relay.transpose(relay.exp(x), axes=[0, 1, 2, 3])
    x2 = relay.var("x", shape=(1, 2, 3, 4))
    assert_structural_equal(
        simplified(relay.Function([x], relay.Tuple([y, z]))),
        run_opt_pass(relay.Function([x2], relay.Tuple([x2, relay.exp(x2)]))),
    )


def test_simplify_full_elementwise():
    x = relay.var("x", shape=(2, 3))
    y = relay.add(x, relay.ones((2, 3), "float32"))
    z = relay.multiply(x, relay.full(relay.const(2.0), (2, 3), "float32"))
    x2 = relay.var("x", shape=(2, 3))
    expected = relay.Tuple(
        [relay.add(x2, relay.const(1.0)), relay.multiply(x2, relay.const(2.0))]
    )
    assert_structural_equal(
        simplified(relay.Function([x], relay.Tuple([y, z]))),
        run_opt_pass(relay.Function([x2], expected)),
    )


def test_eliminate_identity():
    x = relay.var("x", shape=(2, 3))
    zero = relay.zeros((2, 3), "float32")
    one = relay.const(np.ones((2, 3), "float32"))
    y = relay.divide(relay.multiply(relay.add(x, zero), one), one)
    y = relay.subtract(y, relay.const(0.0))
    x2 = relay.var("x", shape=(2, 3))
    assert_structural_equal(
        simplified(relay.Function([x], relay.exp(y))),
        run_opt_pass(relay.Function([x2], relay.exp(x2))),
    )


def test_simplify_consecutive_add_and_multiply():
    x = relay.var("x", shape=(4,))
    c1, c2 = relay.const(2.0), relay.const(3.0)
    y = relay.add(relay.add(x, c1), c2)
    z = relay.multiply(relay.multiply(x, c1), c2)
    x2 = relay.var("x", shape=(4,))
    expected = relay.Tuple(
        [relay.add(x2, relay.const(5.0)), relay.multiply(x2, relay.const(6.0))]
    )
    assert_structural_equal(
        simplified(relay.Function([x], relay.Tuple([y, z]))),
        run_opt_pass(relay.Function([x2], expected)),
    )


def test_simplify_rsqrt():
    x = relay.var("x", shape=(4,))
    y = relay.var("y", shape=(4,))
    x2, y2 = relay.var("x", shape=(4,)), relay.var("y", shape=(4,))
    assert_structural_equal(
        simplified(relay.Function([x, y], relay.divide(x, relay.sqrt(y)))),
        run_opt_pass(relay.Function([x2, y2], relay.multiply(x2, relay.rsqrt(y2)))),
    )


def test_concretize_like():
    x = relay.var("x", shape=(2, 3))
    y = relay.multiply(x, relay.zeros_like(x))
    after = simplified(relay.Function([x], y))
    x2 = relay.var("x", shape=(2, 3))
    # zeros_like with a static type → zeros → a 0-d constant operand
    expected = relay.Function([x2], relay.multiply(x2, relay.const(0.0)))
    assert_structural_equal(after, run_opt_pass(expected))


def test_simplify_consecutive_cast():
    x = relay.var("x", shape=(4,), dtype="int8")
    y = relay.cast(relay.cast(x, "int32"), "int64")
    x2 = relay.var("x", shape=(4,), dtype="int8")
    assert_structural_equal(
        simplified(relay.Function([x], y)),
        run_opt_pass(relay.Function([x2], relay.cast(x2, "int64"))),
    )


def test_simplify_binomial():
    x = relay.var("x", shape=(4,))
    y = relay.var("y", shape=(4,))
    before = relay.Function([x, y], x * x + relay.const(2.0) * (x * y) + y * y)
    x2, y2 = relay.var("x", shape=(4,)), relay.var("y", shape=(4,))
    s = relay.add(x2, y2)
    assert_structural_equal(
        simplified(before), run_opt_pass(relay.Function([x2, y2], s * s))
    )


def test_post_alter_op_eliminates_identity():
    x = relay.var("x", shape=(4,))
    before = relay.Function([x], relay.exp(relay.add(x, relay.const(0.0))))
    x2 = relay.var("x", shape=(4,))
    assert_structural_equal(
        run_opt_pass(before, transform.SimplifyExprPostAlterOp()),
        run_opt_pass(relay.Function([x2], relay.exp(x2))),
    )


# -- free variables keep their identity through a module; collapse_sum_to ---------------


def test_free_variable_is_the_same_after_a_module_round_trip():
    from xrelay.ir import structural_equal

    x = relay.var("x", shape=(3, 4))
    mod = transform.InferType()(relay.IRModule.from_expr(relay.nn.relu(x)))
    assert mod["main"].params[0] is x
    assert structural_equal(mod["main"].body, relay.nn.relu(x))
    # a different Var of the same name and type is another free variable
    other = relay.var("x", shape=(3, 4))
    assert not structural_equal(mod["main"].body, relay.nn.relu(other))


def test_free_variable_identity_survives_a_rewriting_pass():
    from xrelay.ir import assert_structural_equal

    x = relay.var("x", shape=(4,))
    before = relay.reshape(relay.reshape(x, (2, 2)), (4,))
    mod = relay.IRModule.from_expr(before)
    mod = transform.Sequential([transform.InferType(), transform.SimplifyExpr()])(mod)
    expected = relay.IRModule.from_expr(x)
    assert_structural_equal(
        mod["main"].body, transform.InferType()(expected)["main"].body
    )


def test_collapse_sum_like_becomes_collapse_sum_to():
    from xrelay.ir import assert_structural_equal

    data = relay.var("data", shape=(2, 3, 4))
    like = relay.var("like", shape=(3, 1))
    mod = relay.IRModule.from_expr(relay.collapse_sum_like(data, like))
    mod = transform.Sequential([transform.InferType(), transform.SimplifyExpr()])(mod)
    want = transform.InferType()(
        relay.IRModule.from_expr(relay.collapse_sum_to(data, (3, 1)))
    )
    assert_structural_equal(mod["main"].body, want["main"].body)


def test_collapse_sum_to_values():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    data = relay.var("data", shape=(2, 3, 4))
    mod = relay.IRModule.from_expr(relay.collapse_sum_to(data, (3, 1)))
    got = relay.create_executor(mod=mod).evaluate()(x).numpy()
    np.testing.assert_array_equal(got, x.sum(axis=(0, 2)).reshape(3, 1))


def _dequantized(x: Any, scale: Any, zero_point: Any, axis: int = -1) -> Any:
    return relay.qnn.op.dequantize(
        x, relay.const(scale), relay.const(zero_point), axis=axis
    )


def test_argmax_and_argmin_look_through_a_dequantize():
    """argmax/argmin/argsort of a dequantized int8 tensor (positive scale) are the op
    on the integers (Relay's test_simplify_dq_argmax / argmin / argsort), with the
    same indices."""
    data = np.random.default_rng(1).integers(-128, 128, (4, 32, 1, 1)).astype("int8")
    for op in (relay.argmax, relay.argmin, relay.argsort):
        x = relay.var("x", shape=(4, 32, 1, 1), dtype="int8")
        before = relay.Function([x], op(_dequantized(x, 2.0, 3), axis=1))
        x2 = relay.var("x", shape=(4, 32, 1, 1), dtype="int8")
        expected = relay.Function([x2], op(x2, axis=1))
        after = simplified(before)
        assert_structural_equal(after, run_opt_pass(expected))
        got = relay.create_executor(mod=after).evaluate()(data).numpy()
        want = relay.create_executor(mod=run_opt_pass(before)).evaluate()(data)
        np.testing.assert_array_equal(got, want.numpy())


def test_dequantize_stays_when_it_is_not_increasing():
    """A negative scale reverses the order, and per-channel scales along the reduced
    axis mix channels: the dequantize stays (Relay would drop it)."""
    x = relay.var("x", shape=(4, 3), dtype="int8")
    negative = relay.Function([x], relay.argmax(_dequantized(x, -2.0, 0), axis=1))
    assert "qnn.dequantize" in simplified(negative).astext()
    scales = np.array([1.0, 2.0, 3.0], "float32")
    zps = np.zeros(3, "int32")
    across = relay.Function(
        [x], relay.argmax(_dequantized(x, scales, zps, axis=1), axis=1)
    )
    assert "qnn.dequantize" in simplified(across).astext()
    kept = relay.Function(
        [x], relay.argmax(_dequantized(x, scales, zps, axis=1), axis=0)
    )
    assert "qnn.dequantize" not in simplified(kept).astext()
