"""Seed examples: function passes (TVM's ``test_function_class_pass`` and
``test_function_pass``).

1. A ``function_pass`` class whose instances replace every function of a module
   with a given one; the pass runs InferType afterwards, so the result equals
   ``InferType()(IRModule.from_expr(f1))["main"]``.
2. A ``function_pass`` function doubling every variable and constant with an
   ``ExprFunctor``: ``myLog(x) = log(x)`` becomes ``log(x + x)``.

Ported from TVM by changing the imports: the pass functions receive each function
as a ``relay.Function`` and return one, as in TVM.

    .venv/bin/python examples/seed_function_pass.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay  # from tvm import relay
from xrelay.ir import structural_equal  # from tvm.ir import structural_equal
from xrelay.relay import transform  # from tvm.relay import transform
from xrelay.relay.expr_functor import ExprFunctor


def test_function_class_pass() -> None:
    @transform.function_pass(opt_level=1)
    class TestReplaceFunc:
        """Simple test function to replace one argument to another."""

        def __init__(self, new_func: relay.Function):
            self.new_func = new_func

        def transform_function(
            self, func: relay.Function, mod: Any, ctx: transform.PassContext
        ) -> relay.Function:
            return self.new_func

    x = relay.var("x", shape=(10, 20))
    f1 = relay.Function([x], x)
    f2 = relay.Function([x], relay.log(x))
    fpass = TestReplaceFunc(f1)
    assert fpass.info.opt_level == 1
    assert fpass.info.name == "TestReplaceFunc"
    mod = relay.IRModule.from_expr(f2)
    mod = fpass(mod)
    # wrap in expr
    mod2 = relay.IRModule.from_expr(f1)
    mod2 = transform.InferType()(mod2)
    assert structural_equal(mod["main"], mod2["main"])
    print("TestReplaceFunc: main is now f1")
    print(mod)


class DoubleValues(ExprFunctor):
    """Every variable ``v`` and constant ``c`` becomes ``v + v`` / ``c + c``."""

    def visit_constant(self, const: relay.Constant) -> relay.Expr:
        return relay.add(const, const)

    def visit_var(self, var: relay.Var) -> relay.Expr:
        return relay.add(var, var)

    def visit_call(self, call: relay.Call) -> relay.Expr:
        new_op = self.visit(call.op)
        new_args = [self.visit(arg) for arg in call.args]
        return relay.Call(new_op, new_args, call.attrs)

    def visit_global_var(self, gvar: relay.GlobalVar) -> relay.Expr:
        return gvar

    def visit_op(self, op: Any) -> Any:
        return op

    def visit_function(self, fn: relay.Function) -> relay.Function:
        new_body = self.visit(fn.body)
        return relay.Function(
            list(fn.params), new_body, fn.ret_type, fn.type_params, fn.attrs
        )


def double_vars(func: relay.Function) -> relay.Function:
    return DoubleValues().visit(func)


class OptTester:
    def __init__(self, mod: relay.IRModule):
        self.mod = mod

    def transform(
        self, node: relay.Function, ctx: transform.PassContext
    ) -> relay.Function:
        return double_vars(node)


def test_function_pass() -> None:
    shape = (10,)
    dtype = "float32"
    tp = relay.TensorType(shape, dtype)
    x = relay.var("x", tp)
    v_log = relay.GlobalVar("myLog")
    log = relay.Function([x], relay.log(x))
    mod = relay.IRModule({v_log: log})

    pass_name = "function_pass_test"
    opt_level = 1
    opt_tester = OptTester(mod)

    @transform.function_pass(opt_level=opt_level, name=pass_name)
    def func_transform(
        expr: relay.Function, mod: Any, ctx: transform.PassContext
    ) -> relay.Function:
        return opt_tester.transform(expr, ctx)

    assert isinstance(func_transform, transform.FunctionPass)
    assert func_transform.info.name == pass_name
    assert func_transform.info.opt_level == opt_level

    def direct_transform(
        expr: relay.Function, mod: Any, ctx: transform.PassContext
    ) -> relay.Function:
        return opt_tester.transform(expr, ctx)

    mod_pass = transform.function_pass(direct_transform, opt_level=0)
    assert mod_pass.info.name == "direct_transform"
    assert mod_pass.info.opt_level == 0

    new_mod = func_transform(mod)
    expected = relay.IRModule.from_expr(relay.Function([x], relay.log(x + x)))
    assert structural_equal(new_mod["myLog"], expected["main"])
    print(new_mod)

    x_nd = np.random.default_rng(0).uniform(0.5, 2, shape).astype(dtype)
    for kind in ("graph", "debug"):
        ex = relay.create_executor(kind, mod=new_mod)
        res = ex.evaluate(new_mod.get_global_var("myLog"))(x_nd)
        np.testing.assert_allclose(res.numpy(), np.log(x_nd * 2), rtol=1e-5)
    print("function_pass_test: myLog(x) == log(2x)")


def main() -> None:
    test_function_class_pass()
    test_function_pass()


if __name__ == "__main__":
    main()
