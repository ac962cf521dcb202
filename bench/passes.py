"""Compile time of Relay's opt_level-3 pipeline (``xrelay.transform.optimize``) on
ResNet-18 and DenseNet-121 from shared/models, how many ops per second each pass
processes, and what cached analyses save: the same pipeline with
``xrelay.cache_analyses`` on (InferType re-infers only the functions a pass changed)
and off (every InferType infers everything), in the same process.

    .venv/bin/python bench/passes.py [--model PATH.onnx ...] [--opt-level 3]
        [--verify-each] [--repeat 3]

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xrelay.pass_manager import PassContext, PassInfo, PassInstrument


def shared_models() -> Path:
    """``$XRELAY_SHARED_MODELS``, else ``shared/models`` beside the project (or beside
    the folder of worktrees)."""
    env = os.environ.get("XRELAY_SHARED_MODELS")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for base in (here.parents[2], here.parents[3]):
        if (base / "shared" / "models").is_dir():
            return base / "shared" / "models"
    return here.parents[2] / "shared" / "models"


DEFAULT_MODELS = ("resnet18.onnx", "zoo/densenet121/model.onnx")


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


def run_pipeline(
    mod: Any, opt_level: int, verify_each: bool, cache: bool
) -> tuple[float, PassProfile, Any, int]:
    """Seconds, the per-pass profile, the result and how many functions InferType
    inferred."""
    from xrelay.transform import optimize

    profile = PassProfile()
    config = {"xrelay.verify_each": verify_each, "xrelay.cache_analyses": cache}
    gc.collect()
    with PassContext(opt_level=opt_level, instruments=[profile], config=config) as ctx:
        start = time.perf_counter()
        out = optimize(mod)
        total = time.perf_counter() - start
    return total, profile, out, ctx.analyses.computed["types"]


def bench_model(path: Path, opt_level: int, verify_each: bool, repeat: int) -> None:
    from xrelay.frontend import from_onnx

    start = time.perf_counter()
    mod, _ = from_onnx(str(path))
    imported = time.perf_counter() - start
    name = path.parent.name if path.name == "model.onnx" else path.stem
    print(f"model: {name}: {count_ops(mod)} ops, imported in {imported:.2f} s")

    best: dict[bool, tuple[float, PassProfile, Any, int]] = {}
    for _ in range(repeat):  # alternate, keep each variant's fastest run
        for cache in (True, False):
            run = run_pipeline(mod, opt_level, verify_each, cache)
            if cache not in best or run[0] < best[cache][0]:
                best[cache] = run
    total, profile, out, _ = best[True]
    print(
        f"optimize at opt_level {opt_level} (verify-each "
        f"{'on' if verify_each else 'off'}, analyses cached): {total:.3f} s, "
        f"{count_ops(out)} ops after"
    )
    print(f"{'pass':28} {'calls':>5} {'seconds':>8} {'share':>6} {'ops/s':>10}")
    for pass_name in sorted(profile.seconds, key=lambda n: -profile.seconds[n]):
        secs = profile.seconds[pass_name]
        rate = profile.ops[pass_name] / secs if secs > 0 else float("inf")
        print(
            f"{pass_name:28} {profile.calls[pass_name]:5d} {secs:8.3f} "
            f"{100 * secs / total:5.1f}% {rate:10.0f}"
        )
    print(f"best of {repeat}, same process:")
    print(
        f"  {'analyses':10} {'pipeline s':>10} {'InferType s':>12} {'share':>6} "
        f"{'functions inferred':>19}"
    )
    for cache in (False, True):
        t, prof, _, inferred = best[cache]
        infer = prof.seconds.get("InferType", 0.0)
        label = "cached" if cache else "uncached"
        print(
            f"  {label:10} {t:10.3f} {infer:12.3f} {100 * infer / t:5.1f}% "
            f"{inferred:19d}"
        )
    plain, cached = best[False][0], best[True][0]
    print(
        f"  pipeline {plain / cached:.2f}x faster with cached analyses "
        f"(InferType {best[False][1].seconds['InferType'] / max(best[True][1].seconds['InferType'], 1e-9):.1f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, action="append", default=None)
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--verify-each", action="store_true", help="verify after every pass"
    )
    args = parser.parse_args()
    models = args.model or [shared_models() / m for m in DEFAULT_MODELS]
    for i, path in enumerate(models):
        if not path.exists():
            print(f"{path}: not found (shared/models is not beside the project)")
            continue
        if i:
            print()
        bench_model(path, args.opt_level, args.verify_each, args.repeat)


if __name__ == "__main__":
    main()
