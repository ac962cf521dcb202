"""Per-kernel times of one run of a profiled build (TVM's debug executor, for xrelay).

A profiled build (``xrelay.build(..., profile=True)``, or ``lib.create(profile=True)``)
reads a monotonic clock before and after every kernel call of its host, in every
thread of the team, into a buffer after the run's status block
(:func:`xrelay.lowering.graph.GraphLowering._add_timing`). :class:`Profile` turns one
run's buffer into rows: per call, the kernel, the relay group and ops it runs, its
output shapes and its time (from the first thread entering it to the last leaving
it), its share of the run, and GFLOP/s (a group with a convolution or a matrix
product: two flops per multiply-add) or GB/s (bytes read and written) -- plus a
sorted table, a Chrome trace (one event per kernel per thread) and the ``{"group":
ms}`` JSON that ``view-graph{times=...}`` colours a graph by.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xrelay.runtime.spec import KernelCall


@dataclass(frozen=True)
class KernelTime:
    """One timed kernel call of a run."""

    index: int
    """Its position in the run."""
    call: KernelCall
    start_ns: int
    """When the first thread entered it (nanoseconds after the run began)."""
    ns: int
    """From the first thread entering it to the last one leaving it."""
    threads: tuple[tuple[int, int, int], ...]
    """``(tid, start_ns, ns)`` of every thread that ran it."""

    @property
    def ms(self) -> float:
        return self.ns / 1e6

    def rate(self) -> str:
        """GFLOP/s of a group with a convolution or a matrix product, else GB/s."""
        if self.ns <= 0:
            return "-"
        if self.call.macs:
            return f"{2 * self.call.macs / self.ns:.1f} GFLOP/s"
        return f"{self.call.bytes / self.ns:.2f} GB/s"


class Profile:
    """The kernel times of one run (see the module docstring)."""

    def __init__(
        self, calls: Sequence[KernelCall], stamps: np.ndarray[Any, Any], threads: int
    ):
        """``stamps``: the profile buffer, ``[thread][call + 1][start, end]`` in
        nanoseconds (zero where a thread did not run a call), the last row each
        thread's whole run."""
        runs = stamps[:threads, len(calls)]
        ran = runs[:, 0] != 0
        if not ran.any():
            raise ValueError("the profile buffer holds no run")
        self.origin = int(runs[ran, 0].min())
        self.run_ns = int(runs[ran, 1].max()) - self.origin
        """The run, from the first thread starting to the last one finishing."""
        self.threads = threads
        self.kernels: list[KernelTime] = []
        for k, call in enumerate(calls):
            rows = stamps[:threads, k]
            who = np.nonzero(rows[:, 0])[0]
            if not len(who):  # a kernel in a branch not taken
                continue
            start = int(rows[who, 0].min())
            end = int(rows[who, 1].max())
            per_thread = tuple(
                (int(t), int(rows[t, 0]) - self.origin, int(rows[t, 1] - rows[t, 0]))
                for t in who
            )
            self.kernels.append(
                KernelTime(k, call, start - self.origin, end - start, per_thread)
            )

    @property
    def run_ms(self) -> float:
        return self.run_ns / 1e6

    @property
    def kernel_ms(self) -> float:
        """The kernels' times summed."""
        return sum(k.ns for k in self.kernels) / 1e6

    def group_times(self) -> dict[str, float]:
        """Milliseconds per relay group (summed over its calls): the JSON that
        ``view-graph{times=...}`` reads."""
        out: dict[str, float] = {}
        for k in self.kernels:
            out[k.call.group] = out.get(k.call.group, 0.0) + k.ms
        return out

    def table(self, limit: int | None = None) -> str:
        """The kernels, slowest first, like TVM's debug executor."""
        rows = sorted(self.kernels, key=lambda k: -k.ns)
        if limit is not None:
            rows = rows[:limit]
        header = ("#", "kernel", "ops", "shape", "ms", "%", "rate")
        cells: list[tuple[str, ...]] = [header]
        share = max(self.run_ns, 1)
        for k in rows:
            ops = ",".join(k.call.ops) or k.call.group
            cells.append(
                (
                    str(k.index),
                    k.call.kernel,
                    ops if len(ops) <= 48 else ops[:45] + "...",
                    ";".join(k.call.shapes),
                    f"{k.ms:.4f}",
                    f"{100 * k.ns / share:.1f}",
                    k.rate(),
                )
            )
        widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
        right = {0, 4, 5, 6}

        def line(r: tuple[str, ...]) -> str:
            return "  ".join(
                c.rjust(w) if i in right else c.ljust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ).rstrip()

        out = [line(cells[0]), "-" * len(line(cells[0]))]
        out += [line(r) for r in cells[1:]]
        out.append(
            f"run {self.run_ms:.3f} ms on {self.threads} thread(s); kernels "
            f"{self.kernel_ms:.3f} ms ({100 * self.kernel_ms / max(self.run_ms, 1e-9):.1f}%"
            f" of the run), {len(self.kernels)} kernel calls"
        )
        return "\n".join(out)

    def chrome_trace(self) -> dict[str, Any]:
        """The run as Chrome trace events (``ph: "X"``, microseconds, one ``tid`` per
        thread): open in Perfetto or ``chrome://tracing``."""
        events: list[dict[str, Any]] = [
            {
                "name": "run",
                "cat": "run",
                "ph": "X",
                "ts": 0.0,
                "dur": self.run_ns / 1e3,
                "pid": 0,
                "tid": 0,
            }
        ]
        for k in self.kernels:
            for tid, start, ns in k.threads:
                events.append(
                    {
                        "name": k.call.kernel,
                        "cat": "kernel",
                        "ph": "X",
                        "ts": start / 1e3,
                        "dur": ns / 1e3,
                        "pid": 0,
                        "tid": tid,
                        "args": {
                            "group": k.call.group,
                            "ops": list(k.call.ops),
                            "shapes": list(k.call.shapes),
                            "index": k.index,
                        },
                    }
                )
        names = [
            {
                "name": "thread_name",
                "ph": "M",
                "pid": 0,
                "tid": t,
                "args": {"name": f"xrelay thread {t}"},
            }
            for t in range(self.threads)
        ]
        return {"traceEvents": names + events, "displayTimeUnit": "ms"}

    def write_trace(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f)

    def write_times(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.group_times(), f, indent=1)


__all__ = ["KernelTime", "Profile"]
