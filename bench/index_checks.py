"""What the index check costs: ``take`` in its three modes on the same programs,
measured in one process (``fast`` is the checked mode, :mod:`xrelay.status`).

    .venv/bin/python bench/index_checks.py [--runs 50] [--threads N]

Programs (each built three times, once per mode):

* ``embedding``: rows of a 30000 x 256 table picked by 4096 indices (a copy: the
  check's cost against one row read per index);
* ``gather-add``: ``take`` along the last axis of a 64 x 1024 tensor by 1024 indices
  and an add (the check per element: its worst case);
* ``flat``: ``take`` from the flattened 512 x 512 tensor by 262144 indices.

Figures are medians of ``--runs`` runs after one warm-up; the ratio is against
``clip`` (the clamp every unchecked read needs). With ``../shared`` present and a
model that imports, the zoo's ``resnet18`` and ``bert_small`` are built twice, with
their index checks (as imported) and without (checked ``take`` turned into ``clip``),
and timed in alternating blocks: the cost of the checks on a whole model. Figures
only.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from shared_models import SHARED_MODELS

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext

MODES = ("clip", "wrap", "fast")
ZOO = SHARED_MODELS / "zoo"


def embedding(mode: str) -> tuple[Any, dict[str, Any]]:
    table = relay.var("table", shape=(30000, 256), dtype="float32")
    ids = relay.var("ids", shape=(4096,), dtype="int64")
    body = relay.take(table, ids, axis=0, mode=mode)
    rng = np.random.default_rng(0)
    feeds = {
        "table": rng.standard_normal((30000, 256)).astype(np.float32),
        "ids": rng.integers(0, 30000, 4096),
    }
    return relay.Function([table, ids], body), feeds


def gather_add(mode: str) -> tuple[Any, dict[str, Any]]:
    x = relay.var("x", shape=(64, 1024), dtype="float32")
    ids = relay.var("ids", shape=(1024,), dtype="int32")
    body = relay.add(relay.take(x, ids, axis=1, mode=mode), x)
    rng = np.random.default_rng(1)
    feeds = {
        "x": rng.standard_normal((64, 1024)).astype(np.float32),
        "ids": rng.integers(0, 1024, 1024).astype(np.int32),
    }
    return relay.Function([x, ids], body), feeds


def flat(mode: str) -> tuple[Any, dict[str, Any]]:
    x = relay.var("x", shape=(512, 512), dtype="float32")
    ids = relay.var("ids", shape=(262144,), dtype="int64")
    body = relay.take(x, ids, mode=mode)
    rng = np.random.default_rng(2)
    feeds = {
        "x": rng.standard_normal((512, 512)).astype(np.float32),
        "ids": rng.integers(0, 512 * 512, 262144),
    }
    return relay.Function([x, ids], body), feeds


PROGRAMS: dict[str, Callable[[str], tuple[Any, dict[str, Any]]]] = {
    "embedding": embedding,
    "gather-add": gather_add,
    "flat": flat,
}


def median_ms(run: Callable[[], None], runs: int) -> float:
    run()
    times: list[float] = []
    for _ in range(runs):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def bench_program(name: str, runs: int, threads: int | None) -> None:
    figures: dict[str, float] = {}
    for mode in MODES:
        fn, feeds = PROGRAMS[name](mode)
        with PassContext(opt_level=3):
            lib = xrelay.build(relay.IRModule.from_expr(fn), num_threads=threads)
        m = lib.create()
        m.set_input(**feeds)
        figures[mode] = median_ms(m.run, runs)
    base = figures["clip"]
    cells = "  ".join(
        f"{mode} {ms:8.3f} ms ({ms / base:5.3f}x)" for mode, ms in figures.items()
    )
    print(f"{name:<11} {cells}")


INDEX_OPS = ("relay.take", "relay.gather", "relay.gather_nd", "relay.scatter_nd",
             "relay.scatter_elements")  # fmt: skip


def _unchecked(mod: Any) -> int:
    """Turn ``mod``'s checked ``take`` ops (mode ``fast``) into clamping ones
    (``clip``: the read every unchecked gather needs anyway), in place; how many."""
    from xdsl.dialects.builtin import StringAttr

    count = 0
    for op in mod.module.walk():
        mode = op.properties.get("mode")
        if op.name == "relay.take" and mode == StringAttr("fast"):
            op.properties["mode"] = StringAttr("clip")
            count += 1
    return count


def bench_model(name: str, runs: int, threads: int | None, blocks: int = 5) -> None:
    """A zoo model built twice, its index checks on (as imported) and off (checked
    ``take`` turned into ``clip``), timed in alternating blocks."""
    folder = ZOO / name
    onnx_file, inputs = folder / "model.onnx", sorted(folder.glob("input_*.npy"))
    if not folder.is_dir():  # the shared models' own files
        onnx_file = ZOO.parent / f"{name}.onnx"
        inputs = [ZOO.parent / f"{name}.input.npy"]
    if not onnx_file.is_file():
        print(f"{name}: skipped (../shared/models is absent)")
        return
    from xrelay.frontend import from_onnx

    try:
        mod, params = from_onnx(str(onnx_file))
    except Exception as e:
        print(f"{name}: skipped (does not import here: {str(e).splitlines()[0]})")
        return
    ops = [op.name for op in mod.module.walk() if op.name in INDEX_OPS]
    checked_mod, params2 = from_onnx(str(onnx_file))
    turned = _unchecked(checked_mod)
    mods = {"checked": mod, "unchecked": checked_mod}
    del params2
    execs: dict[str, Any] = {}
    for label, m_ in mods.items():
        with PassContext(opt_level=3):
            lib = xrelay.build(m_, params=params, num_threads=threads)
        m = lib.create()
        for i, f in enumerate(inputs):
            m.set_input(i, np.load(f))
        m.run()
        execs[label] = m
    times: dict[str, list[float]] = {k: [] for k in execs}
    per = max(1, runs // blocks)
    for _ in range(blocks):
        for label, m in execs.items():
            m.run()
            for _ in range(per):
                t = time.perf_counter()
                m.run()
                times[label].append(time.perf_counter() - t)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    cost = med["checked"] / med["unchecked"] - 1
    print(
        f"{name}: {len(ops)} index ops, {turned} checked; checked "
        f"{med['checked']:.3f} ms, unchecked {med['unchecked']:.3f} ms: "
        f"the checks cost {100 * cost:+.1f}% of the latency"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    print(f"CPU: {platform.processor() or platform.machine()}, threads {args.threads}")
    for name in PROGRAMS:
        bench_program(name, args.runs, args.threads)
    for name in ("resnet18", "bert_small"):
        bench_model(name, args.runs, args.threads)


if __name__ == "__main__":
    main()
