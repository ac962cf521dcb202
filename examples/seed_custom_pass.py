"""Seed example: the custom pass of TVM's pass-infra tutorial ("Implement a Pass Using
Python Decorator"): a ``function_pass`` class whose ``transform_function`` runs an
``ExprMutator`` that replaces every constant ``c`` by ``multiplier * c``.

The pass receives each function as a ``relay.Function`` and returns the mutator's
result; the pass manager puts it back into the module and runs InferType. The
example checks the IR against the program written by hand, and the values against
numpy. Ported from TVM by changing the imports.

    .venv/bin/python examples/seed_custom_pass.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay  # from tvm import relay
from xrelay.ir import IRModule, structural_equal  # tvm.IRModule, tvm.ir
from xrelay.relay import transform  # from tvm.relay import transform
from xrelay.target import Target  # tvm.target.Target


def example() -> relay.Function:
    rng = np.random.default_rng(0)
    c = relay.const(rng.uniform(-1, 1, (1, 4, 6, 6)).astype("float32"))
    x = relay.var("x", shape=(1, 4, 8, 8))
    weight = relay.var("weight", shape=(4, 4, 3, 3))
    y = relay.add(relay.nn.conv2d(x, weight), c)
    return relay.Function([x, weight], relay.nn.relu(relay.add(y, c)))


@transform.function_pass(opt_level=1)
class ScaleConstants:
    """Multiplies every constant of a function by ``multiplier``."""

    def __init__(self, multiplier: relay.Expr):
        self.multiplier = multiplier

    def transform_function(
        self, func: relay.Function, mod: Any, ctx: transform.PassContext
    ) -> relay.Function:
        outer = self

        class ReplaceConstant(relay.ExprMutator):
            def visit_constant(self, const: relay.Constant) -> relay.Expr:
                return relay.multiply(outer.multiplier, const)

        return ReplaceConstant().visit(func)


def main() -> None:
    f = example()
    mod = IRModule.from_expr(f)
    three = relay.const(3, "float32")
    custom_pass = ScaleConstants(multiplier=three)
    assert custom_pass.info.name == "ScaleConstants"
    assert custom_pass.info.opt_level == 1
    with transform.PassContext(opt_level=3), Target("llvm"):
        mod3 = custom_pass(mod)
    print(mod3)

    # by hand: each use of the constant multiplied by 3
    x, weight = f.params
    c = f.body.args[0].args[1]
    scaled = relay.multiply(three, c)
    y = relay.add(relay.nn.conv2d(x, weight), scaled)
    expected = IRModule.from_expr(
        relay.Function([x, weight], relay.nn.relu(relay.add(y, scaled)))
    )
    assert structural_equal(mod3["main"], transform.InferType()(expected)["main"])
    print("ScaleConstants: every constant c became multiply(3, c)")

    a = np.random.default_rng(1).uniform(-1, 1, (1, 4, 8, 8)).astype("float32")
    w = np.random.default_rng(2).uniform(-1, 1, (4, 4, 3, 3)).astype("float32")
    got = relay.create_executor(mod=mod3).evaluate()(a, w).numpy()
    conv = relay.create_executor().evaluate(
        relay.nn.conv2d(relay.const(a), relay.const(w))
    )
    want = np.maximum(conv.numpy() + 6 * c.data.numpy(), 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    print("ScaleConstants: the scaled program matches numpy")


if __name__ == "__main__":
    main()
