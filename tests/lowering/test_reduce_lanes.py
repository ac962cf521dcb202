"""Reductions along the last axis run as interleaved partial folds (one per vector
lane, ``fold_lanes``) merged at the end: softmax, log_softmax, layer_norm, the axis
reductions, variance and logsumexp on rows shorter than two vectors (one chain),
exactly two vectors, and lengths that leave a tail (17, 33, 1001), with 1-sized
dims, NaN and infinities, against the ops' numpy semantics."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import nn
from xrelay.dialects.relay import normalization as norm
from xrelay.dialects.relay import reduce as red
from xrelay.lowering.kernels.reduce import fold_lanes
from xrelay.lowering.tiling import host_vector_unit

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]

LANES = max(4, host_vector_unit().bytes // 4)
ROWS = [1, 3, 17, 2 * LANES, 33, 1001]


def _x(rng: Gen, *shape: int) -> Any:
    return rng.standard_normal(shape).astype("float32")


@pytest.mark.parametrize("n", ROWS)
def test_softmax_and_norms_by_row_length(rng: Gen, check: Check, case: Any, n: int):
    x = _x(rng, 2, 1, n) * 4
    check(
        [
            case(nn.SoftmaxOp, [x]),
            case(nn.LogSoftmaxOp, [x]),
            case(norm.LayerNormOp, [x, _x(rng, n), _x(rng, n)], rtol=1e-4, atol=1e-5),
        ]
    )


@pytest.mark.parametrize("n", ROWS)
def test_axis_reductions_by_row_length(rng: Gen, check: Check, case: Any, n: int):
    x = _x(rng, 3, n)
    ints = rng.integers(-9, 9, (3, n)).astype("int32")
    mean = x.astype(np.float64).mean(axis=-1, keepdims=True).astype("float32")
    check(
        [
            *(case(op, [x], {"axis": [-1]}) for op in (red.SumOp, red.MeanOp)),
            *(case(op, [x], {"axis": [1]}) for op in (red.MaxOp, red.MinOp)),
            case(red.SumOp, [ints], {"axis": [1]}),
            case(red.MaxOp, [ints], {"axis": [1]}),
            case(red.VarianceOp, [x, mean], {"axis": [1], "keepdims": True}),
            case(red.LogSumExpOp, [x], {"axis": [1]}),
        ]
    )


def test_nan_and_infinities_reach_the_result(rng: Gen, check: Check, case: Any):
    x = _x(rng, 4, 1001)
    x[0, 700] = np.nan  # in a lane, not the tail
    x[1, 1000] = np.nan  # in the tail
    x[2, 5] = np.inf
    x[3, 999] = -np.inf
    check(
        [
            case(red.MaxOp, [x], {"axis": [1]}),
            case(red.MinOp, [x], {"axis": [1]}),
            case(red.SumOp, [x], {"axis": [1]}),
            case(nn.SoftmaxOp, [x]),
        ]
    )


def test_fold_lanes_keeps_short_rows_and_unmerged_folds_alone():
    """Without ``combine``, or on rows shorter than two vectors, one chain."""
    from xdsl.dialects.builtin import f64

    from xrelay.lowering.builder import KernelBuilder

    for extents, combine in (([2 * LANES], None), ([2 * LANES - 1], "add")):
        kb = KernelBuilder.new_function("f", [f64])
        (arg,) = kb.args
        merge = None if combine is None else kb.add
        out = fold_lanes(
            kb, extents, [arg], lambda i, c, kb=kb, a=arg: [kb.add(c[0], a)], merge
        )
        assert len(out) == 1
        loops = [op for op in kb.function.walk() if op.name == "scf.for"]
        assert len(loops) == 1
        assert len(loops[0].results) == 1
    kb = KernelBuilder.new_function("g", [f64])
    (arg,) = kb.args
    fold_lanes(kb, [3, 2 * LANES + 3], [arg], lambda i, c: [kb.add(c[0], arg)], kb.add)
    carried = [len(op.results) for op in kb.function.walk() if op.name == "scf.for"]
    # the row loop carries one sum per lane; the tail loop one
    assert LANES in carried
    assert 1 in carried
