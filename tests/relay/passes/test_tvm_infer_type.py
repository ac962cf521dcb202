"""InferType as a TVM user tests it (Relay's ``test_type_infer.py`` /
``test_pass_infer_type``-style checks through ``checked_type``, v0.18).

Covered: a function's ``checked_type`` after InferType, a tuple result, calls
between global functions, ``InferTypeLocal`` on an expression, a type error
reported as an exception naming the op, untyped ``relay.var`` solved from its uses
(the weights of ``conv2d``/``dense``, ``bias_add``'s bias, ``batch_norm``'s vectors;
Relay's ``test_conv2d_infer_type`` / ``test_dense`` with ``relay.var("w")``), and a
clear error naming the variable where no use determines it.
Out of scope: type polymorphism and ADTs (not supported), unification of two
untyped variables with each other (``add(w1, w2)``: Relay leaves them unsolved too),
``Any`` shape functions.
"""

from __future__ import annotations

import pytest

from xrelay import relay
from xrelay.relay import transform


def test_checked_type_of_main():
    x = relay.var("x", shape=(2, 3))
    mod = transform.InferType()(relay.IRModule.from_expr(relay.sum(x, axis=[1])))
    t = mod["main"].checked_type
    assert t == relay.FuncType(
        [relay.TensorType((2, 3), "float32")], relay.TensorType((2,), "float32")
    )


def test_tuple_result():
    x = relay.var("x", shape=(4,))
    fn = relay.Function([x], relay.Tuple([x, relay.cast(x, "int32")]))
    t = transform.InferTypeLocal(fn)
    assert isinstance(t, relay.FuncType)
    assert t.ret_type == relay.TupleType(
        [relay.TensorType((4,), "float32"), relay.TensorType((4,), "int32")]
    )


def test_global_calls():
    mod = relay.IRModule()
    a = relay.var("a", shape=(3,))
    mod["f"] = relay.Function([a], relay.expand_dims(a, axis=0))
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function([x], mod.get_global_var("f")(x))
    mod = transform.InferType()(mod)
    assert mod["main"].ret_type == relay.TensorType((1, 3), "float32")


def test_infer_type_local():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    y = relay.nn.conv2d(x, w, kernel_size=(3, 3), padding=(1, 1))
    assert transform.InferTypeLocal(y) == relay.TensorType((1, 4, 8, 8), "float32")


def test_type_error():
    x = relay.var("x", shape=(2, 3))
    y = relay.var("y", shape=(4,))
    with pytest.raises(relay.BuildError, match="do not broadcast"):
        transform.InferTypeLocal(relay.add(x, y))


def _param_types(mod: relay.IRModule) -> dict[str, relay.TensorType]:
    return {p.name_hint: p.type_annotation for p in mod["main"].params}


def test_untyped_conv2d_weight():
    x = relay.var("x", shape=(1, 10, 16, 16))
    w = relay.var("w")
    y = relay.nn.conv2d(x, w, kernel_size=(3, 3), padding=(1, 1), channels=2)
    mod = transform.InferType()(relay.IRModule.from_expr(relay.Function([x, w], y)))
    assert _param_types(mod)["w"] == relay.TensorType((2, 10, 3, 3), "float32")
    assert mod["main"].ret_type == relay.TensorType((1, 2, 16, 16), "float32")


def test_untyped_weight_in_kernel_layout_and_dtype():
    x = relay.var("x", shape=(1, 8, 8, 4), dtype="float16")
    w = relay.var("w")
    y = relay.nn.conv2d(
        x,
        w,
        kernel_size=(3, 3),
        channels=6,
        groups=2,
        data_layout="NHWC",
        kernel_layout="HWIO",
    )
    mod = transform.InferType()(relay.IRModule.from_expr(relay.Function([x, w], y)))
    assert _param_types(mod)["w"] == relay.TensorType((3, 3, 2, 6), "float16")


def test_untyped_dense_bias_and_batch_norm():
    x = relay.var("x", shape=(4, 5))
    w, b = relay.var("w"), relay.var("b")
    g, be, m, v = (relay.var(n) for n in ("g", "be", "m", "v"))
    y = relay.nn.bias_add(relay.nn.dense(x, w, units=3), b, axis=-1)
    y = relay.nn.batch_norm(y, g, be, m, v, axis=1)[0]
    mod = transform.InferType()(relay.IRModule.from_expr(y))
    types = _param_types(mod)
    assert types["w"] == relay.TensorType((3, 5), "float32")
    for name in ("b", "g", "be", "m", "v"):
        assert types[name] == relay.TensorType((3,), "float32"), name
    assert mod["main"].ret_type == relay.TensorType((4, 3), "float32")


def test_untyped_before_the_use_that_types_it():
    # relu(w) comes first and cannot type w; dense does, and relu follows
    x = relay.var("x", shape=(2, 5))
    w = relay.var("w")
    out = relay.Tuple([relay.nn.relu(w), relay.nn.dense(x, w, units=3)])
    t = transform.InferTypeLocal(relay.Function([x, w], out))
    assert isinstance(t, relay.FuncType)
    assert t.arg_types[1] == relay.TensorType((3, 5), "float32")
    assert t.ret_type == relay.TupleType(
        [relay.TensorType((3, 5), "float32"), relay.TensorType((2, 3), "float32")]
    )


def test_untyped_that_runs():
    import numpy as np

    x = relay.var("x", shape=(2, 5))
    w = relay.var("w")
    mod = transform.InferType()(relay.IRModule.from_expr(relay.nn.dense(x, w, units=3)))
    xs = np.arange(10, dtype="float32").reshape(2, 5)
    ws = np.ones((3, 5), dtype="float32")
    got = relay.create_executor("debug", mod=mod).evaluate()(xs, ws)
    np.testing.assert_allclose(got.numpy(), xs @ ws.T)


@pytest.mark.parametrize(
    ("make", "culprit"),
    [
        (lambda x, w: relay.add(x, w), "add"),
        (lambda x, w: relay.nn.conv2d(x, w), "nn.conv2d"),  # no channels/kernel_size
        (lambda x, w: x, None),  # w unused
    ],
)
def test_untyped_unresolved(make, culprit):
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w")
    mod = relay.IRModule.from_expr(relay.Function([x, w], make(x, w)))
    expected = (
        f"relay.{culprit} does not determine it"
        if culprit
        else "no use in @main determines it"
    )
    with pytest.raises(Exception, match="cannot infer the type of %w") as info:
        transform.InferType()(mod)
    assert expected in str(info.value)
    assert "\n" not in str(info.value).split("\nin pass")[0]


def test_untyped_weight_builds():
    # relay.build runs InferType first: an untyped weight is solved there too
    import numpy as np

    import xrelay

    x = relay.var("x", shape=(2, 5))
    w = relay.var("w")
    lib = xrelay.build(
        relay.IRModule.from_expr(relay.nn.dense(x, w, units=3)), cache=False
    )
    xs = np.ones((2, 5), "float32")
    ws = np.arange(15, dtype="float32").reshape(3, 5)
    np.testing.assert_allclose(np.asarray(lib(xs, ws)), xs @ ws.T)
