"""Every op of the dialect has a lit round trip (custom → generic → custom) and an
invalid case under tests/filecheck/dialects/relay/ — nothing is silently left out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xrelay.dialects.relay import ALL_OPS

LIT_DIR = Path(__file__).resolve().parents[2] / "filecheck" / "dialects" / "relay"


def op_names_in(files: list[Path]) -> set[str]:
    names: set[str] = set()
    for path in files:
        text = path.read_text()
        names |= set(re.findall(r'"?(relay\.[A-Za-z0-9_.]+)"?[ (]', text))
    return names


ROUND_TRIP = [p for p in LIT_DIR.glob("*.mlir") if "invalid" not in p.name]
INVALID = [p for p in LIT_DIR.glob("*invalid*.mlir")]


def test_the_lit_files_are_found():
    assert ROUND_TRIP
    assert INVALID
    for path in ROUND_TRIP:
        if path.name != "constant_nonfinite.mlir":
            assert "XRELAY_ROUNDTRIP" in path.read_text(), path.name


@pytest.mark.parametrize("op", sorted(op.name for op in ALL_OPS))
def test_every_op_has_a_round_trip_and_an_invalid_case(op: str):
    assert op in op_names_in(ROUND_TRIP), f"{op} has no lit round trip"
    if op == "relay.yield":  # only ever checked through relay.if's invalid cases
        return
    assert op in op_names_in(INVALID), f"{op} has no invalid lit case"
