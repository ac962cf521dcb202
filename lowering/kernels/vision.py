"""Kernel of ``vision.roi_align`` (pointwise: one output bin of one channel, from
its region's row and a loop over the bin's samples).

The regions are data: the batch index is checked (the run fails on a bad one, see
:mod:`xrelay.status`), every float is range-checked before it becomes an integer
(NaN and infinities included), each sample's 4 neighbours are clamped into the data,
and an adaptive sample grid is visited only in the window that can be inside the data
(:func:`~xrelay.dialects.relay.vision.sample_window`), so no region makes the kernel
read outside the data or loop for longer than the data is large. The arithmetic
follows the op's numpy semantics operation for operation.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import vision
from xrelay.dialects.relay.base import get_bool, get_float, get_int, get_ints, get_str
from xrelay.lowering.builder import Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, pointwise
from xrelay.lowering.scalar_types import DType
from xrelay.status import code_of

F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)


def _float(kb: KernelBuilder, v: Index, dt: DType) -> SSAValue:
    """An index as a float of ``dt``."""
    if isinstance(v, int):
        return kb.const(float(v), dt)
    return kb.cast(kb.int_of_index(v), I64, dt)


def _to_index(kb: KernelBuilder, v: SSAValue, dt: DType) -> SSAValue:
    """A float known to be a small non-negative integer, as an index."""
    return kb.index_cast(kb.cast(v, dt, I64), I64)


def _clamp_count(kb: KernelBuilder, v: SSAValue, hi: SSAValue, dt: DType) -> SSAValue:
    """``v`` clamped to ``[0, hi]``; NaN gives 0."""
    zero = kb.zero(dt)
    v = kb.select(kb.cmp("gt", v, zero, dt), v, zero)
    return kb.select(kb.cmp("lt", v, hi, dt), v, hi)


class _Axis:
    """One axis (rows or columns) of the bins of a region."""

    def __init__(
        self,
        kb: KernelBuilder,
        start: SSAValue,
        length: SSAValue,
        pooled: int,
        size: int,
        ratio: int,
        dt: DType,
    ):
        self.kb, self.dt, self.size = kb, dt, size
        self.start = start
        self.bin = kb.div(length, kb.const(pooled, dt), dt)
        self.adaptive = ratio <= 0
        self.ratio = max(ratio, 1)
        if self.adaptive:
            raw = kb.math("ceil", self.bin)
            self.count_f = _clamp_count(kb, raw, kb.const(vision.GRID_CAP, dt), dt)
            self.grid_f = self.count_f
            self.grid: Index = _to_index(kb, self.count_f, dt)
        else:
            self.count_f = kb.const(ratio, dt)
            self.grid_f = self.count_f
            self.grid = ratio

    def window(self, p: Index) -> tuple[SSAValue, Index, Index, SSAValue | None]:
        """``(bin start, lo, hi, partial)`` of bin ``p``: the samples to visit and
        whether some (outside) are not visited."""
        kb, dt = self.kb, self.dt
        base = kb.add(self.start, kb.mul(_float(kb, p, dt), self.bin))
        if not self.adaptive:
            return base, 0, self.grid, None
        one = kb.const(1, dt)
        spacing = kb.div(self.bin, kb.max(self.grid_f, one, dt), dt)
        first = kb.sub(
            kb.math(
                "floor",
                kb.sub(
                    kb.div(kb.sub(kb.const(-1, dt), base), spacing, dt),
                    kb.const(0.5, dt),
                ),
            ),
            one,
        )
        lo_f = _clamp_count(kb, first, self.grid_f, dt)
        lo = _to_index(kb, lo_f, dt)
        hi = kb.index(kb.imin(self.grid, kb.iadd(lo, vision.window_bound(self.size))))
        partial = kb.icmp("slt", kb.isub(hi, lo), self.grid)
        return base, lo, hi, partial

    def sample(
        self, base: SSAValue, i: Index
    ) -> tuple[SSAValue, Index, Index, SSAValue, SSAValue]:
        """``(inside, low, high, weight of low, weight of high)`` of sample ``i``."""
        kb, dt = self.kb, self.dt
        grid = self.grid_f if self.adaptive else kb.const(self.ratio, dt)
        step = kb.div(
            kb.mul(kb.add(_float(kb, i, dt), kb.const(0.5, dt)), self.bin), grid, dt
        )
        pos = kb.add(base, step)
        zero, one = kb.zero(dt), kb.const(1, dt)
        last = kb.const(self.size - 1, dt)
        inside = kb.logical_and(
            kb.cmp("ge", pos, kb.const(-1, dt), dt),
            kb.cmp("le", pos, kb.const(self.size, dt), dt),
        )
        p = kb.select(inside, pos, zero)
        p = kb.select(kb.cmp("lt", p, zero, dt), zero, p)
        low_f = kb.math("trunc", p)
        at_end = kb.cmp("ge", low_f, last, dt)
        low_f = kb.select(at_end, last, low_f)
        p = kb.select(at_end, low_f, p)
        low = _to_index(kb, low_f, dt)
        high = kb.select(at_end, low, kb.index(kb.iadd(low, 1)))
        frac = kb.sub(p, low_f)
        w_high = kb.select(inside, frac, zero)
        w_low = kb.select(inside, kb.sub(one, frac), zero)
        return inside, low, high, w_low, w_high


def _roi_row(
    cx: OpContext, roi: Index, batches: int, dt: DType
) -> tuple[list[SSAValue], Index]:
    """Region ``roi``'s five values (batch index, x1, y1, x2, y2) in ``dt``, and its
    batch index checked against ``batches`` (truncated; NaN and values beyond
    2**62 report -1: the run fails with the op's status code)."""
    kb = cx.kb
    rois = cx.operands[1]
    row = [kb.cast(rois.at([roi, k]), rois.dtype, dt) for k in range(5)]
    b = row[0]
    limit = kb.const(2.0**62, dt)
    finite = kb.logical_and(
        kb.cmp("lt", b, limit, dt), kb.cmp("gt", b, kb.neg(limit, dt), dt)
    )
    b_int = kb.select(
        finite,
        kb.cast(kb.select(finite, b, kb.zero(dt)), dt, I64),
        kb.const(-1, I64),
    )
    batch = kb.checked_index(
        kb.index_cast(b_int, I64), batches, code_of(cx.op.name), from_end=False
    )
    return row, batch


@pointwise(vision.RoiAlignOp, cheap=False)
def _roi_align(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, vision.RoiAlignOp)
    kb = cx.kb
    data = cx.operands[0]
    n, _, h, w = data.shape
    ph, pw = get_ints(op.pooled_size)
    ratio = get_int(op.sample_ratio)
    aligned = get_bool(op.aligned)
    avg = get_str(op.mode) == "avg"
    dt = F64 if data.dtype == F64 else np.dtype(np.float32)
    roi, c, bi, bj = idx
    row, batch = _roi_row(cx, roi, n, dt)
    scale = kb.const(get_float(op.spatial_scale), dt)
    offset = kb.const(0.5 if aligned else 0.0, dt)
    sx, sy, ex, ey = (kb.sub(kb.mul(v, scale), offset) for v in row[1:])
    rw, rh = kb.sub(ex, sx), kb.sub(ey, sy)
    if not aligned:
        one = kb.const(1, dt)
        rw = kb.select(kb.cmp("lt", rw, one, dt), one, rw)
        rh = kb.select(kb.cmp("lt", rh, one, dt), one, rh)
    ys = _Axis(kb, sy, rh, ph, h, ratio, dt)
    xs = _Axis(kb, sx, rw, pw, w, ratio, dt)
    zero = kb.zero(dt)
    nonempty = kb.logical_and(
        kb.cmp("gt", ys.count_f, zero, dt), kb.cmp("gt", xs.count_f, zero, dt)
    )
    base_y, ylo, yhi, ypart = ys.window(bi)
    base_x, xlo, xhi, xpart = xs.window(bj)
    if avg:
        init = zero
    else:
        start = kb.const(-np.inf, dt)
        fill = kb.logical_not(nonempty)
        for part in (ypart, xpart):
            if part is not None:
                fill = kb.logical_or(fill, part)
        init = kb.select(fill, zero, start)

    def row_body(iy: Index, carried: list[SSAValue]) -> list[SSAValue]:
        oky, y0, y1, hy, ly = ys.sample(base_y, iy)

        def col_body(ix: Index, inner: list[SSAValue]) -> list[SSAValue]:
            okx, x0, x1, hx, lx = xs.sample(base_x, ix)
            ok = kb.logical_and(oky, okx)
            weights = (kb.mul(hy, hx), kb.mul(hy, lx), kb.mul(ly, hx), kb.mul(ly, lx))
            points = ((y0, x0), (y0, x1), (y1, x0), (y1, x1))
            terms = [
                kb.mul(
                    wk,
                    kb.select(
                        ok, kb.cast(data.at([batch, c, yy, xx]), data.dtype, dt), zero
                    ),
                )
                for wk, (yy, xx) in zip(weights, points, strict=True)
            ]
            if avg:
                total = kb.add(kb.add(kb.add(terms[0], terms[1]), terms[2]), terms[3])
                return [kb.add(inner[0], total)]
            val = kb.max(
                kb.max(terms[0], terms[1], dt), kb.max(terms[2], terms[3], dt), dt
            )
            return [kb.max(inner[0], val, dt)]

        return kb.fold_loop(xlo, xhi, carried, col_body)

    (acc,) = kb.fold_loop(ylo, yhi, [init], row_body)
    if avg:
        wide = kb.mul(kb.cast(ys.count_f, dt, F64), kb.cast(xs.count_f, dt, F64))
        wide = kb.select(
            kb.cmp("lt", wide, kb.const(1, F64), F64), kb.const(1, F64), wide
        )
        count = kb.select(nonempty, kb.cast(wide, F64, dt), kb.const(1, dt))
        acc = kb.div(acc, count, dt)
    return kb.cast(acc, dt, cx.out_dtype())


def _rounded_coord(
    kb: KernelBuilder, v: SSAValue, scale: SSAValue, dt: DType
) -> tuple[SSAValue, SSAValue]:
    """``(round(v * scale) as i64, whether it is in range)`` (``roi_pool_bounds``);
    an out-of-range or NaN value converts as 0."""
    r = kb.math("roundeven", kb.mul(v, scale))
    limit = kb.const(vision.ROI_POOL_LIMIT, dt)
    ok = kb.logical_and(
        kb.cmp("lt", r, limit, dt), kb.cmp("gt", r, kb.neg(limit, dt), dt)
    )
    return kb.cast(kb.select(ok, r, kb.zero(dt)), dt, I64), ok


def _clamp_i64(kb: KernelBuilder, v: SSAValue, hi: int) -> SSAValue:
    zero, top = kb.const(0, I64), kb.const(hi, I64)
    v = kb.select(kb.cmp("lt", v, zero, I64), zero, v)
    return kb.select(kb.cmp("gt", v, top, I64), top, v)


@pointwise(vision.RoiPoolOp, cheap=False)
def _roi_pool(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, vision.RoiPoolOp)
    kb = cx.kb
    data = cx.operands[0]
    n, _, h, w = data.shape
    ph_n, pw_n = get_ints(op.pooled_size)
    dt = F64 if data.dtype == F64 else np.dtype(np.float32)
    roi, c, p, q = idx
    row, batch = _roi_row(cx, roi, n, dt)
    scale = kb.const(get_float(op.spatial_scale), dt)
    (sw, ok0), (sh, ok1), (ew, ok2), (eh, ok3) = (
        _rounded_coord(kb, v, scale, dt) for v in row[1:]
    )
    valid = kb.logical_and(kb.logical_and(ok0, ok1), kb.logical_and(ok2, ok3))
    one = kb.const(1, I64)
    eps = kb.const(vision.ROI_POOL_EPSILON, dt)

    def span(
        pos: Index, start: SSAValue, end: SSAValue, pooled: int, size: int
    ) -> tuple[SSAValue, SSAValue]:
        extent = kb.add(kb.sub(end, start), one)
        extent = kb.select(kb.cmp("lt", extent, one, I64), one, extent)
        step = kb.div(kb.cast(extent, I64, dt), kb.const(pooled, dt), dt)
        pf = kb.cast(kb.int_of_index(pos), I64, dt)
        lo = kb.math("floor", kb.add(kb.mul(pf, step), eps))
        hi = kb.math("ceil", kb.sub(kb.mul(kb.add(pf, kb.const(1, dt)), step), eps))
        lo_i = kb.add(kb.cast(lo, dt, I64), start)
        hi_i = kb.add(kb.cast(hi, dt, I64), start)
        return _clamp_i64(kb, lo_i, size), _clamp_i64(kb, hi_i, size)

    h0, h1 = span(p, sh, eh, ph_n, h)
    w0, w1 = span(q, sw, ew, pw_n, w)
    # an empty region (out-of-range coordinates) visits nothing
    zero_i = kb.const(0, I64)
    h1 = kb.select(valid, h1, zero_i)
    h0 = kb.select(valid, h0, zero_i)
    non_empty = kb.logical_and(
        kb.logical_and(valid, kb.cmp("lt", h0, h1, I64)), kb.cmp("lt", w0, w1, I64)
    )
    lowest = kb.const(-np.inf, dt)

    def row_max(yy: Index, acc: list[SSAValue]) -> list[SSAValue]:
        def col(xx: Index, inner: list[SSAValue]) -> list[SSAValue]:
            v = kb.cast(data.at([batch, c, yy, xx]), data.dtype, dt)
            return [kb.max(inner[0], v, dt)]

        return kb.fold_loop(kb.index_cast(w0, I64), kb.index_cast(w1, I64), acc, col)

    (best,) = kb.fold_loop(
        kb.index_cast(h0, I64), kb.index_cast(h1, I64), [lowest], row_max
    )
    out = kb.select(non_empty, best, kb.zero(dt))
    return kb.cast(out, dt, cx.out_dtype())
