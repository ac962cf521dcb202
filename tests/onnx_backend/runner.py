"""Runs node tests in worker processes (``worker.py``), so that a segfault or a hang
in one test is recorded as that test's failure instead of ending the run.

    python tests/onnx_backend/runner.py [--jobs N] [--json FILE] [NAME_PATTERN ...]

prints a summary (counts by status, then the failures); pytest uses :func:`run_all`.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from cases import load_index, node_data_dir

WORKER = Path(__file__).with_name("worker.py")
CASE_TIMEOUT = 300.0
"""Seconds a test may run before its worker is killed (recorded as a hang)."""

Result = dict[str, Any]


def _run_chunk(data: Path, names: list[str], results: dict[str, Result]) -> list[str]:
    """Run ``names`` in one worker; returns the names left to run after a crash."""
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(data)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write("".join(n + "\n" for n in names))
    proc.stdin.close()
    lines: queue.Queue[str | None] = queue.Queue()

    def read(stream: Any) -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, args=(proc.stdout,), daemon=True).start()
    current: str | None = None
    done: set[str] = set()
    started = time.monotonic()
    while True:
        try:
            line = lines.get(timeout=CASE_TIMEOUT)
        except queue.Empty:
            proc.kill()
            proc.wait()
            assert current is not None
            results[current] = {
                "status": "hang",
                "error": f"no result after {CASE_TIMEOUT:.0f} s (the worker was killed)",
                "seconds": round(time.monotonic() - started, 3),
            }
            done.add(current)
            break
        if line is None:
            break
        event = json.loads(line)
        if event["event"] == "start":
            current, started = event["name"], time.monotonic()
            continue
        done.add(event["name"])
        results[event["name"]] = {
            k: event[k] for k in ("status", "error", "seconds", "specialized")
        }
        current = None
    code = proc.wait()
    if current is not None and current not in done:
        sig = -code if code < 0 else None
        what = signal.Signals(sig).name if sig else f"exit code {code}"
        results[current] = {
            "status": "crash",
            "error": f"the worker process died ({what})",
            "seconds": round(time.monotonic() - started, 3),
        }
        done.add(current)
    return [n for n in names if n not in done]


def run_all(names: list[str], jobs: int = 2, chunk: int = 60) -> dict[str, Result]:
    """Each test's result: ``status`` (pass, mismatch, fail, internal, crash, hang),
    ``error`` (one line) and ``seconds``."""
    data = node_data_dir()
    results: dict[str, Result] = {}
    pending: list[list[str]] = [
        names[i : i + chunk] for i in range(0, len(names), chunk)
    ]
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                if not pending:
                    return
                batch = pending.pop(0)
            left = _run_chunk(data, batch, results)
            if left:
                with lock:
                    pending.append(left)

    with ThreadPoolExecutor(jobs) as pool:
        for f in [pool.submit(work) for _ in range(jobs)]:
            f.result()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patterns", nargs="*", help="regexes selecting tests (search)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--json", help="write every result to this file")
    args = parser.parse_args()
    names = sorted(load_index(node_data_dir()))
    if args.patterns:
        names = [n for n in names if any(re.search(p, n) for p in args.patterns)]
    t0 = time.perf_counter()
    results = run_all(names, args.jobs)
    elapsed = time.perf_counter() - t0
    counts = Counter(r["status"] for r in results.values())
    print(
        f"{len(results)} tests in {elapsed:.1f} s: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    for name in sorted(results):
        r = results[name]
        if r["status"] != "pass":
            print(f"{r['status']:9} {name}: {r['error']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
