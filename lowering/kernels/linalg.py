"""The kernel of ``det``: per matrix (the threads share the matrices out), a copy
into the kernel's scratch, then Gaussian elimination with partial pivoting in place,
multiplying the pivots into the determinant and flipping its sign per row swap.

Column ``k``'s pivot is its first entry of largest magnitude in rows ``k..n-1``
(LAPACK's choice). A zero pivot (the column is zero there: the matrix is singular)
makes the determinant 0 and skips the elimination step, so nothing divides by zero.
The multipliers are divided by the pivot (not multiplied by its reciprocal): a row
equal to the pivot row then cancels exactly, and a matrix with two equal rows gives
exactly 0, as LAPACK does.
All loops have the matrix's static bounds: nothing is read or written outside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import linalg
from xrelay.dialects.relay.base import RelayOp
from xrelay.lowering.builder import Buffer, Index
from xrelay.lowering.kernels import OpContext, TensorInfo, materialize, scratch

F32 = np.dtype(np.float32)


def _det_scratch(
    op: RelayOp, operands: list[TensorInfo], results: list[TensorInfo]
) -> list[TensorInfo]:
    """One working copy of each matrix, in float32 for float16."""
    (shape, dt) = operands[0]
    work = F32 if dt.itemsize < 4 else dt
    return [((max(1, math.prod(shape[:-2])), shape[-1], shape[-1]), work)]


@materialize(linalg.DetOp)
def _det(cx: OpContext, outs: list[Buffer]) -> None:
    kb, out = cx.kb, outs[0]
    x = cx.operand(0)
    a = cx.scratch[0]
    dt = a.dtype
    n = x.shape[-1]
    one, zero = kb.const(1, dt), kb.zero(dt)
    with kb.parallel(out.shape) as idx:
        b = kb.flat_index(idx, out.shape)
        with kb.nest([n, n]) as (i, j):
            kb.store(kb.cast(x.at([*idx, i, j]), x.dtype, dt), a, [b, i, j])

        def column(k: Index, det: list[SSAValue]) -> list[SSAValue]:
            def search(i: Index, best: list[SSAValue]) -> list[SSAValue]:
                mag = kb.math("absf", kb.load(a, [b, i, k]))
                larger = kb.cmp("gt", mag, best[0], dt)
                at = kb.index(i)
                return [kb.select(larger, mag, best[0]), kb.select(larger, at, best[1])]

            first = kb.math("absf", kb.load(a, [b, k, k]))
            _, p = kb.fold_loop(kb.iadd(k, 1), n, [first, kb.index(k)], search)
            pivot = kb.load(a, [b, p, k])
            swapped = kb.icmp("ne", p, k)

            def swap() -> Sequence[SSAValue]:
                with kb.loop(k, n) as j:
                    top, low = kb.load(a, [b, k, j]), kb.load(a, [b, p, j])
                    kb.store(low, a, [b, k, j])
                    kb.store(top, a, [b, p, j])
                return []

            kb.if_(swapped, swap)
            sign = kb.select(swapped, kb.neg(det[0], dt), det[0])
            nonzero = kb.cmp("ne", pivot, zero, dt)

            def eliminate() -> Sequence[SSAValue]:
                with kb.loop(kb.iadd(k, 1), n) as i:
                    f = kb.div(kb.load(a, [b, i, k]), pivot, dt)
                    with kb.loop(kb.iadd(k, 1), n) as j:
                        v = kb.load(a, [b, i, j])
                        kb.store(
                            kb.sub(v, kb.mul(f, kb.load(a, [b, k, j]))), a, [b, i, j]
                        )
                return []

            kb.if_(nonzero, eliminate)
            return [kb.mul(sign, pivot)]

        (det,) = kb.fold_loop(0, n, [one], column)
        kb.store(kb.cast(det, dt, out.dtype), out, idx)


scratch(linalg.DetOp)(_det_scratch)
