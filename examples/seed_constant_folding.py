"""Seed example: constant folding written the way TVM's guide to adding a Relay pass
writes it, as a fact-collecting visitor plus a rewriting mutator.

* ``ConstantChecker`` (an ``ExprVisitor``) answers "is this expression made of
  constants only?", remembering the answer for every node it looked at.
* ``ConstantFolder`` (an ``ExprMutator``) rebuilds the function bottom-up; a call of
  an operator whose arguments are all constants is evaluated and replaced by its
  value, a ``let`` bound to a constant is substituted, and a field of a tuple
  literal becomes the field itself.
* ``function_pass`` makes it a pass, run under a ``PassContext`` like any other.

The result is compared with xrelay's own ``relay.transform.FoldConstant()``: the two
give the same IR. Ported from TVM by changing the imports.

    .venv/bin/python examples/seed_constant_folding.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay  # from tvm import relay
from xrelay.ir import assert_structural_equal  # from tvm.ir import ...
from xrelay.relay import transform  # from tvm.relay import transform
from xrelay.relay.expr_functor import ExprMutator, ExprVisitor


class ConstantChecker(ExprVisitor):
    """Whether an expression computes from constants only (memoised per node)."""

    def __init__(self) -> None:
        super().__init__()
        self.is_constant: dict[relay.Expr, bool] = {}

    def check(self, expr: relay.Expr) -> bool:
        if expr not in self.is_constant:
            self.visit(expr)
        return self.is_constant.get(expr, False)

    def visit_constant(self, const: relay.Constant) -> None:
        self.is_constant[const] = True

    def visit_tuple(self, tup: relay.Tuple) -> None:
        self.is_constant[tup] = all(self.check(field) for field in tup.fields)


class ConstantFolder(ExprMutator):
    """Evaluates the calls whose arguments are all constants."""

    def __init__(self, mod: Any) -> None:
        super().__init__()
        self.mod = mod
        self.checker = ConstantChecker()

    def visit_let(self, let: relay.Let) -> Any:
        value = self.visit(let.value)
        if self.checker.check(value):
            self.memo_map[let.var] = value  # uses of the variable become the value
            return self.visit(let.body)
        return super().visit_let(let)

    def visit_tuple_getitem(self, op: relay.TupleGetItem) -> Any:
        new = super().visit_tuple_getitem(op)
        if isinstance(new.tuple_value, relay.Tuple):
            return new.tuple_value.fields[new.index]
        return new

    def visit_call(self, call: relay.Call) -> Any:
        new = super().visit_call(call)
        if not isinstance(new.op, relay.op.Op):
            return new  # a call of a function: not folded here
        if not all(self.checker.check(arg) for arg in new.args):
            return new
        value = relay.create_executor("debug").evaluate(new)
        if isinstance(value, tuple):
            return new  # several results: left to the caller
        return relay.const(value.numpy())


@transform.function_pass(opt_level=2, name="MyFoldConstant")
def my_fold_constant(func: relay.Function, mod: Any, ctx: Any) -> relay.Function:
    return ConstantFolder(mod).visit(func)


def example() -> relay.Function:
    rng = np.random.default_rng(0)
    c = relay.const(rng.uniform(-1, 1, (1, 8, 6, 6)).astype("float32"))
    x = relay.var("x", shape=(1, 8, 8, 8))
    weight = relay.var("weight", shape=(8, 8, 3, 3))
    folded = relay.multiply(relay.add(c, c), relay.const(2.0))  # constants only
    v = relay.var("v")
    body = relay.Let(v, folded, relay.add(relay.nn.conv2d(x, weight), v))
    pair = relay.Tuple([body, relay.exp(relay.const(np.float32(1.5)))])
    first, second = relay.TupleGetItem(pair, 0), relay.TupleGetItem(pair, 1)
    return relay.Function([x, weight], relay.add(first, second))


def main() -> None:
    mod = relay.IRModule.from_expr(example())
    with transform.PassContext(opt_level=3):
        mine = transform.Sequential([my_fold_constant])(mod)
        builtin = transform.Sequential(
            [transform.InferType(), transform.FoldConstant()]
        )(mod)
    print(mine)
    consts = [op for op in mine["main"].walk() if op.name == "relay.constant"]
    print(f"constants after folding: {len(consts)}")
    assert_structural_equal(mine["main"], builtin["main"])
    print("MyFoldConstant gives the same IR as relay.transform.FoldConstant()")

    a = np.random.default_rng(1).uniform(-1, 1, (1, 8, 8, 8)).astype("float32")
    w = np.random.default_rng(2).uniform(-1, 1, (8, 8, 3, 3)).astype("float32")
    before = relay.create_executor(mod=mod).evaluate()(a, w).numpy()
    after = relay.create_executor(mod=mine).evaluate()(a, w).numpy()
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)
    print("folded and unfolded programs agree")


if __name__ == "__main__":
    main()
