"""The README's complete Python examples (the blocks that start with their imports;
the others are fragments of a walk-through) run as written, printing what their
comments say they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    return [b for b in blocks if b.startswith("import ")]


def test_readme_has_python_examples():
    assert len(_python_blocks()) >= 2


@pytest.mark.parametrize("k", range(len(_python_blocks())))
def test_readme_python_example_runs(k: int):
    code = _python_blocks()[k]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"README.md python block {k}", "exec"), {})
    # a printed value the example states in a comment must be what it printed
    for line, printed in zip(
        [ln for ln in code.splitlines() if ln.startswith("print(")],
        out.getvalue().splitlines(),
        strict=False,
    ):
        stated = re.search(r"#\s*([-\d.]+):", line)
        if stated:
            assert printed.strip() == stated.group(1), (line, printed)
