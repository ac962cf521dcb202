"""Seed example: a Sequential of Relay passes under PassContext scoping (TVM's
``test_sequential_with_scoping`` and the "Use Sequential" part of the pass-infra
tutorial).

``Sequential([InferType, FoldConstant, EliminateCommonSubexpr, AlterOpLayout])``
runs at the default opt_level 2 (the level-3 passes are skipped), at opt_level 3,
and at opt_level 3 with ``disabled_pass=["EliminateCommonSubexpr"]``, each inside a
``Target("llvm")`` scope (the target AlterOpLayout lays convolutions out for). Each
run prints the passes that ran. Ported from TVM by changing the imports.

    .venv/bin/python examples/seed_sequential.py
"""

from __future__ import annotations

from collections import Counter
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


@transform.pass_instrument
class RecordPasses:
    """Records the leaf passes that run (not the Sequential itself)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def run_before_pass(self, mod: Any, info: transform.PassInfo) -> None:
        if info.name != "sequential":
            self.names.append(info.name)


def op_counts(mod: relay.IRModule) -> str:
    counts = Counter(
        op.name.removeprefix("relay.")
        for op in mod["main"].walk()
        if op.name.startswith("relay.")
    )
    return ", ".join(f"{name} x{n}" for name, n in sorted(counts.items()))


def run(seq: transform.Sequential, mod: relay.IRModule, label: str, **ctx: Any) -> Any:
    record = RecordPasses()
    with transform.PassContext(instruments=[record], **ctx), Target("llvm"):
        out = seq(mod)
    print(f"{label}: ran {', '.join(record.names)}")
    print(f"{label}: ops {op_counts(out)}")
    return out


def main() -> None:
    mod = relay.IRModule.from_expr(example())
    seq = transform.Sequential(
        [
            transform.InferType(),
            transform.FoldConstant(),
            transform.EliminateCommonSubexpr(),
            transform.AlterOpLayout(),
        ]
    )

    run(seq, mod, "opt_level=2")
    mod2 = run(seq, mod, "opt_level=3", opt_level=3)
    run(
        seq,
        mod,
        "opt_level=3 without EliminateCommonSubexpr",
        opt_level=3,
        disabled_pass=["EliminateCommonSubexpr"],
    )
    print(mod2)


if __name__ == "__main__":
    main()
