"""image.grid_sample lowered and run against its numpy semantics: every method,
padding mode and align_corners on odd 2-D and 3-D shapes, grids reaching far outside
the data and holding NaN / +-inf / huge values (no read outside the data: the
results must be the reference's), a one-pixel axis, float64 and float16 data."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import image

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _grid(rng: Gen, *shape: int, spread: float = 1.6, dtype: str = "float32") -> Any:
    """Normalised coordinates mostly in [-1, 1], some far outside."""
    return (rng.standard_normal(shape) * spread).astype(dtype)


@pytest.mark.parametrize("method", image.GRID_SAMPLE_METHODS)
def test_grid_sample_2d(rng: Gen, check: Check, case: Any, method: str):
    cases = []
    for padding in image.GRID_SAMPLE_PADDING:
        for align in (False, True):
            attrs = {"method": method, "padding_mode": padding, "align_corners": align}
            x = rng.standard_normal((2, 3, 5, 7)).astype("float32")
            cases.append(case(image.GridSampleOp, [x, _grid(rng, 2, 2, 4, 6)], attrs))
            # a one-pixel height: reflection over a zero-width range (align_corners)
            x1 = rng.standard_normal((1, 2, 1, 4)).astype("float32")
            cases.append(case(image.GridSampleOp, [x1, _grid(rng, 1, 2, 3, 3)], attrs))
    check(cases)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_grid_sample_3d(rng: Gen, check: Check, case: Any, method: str):
    cases = []
    for padding in image.GRID_SAMPLE_PADDING:
        for align in (False, True):
            attrs = {
                "method": method,
                "padding_mode": padding,
                "align_corners": align,
                "layout": "NCDHW",
            }
            x = rng.standard_normal((2, 2, 3, 4, 5)).astype("float32")
            g = _grid(rng, 2, 3, 2, 3, 4)
            cases.append(case(image.GridSampleOp, [x, g], attrs))
    check(cases)


def test_grid_sample_non_finite_and_huge_coordinates(rng: Gen, check: Check, case: Any):
    special = np.array(
        [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e38, 1.0, -1.0, 0.999, 7.5],
        "float32",
    )
    cases = []
    for method in image.GRID_SAMPLE_METHODS:
        for padding in image.GRID_SAMPLE_PADDING:
            for align in (False, True):
                g = rng.choice(special, (1, 2, 5, 4)).astype("float32")
                x = rng.standard_normal((1, 2, 4, 3)).astype("float32")
                attrs = {
                    "method": method,
                    "padding_mode": padding,
                    "align_corners": align,
                }
                cases.append(case(image.GridSampleOp, [x, g], attrs))
    check(cases)


def test_grid_sample_float64_and_float16(rng: Gen, check: Check, case: Any):
    cases = []
    for method in image.GRID_SAMPLE_METHODS:
        x = rng.standard_normal((1, 2, 4, 5))
        cases.append(
            case(
                image.GridSampleOp,
                [x, _grid(rng, 1, 2, 3, 3, dtype="float64")],
                {"method": method, "padding_mode": "reflection"},
            )
        )
        cases.append(
            case(
                image.GridSampleOp,
                [x.astype("float16"), _grid(rng, 1, 2, 3, 3, dtype="float16")],
                {"method": method, "padding_mode": "border", "align_corners": False},
                rtol=2e-3,
                atol=2e-3,
            )
        )
    check(cases)
