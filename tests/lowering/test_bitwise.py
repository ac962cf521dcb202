"""The bitwise ops (dialects/relay/bitwise.py) lowered and run against their numpy
semantics, with broadcasting, several integer dtypes, bool, and shift amounts
outside [0, bits) (defined here, poison in LLVM)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import bitwise as bw
from xrelay.dialects.relay.base import RelayOp

Check = Callable[[Sequence[Any]], None]
INTS = ["int8", "uint8", "int32", "uint32", "int64", "uint64"]


def _ints(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> Any:
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize(
    "op", [bw.BitwiseAndOp, bw.BitwiseOrOp, bw.BitwiseXorOp], ids=lambda c: c.name
)
def test_logic(op: type[RelayOp], rng: np.random.Generator, check: Check, case: Any):
    cases = [case(op, [_ints(rng, (2, 3, 4), d), _ints(rng, (3, 1), d)]) for d in INTS]
    bools = (
        rng.integers(0, 2, (5,)).astype(bool),
        rng.integers(0, 2, (2, 5)).astype(bool),
    )
    cases.append(case(op, list(bools)))
    check(cases)


def test_not(rng: np.random.Generator, check: Check, case: Any):
    cases = [case(bw.BitwiseNotOp, [_ints(rng, (3, 5), d)]) for d in INTS]
    cases.append(case(bw.BitwiseNotOp, [np.array([True, False])]))
    check(cases)


@pytest.mark.parametrize("op", [bw.LeftShiftOp, bw.RightShiftOp], ids=lambda c: c.name)
def test_shifts_every_amount(
    op: type[RelayOp], rng: np.random.Generator, check: Check, case: Any
):
    cases = []
    for d in INTS:
        bits = np.dtype(d).itemsize * 8
        a = _ints(rng, (4, bits + 3), d)
        amounts = np.arange(-1 if np.dtype(d).kind == "i" else 0, bits + 2)
        b = np.resize(amounts, bits + 3).astype(d)
        cases.append(case(op, [a, b]))
    check(cases)


def test_shift_semantics():
    x = np.array([-8, 8, 1], np.int8)
    assert list(bw.RightShiftOp.fn(None, x, np.array([1, 9, -1], np.int8))) == [
        -4,
        0,
        0,
    ]  # type: ignore[arg-type]
    assert list(bw.RightShiftOp.fn(None, x, np.array([8, 8, 0], np.int8))) == [-1, 0, 1]  # type: ignore[arg-type]
    assert list(bw.LeftShiftOp.fn(None, x, np.array([1, 8, 7], np.int8))) == [
        -16,
        0,
        -128,
    ]  # type: ignore[arg-type]
