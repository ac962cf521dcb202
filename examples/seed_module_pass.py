"""Seed example: a module pass that adds a function (TVM's ``test_module_pass``).

The pass builds a new module holding ``myAbs(x) = abs(x)`` and copies the input
module's functions into it, so the result has both ``myAbs`` and the original
``myAdd``. Ported from TVM by changing the imports (``tvm.transform`` is
``xrelay.pass_manager``, ``tvm.IRModule`` is ``relay.IRModule``).

    .venv/bin/python examples/seed_module_pass.py
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.func import FuncOp

from xrelay import pass_manager as transform  # tvm.transform
from xrelay import relay  # from tvm import relay


def structural_equal(a: FuncOp, b: FuncOp) -> bool:
    """``tvm.ir.structural_equal`` for two functions: xDSL compares detached ops, and
    a Relay function has no name of its own (it is bound to a GlobalVar)."""
    b = b.clone()
    b.sym_name = a.sym_name
    return a.clone().is_structurally_equivalent(b)


def get_var_func() -> tuple[relay.GlobalVar, relay.Function]:
    shape = (5, 10)
    tp = relay.TensorType(shape, "float32")
    x = relay.var("x", tp)
    gv = relay.GlobalVar("myAbs")
    func = relay.Function([x], relay.abs(x))
    return gv, func


class OptTester:
    """Adds ``myAbs`` to a module."""

    def __init__(self, mod: relay.IRModule):
        self.mod = mod

    def transform(self, node: relay.IRModule, ctx: transform.PassContext) -> Any:
        gv, func = get_var_func()
        new_mod = relay.IRModule({gv: func})
        new_mod.update(node)
        return new_mod


def main() -> None:
    shape = (5, 10)
    dtype = "float32"
    tp = relay.TensorType(shape, dtype)
    x = relay.var("x", tp)
    y = relay.var("y", tp)
    v_add = relay.GlobalVar("myAdd")
    func = relay.Function([x, y], x + y)
    mod = relay.IRModule({v_add: func})

    pass_name = "module_pass_test"
    opt_level = 0
    opt_tester = OptTester(mod)

    @transform.module_pass(opt_level=opt_level, name=pass_name)
    def mod_transform(expr: Any, ctx: transform.PassContext) -> Any:
        return opt_tester.transform(expr, ctx)

    # registration with a decorator
    assert isinstance(mod_transform, transform.ModulePass)
    pass_info = mod_transform.info
    assert pass_info.name == pass_name
    assert pass_info.opt_level == opt_level
    print("registered:", mod_transform)

    # registration without a decorator: the name is the function's
    def direct_transform(expr: Any, ctx: transform.PassContext) -> Any:
        return opt_tester.transform(expr, ctx)

    mod_pass = transform.module_pass(direct_transform, opt_level=3)
    assert isinstance(mod_pass, transform.ModulePass)
    assert mod_pass.info.name == "direct_transform"
    assert mod_pass.info.opt_level == 3

    # run the pass; the input module is left as it was
    ret = mod_transform(mod)
    assert isinstance(ret, relay.IRModule)
    assert "myAbs" not in mod
    print(ret)

    # myAbs equals abs(x) after type inference, myAdd is unchanged
    gv, abs_func = get_var_func()
    ref = relay.transform.InferType()(relay.IRModule({gv: abs_func}))
    assert structural_equal(ret["myAbs"], ref["myAbs"])
    assert structural_equal(ret["myAdd"], mod["myAdd"])
    print("myAbs == InferType(abs(x)), myAdd unchanged")

    # execute both functions and compare with numpy
    x_nd = np.random.default_rng(0).uniform(-1, 1, shape).astype(dtype)
    y_nd = np.random.default_rng(1).uniform(-1, 1, shape).astype(dtype)
    for kind in ("graph", "debug"):
        ex = relay.create_executor(kind, mod=ret)
        res1 = ex.evaluate(ret.get_global_var("myAbs"))(x_nd)
        np.testing.assert_allclose(res1.numpy(), np.abs(x_nd), rtol=1e-5)
        res2 = ex.evaluate(ret.get_global_var("myAdd"))(x_nd, y_nd)
        np.testing.assert_allclose(res2.numpy(), x_nd + y_nd, rtol=1e-5)
        print(f"{kind} executor: myAbs and myAdd match numpy")


if __name__ == "__main__":
    main()
