"""Every elementwise / broadcast op lowered and run against its numpy semantics, on
random shapes (with broadcasting) and several dtypes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import elementwise as ew
from xrelay.dialects.relay.base import RelayOp

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _shape(rng: Gen, rank: int | None = None) -> tuple[int, ...]:
    rank = int(rng.integers(0, 4)) if rank is None else rank
    return tuple(int(d) for d in rng.integers(1, 6, rank))


def _broadcast_pair(rng: Gen) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast: size-1 dims and a shorter rank on either side."""
    out = _shape(rng, int(rng.integers(1, 4)))
    a = tuple(1 if rng.random() < 0.3 else d for d in out)
    b = tuple(1 if rng.random() < 0.3 else d for d in out)
    b = b[int(rng.integers(0, len(b) + 1)) :]
    return (a, b) if rng.random() < 0.5 else (b, a)


def _array(rng: Gen, shape: Sequence[int], dtype: str, positive: bool = False) -> Any:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.standard_normal(shape) * 2
        if positive:
            x = np.abs(x) + 0.1
        return x.astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    lo = 1 if positive else (-9 if dt.kind == "i" else 0)
    return rng.integers(lo, 10, shape).astype(dt)


ARITH = [ew.AddOp, ew.SubtractOp, ew.MultiplyOp, ew.MaximumOp, ew.MinimumOp]
COMPARE = [
    ew.EqualOp, ew.NotEqualOp, ew.LessOp, ew.LessEqualOp, ew.GreaterOp, ew.GreaterEqualOp,
]  # fmt: skip
DIVISION = [ew.DivideOp, ew.FloorDivideOp, ew.FloorModOp, ew.ModOp]
TRANSCENDENTAL = [
    ew.ExpOp, ew.FastExpOp, ew.SigmoidOp, ew.TanhOp, ew.FastTanhOp, ew.ErfOp, ew.FastErfOp,
    ew.SinOp, ew.CosOp,
]  # fmt: skip
POSITIVE = [ew.LogOp, ew.SqrtOp, ew.RsqrtOp]
SIGNED = [ew.NegativeOp, ew.AbsOp, ew.SignOp, ew.FloorOp, ew.CeilOp, ew.RoundOp, ew.TruncOp,
          ew.CopyOp, ew.ReluOp]  # fmt: skip
DTYPES = ["float32", "float64", "int32", "int8", "uint8", "int64"]


@pytest.mark.parametrize("op", ARITH + COMPARE, ids=lambda c: c.name)
def test_binary_arith_and_compare(op: type[RelayOp], rng: Gen, check: Check, case: Any):
    Case = case
    cases = []
    for dtype in DTYPES:
        a_shape, b_shape = _broadcast_pair(rng)
        cases.append(
            Case(op, [_array(rng, a_shape, dtype), _array(rng, b_shape, dtype)])
        )
    # NaN propagation of maximum/minimum and NaN comparisons
    nan = np.array([np.nan, 1.0, -np.inf, 2.0], "float32")
    cases.append(Case(op, [nan, np.array([0.5, np.nan, 1.0, 2.0], "float32")]))
    check(cases)


@pytest.mark.parametrize("op", DIVISION, ids=lambda c: c.name)
def test_division(op: type[RelayOp], rng: Gen, check: Check, case: Any):
    Case = case
    cases = []
    for dtype in ["float32", "float64", "int32", "int64", "int8", "uint8"]:
        a_shape, b_shape = _broadcast_pair(rng)
        b = _array(rng, b_shape, dtype)
        if np.dtype(dtype).kind != "f":
            b = np.where(b == 0, 3, b).astype(dtype)
        cases.append(Case(op, [_array(rng, a_shape, dtype), b]))
    # integer division by zero gives 0 (numpy's result) instead of trapping
    if op is not ew.DivideOp:
        ints = np.array([7, -7, 0, 5], "int32")
        cases.append(Case(op, [ints, np.array([0, 0, 0, -2], "int32")]))
    check(cases)


def test_power(rng: Gen, check: Check, case: Any):
    Case = case
    shape = _shape(rng, 2)
    check(
        [
            Case(
                ew.PowerOp,
                [_array(rng, shape, "float32", True), _array(rng, shape, "float32")],
            ),
            Case(
                ew.PowerOp,
                [
                    rng.integers(-4, 5, shape).astype("int32"),
                    rng.integers(0, 6, shape).astype("int32"),
                ],
            ),
        ]
    )


@pytest.mark.parametrize("op", [ew.LogicalAndOp, ew.LogicalOrOp], ids=lambda c: c.name)
def test_logical_binary(op: type[RelayOp], rng: Gen, check: Check, case: Any):
    Case = case
    a_shape, b_shape = _broadcast_pair(rng)
    check([Case(op, [_array(rng, a_shape, "bool"), _array(rng, b_shape, "bool")])])


@pytest.mark.parametrize("op", TRANSCENDENTAL + POSITIVE, ids=lambda c: c.name)
def test_float_unary(op: type[RelayOp], rng: Gen, check: Check, case: Any):
    Case = case
    positive = op in POSITIVE
    cases = [
        Case(op, [_array(rng, _shape(rng), "float32", positive)]),
        Case(op, [_array(rng, _shape(rng), "float64", positive)]),
        # float16 computes through float32 like numpy, rounding once more: 1e-3 is
        # the half-precision epsilon
        Case(op, [_array(rng, _shape(rng), "float16", positive)], rtol=2e-3, atol=2e-3),
    ]
    check(cases)


INVERSE = [ew.AcosOp, ew.AsinOp, ew.AtanOp, ew.AcoshOp, ew.AsinhOp, ew.AtanhOp]


@pytest.mark.parametrize("op", INVERSE, ids=lambda c: c.name)
def test_inverse_trigonometric(op: type[RelayOp], rng: Gen, check: Check, case: Any):
    """Over each function's domain and its ends, and outside it (NaN, as numpy)."""
    Case = case
    x = rng.uniform(-1, 1, (5, 7))
    if op is ew.AcoshOp:
        x = np.abs(x) * 20 + 1
    elif op in (ew.AtanOp, ew.AsinhOp):
        x = x * 50
    edges = np.array([-1.0, 1.0, 1.5, -1.5, 0.0, -0.0, np.nan, np.inf, -np.inf])
    cases = [
        Case(op, [x.astype("float32")]),
        Case(op, [x.astype("float64")]),
        Case(op, [x.astype("float16")], rtol=2e-3, atol=2e-3),
    ]
    with np.errstate(all="ignore"):
        cases.append(Case(op, [edges.astype("float32")]))
    check(cases)


@pytest.mark.parametrize("op", SIGNED, ids=lambda c: c.name)
def test_unary(op: type[RelayOp], rng: Gen, check: Check, case: Any):
    Case = case
    cases = [Case(op, [_array(rng, _shape(rng), dtype)]) for dtype in DTYPES]
    special = np.array([np.nan, -0.0, 0.5, -0.5, 1.5, -2.5, np.inf, -np.inf], "float32")
    cases.append(Case(op, [special]))
    check(cases)


def test_logical_not(rng: Gen, check: Check, case: Any):
    Case = case
    check([Case(ew.LogicalNotOp, [_array(rng, _shape(rng), "bool")])])


def test_leaky_relu_and_clip(rng: Gen, check: Check, case: Any):
    Case = case
    x = _array(rng, (3, 7), "float32")
    special = np.array([np.nan, -1.0, 5.0], "float32")
    check(
        [
            Case(ew.LeakyReluOp, [x], {"alpha": float(rng.uniform(0, 0.5))}),
            Case(ew.LeakyReluOp, [special]),
            Case(ew.ClipOp, [x], {"a_min": -0.5, "a_max": 1.25}),
            Case(ew.ClipOp, [special], {"a_min": 0.0, "a_max": 1.0}),
            Case(
                ew.ClipOp, [_array(rng, (9,), "int8")], {"a_min": -3.5, "a_max": 300.0}
            ),
            Case(ew.ClipOp, [_array(rng, (9,), "uint8")], {"a_min": 2.0, "a_max": 7.0}),
        ]
    )


CAST_DTYPES = [
    "float32",
    "float64",
    "float16",
    "int32",
    "int8",
    "uint8",
    "int64",
    "bool",
    "uint32",
]


def test_cast(rng: Gen, check: Check, case: Any):
    Case = case
    cases = []
    for src in CAST_DTYPES:
        for dst in CAST_DTYPES:
            x = _array(rng, _shape(rng, 2), src)
            if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
                x = (x * 3).astype(src)  # in range of every integer type
                if np.dtype(dst).kind == "u":
                    x = np.abs(x)
            if np.dtype(src).kind in "iu" and np.dtype(dst).kind == "u":
                x = np.abs(x).astype(src)
            cases.append(Case(ew.CastOp, [x], {"dtype": dst}))
    check(cases)


REINTERPRET_PAIRS = [
    ("float32", "int32"),
    ("int32", "float32"),
    ("float32", "uint32"),
    ("uint32", "int32"),
    ("float64", "int64"),
    ("int64", "float64"),
    ("float16", "int16"),
    ("int16", "float16"),
    ("int8", "uint8"),
    ("uint8", "int8"),
    ("bool", "uint8"),
    ("uint8", "bool"),
]


@pytest.mark.parametrize(("src", "dst"), REINTERPRET_PAIRS)
def test_reinterpret(rng: Gen, check: Check, case: Any, src: str, dst: str):
    """Bit for bit as numpy's ``view`` (the float inputs are finite, the integer
    inputs' bits include NaNs and infinities: compared with NaN equal)."""
    Case = case
    if src == "bool":
        x = rng.integers(0, 2, (3, 5)).astype(bool)
    elif np.dtype(src).kind in "iu":
        info = np.iinfo(src)
        x = rng.integers(info.min, info.max, (3, 5), dtype=src, endpoint=True)
    else:
        x = _array(rng, (3, 5), src) * 1000
    scalar = np.asarray(x.reshape(-1)[0])
    check(
        [
            Case(ew.ReinterpretOp, [x], {"dtype": dst}, rtol=0, atol=0),
            Case(ew.ReinterpretOp, [scalar], {"dtype": dst}, rtol=0, atol=0),
        ]
    )


def test_cast_float_to_int_saturates(check: Check, case: Any):
    """NaN, infinities and values past the range: numpy's (xrelay's) saturating
    cast, on the vectorised path (more elements than a vector) and its tail."""
    Case = case
    special = [np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 2147483520.0]
    special += [-2147483648.0, 1e19, -1e19, 0.0, -0.75, 0.75, 65536.5, -1.0e-3]
    cases = []
    for src in ("float32", "float64"):
        x = np.array(special * 2, src)[:-3]
        for dst in ("int32", "int64"):
            cases.append(Case(ew.CastOp, [x], {"dtype": dst}))
    check(cases)


def test_cast_like_and_where(rng: Gen, check: Check, case: Any):
    Case = case
    a_shape, b_shape = _broadcast_pair(rng)
    cond = _array(rng, _shape(rng, 1), "bool")
    check(
        [
            Case(
                ew.CastLikeOp,
                [_array(rng, (4, 3), "float32"), _array(rng, (2,), "int32")],
            ),
            Case(
                ew.WhereOp,
                [
                    cond,
                    _array(rng, a_shape, "float32"),
                    _array(rng, b_shape, "float32"),
                ],
            ),
            Case(
                ew.WhereOp,
                [
                    _array(rng, (2, 3), "bool"),
                    _array(rng, (2, 3), "int32"),
                    _array(rng, (3,), "int32"),
                ],
            ),
        ]
    )


def test_prelu_and_bias_add(rng: Gen, check: Check, case: Any):
    Case = case
    x = _array(rng, (2, 3, 4, 5), "float32")
    check(
        [
            Case(ew.PReluOp, [x, _array(rng, (3,), "float32")]),
            Case(ew.PReluOp, [x, _array(rng, (5,), "float32")], {"axis": -1}),
            Case(ew.BiasAddOp, [x, _array(rng, (3,), "float32")]),
            Case(ew.BiasAddOp, [x, _array(rng, (4,), "float32")], {"axis": 2}),
            Case(
                ew.BiasAddOp,
                [_array(rng, (6, 3), "int32"), _array(rng, (3,), "int32")],
                {"axis": 1},
            ),
        ]
    )


def test_creators(rng: Gen, check: Check, case: Any):
    Case = case
    x = _array(rng, (2, 3), "float32")
    check(
        [
            Case(ew.ZerosOp, [], {"shape": [2, 3], "dtype": "float32"}),
            Case(ew.OnesOp, [], {"shape": [4], "dtype": "int8"}),
            Case(ew.FullOp, [np.float32(2.75)], {"shape": [3, 2], "dtype": "int32"}),
            Case(ew.FullOp, [np.array(1.5, "float32")], {"shape": [5]}, constants=[0]),
            Case(ew.ZerosLikeOp, [x]),
            Case(ew.OnesLikeOp, [_array(rng, (3,), "uint8")]),
            Case(ew.FullLikeOp, [x, np.array(-4.0, "float32")]),
        ]
    )


def test_every_elementwise_op_is_tested():
    """A new op in the family must get a case here."""
    tested = {
        *ARITH, *COMPARE, *DIVISION, *TRANSCENDENTAL, *POSITIVE, *SIGNED, ew.PowerOp,
        *INVERSE, ew.LogicalAndOp, ew.LogicalOrOp, ew.LogicalNotOp, ew.LeakyReluOp, ew.ClipOp,
        ew.CastOp, ew.CastLikeOp, ew.ReinterpretOp, ew.WhereOp, ew.PReluOp, ew.BiasAddOp, ew.ZerosOp,
        ew.OnesOp, ew.FullOp, ew.ZerosLikeOp, ew.OnesLikeOp, ew.FullLikeOp,
    }  # fmt: skip
    missing = [op.name for op in ew.ELEMENTWISE_OPS if op not in tested]
    assert not missing
