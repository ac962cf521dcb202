"""Differential fuzzing: random well-typed programs (:mod:`tests.safety.program_gen`)
run by the reference interpreter and built with ``xrelay.build`` at opt 0 and 3; the
outputs must agree.

    .venv/bin/python -m tests.safety.fuzz --count 5000 [--seed S] [--chunk 25]

Programs run in child processes, ``--chunk`` per child: a crash (a signal) is
recorded for the program that was running and the next child goes on after it.
Prints the seed, every failure (seed of the program, kind, ops, message) and the
counts; exits 1 if anything but ``ok`` was seen. Program ``k`` of a run with seed
``S`` has seed ``S + k``: ``--seed S+k --count 1`` replays it.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("ok", "mismatch", "build-error", "interpreter-error", "invalid", "crash")


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [leaf for v in value for leaf in _flat(v)]
    return [np.asarray(value)]


def _compare(got: list[Any], want: list[Any]) -> str | None:
    if len(got) != len(want):
        return f"{len(got)} outputs, the interpreter gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"output {k}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        if w.dtype.kind == "f":
            if not np.allclose(g, w, rtol=1e-4, atol=1e-4, equal_nan=True):
                err = float(np.nanmax(np.abs(g.astype(np.float64) - w)))
                return f"output {k}: max abs error {err:.3g}"
        elif not np.array_equal(g, w):
            return f"output {k}: {int(np.sum(g != w))} elements differ"
    return None


def check_program(seed: int) -> dict[str, Any]:
    """Generate program ``seed`` and compare the interpreter with builds at opt 0
    and 3: ``{"seed", "kind", "ops", "message"}``."""
    import xrelay
    from tests.safety.program_gen import make_program
    from xrelay import relay
    from xrelay.pass_manager import PassContext
    from xrelay.runtime.interpreter import interpret

    fn, feeds, ops = make_program(seed)
    result: dict[str, Any] = {"seed": seed, "kind": "ok", "ops": ops, "message": ""}
    try:
        mod = relay.IRModule.from_expr(fn)
    except Exception as e:
        return {**result, "kind": "invalid", "message": f"{type(e).__name__}: {e}"}
    args = list(feeds.values())
    try:
        with np.errstate(all="ignore"):
            want = _flat(interpret(mod, *args))
    except Exception as e:
        return {
            **result,
            "kind": "interpreter-error",
            "message": f"{type(e).__name__}: {e}",
        }
    for level in (0, 3):
        try:
            with PassContext(opt_level=level):
                lib = xrelay.build(mod)
            got = _flat(lib(*args))
        except Exception as e:
            message = f"opt {level}: {type(e).__name__}: {str(e).splitlines()[0]}"
            return {**result, "kind": "build-error", "message": message}
        problem = _compare(got, want)
        if problem is not None:
            return {**result, "kind": "mismatch", "message": f"opt {level}: {problem}"}
    return result


def _child(first: int, count: int) -> None:
    for seed in range(first, first + count):
        print(json.dumps(check_program(seed)), flush=True)


def run(count: int, seed: int, chunk: int, quiet: bool = False) -> Counter[str]:
    """Run ``count`` programs from ``seed``; the counts of each outcome."""
    counts: Counter[str] = Counter()
    failures: list[dict[str, Any]] = []
    next_seed, end = seed, seed + count
    while next_seed < end:
        n = min(chunk, end - next_seed)
        code = f"from tests.safety.fuzz import _child; _child({next_seed}, {n})"
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
            check=False,
        )  # fmt: skip
        done = 0
        for line in proc.stdout.splitlines():
            if not line.startswith("{"):
                continue
            outcome = json.loads(line)
            counts[outcome["kind"]] += 1
            if outcome["kind"] != "ok":
                failures.append(outcome)
            done += 1
        if done < n:  # the child died on program next_seed + done
            tail = (proc.stderr.strip().splitlines() or [""])[-1]
            crash = {"seed": next_seed + done, "kind": "crash", "ops": "",
                     "message": f"exit {proc.returncode}: {tail}"}  # fmt: skip
            counts["crash"] += 1
            failures.append(crash)
            done += 1
        next_seed += done
        if not quiet:
            print(f"  {next_seed - seed}/{count} programs: {dict(counts)}", flush=True)
    for f in failures:
        print(f"FAIL seed {f['seed']} [{f['kind']}] {f['message']} -- ops: {f['ops']}")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--chunk", type=int, default=25)
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"fuzz: {args.count} programs from seed {seed}")
    start = time.perf_counter()
    counts = run(args.count, seed, args.chunk)
    elapsed = time.perf_counter() - start
    summary = ", ".join(f"{k} {counts.get(k, 0)}" for k in KINDS)
    print(f"fuzz: seed {seed}: {summary} ({elapsed:.0f} s)")
    return 0 if counts.get("ok", 0) == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
