"""``relay.dataflow_pattern``: matching (operators, constants, alternatives,
attributes, types, tuples, dominators), ``rewrite`` with callbacks until nothing
changes, and ``partition`` into attributed functions that build and run."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.ir import structural_equal
from xrelay.relay.dataflow_pattern import (
    DFPattern,
    DFPatternCallback,
    FunctionPattern,
    dominates,
    has_attr,
    has_dtype,
    has_shape,
    has_type,
    is_constant,
    is_expr,
    is_if,
    is_let,
    is_op,
    is_tuple,
    is_tuple_get_item,
    is_var,
    partition,
    rewrite,
    wildcard,
)

ELEMWISE = 0  # TVM's OpPattern kElemWise


def test_import_paths():
    import xrelay.frontend.relay.dataflow_pattern as real
    import xrelay.relay.dataflow_pattern as alias

    assert alias is real is relay.dataflow_pattern
    assert isinstance(is_op("add"), DFPattern)


def rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(len(shape)).uniform(-1, 1, shape).astype("float32")


def conv_block(with_bias: bool = True) -> tuple[relay.Var, relay.Expr]:
    x = relay.var("x", shape=(1, 3, 8, 8))
    y = relay.nn.conv2d(x, relay.const(rand(4, 3, 3, 3)), padding=(1, 1), channels=4)
    if with_bias:
        y = relay.nn.bias_add(y, relay.const(rand(4)))
    return x, relay.nn.relu(y)


CONV = is_op("nn.conv2d")(wildcard(), is_constant())
CONV_BIAS_RELU = is_op("nn.relu")(is_op("nn.bias_add")(CONV, is_constant()))


def test_match_conv_bias_relu():
    _, expr = conv_block()
    assert CONV_BIAS_RELU.match(expr)
    _, no_bias = conv_block(with_bias=False)
    assert not CONV_BIAS_RELU.match(no_bias)
    # a variable weight is not a constant
    x, w = relay.var("x", shape=(1, 3, 8, 8)), relay.var("w", shape=(4, 3, 3, 3))
    assert not CONV.match(relay.nn.conv2d(x, w))
    assert is_op("nn.conv2d")(wildcard(), wildcard()).match(relay.nn.conv2d(x, w))
    assert is_op("nn.conv2d")(None).match(relay.nn.conv2d(x, w))  # any arguments
    assert not is_op("nn.dense")(None).match(relay.nn.conv2d(x, w))


def test_one_pattern_object_matches_one_expression():
    a, b = relay.var("a", shape=(2,)), relay.var("b", shape=(2,))
    x = wildcard()
    same = is_op("subtract")(x, x)
    assert same.match(relay.subtract(a, a))
    assert not same.match(relay.subtract(a, b))
    two = is_op("subtract")(wildcard(), wildcard())
    assert two.match(relay.subtract(a, b))


def test_add_and_multiply_match_either_argument_order():
    x, c = relay.var("x", shape=(2,)), relay.const(np.ones(2, "float32"))
    assert is_op("add")(is_constant(), is_var("x")).match(relay.add(x, c))
    assert (is_constant() * is_var()).match(relay.multiply(x, c))
    assert not is_op("subtract")(is_constant(), is_var()).match(relay.subtract(x, c))


def test_alternatives_and_optional():
    x = relay.var("x", shape=(2,))
    act = is_op("nn.relu")(wildcard()) | is_op("sigmoid")(wildcard())
    assert act.match(relay.nn.relu(x))
    assert act.match(relay.sigmoid(x))
    assert not act.match(relay.tanh(x))
    exp = is_op("exp")(wildcard())
    maybe_log = exp.optional(lambda p: is_op("log")(p))
    assert maybe_log.match(relay.exp(x))
    assert maybe_log.match(relay.log(relay.exp(x)))
    assert not maybe_log.match(relay.log(x))


def test_has_attr_on_calls_functions_and_operators():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    conv = relay.nn.conv2d(x, w, padding=(1, 1))
    any_conv = is_op("nn.conv2d")(wildcard(), wildcard())
    # an attribute left at its default has the default
    assert any_conv.has_attr({"data_layout": "NCHW"}).match(conv)
    assert not any_conv.has_attr({"data_layout": "NHWC"}).match(conv)
    assert any_conv.has_attr({"padding": [1, 1, 1, 1]}).match(conv)
    assert not any_conv.has_attr({"no_such_attribute": 1}).match(conv)
    # an operator's fusion pattern
    elemwise = wildcard().has_attr({"TOpPattern": ELEMWISE})
    assert elemwise(wildcard()).match(relay.nn.relu(x))
    assert not elemwise(wildcard(), wildcard()).match(conv)
    # a function's attributes
    y = relay.var("y", shape=(2,))
    fn = relay.Function([y], relay.exp(y)).with_attr("Composite", "exp")
    body = FunctionPattern(None, wildcard())
    assert has_attr({"Composite": "exp"}, body).match(fn)
    assert not has_attr({"Composite": "log"}, body).match(fn)
    assert not has_attr({"Composite": "exp"}).match(relay.exp(y))


def test_type_shape_and_dtype_constraints():
    _, expr = conv_block()
    assert has_shape([1, 4, 8, 8]).match(expr)  # the relu's computed shape
    assert not has_shape([1, 3, 8, 8]).match(expr)
    assert has_dtype("float32", CONV_BIAS_RELU).match(expr)
    assert not has_dtype("float16").match(expr)
    assert has_type(relay.TensorType((1, 4, 8, 8), "float32")).match(expr)
    assert not has_type(relay.TensorType((1, 4, 8, 8), "int32")).match(expr)
    # on the body of a module function (lifted from the IR)
    mod = relay.transform.InferType()(relay.IRModule.from_expr(expr))
    assert is_op("nn.relu")(has_shape([1, 4, 8, 8])).match(mod["main"].body)
    # an untyped variable gets the type its use gives it
    x, w = relay.var("x", shape=(1, 3, 8, 8)), relay.var("w")
    conv = relay.nn.conv2d(x, w, channels=4, kernel_size=(3, 3))
    assert is_op("nn.conv2d")(wildcard(), has_shape([4, 3, 3, 3])).match(conv)


def test_tuples_variables_let_if_and_expressions():
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    tup = relay.Tuple([x, relay.exp(y)])
    assert is_tuple([is_var("x"), is_op("exp")(is_var("y"))]).match(tup)
    assert not is_tuple([is_var("y"), wildcard()]).match(tup)
    assert is_tuple(None).match(tup)
    item = relay.TupleGetItem(tup, 1)
    assert is_tuple_get_item(is_tuple(None), 1).match(item)
    assert is_tuple_get_item(wildcard()).match(item)
    assert not is_tuple_get_item(wildcard(), 0).match(item)
    c = relay.const(np.array([1.0, 2.0], "float32"))
    assert is_expr(relay.const(np.array([1.0, 2.0], "float32"))).match(c)
    assert not is_expr(relay.const(np.array([1.0, 3.0], "float32"))).match(c)
    assert is_expr(x).match(x)
    assert not is_expr(x).match(y)
    v = relay.var("v")
    let = relay.Let(v, relay.exp(x), relay.add(v, v))
    assert is_let(is_var("v"), is_op("exp")(wildcard()), wildcard()).match(let)
    cond = relay.var("c", shape=(), dtype="bool")
    ite = relay.If(cond, x, relay.negative(x))
    assert is_if(is_var("c"), wildcard(), is_op("negative")(wildcard())).match(ite)
    assert not is_if(is_var("c"), is_op("negative")(wildcard()), wildcard()).match(ite)


# ---------------------------------------------------------------------------------------
# dominators
# ---------------------------------------------------------------------------------------

ANY_CONV = is_op("nn.conv2d")(wildcard(), wildcard())
ELEMWISE_CALL = wildcard().has_attr({"TOpPattern": ELEMWISE})(wildcard())
SUM = is_op("add")(wildcard(), wildcard())
DIAMOND = dominates(ANY_CONV, ELEMWISE_CALL, SUM)


def conv_diamond() -> tuple[relay.Var, relay.Expr]:
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(3, 3, 1, 1))
    conv = relay.nn.conv2d(x, w)
    left = relay.nn.relu(relay.nn.relu(conv))
    right = relay.sigmoid(conv)
    return x, relay.add(left, right)


def test_dominator_over_elementwise_chains():
    _, expr = conv_diamond()
    assert DIAMOND.match(expr)
    # a branch through a non-elementwise op breaks the path
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(3, 3, 1, 1))
    conv = relay.nn.conv2d(x, w)
    pooled = relay.nn.max_pool2d(conv, pool_size=(1, 1))
    assert not DIAMOND.match(relay.add(relay.nn.relu(conv), pooled))
    # the method form; the sum does not post-dominate a conv used elsewhere too
    assert SUM.dominates(ANY_CONV, ELEMWISE_CALL).match(expr)
    total = relay.add(relay.nn.relu(conv), relay.sigmoid(conv))
    assert DIAMOND.match(total)
    outer = relay.Tuple([total, conv])  # the conv is used outside the sum too
    assert DIAMOND.partition(outer) is outer
    alone = DIAMOND.partition(relay.Tuple([total, x]))
    assert isinstance(alone.fields[0].op, relay.Function)


def test_partition_a_dominator_diamond():
    x, expr = conv_diamond()
    out = DIAMOND.partition(expr)
    assert isinstance(out, relay.Call)
    assert isinstance(out.op, relay.Function)
    assert out.op.attrs["PartitionedFromPattern"] == (
        "nn.conv2d_nn.relu_nn.relu_sigmoid_add_"
    )
    assert len(out.args) == 2  # the conv's data and weight
    assert out.args[0] is x
    assert [p.name_hint for p in out.op.params] == [
        "FunctionVar_0_0",
        "FunctionVar_0_1",
    ]


# ---------------------------------------------------------------------------------------
# rewrite
# ---------------------------------------------------------------------------------------


class CombineAddConstants(DFPatternCallback):
    """add(add(x, c1), c2) -> add(x, c1 + c2)"""

    def __init__(self) -> None:
        super().__init__()
        self.x, self.c1, self.c2 = wildcard(), is_constant(), is_constant()
        self.pattern = is_op("add")(is_op("add")(self.x, self.c1), self.c2)

    def callback(self, pre: Any, post: Any, node_map: Any) -> relay.Expr:
        c1 = node_map[self.c1][0].data.numpy()
        c2 = node_map[self.c2][0].data.numpy()
        return relay.add(node_map[self.x][0], relay.const(c1 + c2))


def test_rewrite_fuses_until_nothing_changes():
    x = relay.var("x", shape=(3,))
    y: relay.Expr = x
    for k in range(1, 6):
        y = relay.add(y, relay.const(np.full(3, k, "float32")))
    out = rewrite(CombineAddConstants(), y)
    assert isinstance(out, relay.Call)
    assert out.args[0] is x
    np.testing.assert_array_equal(out.args[1].data.numpy(), [15, 15, 15])
    a = rand(3)
    got = relay.create_executor(mod=relay.IRModule.from_expr(out)).evaluate()(a)
    np.testing.assert_allclose(got.numpy(), a + 15, rtol=1e-6)
    # nothing to do: the expression itself comes back
    plain = relay.exp(x)
    assert rewrite(CombineAddConstants(), plain) is plain


class DropDoubleRelu(DFPatternCallback):
    def __init__(self, rewrite_once: bool = False) -> None:
        super().__init__(rewrite_once=rewrite_once)
        self.x = wildcard()
        self.pattern = is_op("nn.relu")(is_op("nn.relu")(self.x))

    def callback(self, pre: Any, post: Any, node_map: Any) -> relay.Expr:
        return relay.nn.relu(node_map[self.x][0])


def relus(n: int) -> tuple[relay.Var, relay.Expr]:
    x = relay.var("x", shape=(2,))
    y: relay.Expr = x
    for _ in range(n):
        y = relay.nn.relu(y)
    return x, y


def test_rewrite_once_runs_one_round():
    x, y = relus(4)
    once = DropDoubleRelu(rewrite_once=True).rewrite(y)
    assert structural_equal(once, relay.nn.relu(relay.nn.relu(x)))
    again = rewrite(DropDoubleRelu(), y)
    assert structural_equal(again, relay.nn.relu(x))


def test_rewrite_that_never_settles_stops_with_an_error():
    class Grow(DFPatternCallback):
        def __init__(self) -> None:
            super().__init__()
            self.pattern = is_op("exp")(is_var("x"))

        def callback(self, pre: Any, post: Any, node_map: Any) -> relay.Expr:
            return relay.exp(post)  # one more exp every round

    x = relay.var("x", shape=(2,))
    with pytest.raises(RuntimeError, match="still changing after 100 rounds"):
        rewrite(Grow(), relay.exp(x))


def test_callbacks_with_require_type_see_checked_types():
    shapes: list[tuple[Any, ...]] = []

    class Look(DFPatternCallback):
        def __init__(self) -> None:
            super().__init__(require_type=True)
            self.pattern = is_op("nn.relu")(wildcard())

        def callback(self, pre: Any, post: Any, node_map: Any) -> relay.Expr:
            shapes.append(tuple(pre.checked_type.shape))
            return post

    _, expr = conv_block()
    rewrite(Look(), expr)
    assert shapes == [(1, 4, 8, 8)]


def test_callback_must_return_an_expression():
    class Bad(DFPatternCallback):
        def __init__(self) -> None:
            super().__init__()
            self.pattern = is_op("exp")(wildcard())

        def callback(self, pre: Any, post: Any, node_map: Any) -> Any:
            return None

    with pytest.raises(TypeError, match=r"Bad.callback returned NoneType"):
        rewrite(Bad(), relay.exp(relay.var("x", shape=(2,))))


def test_rewrite_a_deep_chain():
    x, y = relus(2001)
    out = rewrite(DropDoubleRelu(), y)
    assert structural_equal(out, relay.nn.relu(x))


# ---------------------------------------------------------------------------------------
# partition
# ---------------------------------------------------------------------------------------


def run(expr: relay.Expr, *inputs: np.ndarray) -> np.ndarray:
    mod = relay.IRModule.from_expr(expr)
    return relay.create_executor(mod=mod).evaluate()(*inputs).numpy()


def test_partition_makes_attributed_functions_that_build_and_run():
    x, expr = conv_block()
    out = CONV_BIAS_RELU.partition(expr, attrs={"Composite": "conv_bias_relu"})
    assert isinstance(out, relay.Call)
    fn = out.op
    assert isinstance(fn, relay.Function)
    assert fn.attrs["Composite"] == "conv_bias_relu"
    assert fn.attrs["PartitionedFromPattern"] == "nn.conv2d_nn.bias_add_nn.relu_"
    assert out.args == [x]  # the constants stay inside
    assert [p.name_hint for p in fn.params] == ["FunctionVar_0_0"]
    a = rand(1, 3, 8, 8)
    np.testing.assert_allclose(run(out, a), run(expr, a), rtol=1e-5, atol=1e-6)
    # partitioning again finds the function made the first time, and leaves it
    again = CONV_BIAS_RELU.partition(out)
    assert again is out


def test_partition_two_blocks_and_check():
    x, first = conv_block()
    y = relay.nn.conv2d(first, relay.const(rand(4, 4, 3, 3)), padding=(1, 1))
    y = relay.nn.relu(relay.nn.bias_add(y, relay.const(rand(4))))
    out = partition(CONV_BIAS_RELU, y)
    assert isinstance(out.op, relay.Function)
    inner = out.args[0]
    assert isinstance(inner, relay.Call)
    assert isinstance(inner.op, relay.Function)
    assert inner.args == [x]
    a = rand(1, 3, 8, 8)
    np.testing.assert_allclose(run(out, a), run(y, a), rtol=1e-5, atol=1e-5)
    # check() refuses the outer block: only the inner one is partitioned
    only_inner = CONV_BIAS_RELU.partition(y, check=lambda pre: pre is not y)
    assert isinstance(only_inner, relay.Call)
    assert not isinstance(only_inner.op, relay.Function)
    assert isinstance(only_inner.args[0].args[0].args[0].op, relay.Function)


def test_partition_skips_a_match_whose_inner_node_is_used_outside():
    x = relay.var("x", shape=(1, 3, 8, 8))
    conv = relay.nn.conv2d(x, relay.const(rand(4, 3, 3, 3)), padding=(1, 1))
    biased = relay.nn.bias_add(conv, relay.const(rand(4)))
    expr = relay.Tuple([relay.nn.relu(biased), conv])  # the conv escapes
    assert partition(CONV_BIAS_RELU, expr) is expr
    # without the escape it is partitioned
    assert partition(CONV_BIAS_RELU, expr.fields[0]) is not expr.fields[0]


def test_partition_inputs_of_an_argument_free_call_pattern():
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    expr = relay.nn.relu(relay.add(x, y))
    out = is_op("nn.relu")(is_op("add")(None)).partition(expr)
    assert out.args == [x, y]
    assert out.op.attrs["PartitionedFromPattern"] == "add_nn.relu_"
    a, b = rand(2), rand(2) + 1
    np.testing.assert_allclose(run(out, a, b), np.maximum(a + b, 0))


def test_partition_inside_a_function_pass_outlines_the_composite():
    """A MergeComposite-style function pass: the partitioned function is a local
    function of main, outlined next to it (not a function the pass added)."""
    from xrelay.relay import transform

    @transform.function_pass(opt_level=0)
    class MergeConvBlocks:
        def transform_function(self, func: Any, mod: Any, ctx: Any) -> Any:
            body = CONV_BIAS_RELU.partition(func.body, attrs={"Composite": "cbr"})
            return relay.Function(func.params, body)

    x, expr = conv_block()
    mod = relay.IRModule.from_expr(relay.Function([x], relay.exp(expr)))
    out = MergeConvBlocks()(mod)
    names = [gv.name_hint for gv in out.get_global_vars()]
    assert names == ["main_fn", "main"]
    composite = out["main_fn"]
    assert composite.attrs["Composite"] == "cbr"
    # main's body calls it as a local function, as in Relay
    call = out["main"].body.args[0]
    assert isinstance(call.op, relay.Function)
    assert call.op.attrs["Composite"] == "cbr"
    assert call.op.attrs["PartitionedFromPattern"] == "nn.conv2d_nn.bias_add_nn.relu_"
    assert [op.name for op in out["main"].walk()][1:] == [
        "func.call", "relay.exp", "func.return",
    ]  # fmt: skip
    a = rand(1, 3, 8, 8)
    want = relay.create_executor(mod=mod).evaluate()(a).numpy()
    got = relay.create_executor(mod=out).evaluate()(a).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
