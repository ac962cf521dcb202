"""``relay.ExprVisitor`` / ``ExprMutator`` / ``ExprFunctor``: dispatch by node kind,
TVM's memo rules, deep graphs, and a mutator's result put back into a module and
run; function passes receive ``relay.Function`` views."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.ir import structural_equal
from xrelay.relay import transform
from xrelay.relay.expr_functor import ExprFunctor, ExprMutator, ExprVisitor


def test_the_tvm_import_paths_name_the_same_classes():
    import xrelay.frontend.relay.expr_functor as real
    import xrelay.relay.expr_functor as alias

    assert alias is real
    assert relay.ExprMutator is ExprMutator is real.ExprMutator
    assert relay.ExprVisitor is ExprVisitor
    assert relay.ExprFunctor is ExprFunctor


class Kinds(ExprVisitor):
    """Records the kind of every node it is dispatched on, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def visit_call(self, call: relay.Call) -> None:
        self.seen.append("call")
        super().visit_call(call)

    def visit_var(self, var: relay.Var) -> None:
        self.seen.append(f"var {var.name_hint}")

    def visit_constant(self, const: relay.Constant) -> None:
        self.seen.append("constant")

    def visit_tuple(self, tup: relay.Tuple) -> None:
        self.seen.append("tuple")
        super().visit_tuple(tup)

    def visit_tuple_getitem(self, op: relay.TupleGetItem) -> None:
        self.seen.append(f"getitem {op.index}")
        super().visit_tuple_getitem(op)

    def visit_function(self, fn: relay.Function) -> None:
        self.seen.append("function")
        super().visit_function(fn)

    def visit_let(self, let: relay.Let) -> None:
        self.seen.append("let")
        super().visit_let(let)

    def visit_if(self, ite: relay.If) -> None:
        self.seen.append("if")
        super().visit_if(ite)

    def visit_global_var(self, gvar: relay.GlobalVar) -> None:
        self.seen.append(f"global {gvar.name_hint}")

    def visit_op(self, op: Any) -> None:
        self.seen.append(f"op {op.name}")


def test_visitor_dispatches_on_every_node_kind():
    x = relay.var("x", shape=(2,))
    c = relay.var("c", shape=(), dtype="bool")
    t = relay.Tuple([x, relay.const(np.ones(2, "float32"))])
    v = relay.var("v")
    first, second = relay.TupleGetItem(t, 0), relay.TupleGetItem(t, 1)
    body = relay.Let(v, relay.add(first, second), relay.If(c, v, relay.negative(v)))
    gv = relay.GlobalVar("g")
    fn = relay.Function([x, c], relay.Tuple([body, relay.Call(gv, [x])]))
    k = Kinds()
    assert k.visit(fn) is None
    assert k.seen == [
        "function", "var x", "var c", "tuple", "let", "var v", "call", "op add",
        "getitem 0", "tuple", "constant", "getitem 1", "if", "call", "op negative",
        "call", "global g",
    ]  # fmt: skip
    # the shared x, the shared tuple and the op "add"/"negative" nodes: once each


def test_visitor_visits_a_shared_subexpression_once():
    x = relay.var("x", shape=(3,))
    shared = relay.exp(x)
    out = relay.add(relay.log(shared), relay.sqrt(shared))

    class Count(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.calls: dict[str, int] = {}

        def visit_call(self, call: relay.Call) -> None:
            name = call.op.name
            self.calls[name] = self.calls.get(name, 0) + 1
            super().visit_call(call)

    counter = Count()
    counter.visit(out)
    assert counter.calls == {"add": 1, "log": 1, "sqrt": 1, "exp": 1}
    counter.visit(out)  # memoised: nothing is dispatched again
    assert counter.calls["exp"] == 1
    assert shared in counter.memo_map


def test_functor_base_requires_the_visit_methods():
    with pytest.raises(NotImplementedError):
        ExprFunctor().visit(relay.var("x"))
    with pytest.raises(TypeError, match="is not a relay expression"):
        ExprVisitor().visit(42)  # type: ignore[arg-type]


def test_identity_mutator_returns_the_same_objects():
    x = relay.var("x", shape=(2, 2))
    fn = relay.Function([x], relay.nn.relu(relay.add(x, relay.const(1.0))))
    assert ExprMutator().visit(fn) is fn
    mod = relay.IRModule.from_expr(fn)
    view = mod["main"]
    assert ExprMutator().visit(view) is view


def test_mutator_rebuilds_only_the_changed_path_and_keeps_sharing():
    x = relay.var("x", shape=(4,))
    y = relay.var("y", shape=(4,))
    untouched = relay.exp(y)
    shared = relay.log(x)
    out = relay.Tuple([relay.add(shared, shared), untouched])

    class LogToSqrt(ExprMutator):
        def visit_call(self, call: relay.Call) -> Any:
            new = super().visit_call(call)
            if call.op.name == "log":
                return relay.sqrt(new.args[0])
            return new

    new = LogToSqrt().visit(out)
    assert new is not out
    assert new.fields[1] is untouched  # no child changed: the same node
    add = new.fields[0]
    assert add.args[0] is add.args[1]  # the shared log became ONE sqrt
    assert add.args[0].op.name == "sqrt"
    assert add.attrs == out.fields[0].attrs


class MultiplyConstants(ExprMutator):
    def visit_constant(self, const: relay.Constant) -> Any:
        return relay.const(const.data.numpy() * 3)


def test_mutated_function_goes_back_into_the_module_and_runs():
    x = relay.var("x", shape=(2, 3))
    w = relay.const(np.arange(6, dtype="float32").reshape(2, 3))
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.nn.relu(relay.multiply(x, w)))
    )
    new_func = MultiplyConstants().visit(mod["main"])
    assert isinstance(new_func, relay.Function)
    mod["main"] = new_func
    a = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    got = relay.create_executor(mod=mod).evaluate()(a).numpy()
    np.testing.assert_allclose(got, np.maximum(a * 3 * w.data.numpy(), 0))
    # and as a module of its own
    again = relay.IRModule.from_expr(MultiplyConstants().visit(new_func))
    got = relay.create_executor(mod=again).evaluate()(a).numpy()
    np.testing.assert_allclose(got, np.maximum(a * 9 * w.data.numpy(), 0))


def test_mutating_a_function_that_calls_fused_kernels_keeps_calling_them():
    x = relay.var("x", shape=(1, 4))
    body = relay.nn.relu(relay.add(relay.exp(x), relay.const(2.0)))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.log(body)))
    mod = transform.FuseOps(fuse_opt_level=2)(transform.InferType()(mod))
    names = [gv.name_hint for gv in mod.get_global_vars()]

    class Renew(ExprMutator):
        def visit_call(self, call: relay.Call) -> Any:
            new = super().visit_call(call)
            if isinstance(call.op, relay.Function):  # the call of the fused kernel
                assert new is call  # the kernel itself is unchanged
                return relay.Call(new.op, new.args)  # ... its call is rebuilt
            return new

    main = mod["main"]
    new = Renew().visit(main)
    assert new is not main
    assert isinstance(new, relay.Function)
    mod["main"] = new
    # ... and still calls the kernel in the module: no copy of it is outlined
    assert [gv.name_hint for gv in mod.get_global_vars()] == names
    a = np.array([[0.0, 1.0, -1.0, 2.0]], "float32")
    got = relay.create_executor(mod=mod).evaluate()(a).numpy()
    np.testing.assert_allclose(got, np.log(np.maximum(np.exp(a) + 2, 0)), rtol=1e-6)


def chain(depth: int) -> tuple[relay.Var, relay.Expr]:
    x = relay.var("x", shape=(2,))
    y: relay.Expr = x
    for _ in range(depth):
        y = relay.add(y, relay.const(np.float32(1)))
    return x, y


@pytest.mark.parametrize("depth", [2000, 5000])
def test_deep_chains_do_not_hit_the_recursion_limit(depth: int):
    import sys

    limit = sys.getrecursionlimit()
    x, y = chain(depth)
    fn = relay.Function([x], y)

    class Count(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def visit_constant(self, const: relay.Constant) -> None:
            self.n += 1

    counter = Count()
    counter.visit(fn)
    assert counter.n == depth
    doubled = MultiplyConstants().visit(fn)
    assert sys.getrecursionlimit() == limit  # restored
    mod = relay.IRModule.from_expr(doubled)
    got = relay.create_executor(mod=mod).evaluate()(np.zeros(2, "float32")).numpy()
    np.testing.assert_allclose(got, [3.0 * depth] * 2)


# ---------------------------------------------------------------------------------------
# function passes see relay.Function views
# ---------------------------------------------------------------------------------------


def test_class_function_pass_receives_a_view_and_may_return_a_function():
    seen: list[Any] = []

    @transform.function_pass(opt_level=1)
    class TripleConstants:
        def transform_function(
            self, func: relay.Function, mod: Any, ctx: transform.PassContext
        ) -> relay.Function:
            seen.append(func)
            return MultiplyConstants().visit(func)

    x = relay.var("x", shape=(2,))
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.add(x, relay.const(np.float32(2))))
    )
    out = TripleConstants()(mod)
    assert isinstance(seen[0], relay.Function)
    assert [p.name_hint for p in seen[0].params] == ["x"]
    expected = relay.IRModule.from_expr(
        relay.Function([x], relay.add(x, relay.const(np.float32(6))))
    )
    assert structural_equal(out["main"], expected["main"])
    assert structural_equal(mod["main"], relay.IRModule.from_expr(
        relay.Function([x], relay.add(x, relay.const(np.float32(2))))
    )["main"])  # fmt: skip


def test_function_pass_returning_its_view_unchanged_keeps_the_function():
    @transform.function_pass(opt_level=0)
    def keep(func: relay.Function, mod: Any, ctx: Any) -> relay.Function:
        return ExprMutator().visit(func)

    x = relay.var("x", shape=(2,))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.exp(x)))
    out = keep(mod)
    assert structural_equal(out["main"], mod["main"])


def test_function_pass_returning_an_unbuildable_function_is_a_one_line_error():
    from xrelay.pass_manager import PassContractError

    @transform.function_pass(opt_level=0)
    def broken(func: relay.Function, mod: Any, ctx: Any) -> relay.Function:
        stray = relay.var("stray", shape=(2,))
        return relay.Function(func.params, relay.add(func.body, stray))

    x = relay.var("x", shape=(2,))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.exp(x)))
    text = str(mod)
    with pytest.raises(PassContractError, match=r"broken returned a relay.Function"):
        broken(mod)
    assert str(mod) == text


def test_a_mutator_without_super_init_still_memoises():
    class NoInit(ExprMutator):
        def __init__(self) -> None:  # forgets super().__init__()
            self.count = 0

        def visit_var(self, var: relay.Var) -> Any:
            self.count += 1
            return var

    x = relay.var("x", shape=(2,))
    fn = relay.Function([x], relay.add(x, x))
    m = NoInit()
    assert m.visit(fn) is fn
    assert m.count == 1


def test_scalar_constants_follow_the_expression_their_dtype_comes_from():
    x = relay.var("x", shape=(2,), dtype="float32")
    y = relay.var("y", shape=(2,), dtype="float64")
    expr = relay.exp(x) * 2.0  # a scalar taking its dtype from exp(x)

    class XtoY(ExprMutator):
        def visit_var(self, var: relay.Var) -> Any:
            return y if var is x else var

    new = XtoY().visit(expr)
    mod = relay.IRModule.from_expr(new)
    assert [p.name_hint for p in mod["main"].params] == ["y"]  # no trace of x
    a = np.array([0.5, 1.0])
    got = relay.create_executor(mod=mod).evaluate()(a).numpy()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.exp(a) * 2)
