"""scatter_nd, scatter_elements, trilu, cumsum, cumprod, topk, einsum and the checked
gathers lowered and run against their numpy semantics on odd shapes, with negative
indices (out-of-range ones fail the run: tests/safety/test_index_checks.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import algorithm as alg
from xrelay.dialects.relay import indexing as ix
from xrelay.dialects.relay import transform as tr

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _x(rng: Gen, *shape: int, dtype: str = "float32") -> Any:
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-9, 9, shape).astype(dtype)


def _idx(rng: Gen, lo: int, hi: int, *shape: int, dtype: str = "int64") -> Any:
    return rng.integers(lo, hi, shape).astype(dtype)


def test_scatters(rng: Gen, check: Check, case: Any):
    cases = []
    for how in ix.SCATTER_REDUCTIONS:
        cases.append(
            case(
                ix.ScatterNDOp,
                [_x(rng, 5, 3, 7), _idx(rng, -3, 3, 2, 3, 2), _x(rng, 3, 2, 7)],
                {"mode": how},
            )
        )
        cases.append(
            case(
                ix.ScatterElementsOp,
                [_x(rng, 4, 5, 3), _idx(rng, -5, 5, 3, 5, 2), _x(rng, 3, 5, 2)],
                {"axis": 1, "reduction": how},
            )
        )
    cases.append(
        case(
            ix.ScatterNDOp,
            [
                _x(rng, 3, 5, dtype="int32"),
                _idx(rng, -3, 3, 2, 4, dtype="int32"),
                _x(rng, 4, dtype="int32"),
            ],
            {"mode": "add"},
        )
    )
    check(cases)


def test_trilu(rng: Gen, check: Check, case: Any):
    cases = []
    for k in (-7, -1, 0, 2, 9):
        for upper in (True, False):
            cases.append(
                case(
                    ix.TriluOp,
                    [_x(rng, 2, 5, 3), np.array(k, np.int64)],
                    {"upper": upper},
                )
            )
    cases.append(case(ix.TriluOp, [_x(rng, 3, 3, dtype="int8"), np.array(1, np.int32)]))
    check(cases)


@pytest.mark.parametrize("cls", [alg.CumsumOp, alg.CumprodOp])
def test_scans(rng: Gen, check: Check, case: Any, cls: Any):
    x = rng.uniform(0.5, 1.5, (3, 7, 5)).astype("float32")
    check(
        [
            case(cls, [x]),
            case(cls, [x], {"axis": 1}),
            case(cls, [x], {"axis": -1, "exclusive": True}),
            case(cls, [x], {"axis": 0, "dtype": "float64"}),
            case(cls, [_x(rng, 4, 3, dtype="int32")], {"axis": 0, "dtype": "int64"}),
            case(cls, [_x(rng, 9, dtype="int16")], {"exclusive": True}),
        ]
    )


def test_topk(rng: Gen, check: Check, case: Any):
    x = _x(rng, 3, 7, 5)
    x[1, 2, :] = x[1, 4, :]  # ties
    x[0, 3, 1] = np.nan
    cases = [
        case(alg.TopKOp, [x], {"k": 3}),
        case(alg.TopKOp, [x], {"k": 4, "axis": 1}),
        case(alg.TopKOp, [x], {"k": 2, "axis": 1, "is_ascend": True}),
        case(alg.TopKOp, [x], {"k": 0, "axis": 0, "dtype": "int64"}),
        case(alg.TopKOp, [x], {"k": 5, "ret_type": "values"}),
        case(alg.TopKOp, [x], {"k": 1, "ret_type": "indices", "axis": 1}),
        case(alg.TopKOp, [_x(rng, 11, dtype="int32")], {"k": 6}),
        case(alg.TopKOp, [_x(rng, 4, 9, dtype="uint8")], {"k": 3, "is_ascend": True}),
        case(alg.ArgsortOp, [x]),
        case(alg.ArgsortOp, [x], {"axis": 0, "is_ascend": False, "dtype": "int64"}),
        case(alg.ArgsortOp, [_x(rng, 4, 9, dtype="int32")], {"is_ascend": False}),
    ]
    check(cases)


def test_einsum(rng: Gen, check: Check, case: Any):
    def ein(eq: str, *shapes: tuple[int, ...], dtype: str = "float32") -> Any:
        args = [_x(rng, *s, dtype=dtype) for s in shapes]
        return case(alg.EinsumOp, args, {"equation": eq}, rtol=1e-4, atol=1e-5)

    check(
        [
            ein("ij,jk->ik", (3, 7), (7, 5)),
            ein("bij,bkj->bki", (2, 3, 5), (2, 4, 5)),
            ein("ii->i", (5, 5)),
            ein("ii", (3, 3), dtype="int32"),
            ein("ij->", (3, 7)),
            ein("i,j->ij", (3,), (5,)),
            ein("...ij,...jk->...ik", (2, 3, 4), (1, 4, 3)),
            ein("ijk,k,j", (2, 3, 5), (5,), (3,)),
            ein("ji", (3, 5)),
        ]
    )


def test_gathers_negative_indices(rng: Gen, check: Check, case: Any):
    """Every index in ``[-dim, dim)`` (out-of-range ones fail the run:
    tests/safety/test_index_checks.py)."""
    x = _x(rng, 5, 3, 4)
    check(
        [
            case(tr.GatherOp, [x, _idx(rng, -3, 3, 5, 2, 4)], {"axis": 1}),
            case(
                tr.GatherOp,
                [x, _idx(rng, -5, 5, 7, 3, 4, dtype="int32")],
                {"axis": 0},
            ),
            case(tr.GatherNDOp, [x, _idx(rng, -3, 3, 2, 3, 2)]),
            case(tr.GatherNDOp, [x, _idx(rng, -3, 3, 1, 5)], {"batch_dims": 1}),
        ]
    )
