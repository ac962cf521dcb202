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

import numpy as np
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


# -- checked_type on every expression, type objects, Python-defined ops ------------------


def test_checked_type_on_subexpressions_after_infer_type_local():
    # InferTypeLocal types the expression given AND its parts: the let-bound
    # variables, the calls and the function itself
    x = relay.var("x", relay.TensorType((3, 2), "float32"))
    sb = relay.ScopeBuilder()
    doubled = sb.let("doubled", relay.add(x, x))
    summed = sb.let("summed", relay.sum(doubled, axis=[0]))
    sb.ret(summed)
    fn = relay.Function([x], sb.get())
    transform.InferTypeLocal(fn)
    assert doubled.checked_type == relay.TensorType((3, 2), "float32")
    assert summed.checked_type == relay.TensorType((2,), "float32")
    assert fn.checked_type == relay.FuncType(
        [relay.TensorType((3, 2), "float32")], relay.TensorType((2,), "float32")
    )


def test_checked_type_of_module_body_parts():
    x = relay.var("x", shape=(4,))
    pair = relay.Tuple([relay.exp(x), relay.cast(x, "int32")])
    mod = transform.InferType()(relay.IRModule.from_expr(pair))
    body = mod["main"].body
    assert body.checked_type == relay.TupleType(
        [relay.TensorType((4,), "float32"), relay.TensorType((4,), "int32")]
    )
    assert body.fields[1].checked_type == relay.TensorType((4,), "int32")
    assert mod["main"].params[0].checked_type == relay.TensorType((4,), "float32")


def test_checked_type_before_inference_is_an_error():
    y = relay.nn.relu(relay.var("x", shape=(2,)))
    with pytest.raises(ValueError, match="not checked yet"):
        _ = y.checked_type


def test_type_variables_compare_by_identity():
    a, b = relay.TypeVar("a"), relay.TypeVar("a")
    t = relay.TensorType((2,), "float32")
    assert relay.FuncType([a], a) == relay.FuncType([a], a)
    assert relay.FuncType([a], t) != relay.FuncType([b], t)
    assert relay.GlobalTypeVar("box") != relay.GlobalTypeVar("box")
    with pytest.raises(TypeError, match="type variables"):
        relay.var("v", type_annotation=a).checked_type  # noqa: B018


def test_python_defined_op_with_a_builtin_relation():
    from xrelay.relay.op import op as reg

    reg.register("scenario_identity", "returns its input's type")
    reg.get("scenario_identity").set_num_inputs(1)
    reg.get("scenario_identity").add_type_rel("Identity")
    reg.register_pattern("scenario_identity", reg.OpPattern.ELEMWISE)
    x = relay.var("x", shape=(5, 2))
    y = relay.add(relay.Call(reg.get("scenario_identity"), [x]), x)
    fn = relay.Function([x], y)
    assert transform.InferTypeLocal(fn) == relay.FuncType(
        [relay.TensorType((5, 2), "float32")], relay.TensorType((5, 2), "float32")
    )
    assert reg.get("scenario_identity").get_attr("TOpPattern") == 0
    # too many inputs: a one-line type error naming the op
    with pytest.raises(Exception, match="scenario_identity takes 1 inputs"):
        transform.InferTypeLocal(relay.Call(reg.get("scenario_identity"), [x, x]))


def test_python_defined_op_with_a_python_relation_and_broadcast():
    from xrelay.relay.op import op as reg

    def first_row(arg_types, attrs):
        return relay.TensorType(arg_types[0].shape[1:], arg_types[0].dtype)

    reg.register("scenario_first_row")
    reg.get("scenario_first_row").add_type_rel("scenario_first_row", first_row)
    reg.register("scenario_badd")
    reg.get("scenario_badd").set_num_inputs(2)
    reg.get("scenario_badd").add_type_rel("Broadcast")
    x = relay.var("x", shape=(3, 7))
    y = relay.var("y", shape=(4, 1, 1))
    row = relay.Call(reg.get("scenario_first_row"), [x])
    assert transform.InferTypeLocal(row) == relay.TensorType((7,), "float32")
    both = relay.Call(reg.get("scenario_badd"), [x, y])
    assert transform.InferTypeLocal(both) == relay.TensorType((4, 3, 7), "float32")


def test_python_defined_op_in_a_module_survives_annotate_spans():
    """A module using an op defined from Python goes through InferType after
    AnnotateSpans, which prints and re-reads the module (Relay's
    test_custom_add_broadcast_op checks types that way)."""
    from xrelay.relay.op import op as reg

    z = relay.var("z", shape=(2,))  # the pass has read a module before the op exists
    transform.AnnotateSpans()(relay.IRModule.from_expr(relay.exp(z)))
    reg.register("scenario_spans_badd")
    reg.get("scenario_spans_badd").set_num_inputs(2)
    reg.get("scenario_spans_badd").add_type_rel("Broadcast")
    x = relay.var("x", shape=(10, 4))
    y = relay.var("y", shape=(5, 10, 1))
    call = relay.Call(reg.get("scenario_spans_badd"), [x, y])
    mod = relay.IRModule.from_expr(relay.Function([x, y], call))
    mod = transform.Sequential([transform.AnnotateSpans(), transform.InferType()])(mod)
    assert mod["main"].checked_type == relay.FuncType(
        [relay.TensorType((10, 4)), relay.TensorType((5, 10, 1))],
        relay.TensorType((5, 10, 4)),
    )
    assert "GeneratedSource" in str(mod.func_op("main").body.block.first_op.location)


def test_registering_an_op_twice_or_changing_a_dialect_op_fails():
    from xrelay.error import TVMError
    from xrelay.relay.op import op as reg

    reg.register("scenario_once")
    with pytest.raises(TVMError, match="registered before"):
        reg.register("scenario_once")
    with pytest.raises(TVMError, match="defined by the relay dialect"):
        reg.get("nn.relu").set_num_inputs(3)
    with pytest.raises(TVMError, match="not registered"):
        reg.get("no_such_op")


def test_python_defined_op_cannot_run():
    from xrelay.relay.op import op as reg

    reg.register("scenario_no_semantics")
    reg.get("scenario_no_semantics").add_type_rel("Identity")
    x = relay.var("x", shape=(2,))
    mod = relay.IRModule.from_expr(relay.Call(reg.get("scenario_no_semantics"), [x]))
    with pytest.raises(
        Exception, match="scenario_no_semantics was registered from Python"
    ):
        relay.create_executor(mod=mod).evaluate()(np.zeros(2, "float32"))


def test_shape_built_from_tir_immediates():
    from xrelay.script import tir as T

    x = relay.var("x", shape=(T.int64(2), 3))
    y = relay.argmax(x, axis=[1])
    assert transform.InferTypeLocal(y) == relay.TensorType([T.int32(2)], "int32")


def test_var_identity_through_local_inference():
    x = relay.var("x", shape=())
    y = relay.add(x, x)
    transform.InferTypeLocal(y)
    assert y.checked_type == relay.scalar_type("float32")
    assert x.vid.same_as(y.args[0].vid)
    assert not x.vid.same_as(relay.var("x", shape=()).vid)
