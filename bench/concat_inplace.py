"""Concatenations lowered in place (``lowering/concat_placement.py``) against the
concatenate kernels they replace, on the zoo's DenseNet-121 (or any ONNX model).

    .venv/bin/python bench/concat_inplace.py [--model PATH] [--runs 10] [--rounds 3]
                                             [--threads N] [--builds 2]

Builds the model in this process with concatenations in place and without
(``GraphLowering.place_concats``), alternately ``--builds`` times each, cold (no
compile cache), and prints for each variant: the build's wall and CPU seconds (the
least of its builds; the CPU of forked compile jobs included), the kernel
functions and kernel calls of
the host (concatenate kernels among them), the arena size, then the run latency
(median and minimum of ``--runs`` runs, in ``--rounds`` alternating blocks), the
load average before and after, and whether the outputs are the same bits.
Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from shared_models import SHARED_MODELS


def _build(path: Path, in_place: bool) -> tuple[Any, dict[str, float]]:
    import xrelay
    from xrelay.frontend.onnx.importer import from_onnx
    from xrelay.lowering.graph import GraphLowering

    mod, params = from_onnx(str(path))
    GraphLowering.place_concats = in_place
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        children = os.times()
        lib = xrelay.build(mod, params=params, keep_mlir=True, cache=False)
        after = os.times()
        figures = {
            "build s": time.perf_counter() - wall,
            "cpu s": time.process_time()
            - cpu
            + (after.children_user - children.children_user)
            + (after.children_system - children.children_system),
        }
    finally:
        GraphLowering.place_concats = True
    text = lib.get_source("mlir")
    host = text[text.index("xrelay.host") :]
    figures["kernels"] = text.count("func.func @k")
    figures["calls"] = host.count("func.call @k")
    figures["concat kernels"] = sum(
        1 for line in host.splitlines() if "func.call @k" in line and "concat" in line
    )
    figures["copy calls"] = sum(
        1 for line in host.splitlines() if "func.call @k" in line and "_copy(" in line
    )
    figures["arena MB"] = lib.spec.arena_size / 2**20
    return lib, figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model",
        type=Path,
        default=SHARED_MODELS / "zoo" / "densenet121" / "model.onnx",
    )
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--builds", type=int, default=2)
    args = parser.parse_args(argv)
    load0 = os.getloadavg()
    data = np.load(args.model.parent / "input_0.npy")
    libs: dict[str, Any] = {}
    rows: dict[str, dict[str, float]] = {}
    for _ in range(max(1, args.builds)):
        for name, flag in (("copies", False), ("in place", True)):
            libs[name], row = _build(args.model, flag)
            if name in rows:
                for k in ("build s", "cpu s"):
                    row[k] = min(row[k], rows[name][k])
            rows[name] = row
    executors = {}
    for name, lib in libs.items():
        m = lib.create()
        if args.threads is not None:
            m.set_num_threads(args.threads)
        m.set_input(**{lib.spec.inputs[0].name: data})
        executors[name] = m
    outs: dict[str, Any] = {}
    for name, m in executors.items():
        m.run()
        outs[name] = m.get_output(0)
    times: dict[str, list[float]] = {name: [] for name in executors}
    for _ in range(args.rounds):
        for name, m in executors.items():
            for _ in range(args.runs):
                t = time.perf_counter()
                m.run()
                times[name].append((time.perf_counter() - t) * 1e3)
    load1 = os.getloadavg()
    print(
        f"{args.model.parent.name}: {os.cpu_count()} CPUs, threads "
        f"{args.threads or 'auto'}, load average {load0[0]:.2f} -> {load1[0]:.2f}"
    )
    keys = list(next(iter(rows.values())))
    print(
        f"{'variant':10}"
        + "".join(f"{k:>16}" for k in keys)
        + f"{'median ms':>12}{'min ms':>10}"
    )
    for name, row in rows.items():
        cells = "".join(
            f"{row[k]:>16.2f}" if isinstance(row[k], float) else f"{row[k]:>16}"
            for k in keys
        )
        print(
            f"{name:10}{cells}{statistics.median(times[name]):>12.2f}"
            f"{min(times[name]):>10.2f}"
        )
    same = np.array_equal(outs["copies"], outs["in place"])
    expected = np.load(args.model.parent / "output_0.npy")
    err = float(np.abs(outs["in place"] - expected).max())
    print(f"outputs bit-identical: {same}; max error against the reference: {err:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
