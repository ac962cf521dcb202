"""A large relay program through the front half of the compiler: parse, verify,
optimise (``relay-optimize`` at opt 3, verify-each off and on) and print, with the
time of each step and the cost per op (a linear pipeline keeps the per-op figures
flat as the size grows).

    .venv/bin/python bench/large_program.py [--ops 50000] [--sizes 5000,20000]

The program is one function: a chain of elementwise, broadcast and layout ops over
a few inputs (a shape ``(4, 8)`` tensor), with scalar constants, so that FuseOps has
long injective chains to cut (``relay.FuseOps.max_depth``) and FoldConstant has
constant-only subexpressions to fold. Figures only.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def program_text(n_ops: int, seed: int = 0) -> str:
    """MLIR text of a program with about ``n_ops`` relay ops."""
    rng = np.random.default_rng(seed)
    t = "tensor<4x8xf32>"
    lines = [f"func.func @main(%a: {t}, %b: {t}, %c: {t}) -> {t} {{"]
    live = ["%a", "%b", "%c"]
    k = 0
    while k < n_ops:
        r = rng.random()
        x = live[-1]
        y = live[int(rng.integers(max(0, len(live) - 8), len(live)))]
        if r < 0.35:
            op = str(rng.choice(["add", "multiply", "subtract", "maximum"]))
            lines.append(f"  %{k} = relay.{op} {x}, {y} : ({t}, {t}) -> {t}")
        elif r < 0.6:
            op = str(rng.choice(["tanh", "nn.relu", "negative", "sigmoid"]))
            lines.append(f"  %{k} = relay.{op} {x} : ({t}) -> {t}")
        elif r < 0.8:
            lines.append(
                f"  %{k} = relay.constant dense<{rng.random():.3f}> : tensor<f32>"
            )
            k += 1
            lines.append(
                f"  %{k} = relay.multiply {x}, %{k - 1} : ({t}, tensor<f32>) -> {t}"
            )
        else:
            lines.append(
                f"  %{k} = relay.transpose {x} {{axes = array<i64: 1, 0>}} : ({t}) -> "
                "tensor<8x4xf32>"
            )
            k += 1
            lines.append(
                f"  %{k} = relay.transpose %{k - 1} {{axes = array<i64: 1, 0>}} : "
                f"(tensor<8x4xf32>) -> {t}"
            )
        live.append(f"%{k}")
        k += 1
    lines.append(f"  func.return {live[-1]} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def measure(n_ops: int, verify_each: bool) -> dict[str, float]:
    from xrelay.dialects.relay.dominance import verify_module
    from xrelay.pass_manager import PassContext
    from xrelay.tools.locations import parse_mlir
    from xrelay.tools.models import mlir_context
    from xrelay.transforms.pipeline import optimize

    text = program_text(n_ops)
    ctx = mlir_context()
    module, t_parse = timed(lambda: parse_mlir(ctx, text, "large.mlir"))
    _, t_verify = timed(lambda: verify_module(module))
    config = {"xrelay.verify_each": verify_each}
    with PassContext(opt_level=3, config=config):
        optimised, t_opt = timed(lambda: optimize(module))
    printed, t_print = timed(lambda: str(optimised))
    assert len(printed) > 0
    return {"parse": t_parse, "verify": t_verify, "optimise": t_opt, "print": t_print}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=50000)
    parser.add_argument("--sizes", default="5000,20000")
    parser.add_argument("--verify-each", action="store_true")
    args = parser.parse_args()
    print(f"CPU: {platform.processor() or platform.machine()}")
    sizes = [int(s) for s in args.sizes.split(",") if s] + [args.ops]
    for n in sizes:
        t = measure(n, args.verify_each)
        total = sum(t.values())
        cells = "  ".join(f"{k} {v:6.2f} s" for k, v in t.items())
        print(
            f"{n:>6} ops: {cells}  total {total:6.2f} s  ({total / n * 1e6:.0f} us/op, "
            f"verify-each {'on' if args.verify_each else 'off'})"
        )


if __name__ == "__main__":
    main()
