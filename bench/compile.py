"""Compile time per stage, for every shared model, with a cold and a warm compile cache.

    .venv/bin/python bench/compile.py [--models ../shared/models] [--opt-level 3]
                                      [--only resnet18 densenet121 ...] [--no-warm]
                                      [--jobs N] [--cpu] [--repeat N]

Models: ``MODELS/*.onnx``, ``MODELS/zoo/*/model.onnx`` and the quantized models
``MODELS/quant/*/model.onnx`` (when present; each reported next to its float twin,
the model its name starts with, ``resnet18_qdq`` after ``resnet18``). Each model is built twice,
each time in a fresh subprocess (libraries imported and LLVM initialised before the
clock starts): *cold*, into an empty cache directory (``XRELAY_CACHE_DIR``), then
*warm*, from the entry the cold build wrote. Per build:

* the stages of :mod:`xrelay.lowering.stages`, in seconds: ``import`` (the ONNX
  importer), ``relay passes`` (the opt-level pipeline), ``relay->kernels`` (grouping,
  host function), ``kernel IR`` (the kernels' loop nests), ``memory planning``,
  ``llvm dialect``, ``LLVM IR text``, ``llvmlite parse`` (and verify), ``llvmlite
  optimise`` (O3), ``llvmlite codegen`` (object code and JIT loading), ``collector``
  (collections between stages), and the compile
  cache's ``cache lookup`` / ``load`` / ``store``. A build compiled in several
  processes (``$XRELAY_COMPILE_JOBS``, ``--jobs``: :mod:`xrelay.lowering.parallel`)
  counts the stages of every process: a stage's figure is then its time summed over
  the processes (the work), not wall clock; ``--cpu``: the stage columns are CPU
  seconds (``time.process_time`` of the process in the stage) instead of wall clock,
  the figure to compare on a busy machine;
* ``jobs``: the processes the build used; ``par s``: wall clock of its parallel
  section (from the ``llvm dialect`` to the last object);
* ``ready s``: ONNX file -> runnable model (import + build), wall clock;
* ``cpu s``: CPU time (user + system) of the import and build, the child processes
  included;
* ``max err``: one run against the model's reference output.

``--repeat N`` builds each model N times (cold and warm alternating) and prints
every build.

A model that does not import is reported as such and the run goes on. The closing
lines set the figures against the targets (quiet 2-core machine): a cold build of
ResNet-18 (ONNX file -> runnable) in at most 1.5 s, of every model in at most 8 s,
a warm build (the cache's lookup and load, import excluded) in under 0.2 s; with
each the CPU seconds, which a busy machine inflates less than the wall clock.
Figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from shared_models import SHARED_MODELS

HERE = Path(__file__).resolve().parent
SHORT = {
    "import": "import",
    "relay passes": "passes",
    "relay->kernels": "r->k",
    "kernel IR": "kern IR",
    "memory planning": "memplan",
    "llvm dialect": "llvm dl",
    "LLVM IR text": "IR text",
    "llvmlite parse": "parse",
    "llvmlite optimise": "opt",
    "llvmlite codegen": "codegen",
    "collector": "gc",
    "cache lookup": "c.look",
    "cache load": "c.load",
    "cache store": "c.store",
}


TARGET_RESNET18 = 1.5
"""Seconds, a cold build of ResNet-18 (import included) on a quiet 2-core machine."""
TARGET_ANY = 8.0
"""Seconds, a cold build of any shared model."""
TARGET_WARM = 0.2
"""Seconds, a build from the compile cache (import excluded)."""


def model_files(models: Path) -> dict[str, Path]:
    out = {p.stem: p for p in sorted(models.glob("*.onnx"))}
    for p in sorted(models.glob("zoo/*/model.onnx")):
        out[p.parent.name] = p
    quant = {p.parent.name: p for p in sorted(models.glob("quant/*/model.onnx"))}
    ordered: dict[str, Path] = {}
    for name, path in out.items():
        ordered[name] = path
        for q in sorted(quant):
            twin = max((n for n in out if q.startswith(n)), key=len, default=None)
            if twin == name:
                ordered[q] = quant[q]
    for q, path in quant.items():  # no float twin
        ordered.setdefault(q, path)
    return ordered


def _inputs_and_outputs(path: Path) -> tuple[list[Any], list[Any]]:
    import numpy as np

    if path.name == "model.onnx":
        d = path.parent
        ins = [np.load(p) for p in sorted(d.glob("input_*.npy"))]
        outs = [np.load(p) for p in sorted(d.glob("output_*.npy"))]
        return ins, outs
    d, stem = path.parent, path.stem
    return [np.load(d / f"{stem}.input.npy")], [np.load(d / f"{stem}.output.npy")]


def measure(path: Path, opt_level: int) -> dict[str, Any]:
    """One build of one model (run in a subprocess by :func:`main`)."""
    import numpy as np

    import xrelay
    import xrelay.lowering.pipeline
    import xrelay.runtime.library
    from xrelay.frontend import from_onnx
    from xrelay.lowering.stages import StageTimes, stage
    from xrelay.pass_manager import PassContext
    from xrelay.runtime.jit import target_machine

    target_machine()
    del xrelay.lowering.pipeline, xrelay.runtime.library
    inputs, refs = _inputs_and_outputs(path)

    def cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    cpu_start = cpu()
    start = time.perf_counter()
    with StageTimes() as times:
        try:
            with stage("import"):
                mod, params = from_onnx(str(path))
        except Exception as e:  # a model this branch cannot import: reported
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            return {"ok": False, "error": f"not importable: {msg}"}
        with PassContext(opt_level=opt_level):
            lib = xrelay.build(mod, params=params)
    ready = time.perf_counter() - start
    cpu_seconds = cpu() - cpu_start
    outs = lib(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    err = max(float(np.max(np.abs(o - r))) for o, r in zip(outs, refs, strict=True))
    return {
        "ok": True,
        "stages": times.seconds,
        "stages_cpu": times.cpu,
        "ready": ready,
        "cpu": cpu_seconds,
        "jobs": times.jobs,
        "parallel_wall": times.parallel_wall,
        "max_err": err,
        "cache_hit": bool(getattr(lib, "from_cache", False)),
    }


def _row(name: str, phase: str, r: dict[str, Any], cols: list[str], cpu: bool) -> str:
    if not r["ok"]:
        return f"{name:<16}{phase:<6}{r['error']}"
    stages = r["stages_cpu"] if cpu else r["stages"]
    cells = "".join(f"{stages.get(c, 0.0):>8.2f}" for c in cols)
    return (
        f"{name:<16}{phase:<6}{cells}{r['jobs']:>5}{r['parallel_wall']:>7.2f}"
        f"{r['ready']:>9.2f}{r['cpu']:>7.2f}{r['max_err']:>10.1e}"
    )


def _keep_best(found: dict[str, dict[str, Any]], phase: str, r: dict[str, Any]) -> None:
    """Keep the fastest successful build of a phase (``--repeat``)."""
    old = found.get(phase)
    if old is None or not old["ok"] or (r["ok"] and r["ready"] < old["ready"]):
        found[phase] = r


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=SHARED_MODELS)
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="model names")
    parser.add_argument("--no-warm", action="store_true", help="cold builds only")
    parser.add_argument(
        "--jobs", type=int, default=None, help="XRELAY_COMPILE_JOBS of the builds"
    )
    parser.add_argument(
        "--cpu", action="store_true", help="stage columns in CPU seconds"
    )
    parser.add_argument("--repeat", type=int, default=1, help="builds per model")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(measure(Path(args.child), args.opt_level)))
        return 0
    files = model_files(args.models)
    if args.only:
        files = {k: v for k, v in files.items() if k in args.only}
    cpu = platform.processor() or platform.machine()
    try:
        for line in subprocess.run(
            ["lscpu"], capture_output=True, text=True, check=False
        ).stdout.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
    except OSError:
        pass
    print(
        f"xrelay compile time: opt_level {args.opt_level}, {cpu}, {os.cpu_count()} "
        f"CPUs, load average {os.getloadavg()[0]:.1f}; stage columns in "
        f"{'CPU' if args.cpu else 'wall-clock'} seconds"
    )
    from xrelay.lowering.stages import STAGES

    cols = list(STAGES)
    print(
        f"{'model':<16}{'cache':<6}"
        + "".join(f"{SHORT[c]:>8}" for c in cols)
        + f"{'jobs':>5}{'par s':>7}{'ready s':>9}{'cpu s':>7}{'max err':>10}"
    )
    results: dict[str, dict[str, dict[str, Any]]] = {}
    phases = ["cold"] if args.no_warm else ["cold", "warm"]
    for name, path in [item for item in files.items() for _ in range(args.repeat)]:
        with tempfile.TemporaryDirectory(prefix="xrelay-bench-cache-") as cache:
            env = dict(os.environ, XRELAY_CACHE_DIR=cache)
            if args.jobs is not None:
                env["XRELAY_COMPILE_JOBS"] = str(args.jobs)
            for phase in phases:
                cmd = [sys.executable, __file__, "--opt-level", str(args.opt_level),
                       "--child", str(path)]  # fmt: skip
                res = subprocess.run(
                    cmd, capture_output=True, text=True, check=False, env=env
                )
                if res.returncode != 0:
                    tail = (res.stderr.strip().splitlines() or ["?"])[-1]
                    r: dict[str, Any] = {"ok": False, "error": f"failed: {tail}"}
                else:
                    r = json.loads(res.stdout.strip().splitlines()[-1])
                _keep_best(results.setdefault(name, {}), phase, r)
                print(_row(name, phase, r, cols, args.cpu), flush=True)
                if not r["ok"]:
                    break
    print()
    cold = {n: r["cold"] for n, r in results.items() if r["cold"]["ok"]}
    if "resnet18" in cold:
        r18 = cold["resnet18"]
        print(
            f"target ResNet-18 cold, ONNX -> runnable <= {TARGET_RESNET18} s: "
            f"{r18['ready']:.2f} s ({r18['cpu']:.2f} s CPU)"
        )
    if cold:
        worst = max(cold, key=lambda n: cold[n]["ready"])
        w = cold[worst]
        print(
            f"target every model cold <= {TARGET_ANY} s: slowest {worst} "
            f"{w['ready']:.2f} s ({w['cpu']:.2f} s CPU)"
        )
    warm = {
        n: r["warm"]
        for n, r in results.items()
        if "warm" in r and r["warm"]["ok"] and r["warm"]["cache_hit"]
    }
    if warm:
        worst = max(warm, key=lambda n: warm[n]["ready"] - warm[n]["stages"]["import"])
        w = warm[worst]
        print(
            f"target warm build (cache lookup + load, import excluded) < {TARGET_WARM}"
            f" s: slowest {worst} {w['ready'] - w['stages']['import']:.2f} s"
        )
    for n, r in results.items():
        if not r["cold"]["ok"]:
            print(f"{n}: {r['cold']['error']}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
