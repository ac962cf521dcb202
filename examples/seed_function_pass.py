"""Seed examples: function passes (TVM's ``test_function_class_pass`` and
``test_function_pass``).

1. A ``function_pass`` class whose instances replace every function of a module
   with a given one; the pass runs InferType afterwards, so the result equals
   ``InferType()(IRModule.from_expr(f1))["main"]``.
2. A ``function_pass`` function doubling every variable: ``myLog(x) = log(x)``
   becomes ``log(x + x)``.

Ported from TVM by changing the imports, and the IR construction of the doubling
pass: TVM's version rebuilds the function with an ``ExprMutator``, here the pass
rewrites the ``func.func`` in place with xDSL.

    .venv/bin/python examples/seed_function_pass.py
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.func import FuncOp

from xrelay import pass_manager as transform  # tvm.transform / relay.transform
from xrelay import relay  # from tvm import relay
from xrelay.dialects.relay import AddOp, ConstantOp


def structural_equal(a: FuncOp, b: FuncOp) -> bool:
    """``tvm.ir.structural_equal`` for two functions: xDSL compares detached ops, and
    a Relay function has no name of its own (it is bound to a GlobalVar)."""
    b = b.clone()
    b.sym_name = a.sym_name
    return a.clone().is_structurally_equivalent(b)


def test_function_class_pass() -> None:
    @transform.function_pass(opt_level=1)
    class TestReplaceFunc:
        """Simple test function to replace one argument to another."""

        def __init__(self, new_func: relay.Function):
            self.new_func = new_func

        def transform_function(
            self, func: FuncOp, mod: Any, ctx: transform.PassContext
        ) -> Any:
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
    mod2 = transform.get_pass("InferType")(mod2)
    assert structural_equal(mod["main"], mod2["main"])
    print("TestReplaceFunc: main is now f1")
    print(mod)


def double_vars(func: FuncOp) -> FuncOp:
    """Every parameter ``v`` (and constant) used by ``func`` becomes ``v + v``."""
    block = func.body.block
    first = block.first_op
    assert first is not None
    for arg in block.args:
        twice = AddOp.make([arg, arg])
        block.insert_op_before(twice, first)
        arg.replace_uses_with_if(
            twice.results[0], lambda use, t=twice: use.operation is not t
        )
    for const in [op for op in func.walk() if isinstance(op, ConstantOp)]:
        twice = AddOp.make([const.results[0], const.results[0]])
        parent = const.parent_block()
        assert parent is not None
        parent.insert_op_after(twice, const)
        const.results[0].replace_uses_with_if(
            twice.results[0], lambda use, t=twice: use.operation is not t
        )
    return func


class OptTester:
    def __init__(self, mod: relay.IRModule):
        self.mod = mod

    def transform(self, node: FuncOp, ctx: transform.PassContext) -> FuncOp:
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
    def func_transform(expr: FuncOp, mod: Any, ctx: transform.PassContext) -> FuncOp:
        return opt_tester.transform(expr, ctx)

    assert isinstance(func_transform, transform.FunctionPass)
    assert func_transform.info.name == pass_name
    assert func_transform.info.opt_level == opt_level

    def direct_transform(expr: FuncOp, mod: Any, ctx: transform.PassContext) -> FuncOp:
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
