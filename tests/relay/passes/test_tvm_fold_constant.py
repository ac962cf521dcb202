"""FoldConstant as a TVM user tests it (the scenarios of Relay's
``tests/python/relay/test_pass_fold_constant.py``, v0.18).

Covered: folding a chain of constant ops, a constant concatenate, tuples and their
projections, ``if`` with a constant condition, ``shape_of`` of a static tensor,
``batch_norm`` on constant inputs, a stateful op (dropout) left alone, nothing to
fold.
Out of scope: QNN folding (no QNN ops), ``ndarray_size`` / ``full`` (xrelay does not
fold ``full``: it would materialise large splats, see transforms/fold_constant.py),
``let`` bindings as separate nodes (they are SSA names here), device annotations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run_opt_pass(expr: Any, passes: Any) -> Any:
    passes = passes if isinstance(passes, list) else [passes]
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        mod = transform.Sequential(passes)(mod)
    return mod["main"]


def run_infer_type(expr: Any) -> Any:
    return run_opt_pass(expr, transform.InferType())


def test_fold_const_chain():
    c_data = np.array([1, 2, 3]).astype("float32")
    t = relay.TensorType([1, 2, 3], "float32")

    def before() -> Any:
        c = relay.const(c_data)
        x = relay.var("x", t)
        y = relay.add(c, c)
        y = relay.multiply(y, relay.const(2, "float32"))
        y = relay.add(x, y)
        z = relay.add(y, c)
        return relay.Function([x], z)

    def expected() -> Any:
        x = relay.var("x", t)
        c_folded = (c_data + c_data) * 2
        y = relay.add(x, relay.const(c_folded))
        z = relay.add(y, relay.const(c_data))
        return relay.Function([x], z)

    zz = run_opt_pass(before(), transform.FoldConstant())
    assert_structural_equal(zz, run_infer_type(expected()))


def test_fold_concat():
    c_data = np.array([[1, 2, 3]]).astype("float32")

    def before() -> Any:
        a = relay.const(c_data)
        b = relay.const(c_data)
        return relay.Function([], relay.concatenate((a, b), axis=0))

    def expected() -> Any:
        return relay.Function([], relay.const(np.concatenate((c_data, c_data), axis=0)))

    zz = run_opt_pass(before(), transform.FoldConstant())
    assert_structural_equal(zz, run_infer_type(expected()))


def test_fold_tuple():
    c_data = np.array([1, 2, 3]).astype("float32")
    t = relay.TensorType([1, 2, 3], "float32")

    def before() -> Any:
        c = relay.const(c_data)
        x = relay.var("x", t)
        y = relay.Tuple([x, c])
        z = relay.add(relay.TupleGetItem(y, 1), c)
        z = relay.add(z, relay.TupleGetItem(y, 0))
        return relay.Function([x], z)

    def expected() -> Any:
        c = relay.const(c_data + c_data)
        x = relay.var("x", t)
        return relay.Function([x], relay.add(c, x))

    zz = run_opt_pass(before(), transform.FoldConstant())
    assert_structural_equal(zz, run_infer_type(expected()))


def test_fold_if():
    cond_data = True
    x_data = np.array([[1, 2, 3]]).astype("float32")
    y_data = np.array([[4, 5, 6]]).astype("float32")

    def before() -> Any:
        x = relay.const(x_data)
        y = relay.const(y_data)
        iff = relay.If(relay.const(cond_data), x + y, x - y)
        return relay.Function([], iff)

    def expected() -> Any:
        return relay.Function([], relay.const(x_data + y_data))

    zz = run_opt_pass(before(), transform.FoldConstant())
    assert_structural_equal(zz, run_infer_type(expected()))


def test_fold_shape_of():
    c_shape = (8, 9, 10)

    def before(dtype: str) -> Any:
        x = relay.var("x", shape=c_shape, dtype="float32")
        y = relay.var("y", shape=c_shape, dtype="float32")
        z = relay.shape_of(x + y, dtype)
        return relay.Function([x, y], z)

    def expected(dtype: str) -> Any:
        x = relay.var("x", shape=c_shape, dtype="float32")
        y = relay.var("y", shape=c_shape, dtype="float32")
        z = relay.const(np.array(c_shape).astype(dtype), dtype=dtype)
        return relay.Function([x, y], z)

    for dtype in ["int32", "int64", "float32"]:  # Relay allows a float shape too
        zz = run_opt_pass(before(dtype), transform.FoldConstant())
        assert_structural_equal(zz, run_infer_type(expected(dtype)))


def test_fold_batch_norm():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((1, 3, 4, 4)).astype("float32")
    gamma, beta, mean = (rng.random(3).astype("float32") for _ in range(3))
    var = rng.random(3).astype("float32") + 0.5

    def before() -> Any:
        bn = relay.nn.batch_norm(
            relay.const(data),
            relay.const(gamma),
            relay.const(beta),
            relay.const(mean),
            relay.const(var),
        )
        return relay.Function([], bn[0])

    zz = run_opt_pass(before(), transform.FoldConstant())
    body = zz.body
    assert isinstance(body, relay.Constant)
    scale = gamma / np.sqrt(var + 1e-5)
    want = (data - mean[:, None, None]) * scale[:, None, None] + beta[:, None, None]
    np.testing.assert_allclose(body.data, want, rtol=1e-5, atol=1e-6)


def test_fold_dropout():
    def before() -> Any:
        data = relay.const(np.arange(10).astype(np.float32))
        return relay.Function([], relay.nn.dropout(data))

    a = run_opt_pass(before(), transform.FoldConstant())
    assert_structural_equal(a, run_infer_type(before()))


def test_nothing_to_fold():
    x = relay.var("x", shape=(3,))
    before = relay.Function([x], relay.exp(relay.add(x, x)))
    zz = run_opt_pass(before, transform.FoldConstant())
    assert_structural_equal(zz, run_infer_type(before))


# -- ndarray_size, bind_params_by_name --------------------------------------------------


def test_ndarray_size_of_a_static_shape_folds():
    for dtype in ("int32", "float32"):
        x = relay.var("x", shape=(8, 9, 10))
        y = relay.var("y", shape=(8, 9, 10))
        before = relay.Function([x, y], relay.ndarray_size(x + y, dtype))
        mod = transform.Sequential([transform.InferType(), transform.FoldConstant()])(
            relay.IRModule.from_expr(before)
        )
        body = mod["main"].body
        assert isinstance(body, relay.Constant)
        assert body.data.numpy() == 720
        assert body.data.numpy().dtype == np.dtype(dtype)


def test_bind_params_by_name_makes_constants():
    from xrelay.relay.build_module import bind_params_by_name

    x = relay.var("x", shape=(2,))
    w = relay.var("w", shape=(2,))
    fn = relay.Function([x, w], relay.add(x, w))
    bound = bind_params_by_name(fn, {"w": np.array([1.0, 2.0], "float32")})
    assert [p.name_hint for p in bound.params] == ["x"]
    mod = transform.Sequential([transform.InferType(), transform.FoldConstant()])(
        relay.IRModule.from_expr(bound)
    )
    got = relay.create_executor(mod=mod).evaluate()(np.zeros(2, "float32")).numpy()
    np.testing.assert_array_equal(got, [1.0, 2.0])


def test_fold_with_an_aot_executor_that_links_params():
    """FoldConstant on a module carrying ``Executor("aot", {"link-params": True})``
    folds an int8 constant cast (Relay's test_pass_link_params)."""
    from xrelay.relay.backend import Executor

    mod = relay.IRModule.from_expr(relay.cast(relay.const(10, dtype="int8"), "int32"))
    mod = transform.InferType()(mod)
    mod = mod.with_attr("executor", Executor("aot", {"link-params": True}))
    folded = transform.FoldConstant()(mod)
    assert folded.get_attr("executor") == Executor("aot", {"link-params": True})
    expected = relay.IRModule.from_expr(relay.const(10, dtype="int32"))
    assert_structural_equal(folded["main"], run_infer_type(expected["main"]))
