"""InferType as a TVM user tests it (Relay's ``test_type_infer.py`` /
``test_pass_infer_type``-style checks through ``checked_type``, v0.18).

Covered: a function's ``checked_type`` after InferType, a tuple result, calls
between global functions, ``InferTypeLocal`` on an expression, a type error
reported as an exception naming the op.
Out of scope: type polymorphism and ADTs (not supported), incomplete types solved
by unification across uses (an untyped ``relay.var`` needs a type here), ``Any``
shape functions.
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
