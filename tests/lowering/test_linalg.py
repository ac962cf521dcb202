"""The ``det`` kernel against numpy's ``linalg.det``: pivoting, singular matrices,
odd sizes, stacks, float16/float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import linalg

Gen = np.random.Generator
Check = Any


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("batch", [(), (4,), (2, 3)])
def test_det_random(rng: Gen, check: Check, case: Any, n: int, batch: tuple[int, ...]):
    Case = case
    x = rng.standard_normal((*batch, n, n))
    check(
        [
            Case(linalg.DetOp, [x.astype("float32")], rtol=1e-4, atol=1e-5),
            Case(linalg.DetOp, [x.astype("float64")], rtol=1e-10, atol=1e-12),
            Case(linalg.DetOp, [x.astype("float16")], rtol=2e-2, atol=2e-2),
        ]
    )


def test_det_needs_pivoting_and_singular_matrices(check: Check, case: Any):
    Case = case
    mats = np.array(
        [
            [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 9.0]],  # zero first pivot
            [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]],  # equal rows
            [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],  # a zero row
            [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],  # a permutation
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [[1e-30, 1.0, 0.0], [1.0, 1e-30, 0.0], [0.0, 0.0, 2.0]],
        ]
    )
    check(
        [
            Case(linalg.DetOp, [mats.astype("float32")], rtol=1e-5, atol=1e-6),
            Case(linalg.DetOp, [mats], rtol=1e-12, atol=1e-14),
        ]
    )


def test_det_of_empty_matrices_is_one(check: Check, case: Any):
    Case = case
    check([Case(linalg.DetOp, [np.zeros((3, 0, 0), np.float32)])])


def test_det_nan_propagates(check: Check, case: Any):
    Case = case
    x = np.array([[[np.nan, 1.0], [2.0, 3.0]], [[1.0, 2.0], [np.nan, 4.0]]])
    check([Case(linalg.DetOp, [x.astype("float32")])])
