"""Seed example: debugging a pipeline (the "Debug a Pass" part of TVM's pass-infra
tutorial).

1. ``PrintIR()`` inserted into a Sequential after FoldConstant dumps the module to
   stderr at that point.
2. The v0.7 ``trace`` callback: ``PassContext(opt_level=3, trace=print_ir)`` calls
   ``print_ir(mod, info, is_before)`` around every leaf pass.
3. The same with a ``pass_instrument`` class (the form that replaced ``trace``).

Ported from TVM by changing the imports.

    .venv/bin/python examples/seed_print_ir.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay  # from tvm import relay
from xrelay.relay import transform  # from tvm.relay import transform
from xrelay.target import Target  # tvm.target.Target


def example() -> relay.Function:
    shape = (1, 64, 54, 54)
    c_data = np.empty(shape).astype("float32")
    c = relay.const(c_data)
    weight = relay.var("weight", shape=(64, 64, 3, 3))
    x = relay.var("x", relay.TensorType((1, 64, 56, 56), "float32"))
    conv = relay.nn.conv2d(x, weight)
    y = relay.add(c, c)
    y = relay.multiply(y, relay.const(2, "float32"))
    y = relay.add(conv, y)
    z = relay.add(y, c)
    z1 = relay.add(y, c)
    z2 = relay.add(z, z1)
    return relay.Function([x, weight], z2)


def make_seq() -> transform.Sequential:
    return transform.Sequential(
        [
            transform.FoldConstant(),
            transform.PrintIR(),
            transform.EliminateCommonSubexpr(),
            transform.FuseOps(),
            transform.AlterOpLayout(),
        ]
    )


def print_ir(mod: Any, info: transform.PassInfo, is_before: bool) -> None:
    """Print the name of the pass, the IR, only before passes execute."""
    if is_before:
        print("Running pass: {}", info)
        print(mod)


@transform.pass_instrument
class PrintIR:
    """Print the name of the pass, the IR, only before passes execute."""

    def run_before_pass(self, mod: Any, info: transform.PassInfo) -> None:
        print("Running pass: {}", info)
        print(mod)


def main() -> None:
    f = example()
    mod = relay.IRModule.from_expr(f)
    seq = make_seq()

    # 1. PrintIR in the pipeline (stderr)
    with transform.PassContext(opt_level=3), Target("llvm"):
        seq(mod)

    # 2. the trace callback
    print("== trace=print_ir")
    with transform.PassContext(opt_level=3, trace=print_ir), Target("llvm"):
        mod1 = seq(mod)
    print(mod1)

    # 3. the instrument
    print("== instruments=[PrintIR()]")
    with transform.PassContext(opt_level=3, instruments=[PrintIR()]), Target("llvm"):
        mod2 = seq(mod)
    print(mod2)

    print("done")


if __name__ == "__main__":
    main()
