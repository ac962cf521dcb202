"""Pass-manager overhead: µs per pass for a Sequential of N no-op module passes on a
small module, in several configurations, against the same N passes in an xDSL
PassPipeline measured in the same process.

    .venv/bin/python bench/pass_manager_overhead.py [--passes 1000] [--repeat 11]

Targets: at most 1.5 µs per pass plain (issue 3; TVM 0.27's C++ pass manager measured
0.75 µs on this machine kind); PassTimingInstrument at most 1.0 µs per pass on top of
that, a no-op Python instrument at most 1.5 µs per pass (issue 16). Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass as XDSLModulePass
from xdsl.passes import PassPipeline

from xrelay.pass_manager import (
    PassContext,
    PassInfo,
    PassInstrument,
    PassTimingInstrument,
    Sequential,
)
from xrelay.pass_manager.passes import ModulePass

TVM_US_PER_PASS = 0.75
TARGET_US_PER_PASS = 1.5
TARGET_TIMING_US = 1.0
"""PassTimingInstrument: at most this much per pass on top of the plain cost."""
TARGET_NOOP_US = 1.5
"""A Python instrument overriding should_run, run_before_pass, run_after_pass with
no-ops: at most this much per pass."""


def small_module() -> ModuleOp:
    import numpy as np

    from xrelay import relay

    x = relay.var("x", shape=(1, 16))
    w = relay.const(np.ones((8, 16), "float32"))
    y = relay.nn.relu(relay.nn.dense(x, w))
    return relay.IRModule.from_expr(relay.Function([x], y)).module


def noop(mod: Any, ctx: PassContext) -> Any:
    return mod


class NoopInstrument(PassInstrument):
    def should_run(self, mod: Any, info: PassInfo) -> bool:
        return True

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        pass

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        pass


@dataclass(frozen=True)
class NoopXDSL(XDSLModulePass):
    name = "noop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


def per_pass_us(run: Callable[[], Any], n: int, repeat: int) -> float:
    run()  # warm up
    times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    n, repeat = args.passes, args.repeat

    module = small_module()
    seq = Sequential(
        [ModulePass(noop, PassInfo(0, f"noop{i}")) for i in range(n)], name="bench"
    )
    quiet = {"xrelay.verify_each": False}

    def under(ctx: PassContext) -> Callable[[], Any]:
        def run() -> Any:
            with ctx:
                return seq(module)

        return run

    results: dict[str, float] = {}
    results["plain (verify-each off)"] = per_pass_us(
        under(PassContext(config=quiet)), n, repeat
    )
    results["verify-each on"] = per_pass_us(under(PassContext()), n, repeat)
    results["PassTimingInstrument"] = per_pass_us(
        under(PassContext(config=quiet, instruments=[PassTimingInstrument()])),
        n,
        repeat,
    )
    results["one no-op Python instrument"] = per_pass_us(
        under(PassContext(config=quiet, instruments=[NoopInstrument()])), n, repeat
    )
    pipeline = PassPipeline(tuple(NoopXDSL() for _ in range(n)))
    xdsl_ctx = Context()
    results["xDSL PassPipeline (same passes)"] = per_pass_us(
        lambda: pipeline.apply(xdsl_ctx, module), n, repeat
    )

    xdsl = results["xDSL PassPipeline (same passes)"]
    print(f"Sequential of {n} no-op module passes, median of {repeat} runs")
    print(f"{'variant':34} {'µs/pass':>9} {'vs xDSL':>8} {'vs TVM 0.27':>12}")
    for name, us in results.items():
        print(f"{name:34} {us:9.3f} {us / xdsl:7.2f}x {us / TVM_US_PER_PASS:11.2f}x")
    plain = results["plain (verify-each off)"]
    verdict = "meets" if plain <= TARGET_US_PER_PASS else "misses"
    print(
        f"plain: {plain:.3f} µs/pass {verdict} the {TARGET_US_PER_PASS} µs/pass target"
    )
    timing = results["PassTimingInstrument"] - plain
    verdict = "meets" if timing <= TARGET_TIMING_US else "misses"
    print(
        f"PassTimingInstrument: +{timing:.3f} µs/pass over plain, {verdict} the "
        f"+{TARGET_TIMING_US} µs/pass target (issue 16)"
    )
    noop_us = results["one no-op Python instrument"]
    verdict = "meets" if noop_us <= TARGET_NOOP_US else "misses"
    print(
        f"one no-op Python instrument: {noop_us:.3f} µs/pass (+{noop_us - plain:.3f} over "
        f"plain), {verdict} the {TARGET_NOOP_US} µs/pass target (issue 16)"
    )


if __name__ == "__main__":
    main()
