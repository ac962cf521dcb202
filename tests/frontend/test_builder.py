"""The tvm.relay-shaped builder API: expressions, emission into func.func, IRModule,
op wrappers and the executor."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, TupleType, UnitAttr
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Operation

from xrelay import relay
from xrelay.dialects.relay import (
    INLINE,
    OPS_BY_NAME,
    PRIMITIVE,
    SKIP_OPTIMIZATION,
    ConstantOp,
    RelayOp,
)

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def op_names(func: Operation) -> list[str]:
    """Names of the ops inside ``func`` (nested regions included), in walk order."""
    return [op.name for op in func.walk() if op is not func]


def count(func: Operation) -> Counter[str]:
    return Counter(op_names(func))


def only(func: FuncOp, name: str) -> Operation:
    ops = [op for op in func.walk() if op.name == name]
    assert len(ops) == 1, f"expected one {name}, found {len(ops)}"
    return ops[0]


def build(expr: Any) -> relay.IRModule:
    mod = relay.IRModule.from_expr(expr)
    mod.verify()
    return mod


def run(mod: relay.IRModule, *args: Any) -> Any:
    return relay.create_executor(mod=mod).evaluate()(*args)


def f32(*shape: int, seed: int = 0) -> np.ndarray[Any, Any]:
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


# ---------------------------------------------------------------------------------------
# the seed example, constants, variables
# ---------------------------------------------------------------------------------------


def test_seed_example():
    x = relay.var("x", shape=(1, 3))
    c = relay.const(np.ones((1, 3), "float32"))
    y = relay.add(x, relay.multiply(relay.add(c, c), relay.const(2.0)))
    mod = build(relay.Function([x], y))
    main = mod.func_op("main")
    text = mod.astext()
    assert text.count("relay.constant") == 2  # one per relay.const
    consts = [op for op in main.walk() if isinstance(op, ConstantOp)]
    ones = next(op for op in consts if op.numpy().shape == (1, 3))
    adds = [op for op in main.walk() if op.name == "relay.add"]
    self_adds = [op for op in adds if op.operands[0] is op.operands[1]]
    assert len(self_adds) == 1
    assert self_adds[0].operands[0] is ones.results[0]
    assert main.body.block.args[0].name_hint == "x"
    expected = np.array([[5.0, 6.0, 7.0]], "float32")
    np.testing.assert_allclose(run(mod, np.array([[1, 2, 3]], "float32")), expected)


def test_const_dtypes_follow_tvm():
    assert relay.const(1.0).data.dtype == np.float32
    assert relay.const(1).data.dtype == np.int32
    assert relay.const(True).data.dtype == np.bool_
    assert relay.const(np.zeros(2)).data.dtype == np.float32  # float64 narrowed
    assert relay.const(np.zeros(2, "int64")).data.dtype == np.int32
    assert relay.const(np.zeros(2, "float16")).data.dtype == np.float16
    assert relay.const(1, "int64").data.dtype == np.int64
    assert relay.const(np.zeros(2), dtype="float64").data.dtype == np.float64
    assert relay.const([[1.0, 2.0]]).data.shape == (1, 2)
    assert relay.const(2.5).data.numpy() == np.float32(2.5)  # TVM's .numpy()
    with pytest.raises(ValueError, match="scalar or NDArray"):
        relay.const("x")


def test_var_forms():
    a = relay.var("a", shape=(2, 3), dtype="int8")
    b = relay.var("b", type_annotation=relay.TensorType((2, 3), "int8"))
    s = relay.var("s", "float32")  # a dtype string: a 0-d tensor
    f = relay.Function([a, b, s], relay.Tuple([relay.add(a, b), s]))
    func = build(f).func_op("main")
    types = [str(t) for t in func.function_type.inputs.data]
    assert types == ["tensor<2x3xi8>", "tensor<2x3xi8>", "tensor<f32>"]
    with pytest.raises(ValueError, match="either type_annotation or shape"):
        relay.var("c", relay.TensorType((1,)), shape=(1,))
    untyped = relay.var("u")  # Relay's IncompleteType, left to InferType
    mod = relay.IRModule.from_expr(relay.Function([untyped], untyped))
    assert (
        str(mod.func_op("main").function_type) == "(tensor<*xnone>) -> tensor<*xnone>"
    )
    with pytest.raises(Exception, match="cannot infer the type of %u"):
        relay.transform.InferType()(mod)


def test_dynamic_dim_and_odd_names():
    x = relay.var("input:0", shape=(relay.Any(), 3))
    func = build(relay.Function([x], relay.nn.relu(x))).func_op("main")
    assert str(func.function_type.inputs.data[0]) == "tensor<?x3xf32>"
    # escaped reversibly (xrelay.names): the colon cannot be spelled in a name hint
    assert func.body.block.args[0].name_hint == "input$3a0"


# ---------------------------------------------------------------------------------------
# sharing, tuples
# ---------------------------------------------------------------------------------------


def test_shared_subexpression_is_emitted_once():
    x = relay.var("x", shape=(4,))
    e = relay.exp(x)
    s = relay.sigmoid(e)
    y = relay.add(relay.multiply(s, e), relay.subtract(s, e))
    func = build(relay.Function([x], y)).func_op("main")
    c = count(func)
    assert c["relay.exp"] == 1
    assert c["relay.sigmoid"] == 1
    assert c == Counter(
        {
            "relay.exp": 1,
            "relay.sigmoid": 1,
            "relay.multiply": 1,
            "relay.subtract": 1,
            "relay.add": 1,
            "func.return": 1,
        }
    )
    # the same tree built twice (different nodes) is emitted twice: nodes have identity
    y2 = relay.add(relay.exp(x), relay.exp(x))
    assert count(build(relay.Function([x], y2)).func_op("main"))["relay.exp"] == 2


def test_split_tuple_wrapper():
    x = relay.var("x", shape=(4, 6))
    parts = relay.split(x, 3, axis=1)
    assert isinstance(parts, relay.TupleWrapper)
    assert len(parts) == 3
    assert isinstance(parts[0], relay.TupleGetItem)
    assert parts[-1].index == 2
    with pytest.raises(IndexError):
        parts[3]
    assert len(list(parts)) == 3
    y = relay.concatenate([parts[2], parts[0]], axis=1)
    func = build(relay.Function([x], y)).func_op("main")
    split = only(func, "relay.split")
    concat = only(func, "relay.concatenate")
    assert list(concat.operands) == [split.results[2], split.results[0]]
    assert "relay.tuple_get_item" not in op_names(func)
    assert "relay.tuple" not in op_names(func)
    # split at indices gives len(indices) + 1 pieces
    assert len(relay.split(x, [1, 4], axis=1)) == 3
    value = np.arange(24, dtype="float32").reshape(4, 6)
    out = run(build(relay.Function([x], y)), value)
    np.testing.assert_array_equal(out, np.concatenate([value[:, 4:], value[:, :2]], 1))


def test_tuple_valued_op_passed_whole():
    x = relay.var("x", shape=(4, 6))
    parts = relay.split(x, 2, axis=0)
    whole = relay.concatenate(parts, axis=0)  # a TupleWrapper as the tuple argument
    func = build(relay.Function([x], whole)).func_op("main")
    split = only(func, "relay.split")
    assert list(only(func, "relay.concatenate").operands) == list(split.results)
    # returning the tuple itself: ONE result, a relay.tuple
    func = build(relay.Function([x], parts.astuple())).func_op("main")
    assert len(func.function_type.outputs.data) == 1
    assert isinstance(func.function_type.outputs.data[0], TupleType)
    ret = func.body.block.last_op
    assert ret is not None
    assert ret.operands[0].owner.name == "relay.tuple"


def test_batch_norm_tuple_wrapper():
    x = relay.var("x", shape=(2, 3, 4, 4))
    g, b, m, v = (relay.var(n, shape=(3,)) for n in "gbmv")
    bn = relay.nn.batch_norm(x, g, b, m, v)
    assert isinstance(bn, relay.TupleWrapper)
    assert len(bn) == 3
    func = build(relay.Function([x, g, b, m, v], relay.nn.relu(bn[0]))).func_op("main")
    norm = only(func, "relay.nn.batch_norm")
    assert only(func, "relay.nn.relu").operands[0] is norm.results[0]
    assert "relay.tuple_get_item" not in op_names(func)
    # two projections of the same op: still one batch_norm
    y = relay.Tuple([bn[1], bn[2]])
    func = build(relay.Function([x, g, b, m, v], y)).func_op("main")
    assert count(func)["relay.nn.batch_norm"] == 1


def test_tuple_literal_and_projection():
    x = relay.var("x", shape=(2,))
    y = relay.var("y", shape=(3,))
    t = relay.Tuple([x, relay.exp(y)])
    # projecting a field of a literal tuple gives the field: no tuple op at all
    func = build(relay.Function([x, y], relay.TupleGetItem(t, 1))).func_op("main")
    assert op_names(func) == ["relay.exp", "func.return"]
    # a tuple-typed parameter is projected with relay.tuple_get_item
    p = relay.var(
        "p", relay.TupleType([relay.TensorType((2,)), relay.TensorType((3,))])
    )
    func = build(relay.Function([p], relay.TupleGetItem(p, 1))).func_op("main")
    assert op_names(func) == ["relay.tuple_get_item", "func.return"]
    with pytest.raises(relay.BuildError, match="index 2 is out of range"):
        build(relay.Function([x, y], relay.TupleGetItem(t, 2)))
    with pytest.raises(relay.BuildError, match="not a tuple"):
        build(relay.Function([x], relay.TupleGetItem(x, 0)))
    out = run(
        build(relay.Function([p], relay.TupleGetItem(p, 1))), (np.zeros(2), np.ones(3))
    )
    np.testing.assert_array_equal(out, np.ones(3, "float32"))


# ---------------------------------------------------------------------------------------
# If and Let
# ---------------------------------------------------------------------------------------


def test_if_and_let():
    c = relay.var("c", shape=(), dtype="bool")
    a = relay.var("a", shape=(2,))
    v = relay.var("v")
    shared = relay.exp(a)
    body = relay.If(c, relay.add(v, shared), relay.negative(v))
    f = relay.Function(
        [c, a], relay.Let(v, relay.multiply(shared, relay.const(2.0)), body)
    )
    mod = build(f)
    func = mod.func_op("main")
    if_op = only(func, "relay.if")
    # values defined before the if (exp, the let value) are used directly inside it
    then_ops = [op.name for op in if_op.regions[0].block.ops]
    else_ops = [op.name for op in if_op.regions[1].block.ops]
    assert then_ops == ["relay.add", "relay.yield"]
    assert else_ops == ["relay.negative", "relay.yield"]
    assert count(func)["relay.exp"] == 1
    mul = only(func, "relay.multiply")
    assert mul.results[0].name_hint == "v"  # the let names its value
    x = np.array([0.5, 1.0], "float32")
    np.testing.assert_allclose(run(mod, True, x), 3 * np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(run(mod, False, x), -2 * np.exp(x), rtol=1e-6)


def test_if_branch_values_stay_in_their_region():
    c = relay.var("c", shape=(), dtype="bool")
    a = relay.var("a", shape=(2,))
    inner = relay.exp(a)  # first used inside the then-branch, then again after the if
    y = relay.add(relay.If(c, inner, a), inner)
    mod = build(relay.Function([c, a], y))  # verify() checks dominance
    func = mod.func_op("main")
    assert count(func)["relay.exp"] == 2
    x = np.array([0.0, 1.0], "float32")
    np.testing.assert_allclose(run(mod, False, x), x + np.exp(x), rtol=1e-6)


def test_if_errors():
    c = relay.var("c", shape=(), dtype="bool")
    a = relay.var("a", shape=(2,))
    b = relay.var("b", shape=(3,))
    with pytest.raises(relay.BuildError, match="branches of relay.If have different"):
        build(relay.Function([c, a, b], relay.If(c, a, b)))
    with pytest.raises(
        relay.BuildError, match="condition of relay.If must be a 0-d bool"
    ):
        build(relay.Function([a], relay.If(a, a, a)))


def test_let_annotation_is_checked():
    a = relay.var("a", shape=(2,))
    v = relay.var("v", shape=(3,))
    with pytest.raises(relay.BuildError, match="let %v is annotated tensor<3xf32>"):
        build(relay.Function([a], relay.Let(v, relay.exp(a), v)))
    w = relay.var("w", shape=(2,))
    func = build(relay.Function([a], relay.Let(w, relay.exp(a), relay.exp(w)))).func_op(
        "main"
    )
    assert op_names(func) == ["relay.exp", "relay.exp", "func.return"]


def test_let_variable_outside_its_body_is_free():
    a = relay.var("a", shape=(2,))
    v = relay.var("v")
    let = relay.Let(v, relay.exp(a), v)
    assert relay.analysis.free_vars(relay.add(let, v)) == [a]
    assert relay.analysis.bound_vars(let) == [v]
    with pytest.raises(TypeError, match="Let binds a relay.Var"):
        relay.Let(a + a, a, a)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# functions, globals, attributes, free variables
# ---------------------------------------------------------------------------------------


def test_global_var_calls():
    mod = relay.IRModule()
    a = relay.var("a", shape=(2,))
    b = relay.var("b", shape=(2,))
    sq = relay.GlobalVar("sq")
    with pytest.raises(
        relay.BuildError,
        match="the type of @sq is not known: add it to the module first",
    ):
        mod["main"] = relay.Function([a], sq(a))
    assert "main" not in mod
    mod[sq] = relay.Function([b], relay.multiply(b, b))
    mod["main"] = relay.Function([a], relay.add(sq(sq(a)), a))
    mod.verify()
    calls = [op for op in mod.func_op("main").walk() if isinstance(op, CallOp)]
    assert [c.callee.string_value() for c in calls] == ["sq", "sq"]
    assert calls[1].operands[0] is calls[0].results[0]
    np.testing.assert_allclose(run(mod, np.array([1, 2], "float32")), [2, 18])
    # a GlobalVar from the module is typed; a fresh one with the same name is equal
    assert mod.get_global_var("sq") == relay.GlobalVar("sq")
    assert hash(mod.get_global_var("sq")) == hash(relay.GlobalVar("sq"))
    gv = mod.get_global_var("sq")
    other = relay.IRModule({"sq": mod.func_op("sq")})
    other["twice"] = relay.Function([a], gv(gv(a)))
    other.verify()
    # calling with a wrong type is reported
    i = relay.var("i", shape=(2,), dtype="int32")
    with pytest.raises(relay.BuildError, match=r"argument #0 of the call to @sq"):
        mod["bad"] = relay.Function([i], sq(i))
    with pytest.raises(relay.BuildError, match="@sq takes 1 arguments, 2 given"):
        mod["bad"] = relay.Function([a], sq(a, a))


def test_recursive_function_with_declared_type():
    mod = relay.IRModule()
    n = relay.var("n", shape=(), dtype="int32")
    count_down = relay.GlobalVar("count_down")
    zero = relay.const(0)
    body = relay.If(
        relay.greater(n, zero), count_down(relay.subtract(n, relay.const(1))), n
    )
    mod[count_down] = relay.Function([n], body, ret_type=relay.TensorType((), "int32"))
    mod.verify()
    assert int(relay.create_executor(mod=mod).evaluate(count_down)(np.int32(5))) == 0
    wrong = relay.Function([n], n, ret_type=relay.TensorType((), "float32"))
    with pytest.raises(relay.BuildError, match="declares return type tensor<f32>"):
        mod["wrong"] = wrong


def test_local_function_call_is_outlined():
    x = relay.var("x", shape=(3,))
    p = relay.var("p", shape=(3,))
    fused = relay.Function([p], relay.nn.relu(relay.exp(p))).with_attr("Primitive", 1)
    y = relay.add(fused(x), relay.Call(fused, [relay.negative(x)]))
    mod = build(relay.Function([x], y))
    names = [gv.name_hint for gv in mod.get_global_vars()]
    assert names == ["main_fn", "main"]  # outlined once, called twice
    assert PRIMITIVE in mod.func_op("main_fn").attributes
    calls = [op for op in mod.func_op("main").walk() if isinstance(op, CallOp)]
    assert [c.callee.string_value() for c in calls] == ["main_fn", "main_fn"]
    value = np.array([-1.0, 0.0, 1.0], "float32")
    np.testing.assert_allclose(
        run(mod, value), np.exp(value) + np.exp(-value), rtol=1e-6
    )
    with pytest.raises(ValueError, match="use IRModule.from_expr"):
        relay.Function([x], y).to_func_op()
    # a local function capturing an outer variable is a closure: not supported
    closure = relay.Function([p], relay.add(p, x))
    with pytest.raises(relay.BuildError, match="free variables %x"):
        build(relay.Function([x], closure(x)))


def test_free_variables():
    x = relay.var("x", shape=(2,))
    y = relay.var("y", shape=(2,))
    with pytest.raises(relay.BuildError, match=r"@main has free variables %y"):
        relay.IRModule.from_expr(relay.Function([x], relay.add(x, y)))
    # from_expr on a non-function: free variables become parameters, in free_vars order
    e = relay.add(relay.exp(y), x)
    assert relay.analysis.free_vars(e) == [y, x]
    func = build(e).func_op("main")
    assert [a.name_hint for a in func.body.block.args] == ["y", "x"]
    # from_expr with extra functions
    sq = relay.Function([x], relay.multiply(x, x))
    mod = relay.IRModule.from_expr(relay.GlobalVar("sq")(y), functions={"sq": sq})
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["sq", "main"]
    assert relay.analysis.all_vars(relay.Function([x], x)) == [x]


def test_function_attributes():
    x = relay.var("x", shape=(2,))
    f = relay.Function([x], relay.exp(x), attrs={"SkipOptimization": 1, "Primitive": 1})
    func = build(f).func_op("main")
    assert func.attributes[SKIP_OPTIMIZATION] == UnitAttr()
    assert func.attributes[PRIMITIVE] == UnitAttr()
    assert INLINE not in func.attributes
    g = f.with_attr("Inline", 1)
    assert INLINE in build(g).func_op("main").attributes
    assert "Inline" not in f.attrs  # with_attr copies
    assert g.attrs.Inline == 1
    h = g.with_attr({"Primitive": 0, "Composite": "dnnl.conv2d"})
    func = build(h).func_op("main")
    assert PRIMITIVE not in func.attributes  # a false value sets nothing
    assert str(func.attributes["Composite"]) == '"dnnl.conv2d"'
    assert "relay.skip_optimization" in build(h).astext()
    assert INLINE not in build(g.without_attr("Inline")).func_op("main").attributes


def test_to_func_op_and_expression_text():
    x = relay.var("x", shape=(2,))
    func = relay.Function([x], relay.exp(x)).to_func_op("f")
    assert isinstance(func, FuncOp)
    assert func.sym_name.data == "f"
    assert func.parent is None
    text = str(relay.exp(x))
    assert "func.func @main(%x: tensor<2xf32>)" in text
    assert "relay.exp" in text
    assert str(relay.GlobalVar("g")) == "@g"
    assert "Call(exp" in repr(relay.exp(x))


# ---------------------------------------------------------------------------------------
# IRModule
# ---------------------------------------------------------------------------------------


def test_irmodule_api():
    x = relay.var("x", shape=(2,))
    f1 = relay.Function([x], relay.exp(x))
    f2 = relay.Function([x], relay.log(x))
    gv2 = relay.GlobalVar("g")
    mod = relay.IRModule({"main": f1, gv2: f2})
    assert isinstance(mod.module, ModuleOp)
    assert isinstance(mod.func_op("main"), FuncOp)
    assert mod.func_op("main").sym_name.data == "main"
    assert mod.func_op(gv2) is mod.func_op("g")
    assert "main" in mod
    assert gv2 in mod
    assert relay.GlobalVar("main") in mod
    assert "nope" not in mod
    assert 3 not in mod
    assert [gv.name_hint for gv in mod.functions] == ["main", "g"]
    assert mod.functions[relay.GlobalVar("g")].func_op is mod.func_op("g")
    assert mod.get_global_vars() == [relay.GlobalVar("main"), relay.GlobalVar("g")]
    with pytest.raises(ValueError, match='Cannot find global var "h"'):
        mod.get_global_var("h")
    with pytest.raises(KeyError, match="Cannot find global var 'h'"):
        mod.func_op("h")
    # replacing keeps one function of that name, in place
    mod["main"] = f2
    assert [f.sym_name.data for f in mod.module.ops] == ["main", "g"]
    assert "relay.log" in op_names(mod.func_op("main"))
    # setting a func.func op (from another module: cloned) under a new name
    mod["h"] = mod.func_op("g")
    assert mod.func_op("h") is not mod.func_op("g")
    assert mod.func_op("h").sym_name.data == "h"
    # update from a module and from a dict
    other = relay.IRModule({"k": f1})
    mod.update(other)
    mod.update({"m": f1})
    assert [gv.name_hint for gv in mod.get_global_vars()] == [
        "main",
        "g",
        "h",
        "k",
        "m",
    ]
    assert mod.func_op("k") is not other["k"]
    mod.remove("m")
    assert "m" not in mod
    mod.verify()
    # copy is deep
    copy = mod.copy()
    copy["main"] = f1
    assert "relay.log" in op_names(mod.func_op("main"))
    assert "relay.exp" in op_names(copy["main"])
    # wrapping an existing builtin.module
    wrapped = relay.IRModule(copy.module)
    assert wrapped.module is copy.module
    assert "k" in wrapped
    with pytest.raises(TypeError, match="relay.Function or func.func"):
        mod["bad"] = relay.exp(x)  # type: ignore[assignment]


def test_text_round_trips():
    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.parser import Parser

    from xrelay.dialects.relay import Relay

    c = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(2, 300))
    mod = relay.IRModule()
    p = relay.var("p", shape=(2, 300))
    mod["helper"] = relay.Function([p], relay.nn.relu(p), attrs={"Primitive": 1})
    helper = mod.get_global_var("helper")
    parts = relay.split(x, [100], axis=1)
    body = relay.If(
        c, helper(x), relay.add(x, relay.const(np.arange(600.0).reshape(2, 300)))
    )
    mod["main"] = relay.Function([c, x], relay.Tuple([body, parts[1]]))
    mod.verify()
    ctx = Context()
    for dialect in (Builtin, Func, Relay):
        ctx.load_dialect(dialect)
    text = mod.astext()
    parsed = Parser(ctx, text).parse_module()
    parsed.verify()
    assert relay.IRModule(parsed).astext() == text
    consts = [op for op in parsed.walk() if isinstance(op, ConstantOp)]
    np.testing.assert_array_equal(consts[0].numpy(), np.arange(600.0).reshape(2, 300))


def test_astext_and_str_elide_large_constants():
    x = relay.var("x", shape=(1000,))
    w = relay.const(np.arange(1000, dtype="float32"))
    mod = build(relay.Function([x], relay.add(x, w)))
    full = mod.astext()
    short = str(mod)
    assert "dense_resource<__elided__>" in short
    assert "__elided__" not in full
    assert "__elided__" in mod.astext(show_meta_data=False)
    assert len(short) < 1000 < len(full)
    small = build(relay.Function([x], relay.add(x, relay.const(1.0))))
    assert "dense<1.000000e+00>" in str(small)


# ---------------------------------------------------------------------------------------
# operators and type errors
# ---------------------------------------------------------------------------------------


def test_operator_overloading():
    x = relay.var("x", shape=(3,))
    y = relay.var("y", shape=(3,))
    cases = {
        "relay.add": x + y,
        "relay.subtract": x - y,
        "relay.multiply": x * y,
        "relay.divide": x / y,
        "relay.negative": -x,
        "relay.less": x < y,
        "relay.greater": x > y,
        "relay.less_equal": x <= y,
        "relay.greater_equal": x >= y,
    }
    for name, expr in cases.items():
        func = build(relay.Function([x, y], expr)).func_op("main")
        assert op_names(func)[0] == name
    assert (x == y) is False
    assert x == x
    assert len({x, y, x}) == 2
    # numbers take the other operand's dtype, on either side
    i = relay.var("i", shape=(3,), dtype="int32")
    expr = relay.Tuple([2 - i, i * 3, 1.5 / x, x + 1])
    mod = build(relay.Function([x, i], expr))
    consts = [op for op in mod.func_op("main").walk() if isinstance(op, ConstantOp)]
    assert [str(c.numpy().dtype) for c in consts] == [
        "int32",
        "int32",
        "float32",
        "float32",
    ]
    out = run(mod, np.array([1, 2, 4], "float32"), np.array([1, 2, 3], "int32"))
    np.testing.assert_array_equal(out[0], [1, 0, -1])
    np.testing.assert_array_equal(out[2], [1.5, 0.75, 0.375])
    assert isinstance(x.astype("float16"), relay.Call)
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"  # type: ignore[operator]
    with pytest.raises(TypeError, match="wrap it with relay.const"):
        relay.nn.relu(1.0)  # type: ignore[arg-type]


def test_type_error_names_op_and_site():
    x = relay.var("x", shape=(2,))
    i = relay.var("i", shape=(2,), dtype="int32")
    bad = relay.add(x, i)
    with pytest.raises(relay.BuildError) as info:
        relay.IRModule.from_expr(relay.Function([x, i], bad))
    message = str(info.value)
    assert message.startswith("relay.add (built at test_builder.py:")
    assert "relay does not promote dtypes" in message
    assert "tensor<2xf32>, tensor<2xi32>" in message
    y = relay.var("y", shape=(3,))
    with pytest.raises(relay.BuildError, match=r"relay.add .*do not broadcast"):
        relay.IRModule.from_expr(relay.add(x, y))
    with pytest.raises(relay.BuildError, match=r"relay.clip .*a_min 2.0 is larger"):
        relay.IRModule.from_expr(relay.clip(x, 2.0, 1.0))
    with pytest.raises(relay.BuildError, match="relay.no_such_op .*not available"):
        relay.IRModule.from_expr(relay.Call(relay.op.get("no_such_op"), [x]))
    with pytest.raises(relay.BuildError, match="relay.add .*takes 2 operands, 1 given"):
        relay.IRModule.from_expr(relay.Call("add", [x]))


def test_deep_chain_does_not_recurse():
    x = relay.var("x", shape=(1,))
    y: relay.Expr = x
    for _ in range(3000):
        y = relay.add(y, x)
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    assert count(mod.func_op("main"))["relay.add"] == 3000
    assert relay.analysis.free_vars(y) == [x]


def test_import_is_light():
    code = (
        "import sys, xrelay\n"
        "assert 'xdsl' not in sys.modules\n"
        "from xrelay import relay\n"
        "assert relay.nn.relu\n"
        "assert 'onnx' not in sys.modules and 'llvmlite' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------------------
# attribute normalisation in the wrappers
# ---------------------------------------------------------------------------------------


def test_attribute_normalisation():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    conv = relay.nn.conv2d(x, w, strides=2, padding=1, dilation=1, kernel_size=3)
    assert conv.attrs.padding == [1, 1, 1, 1]
    assert conv.attrs.strides == [2, 2]
    assert conv.attrs.kernel_size == [3, 3]
    assert conv.attrs.dilation == [1, 1]
    assert relay.nn.conv2d(x, w, padding=(1, 2)).attrs.padding == [1, 2, 1, 2]
    assert relay.nn.conv2d(x, w, padding=(0, 1, 2, 3)).attrs.padding == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="1, 2 or 4 values"):
        relay.nn.conv2d(x, w, padding=(1, 2, 3))
    pool = relay.nn.max_pool2d(x, pool_size=3, strides=2, padding=1)
    assert pool.attrs.pool_size == [3, 3]
    assert pool.attrs.padding == [1, 1, 1, 1]
    avg = relay.nn.avg_pool2d(x, 2, padding=(1, 0))
    assert avg.attrs.padding == [1, 0, 1, 0]
    assert relay.sum(x, axis=1).attrs.axis == [1]
    assert relay.sum(x, axis=(1, 2)).attrs.axis == [1, 2]
    assert relay.sum(x).attrs.axis is None
    assert relay.squeeze(x, axis=0).attrs.axis == [0]
    assert relay.reshape(x, 192).attrs.newshape == [192]
    assert relay.strided_slice(x, [0], [1]).attrs.strides == [1]
    # the IR carries the normalised attributes
    func = build(relay.Function([x, w], conv)).func_op("main")
    text = str(func)
    assert "padding = array<i64: 1, 1, 1, 1>" in text
    assert "strides = array<i64: 2, 2>" in text
    assert "kernel_size = array<i64: 3, 3>" in text


def test_pad_flattens_and_types_the_pad_value():
    x = relay.var("x", shape=(1, 2, 3), dtype="float16")
    y = relay.nn.pad(x, ((0, 0), (1, 1), (2, 0)), pad_value=1.5)
    assert y.attrs.pad_width == [0, 0, 1, 1, 2, 0]
    mod = build(relay.Function([x], y))
    pad = only(mod.func_op("main"), "relay.nn.pad")
    value = pad.operands[1].owner
    assert isinstance(value, ConstantOp)
    assert value.numpy().dtype == np.float16
    assert value.numpy().shape == ()
    assert float(value.numpy()) == 1.5
    assert "pad_width = array<i64: 0, 0, 1, 1, 2, 0>" in str(mod)
    data = np.ones((1, 2, 3), "float16")
    out = run(mod, data)
    np.testing.assert_array_equal(
        out, np.pad(data, ((0, 0), (1, 1), (2, 0)), constant_values=1.5)
    )
    i = relay.var("i", shape=(2,), dtype="int32")
    mod = build(relay.Function([i], relay.nn.pad(i, [(1, 0)])))  # default 0 → int32
    value = only(mod.func_op("main"), "relay.nn.pad").operands[1].owner
    assert isinstance(value, ConstantOp)
    assert value.numpy().dtype == np.int32


def test_full_clip_and_creators():
    mod = build(relay.full(2, (2, 2), "int8"))
    fill = only(mod.func_op("main"), "relay.full").operands[0].owner
    assert isinstance(fill, ConstantOp)
    assert fill.numpy().dtype == np.int8
    np.testing.assert_array_equal(run(mod), np.full((2, 2), 2, "int8"))
    mod = build(relay.full(1.5, 3))  # dtype "": TVM's default for a float
    assert str(mod.func_op("main").function_type.outputs.data[0]) == "tensor<3xf32>"
    x = relay.var("x", shape=(3,), dtype="int32")
    mod = build(relay.Function([x], relay.full_like(x, 7)))
    np.testing.assert_array_equal(run(mod, np.zeros(3, "int32")), [7, 7, 7])
    y = relay.var("y", shape=(3,))
    mod = build(relay.Function([y], relay.clip(y, 0, 1)))
    np.testing.assert_allclose(run(mod, np.array([-1, 0.5, 2], "float32")), [0, 0.5, 1])
    mod = build(relay.Tuple([relay.zeros((2,), "float32"), relay.ones(2, "int64")]))
    zeros, ones = run(mod)
    assert zeros.dtype == np.float32
    assert ones.dtype == np.int64
    assert ones.tolist() == [1, 1]


def test_variance_std_logsumexp_follow_tvm_composition():
    x = relay.var("x", shape=(2, 5))
    func = build(relay.Function([x], relay.variance(x, axis=1))).func_op("main")
    var = only(func, "relay.variance")
    mean = var.operands[1].owner
    assert isinstance(mean, RelayOp)
    assert mean.name == "relay.mean"
    assert "keepdims" in mean.properties
    assert str(mean.properties["keepdims"]) == "true"
    func = build(relay.Function([x], relay.std(x, axis=1, unbiased=True))).func_op(
        "main"
    )
    sqrt = only(func, "relay.sqrt")
    assert sqrt.operands[0].owner.name == "relay.variance"
    value = f32(2, 5)
    mod = build(
        relay.Function([x], relay.Tuple([relay.std(x, 1), relay.logsumexp(x, 1)]))
    )
    std, lse = run(mod, value)
    np.testing.assert_allclose(std, value.std(axis=1), rtol=1e-5)
    np.testing.assert_allclose(lse, np.log(np.exp(value).sum(axis=1)), rtol=1e-5)
    assert "relay.max" in op_names(mod.func_op("main"))  # the stable composition


def test_matmul_dropout_and_dense():
    a = relay.var("a", shape=(2, 3))
    b = relay.var("b", shape=(4, 3))
    assert relay.nn.matmul(a, b, transpose_b=True).op.name == "nn.dense"
    assert relay.nn.matmul(a, a, transpose_a=True).op.name == "nn.matmul"
    d = relay.nn.dropout(a)
    assert isinstance(d, relay.TupleGetItem)
    assert d.index == 0
    raw = relay.nn.dropout_raw(a, 0.25)
    assert isinstance(raw, relay.TupleWrapper)
    assert len(raw) == 2
    func = build(relay.Function([a], d)).func_op("main")
    drop = only(func, "relay.nn.dropout")
    ret = func.body.block.last_op
    assert ret is not None
    assert ret.operands[0] is drop.results[0]
    np.testing.assert_array_equal(
        run(build(relay.Function([a], d)), np.ones((2, 3))), 1
    )


# ---------------------------------------------------------------------------------------
# every wrapper against the op classes
# ---------------------------------------------------------------------------------------

F = relay.var("F", shape=(2, 3, 4, 4))
M = relay.var("M", shape=(3, 4))
V = relay.var("V", shape=(4,))
B = relay.var("B", shape=(3, 4), dtype="bool")
IDX = relay.var("I", shape=(2,), dtype="int32")
C3 = relay.var("C3", shape=(3,))
S = relay.var("S", shape=(), dtype="float32")


def _cases() -> list[tuple[str, Any]]:
    nn = relay.nn
    r = relay
    unary = ["exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "erf", "negative", "abs",
             "sign", "floor", "ceil", "round", "trunc", "sin", "cos", "copy",
             "zeros_like", "ones_like"]  # fmt: skip
    binary = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
              "floor_divide", "floor_mod", "mod", "equal", "not_equal", "less",
              "less_equal", "greater", "greater_equal"]  # fmt: skip
    reductions = ["sum", "mean", "max", "min", "prod", "argmax", "argmin"]
    cases: list[tuple[str, Any]] = [(f"relay.{n}", getattr(r, n)(M)) for n in unary]
    cases += [(f"relay.{n}", getattr(r, n)(M, V)) for n in binary]
    cases += [
        (f"relay.{n}", getattr(r, n)(M, axis=1, keepdims=True)) for n in reductions
    ]
    cases += [
        ("relay.logical_and", r.logical_and(B, B)),
        ("relay.logical_or", r.logical_or(B, B)),
        ("relay.logical_not", r.logical_not(B)),
        ("relay.all", r.all(B, axis=0)),
        ("relay.any", r.any(B, exclude=True, axis=[0])),
        ("relay.clip", r.clip(M, -1.0, 1.0)),
        ("relay.cast", r.cast(M, "int32")),
        ("relay.cast_like", r.cast_like(IDX, V)),
        ("relay.where", r.where(B, M, 0.0)),
        ("relay.zeros", r.zeros((2, 3), "float32")),
        ("relay.ones", r.ones([2], "int32")),
        ("relay.full", r.full(S, (2, 2))),
        ("relay.full_like", r.full_like(M, S)),
        ("relay.reshape", r.reshape(M, (-1,))),
        ("relay.reshape_like", r.reshape_like(M, r.zeros((12,), "float32"))),
        ("relay.transpose", r.transpose(F, (0, 2, 3, 1))),
        ("relay.expand_dims", r.expand_dims(M, 0, 2)),
        ("relay.squeeze", r.squeeze(r.expand_dims(M, 0))),
        ("relay.concatenate", r.concatenate([M, M], 0)),
        ("relay.stack", r.stack((V, V), axis=1)),
        ("relay.split", r.split(M, [1], axis=0)[1]),
        ("relay.strided_slice", r.strided_slice(M, [0, 1], [3, 4], [1, 2])),
        ("relay.take", r.take(M, IDX, axis=1)),
        ("relay.gather", r.gather(M, 1, r.zeros((3, 2), "int32"))),
        ("relay.gather_nd", r.gather_nd(M, r.zeros((2, 1), "int32"))),
        ("relay.broadcast_to", r.broadcast_to(V, (3, 4))),
        ("relay.broadcast_to_like", r.broadcast_to_like(V, M)),
        ("relay.collapse_sum_like", r.collapse_sum_like(M, V)),
        ("relay.tile", r.tile(V, (2, 1))),
        ("relay.repeat", r.repeat(V, 2, 0)),
        ("relay.reverse", r.reverse(M, 1)),
        ("relay.one_hot", r.one_hot(IDX, 1.0, 0.0, 5, -1, "float32")),
        ("relay.layout_transform", r.layout_transform(F, "NCHW", "NHWC")),
        ("relay.shape_of", r.shape_of(M)),
        ("relay.variance", r.variance(M, axis=0)),
        ("relay.sqrt", r.std(M, axis=0)),
        ("relay.squeeze", r.logsumexp(M, axis=1)),
        ("relay.nn.relu", nn.relu(M)),
        ("relay.nn.leaky_relu", nn.leaky_relu(M, 0.2)),
        ("relay.nn.prelu", nn.prelu(F, C3)),
        ("relay.nn.bias_add", nn.bias_add(F, C3)),
        ("relay.nn.conv2d", nn.conv2d(F, r.ones((5, 3, 3, 3), "float32"), padding=1)),
        (
            "relay.nn.conv2d_transpose",
            nn.conv2d_transpose(F, r.ones((3, 5, 3, 3), "float32"), strides=2),
        ),
        ("relay.nn.dense", nn.dense(M, r.ones((6, 4), "float32"), units=6)),
        ("relay.nn.matmul", nn.matmul(M, r.ones((4, 6), "float32"))),
        (
            "relay.nn.batch_matmul",
            nn.batch_matmul(r.reshape(F, (6, 4, 4)), r.ones((6, 5, 4), "float32")),
        ),
        ("relay.nn.max_pool2d", nn.max_pool2d(F, 2, 2)),
        (
            "relay.nn.avg_pool2d",
            nn.avg_pool2d(F, 3, 1, padding=1, count_include_pad=True),
        ),
        ("relay.nn.global_avg_pool2d", nn.global_avg_pool2d(F)),
        ("relay.nn.global_max_pool2d", nn.global_max_pool2d(F)),
        ("relay.nn.adaptive_avg_pool2d", nn.adaptive_avg_pool2d(F, 2)),
        ("relay.nn.adaptive_max_pool2d", nn.adaptive_max_pool2d(F, (1, 2))),
        ("relay.nn.softmax", nn.softmax(M)),
        ("relay.nn.log_softmax", nn.log_softmax(M, axis=0)),
        ("relay.nn.fast_softmax", nn.fast_softmax(M)),
        ("relay.nn.batch_norm", nn.batch_norm(F, C3, C3, C3, C3)[0]),
        ("relay.nn.layer_norm", nn.layer_norm(M, V, V)),
        ("relay.nn.group_norm", nn.group_norm(F, C3, C3, num_groups=3)),
        ("relay.nn.instance_norm", nn.instance_norm(F, C3, C3)),
        ("relay.nn.l2_normalize", nn.l2_normalize(M, 1e-6, axis=1)),
        ("relay.nn.lrn", nn.lrn(F, size=3)),
        ("relay.nn.dropout", nn.dropout(M)),
        ("relay.nn.batch_flatten", nn.batch_flatten(F)),
        ("relay.nn.pad", nn.pad(F, ((0, 0), (0, 0), (1, 1), (1, 1)))),
    ]
    return cases


def test_wrappers_cover_the_requested_ops():
    requested = """add subtract multiply divide power maximum minimum floor_divide
    floor_mod mod equal not_equal less less_equal greater greater_equal logical_and
    logical_or logical_not exp log sqrt rsqrt sigmoid tanh erf negative abs sign floor
    ceil round trunc sin cos copy clip cast cast_like where zeros ones full zeros_like
    ones_like full_like reshape reshape_like transpose expand_dims squeeze concatenate
    stack split strided_slice take gather gather_nd broadcast_to broadcast_to_like
    collapse_sum_like tile repeat reverse one_hot layout_transform shape_of sum mean
    max min prod all any argmax argmin variance std logsumexp""".split()
    requested_nn = """relu leaky_relu prelu bias_add conv2d conv2d_transpose dense
    matmul batch_matmul max_pool2d avg_pool2d global_avg_pool2d global_max_pool2d
    adaptive_avg_pool2d adaptive_max_pool2d softmax log_softmax fast_softmax batch_norm
    layer_norm group_norm instance_norm l2_normalize lrn dropout dropout_raw
    batch_flatten pad""".split()
    assert [n for n in requested if not callable(getattr(relay, n, None))] == []
    assert [n for n in requested_nn if not callable(getattr(relay.nn, n, None))] == []
    built = {name for name, _ in _cases()}
    wrapped_ops = {f"relay.{n}" for n in requested if n not in ("std", "logsumexp")}
    wrapped_ops |= {f"relay.nn.{n}" for n in requested_nn if n != "dropout_raw"}
    assert wrapped_ops - built == set()


@pytest.mark.parametrize(("name", "expr"), _cases(), ids=[n for n, _ in _cases()])
def test_every_wrapper_builds_a_valid_op(name: str, expr: Any):
    if name not in OPS_BY_NAME:
        pytest.fail(f"{name} is not defined in the relay dialect")
    mod = relay.IRModule.from_expr(expr)
    mod.verify()
    assert name in op_names(mod.func_op("main"))
    for op in mod.func_op("main").walk():
        for res in op.results:
            assert isinstance(res.type, TensorType | TupleType)
            assert "*" not in str(res.type)  # fully typed


# ---------------------------------------------------------------------------------------
# small models, the executor
# ---------------------------------------------------------------------------------------


def conv2d_reference(x: np.ndarray[Any, Any], w: np.ndarray[Any, Any], pad: int):
    """Direct convolution with explicit loops over output positions (NCHW/OIHW)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = xp.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1), "float64")
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            window = xp[:, :, i : i + kh, j : j + kw]
            out[:, :, i, j] = np.tensordot(window, w, axes=([1, 2, 3], [1, 2, 3]))
    return out


def test_small_cnn():
    data = relay.var("data", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    bias = relay.var("bias", shape=(4,))
    fw = relay.var("fw", shape=(10, 64))
    fb = relay.var("fb", shape=(10,))
    h = relay.nn.conv2d(data, w, padding=1, channels=4, kernel_size=3)
    h = relay.nn.relu(relay.nn.bias_add(h, bias))
    h = relay.nn.max_pool2d(h, pool_size=2, strides=2)
    h = relay.nn.bias_add(relay.nn.dense(relay.nn.batch_flatten(h), fw), fb)
    out = relay.nn.softmax(h)
    mod = build(relay.Function(relay.analysis.free_vars(out), out))
    main = mod.func_op("main")
    assert [a.name_hint for a in main.body.block.args] == [
        "data",
        "w",
        "bias",
        "fw",
        "fb",
    ]
    assert str(main.function_type.outputs.data[0]) == "tensor<1x10xf32>"
    assert op_names(main) == [
        "relay.nn.conv2d", "relay.nn.bias_add", "relay.nn.relu", "relay.nn.max_pool2d",
        "relay.nn.batch_flatten", "relay.nn.dense", "relay.nn.bias_add",
        "relay.nn.softmax", "func.return",
    ]  # fmt: skip
    args = [f32(1, 3, 8, 8, seed=1), f32(4, 3, 3, 3, seed=2), f32(4, seed=3),
            f32(10, 64, seed=4), f32(10, seed=5)]  # fmt: skip
    got = run(mod, *args)
    conv = conv2d_reference(args[0], args[1], 1) + args[2].reshape(1, 4, 1, 1)
    act = np.maximum(conv, 0)
    pooled = act.reshape(1, 4, 4, 2, 4, 2).max(axis=(3, 5))
    logits = pooled.reshape(1, 64) @ args[3].T.astype("float64") + args[4]
    expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


def mlp(batch: int = 2) -> tuple[relay.Function, list[np.ndarray[Any, Any]]]:
    x = relay.var("x", shape=(batch, 8))
    w1 = relay.const(f32(16, 8, seed=1))
    b1 = relay.const(f32(16, seed=2))
    w2 = relay.const(f32(4, 16, seed=3))
    h = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(x, w1), b1))
    y = relay.nn.log_softmax(relay.nn.dense(h, w2))
    weights = [w1.data.numpy(), b1.data.numpy(), w2.data.numpy()]
    return relay.Function([x], y), weights


def test_mlp_and_executor():
    fn, (w1, b1, w2) = mlp()
    mod = build(fn)
    assert count(mod.func_op("main"))["relay.constant"] == 3
    x = f32(2, 8, seed=9)
    hidden = np.maximum(x @ w1.T + b1, 0)
    logits = hidden @ w2.T
    expected = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    ex = relay.create_executor("debug", mod=mod)
    got = ex.evaluate()(x)
    assert isinstance(got, np.ndarray)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ex.evaluate()(x=x), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ex.evaluate(fn)(x), expected, rtol=1e-4, atol=1e-5)
    bound = relay.create_executor(mod=mod, params={"x": x}).evaluate()
    np.testing.assert_allclose(bound(), expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match="no value for parameter"):
        ex.evaluate()()
    with pytest.raises(TypeError, match="no parameter named y"):
        ex.evaluate()(x, y=x)
    with pytest.raises(ValueError, match="unknown executor kind"):
        relay.create_executor("jit")


def test_evaluate_expression_without_free_vars():
    value = relay.create_executor().evaluate(
        relay.add(relay.const(1.0), relay.const(2.0))
    )
    assert float(value) == 3.0
    assert value.numpy().dtype == np.float32
    pair = relay.create_executor().evaluate(
        relay.Tuple([relay.const(1), relay.const(2)])
    )
    assert isinstance(pair, tuple)
    assert [int(v) for v in pair] == [1, 2]


def test_contrib_layout_ops_match_their_plain_forms():
    """The blocked conv2d / packed dense wrappers compute what conv2d / dense do on the
    same data, once the layouts are transformed."""
    from xrelay.dialects.relay.layout import transform_array

    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 16, 6, 6)).astype("float32")
    w = rng.standard_normal((16, 16, 3, 3)).astype("float32")
    data = relay.var("x", shape=(1, 2, 6, 6, 8))
    y = relay.nn.contrib_conv2d_nchwc(
        data, relay.const(transform_array(w, "OIHW", "OIHW8i8o")), padding=1
    )
    mod = relay.IRModule.from_expr(relay.Function([data], y))
    got = relay.create_executor(mod=mod).evaluate()(
        transform_array(x, "NCHW", "NCHW8c")
    )
    plain = relay.IRModule.from_expr(
        relay.nn.conv2d(relay.var("x", shape=x.shape), relay.const(w), padding=1)
    )
    want = relay.create_executor(mod=plain).evaluate()(x)
    np.testing.assert_allclose(
        transform_array(np.asarray(got), "NCHW8c", "NCHW"), want, rtol=1e-5, atol=1e-5
    )

    a = rng.standard_normal((3, 32)).astype("float32")
    wd = rng.standard_normal((16, 32)).astype("float32")
    packed = relay.const(transform_array(wd, "NC", "NC8n"))
    dmod = relay.IRModule.from_expr(
        relay.nn.contrib_dense_pack(relay.var("a", shape=a.shape), packed)
    )
    got_d = relay.create_executor(mod=dmod).evaluate()(a)
    np.testing.assert_allclose(np.asarray(got_d), a @ wd.T, rtol=1e-5, atol=1e-5)
