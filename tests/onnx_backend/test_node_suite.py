"""The node tests of ``onnx.backend.test`` through :class:`XrelayBackend` (import,
``xrelay.build``, the executor), issue 12 item 4.

All tests run once per session in worker processes (``runner.py``: a segfault or a
hang is that test's failure, not the session's end), two at a time. Then one pytest
per node test checks its outcome against ``expected_failures.py``:

* a test not listed must pass;
* a listed test must fail with a clean one-line error (an import, lowering or
  executor error, or a value mismatch), never an internal error, a crash or a hang
  unless its reason says so; a listed test that passes fails the check (remove it
  from the list), except in groups marked ``strict=False``.

``XRELAY_ONNX_NODE_TESTS=<regex>`` runs only the matching tests. ``make test`` runs
a fixed third of them (:func:`in_fast_slice`); the others, and the function-expanded
variants (``*_expanded*``), are marked ``slow`` (``make test-slow``).
"""

from __future__ import annotations

import os
import re
import zlib
from typing import Any

import pytest
from cases import load_index, node_data_dir
from expected_failures import EXPECTED, Group
from runner import run_all

CLEAN = {"fail", "mismatch"}


def _names() -> list[str]:
    names = sorted(load_index(node_data_dir()))
    pattern = os.environ.get("XRELAY_ONNX_NODE_TESTS")
    if pattern:
        names = [n for n in names if re.search(pattern, n)]
    return names


NAMES = _names()
BY_NAME: dict[str, tuple[str, Group]] = {
    name: (reason, group) for reason, group in EXPECTED.items() for name in group.tests
}


def in_fast_slice(name: str) -> bool:
    """The third of the node tests that ``make test`` runs (a fixed choice by the
    name's CRC, so every run and machine picks the same ones); ``make test-slow``
    runs the rest. Each operator has several node tests, so the slice still
    reaches most operators; the function-expanded variants double the run time and
    are never in it."""
    return "_expanded" not in name and zlib.crc32(name.encode()) % 3 == 0


def _param(name: str) -> Any:
    marks = [] if in_fast_slice(name) else [pytest.mark.slow]
    return pytest.param(name, marks=marks, id=name)


@pytest.fixture(scope="session")
def results(request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    """The outcome of every node test selected in this session."""
    selected = [
        item.callspec.params["name"]
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.originalname == "test_node"
        and hasattr(item, "callspec")
    ]
    return run_all(selected, jobs=min(2, os.cpu_count() or 1))


def test_expected_failures_name_real_tests() -> None:
    known = set(load_index(node_data_dir()))
    unknown = sorted(set(BY_NAME) - known)
    assert not unknown, f"expected_failures.py lists unknown tests: {unknown[:10]}"
    listed = sum(len(g.tests) for g in EXPECTED.values())
    assert listed == len(BY_NAME), "a test is listed under two reasons"


@pytest.mark.parametrize("name", [_param(n) for n in NAMES])
def test_node(results: dict[str, dict[str, Any]], name: str) -> None:
    r = results[name]
    status, error = r["status"], r["error"]
    expected = BY_NAME.get(name)
    if expected is None:
        assert status == "pass", f"{status}: {error}"
        return
    reason, group = expected
    if status == "pass":
        if group.strict:
            pytest.fail(
                f"passes but is listed as an expected failure ({reason}): remove it"
            )
        pytest.xfail(f"passes now; listed under: {reason}")
    allowed = CLEAN | set(group.statuses)
    assert status in allowed, f"{status} (not a clean failure): {error}"
    assert "\n" not in error
    assert "Traceback" not in error
    pytest.xfail(f"{reason}: {error}")
