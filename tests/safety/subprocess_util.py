"""Run a snippet of Python in a fresh interpreter: a crash (a signal) there fails
the test that asked instead of killing pytest."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The worktree: the subprocess runs there, so that ``tests.*`` imports."""


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str

    @property
    def signalled(self) -> bool:
        return self.returncode < 0


def run_python(code: str, timeout: float = 300) -> Outcome:
    """Run ``code`` with this interpreter; its return code and output."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=ROOT,
    )
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def assert_clean(outcome: Outcome) -> None:
    """The snippet ended normally (no signal, exit 0)."""
    assert outcome.returncode == 0, (
        f"exit {outcome.returncode}\nstdout: {outcome.stdout}\nstderr: {outcome.stderr}"
    )
