"""Compile time of Relay's opt_level-3 pipeline (``xrelay.transform.optimize``) on
ResNet-18 from shared/models, and how many ops per second each pass processes.

    .venv/bin/python bench/passes.py [--model PATH.onnx] [--opt-level 3] [--verify-each]

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xrelay.pass_manager import PassContext, PassInfo, PassInstrument

DEFAULT_MODEL = (
    Path(__file__).resolve().parents[2] / "shared" / "models" / "resnet18.onnx"
)


def count_ops(mod: Any) -> int:
    module: ModuleOp = getattr(mod, "module", mod)
    return sum(1 for _ in module.walk()) - 1


class PassProfile(PassInstrument):
    """Per leaf pass: calls, seconds, and ops in its input module."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, float, int]] = []
        self.seconds: dict[str, float] = defaultdict(float)
        self.ops: dict[str, int] = defaultdict(int)
        self.calls: dict[str, int] = defaultdict(int)

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        if info.kind != "sequential":
            self.stack.append((info.name, time.perf_counter(), count_ops(mod)))

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        if info.kind == "sequential":
            return
        name, start, ops = self.stack.pop()
        elapsed = time.perf_counter() - start
        # nested passes (a function pass's InferType) count in their own row only
        for i, (outer, outer_start, outer_ops) in enumerate(self.stack):
            self.stack[i] = (outer, outer_start + elapsed, outer_ops)
        self.seconds[name] += elapsed
        self.ops[name] += ops
        self.calls[name] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument(
        "--verify-each", action="store_true", help="verify after every pass"
    )
    args = parser.parse_args()
    if not args.model.exists():
        raise SystemExit(
            f"{args.model}: not found (shared/models is not beside the project)"
        )

    from xrelay.frontend import from_onnx
    from xrelay.transform import optimize

    start = time.perf_counter()
    mod, _ = from_onnx(str(args.model))
    imported = time.perf_counter() - start
    print(
        f"model: {args.model.name}: {count_ops(mod)} ops, imported in {imported:.2f} s"
    )

    profile = PassProfile()
    config = {"xrelay.verify_each": args.verify_each}
    with PassContext(opt_level=args.opt_level, instruments=[profile], config=config):
        start = time.perf_counter()
        out = optimize(mod)
        total = time.perf_counter() - start
    print(
        f"optimize at opt_level {args.opt_level} (verify-each "
        f"{'on' if args.verify_each else 'off'}): {total:.2f} s, "
        f"{count_ops(out)} ops after"
    )
    print(f"{'pass':28} {'calls':>5} {'seconds':>8} {'share':>6} {'ops/s':>10}")
    for name in sorted(profile.seconds, key=lambda n: -profile.seconds[n]):
        secs = profile.seconds[name]
        rate = profile.ops[name] / secs if secs > 0 else float("inf")
        print(
            f"{name:28} {profile.calls[name]:5d} {secs:8.3f} "
            f"{100 * secs / total:5.1f}% {rate:10.0f}"
        )


if __name__ == "__main__":
    main()
