"""2-D pooling: the value at an output pixel is a loop over its window.

The window's taps that fall inside the input are computed from the output position
(``ceil((bound - start) / dilation)``), so the loops never branch and never read
padding; their number is the divisor of average pooling (or the taps inside the
padded input with ``count_include_pad``). Any data layout that is a permutation of
``NCHW`` is read through its axis order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from xrelay.dialects.relay import pooling
from xrelay.dialects.relay.base import get_bool
from xrelay.dialects.relay.layout import Layout
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, materialize, pointwise
from xrelay.lowering.kernels.reduce import acc_dtype
from xrelay.lowering.scalar_types import DType, is_float

I64: DType = np.dtype(np.int64)

Combine = Callable[[list[SSAValue], SSAValue], list[SSAValue]]
"""Combines the carried values with one window element."""


def to_nchw(idx: Sequence[Index], layout: str) -> tuple[Index, Index, Index, Index]:
    """An index in ``layout`` (a permutation of NCHW) as ``(n, c, h, w)``."""
    n, c, h, w = (idx[layout.index(a)] for a in "NCHW")
    return n, c, h, w


def from_nchw(nchw: Sequence[Index], layout: str) -> list[Index]:
    """``(n, c, h, w)`` as an index in ``layout``."""
    return [nchw["NCHW".index(a)] for a in layout]


def ceil_div(kb: KernelBuilder, a: Index, d: int) -> Index:
    """``ceil(a / d)`` for any sign of ``a`` and ``d > 0``."""
    return kb.idiv(kb.iadd(a, d - 1), d)


def tap_range(
    kb: KernelBuilder, start: Index, taps: int, dilation: int, lo: Index, hi: Index
) -> tuple[Index, Index]:
    """The taps ``k`` in ``[0, taps)`` with ``lo <= start + k*dilation < hi``."""
    first = kb.imax(0, ceil_div(kb, kb.isub(lo, start), dilation))
    last = kb.imin(taps, ceil_div(kb, kb.isub(hi, start), dilation))
    return first, kb.imax(first, last)


class _Window:
    """The taps of one output pixel's window along H and W."""

    def __init__(self, cx: OpContext, out_idx: list[Index]):
        op = cx.op
        assert isinstance(op, pooling.WindowPool2D)
        kb = cx.kb
        (ph, pw), (sh, sw), (dh, dw), (pt, pl, pb, pr) = op.params()
        blocked = op.blocked()
        if blocked is not None:
            # channels in blocks (NCHW16c): the output index with H and W moved
            hp, wp = blocked.index_of("H"), blocked.index_of("W")
            oh, ow = out_idx[hp], out_idx[wp]
            h, w = cx.operand(0).shape[hp], cx.operand(0).shape[wp]

            def at(y: Index, x: Index) -> list[Index]:
                idx = list(out_idx)
                idx[hp], idx[wp] = y, x
                return idx
        else:
            layout, out_layout = op.layouts()
            n, c, oh, ow = to_nchw(out_idx, out_layout)
            _, _, h, w = to_nchw(cx.operand(0).shape, layout)

            def at(y: Index, x: Index) -> list[Index]:
                return from_nchw([n, c, y, x], layout)

        assert isinstance(h, int)
        assert isinstance(w, int)
        self.kb, self.index_at = kb, at
        self.dilation = (dh, dw)
        self.start = (kb.isub(kb.imul(oh, sh), pt), kb.isub(kb.imul(ow, sw), pl))
        self.taps = (ph, pw)
        self.h_range = tap_range(kb, self.start[0], ph, dh, 0, h)
        self.w_range = tap_range(kb, self.start[1], pw, dw, 0, w)
        self.padded = (
            tap_range(kb, self.start[0], ph, dh, -pt, h + pb),
            tap_range(kb, self.start[1], pw, dw, -pl, w + pr),
        )

    def fold(
        self, cx: OpContext, inits: list[SSAValue], combine: Combine
    ) -> list[SSAValue]:
        kb = self.kb

        def over_w(i: Index, carried: list[SSAValue]) -> list[SSAValue]:
            y = kb.iadd(self.start[0], kb.imul(i, self.dilation[0]))

            def tap(j: Index, inner: list[SSAValue]) -> list[SSAValue]:
                x = kb.iadd(self.start[1], kb.imul(j, self.dilation[1]))
                v = cx.operand(0).at(self.index_at(y, x))
                return combine(inner, v)

            return kb.fold_loop(self.w_range[0], self.w_range[1], carried, tap)

        return kb.fold_loop(self.h_range[0], self.h_range[1], inits, over_w)

    def count(self, include_pad: bool) -> Index:
        kb = self.kb
        (h0, h1), (w0, w1) = (
            self.padded if include_pad else (self.h_range, self.w_range)
        )
        return kb.imax(kb.imul(kb.isub(h1, h0), kb.isub(w1, w0)), 1)


def _divide_by_count(
    kb: KernelBuilder, total: SSAValue, count: Index, dt: DType
) -> SSAValue:
    """``total / count`` in the data's dtype (integers truncate toward zero)."""
    acc = acc_dtype(dt) if is_float(dt) else I64
    n = kb.cast(kb.int_of_index(count), I64, acc)
    if is_float(dt):
        return kb.div(kb.cast(total, acc, dt), kb.cast(n, acc, dt), dt)
    return kb.cast(kb.div(total, n, acc), acc, dt)


@pointwise(pooling.MaxPool2DOp, cheap=False)
def _max_pool(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb, dt = cx.kb, cx.out_dtype()
    win = _Window(cx, idx)
    return win.fold(cx, [kb.lowest(dt)], lambda c, v: [kb.max(c[0], v, dt)])[0]


@materialize(pooling.MaxPool2DOp)
def _window_pool_any(cx: OpContext, outs: list[Buffer]) -> None:
    """:func:`_window_pool_blocked` where it applies, else one window fold per
    output element (the threads share out the elements)."""
    if _window_pool_blocked(cx, outs[0]):
        return
    kb = cx.kb
    value_at = _avg_pool if isinstance(cx.op, pooling.AvgPool2DOp) else _max_pool
    if _window_pool_plain_rows(cx, outs[0], value_at):
        return
    with kb.parallel(outs[0].shape) as idx:
        kb.store(value_at(cx, 0, idx), outs[0], idx)


I32 = IntegerType(32)
I32_DT = np.dtype(np.int32)


def flat_inner_rows(
    in_hw: tuple[int, int],
    out_hw: tuple[int, int],
    window: tuple[int, int],
    dilation: tuple[int, int],
    pads: tuple[int, int],
) -> tuple[int, int] | None:
    """The output rows ``[a, b)`` of a stride-1 window over a plane whose output rows
    are as wide as the input's that :func:`flat_taps` may compute as one loop over
    the flat plane: the rows every window row reaches, less one at each end, so
    that every read of a tap (whose columns may wrap into the neighbouring rows)
    stays inside the plane. ``None`` when the widths differ, a padding is out of
    range or no such row is left. ``pads``: top and left."""
    (h, w), (oh, ow), (kh, kw), (dh, dw), (pt, pl) = (
        in_hw,
        out_hw,
        window,
        dilation,
        pads,
    )
    if ow != w or pt < 0 or not 0 <= pl <= w or not 0 <= (kw - 1) * dw - pl <= w:
        return None
    a = pt + 1
    b = min(oh, h - ((kh - 1) * dh - pt)) - 1
    return (a, b) if a < b else None


def flat_taps(
    kb: KernelBuilder,
    q: Index,
    width: int,
    window: tuple[int, int],
    dilation: tuple[int, int],
    pads: tuple[int, int],
) -> list[tuple[int, SSAValue | None]]:
    """The taps of flat output position ``q`` of a stride-1 window (rows of
    :func:`flat_inner_rows`), in the window's order (rows, then columns): each as
    the offset from ``q`` of the input it reads and whether the tap reaches inside
    the row (an ``i1``; ``None`` for the centre column, which always does). A tap
    whose column falls outside the row would read the neighbouring row's first or
    last columns: its caller skips it by a select. The column is computed in 32
    bits (a plane is smaller than 2^31): vector lanes of ``i32`` divide by the
    constant width with a multiply, ``i64`` lanes cannot."""
    (kh, kw), (dh, dw), (pt, pl) = window, dilation, pads
    q32 = kb.result(arith.IndexCastOp(kb.index(q), I32))
    col = kb.result(arith.RemUIOp(q32, kb.const(width, I32_DT)))
    taps: list[tuple[int, SSAValue | None]] = []
    for ky in range(kh):
        for kx in range(kw):
            x0 = kx * dw - pl
            reached: SSAValue | None = None
            if x0:
                # 0 <= col + x0 < width
                bound = kb.const(-x0 if x0 < 0 else width - x0, I32_DT)
                pred = "uge" if x0 < 0 else "ult"
                reached = kb.result(arith.CmpiOp(col, bound, pred))
            taps.append(((ky * dh - pt) * width + x0, reached))
    return taps


def _window_pool_plain_rows(
    cx: OpContext,
    out: Buffer,
    value_at: Callable[[OpContext, int, list[Index]], SSAValue],
) -> bool:
    """Stride-1 max or average pooling of a stored ``NCHW`` ``f32`` / ``f64`` plane
    whose output rows are as wide as the input's (Inception's 3x3 average pool on a
    plain input): the rows every window row reaches, less one at each end, are one
    loop over the flat plane (each output ``q`` reads input ``q + (ky*dh - pt)*w +
    kx*dw - pl``), the taps folded in registers in the window fold's order, a tap
    whose column wraps into the neighbouring row skipped by a select on the column;
    the other rows take one window fold per output. ``False`` (nothing emitted)
    otherwise."""
    op = cx.op
    assert isinstance(op, pooling.MaxPool2DOp | pooling.AvgPool2DOp)
    kb, dt = cx.kb, out.dtype
    data = cx.operand(0)
    (ph, pw), (sh, sw), (dh, dw), (pt, pl, _, _) = op.params()
    if op.blocked() is not None:  # NCHW{k}c (bfloat16, integer pools): no plain rows
        return False
    layout, out_layout = op.layouts()
    if layout != "NCHW" or out_layout != "NCHW":
        return False
    buf = data.buffer
    n_, c_, h, w = data.shape
    _, _, oh, ow = out.shape
    if (
        buf is None
        or data.dtype != dt
        or dt.kind != "f"
        or dt.itemsize < 4
        or (sh, sw) != (1, 1)
    ):
        return False
    inner = flat_inner_rows((h, w), (oh, ow), (ph, pw), (dh, dw), (pt, pl))
    if inner is None:
        return False
    a, b = inner
    average = isinstance(op, pooling.AvgPool2DOp)
    include_pad = isinstance(op, pooling.AvgPool2DOp) and get_bool(op.count_include_pad)
    acc_dt = acc_dtype(dt) if average else dt
    flat_in, flat_out = kb.flat(buf), kb.flat(out)
    with kb.parallel([n_, c_]) as (n, c):
        for r0, r1 in ((0, a), (b, oh)):
            with kb.loop(r0, r1) as y, kb.loop(0, ow) as x:
                idx = [n, c, y, x]
                kb.store(value_at(cx, 0, idx), out, idx)
        channel = kb.iadd(kb.imul(n, c_), c)
        plane, out_plane = kb.imul(channel, h * w), kb.imul(channel, oh * ow)
        with kb.loop(a * w, b * w) as q:
            fold = kb.zero(acc_dt) if average else kb.lowest(dt)
            count: Index = 0
            for offset, reached in flat_taps(kb, q, w, (ph, pw), (dh, dw), (pt, pl)):
                v = kb.load(flat_in, [kb.iadd(plane, kb.iadd(q, offset))])
                new = (
                    kb.add(fold, kb.cast(v, dt, acc_dt))
                    if average
                    else kb.max(fold, v, dt)
                )
                if reached is None:
                    fold, count = new, kb.iadd(count, 1)
                else:
                    fold = kb.select(reached, new, fold)
                    one = kb.select(reached, kb.index(1), kb.index(0))
                    count = kb.iadd(count, one)
            if average:
                fold = _divide_by_count(kb, fold, ph * pw if include_pad else count, dt)
            kb.store(fold, flat_out, [kb.iadd(out_plane, q)])
    return True


def _blocked_source(
    cx: OpContext, out: Buffer, blocked: Layout | None
) -> tuple[Buffer, Layout] | None:
    """The stored buffer and layout of a pool's data when its vector kernel applies:
    a blocked layout with the channel block last, and ``f32`` / ``f64`` data of the
    output's dtype (max pooling: integer data too, whose max is exact in any
    order); ``None`` otherwise."""
    data, dt = cx.operand(0), out.dtype
    buf = data.buffer
    integer_max = isinstance(cx.op, pooling.MaxPool2DOp) and dt.kind in "iu"
    if (
        blocked is None
        or buf is None
        or data.dtype != dt
        or not (integer_max or (dt.kind == "f" and dt.itemsize >= 4))
        or blocked.index_of("c") != len(out.shape) - 1
    ):
        return None
    return buf, blocked


def _window_pool_blocked(cx: OpContext, out: Buffer) -> bool:
    """Max or average pooling of a stored ``f32`` / ``f64`` buffer (max: integer
    too, the 8-bit activations of a quantized model) with blocked channels, the
    channel block last (``NCHW16c``): per output pixel, the window's taps are
    computed once and each tap is one vector (the block's channels), folded with
    a NaN-propagating (integers: signed or unsigned) vector max, or added in
    ``f64`` lanes (each channel in the scalar fold's order) and divided by the
    pixel's tap count.
    ``False`` (nothing emitted) for other layouts and dtypes."""
    op = cx.op
    assert isinstance(op, pooling.MaxPool2DOp | pooling.AvgPool2DOp)
    kb, dt = cx.kb, out.dtype
    data = cx.operand(0)
    source = _blocked_source(cx, out, op.blocked())
    if source is None:
        return False
    buf, _ = source
    average = isinstance(op, pooling.AvgPool2DOp)
    acc = acc_dtype(dt) if average else dt
    lanes = out.shape[-1]
    flat_in, flat_out = kb.flat(buf), kb.flat(out)
    init = kb.vsplat(kb.zero(acc) if average else kb.lowest(dt), lanes)
    with kb.parallel(out.shape[:-1]) as pixel:
        idx = [*pixel, 0]
        win = _Window(cx, idx)

        def over_h(i: Index, carried: list[SSAValue]) -> list[SSAValue]:
            y = kb.iadd(win.start[0], kb.imul(i, win.dilation[0]))

            def tap(j: Index, inner: list[SSAValue]) -> list[SSAValue]:
                x = kb.iadd(win.start[1], kb.imul(j, win.dilation[1]))
                at = kb.flat_index(win.index_at(y, x), data.shape)
                v = kb.vload(flat_in, [at], lanes)
                if not average:
                    return [kb.max(inner[0], v, dt)]
                if acc != dt:
                    v = kb.result(arith.ExtFOp(v, kb.vector_type(acc, lanes)))
                return [kb.add(inner[0], v)]

            return kb.fold_loop(win.w_range[0], win.w_range[1], carried, tap)

        value = kb.fold_loop(win.h_range[0], win.h_range[1], [init], over_h)[0]
        if isinstance(op, pooling.AvgPool2DOp):
            if acc != dt:
                value = kb.result(arith.TruncFOp(value, kb.vector_type(dt, lanes)))
            count = win.count(get_bool(op.count_include_pad))
            n = kb.cast(kb.cast(kb.int_of_index(count), I64, acc), acc, dt)
            value = kb.div(value, kb.vsplat(n, lanes), dt)
        kb.vstore(value, flat_out, [kb.flat_index(idx, out.shape)])
    return True


@pointwise(pooling.AvgPool2DOp, cheap=False)
def _avg_pool(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, pooling.AvgPool2DOp)
    kb, dt = cx.kb, cx.out_dtype()
    acc = acc_dtype(dt) if is_float(dt) else I64
    win = _Window(cx, idx)
    total = win.fold(
        cx, [kb.zero(acc)], lambda c, v: [kb.add(c[0], kb.cast(v, dt, acc))]
    )[0]
    return _divide_by_count(kb, total, win.count(get_bool(op.count_include_pad)), dt)


# registered after the pointwise lowering (which would replace it)
materialize(pooling.AvgPool2DOp)(_window_pool_any)


def _plane_fold(
    cx: OpContext,
    idx: list[Index],
    bins: tuple[tuple[Index, Index], tuple[Index, Index]] | None,
    inits: list[SSAValue],
    combine: Combine,
) -> list[SSAValue]:
    """Fold over the H x W plane of the output pixel's channel (or over ``bins``)."""
    op = cx.op
    assert isinstance(op, pooling.Pool2DBase)
    kb = cx.kb
    blocked = op.blocked() if isinstance(op, pooling.BlockedChannels) else None
    if blocked is not None:
        # channels in blocks (NCHW16c): the output index with H and W swept
        hp, wp = blocked.index_of("H"), blocked.index_of("W")
        h, w = cx.operand(0).shape[hp], cx.operand(0).shape[wp]

        def row(y: Index, carried: list[SSAValue]) -> list[SSAValue]:
            def tap(x: Index, inner: list[SSAValue]) -> list[SSAValue]:
                at = list(idx)
                at[hp], at[wp] = y, x
                return combine(inner, cx.operand(0).at(at))

            return kb.fold_loop(0, w, carried, tap)

        return kb.fold_loop(0, h, inits, row)
    layout, out_layout = op.layouts()
    n, c, _, _ = to_nchw(idx, out_layout)
    _, _, h, w = to_nchw(cx.operand(0).shape, layout)
    (h0, h1), (w0, w1) = bins if bins is not None else ((0, h), (0, w))

    def over_w(y: Index, carried: list[SSAValue]) -> list[SSAValue]:
        def tap(x: Index, inner: list[SSAValue]) -> list[SSAValue]:
            return combine(inner, cx.operand(0).at(from_nchw([n, c, y, x], layout)))

        return kb.fold_loop(w0, w1, carried, tap)

    return kb.fold_loop(h0, h1, inits, over_w)


@pointwise(pooling.GlobalMaxPool2DOp, cheap=False)
def _global_max(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb, dt = cx.kb, cx.out_dtype()
    return _plane_fold(
        cx, idx, None, [kb.lowest(dt)], lambda c, v: [kb.max(c[0], v, dt)]
    )[0]


@pointwise(pooling.GlobalAvgPool2DOp, cheap=False)
def _global_avg(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, pooling.Pool2DBase)
    kb, dt = cx.kb, cx.out_dtype()
    acc = acc_dtype(dt) if is_float(dt) else I64
    total = _plane_fold(
        cx, idx, None, [kb.zero(acc)], lambda c, v: [kb.add(c[0], kb.cast(v, dt, acc))]
    )[0]
    blocked = op.blocked() if isinstance(op, pooling.BlockedChannels) else None
    if blocked is not None:
        shape = cx.operand(0).shape
        h, w = shape[blocked.index_of("H")], shape[blocked.index_of("W")]
    else:
        _, _, h, w = to_nchw(cx.operand(0).shape, op.layouts()[0])
    assert isinstance(h, int)
    assert isinstance(w, int)
    return _divide_by_count(kb, total, max(h * w, 1), dt)


@materialize(pooling.GlobalAvgPool2DOp, pooling.GlobalMaxPool2DOp)
def _global_pool_any(cx: OpContext, outs: list[Buffer]) -> None:
    """:func:`_global_pool_blocked` where it applies, else one plane fold per output
    element (the threads share out the elements)."""
    if _global_pool_blocked(cx, outs[0]):
        return
    kb = cx.kb
    value_at = (
        _global_avg if isinstance(cx.op, pooling.GlobalAvgPool2DOp) else _global_max
    )
    with kb.parallel(outs[0].shape) as idx:
        kb.store(value_at(cx, 0, idx), outs[0], idx)


def _global_pool_blocked(cx: OpContext, out: Buffer) -> bool:
    """Global pooling of a stored ``f32`` / ``f64`` buffer with blocked channels, the
    channel block last (``NCHW16c``): the threads share out the (batch entry,
    channel block) planes, and each plane is folded pixel by pixel into one vector
    of the block's channels (sums in ``f64`` lanes, as the scalar fold; each channel
    is summed in the same order). ``False`` (nothing emitted) otherwise."""
    op = cx.op
    assert isinstance(op, pooling.GlobalAvgPool2DOp | pooling.GlobalMaxPool2DOp)
    kb, dt = cx.kb, out.dtype
    data = cx.operand(0)
    source = _blocked_source(cx, out, op.blocked())
    if source is None:
        return False
    buf, blocked = source
    shape = data.shape
    hp, wp = blocked.index_of("H"), blocked.index_of("W")
    h, w, lanes = shape[hp], shape[wp], shape[-1]
    outer = [d for k, d in enumerate(shape[:-1]) if k not in (hp, wp)]
    flat_in, flat_out = kb.flat(buf), kb.flat(out)
    average = isinstance(op, pooling.GlobalAvgPool2DOp)
    acc = acc_dtype(dt)
    acc_ty = kb.vector_type(acc, lanes)
    with kb.parallel(outer) as pos:

        def at(y: Index, x: Index) -> list[Index]:
            rest = iter(pos)
            return [
                y if k == hp else x if k == wp else next(rest)
                for k in range(len(shape) - 1)
            ] + [0]

        def row(y: Index, carried: list[SSAValue]) -> list[SSAValue]:
            def pixel(x: Index, inner: list[SSAValue]) -> list[SSAValue]:
                v = kb.vload(flat_in, [kb.flat_index(at(y, x), shape)], lanes)
                if not average:
                    return [kb.max(inner[0], v, dt)]
                if acc != dt:
                    v = kb.result(arith.ExtFOp(v, acc_ty))
                return [kb.add(inner[0], v)]

            return kb.fold_loop(0, w, carried, pixel)

        init = kb.vsplat(kb.zero(acc) if average else kb.lowest(dt), lanes)
        value = kb.fold_loop(0, h, [init], row)[0]
        if average:
            if acc != dt:
                value = kb.result(arith.TruncFOp(value, kb.vector_type(dt, lanes)))
            count = kb.vsplat(kb.const(float(max(h * w, 1)), dt), lanes)
            value = kb.div(value, count, dt)
        out_at = [0 if k in (hp, wp) else i for k, i in enumerate(at(0, 0))]
        kb.vstore(value, flat_out, [kb.flat_index(out_at, out.shape)])
    return True


def _adaptive_bins(
    cx: OpContext, idx: list[Index]
) -> tuple[tuple[Index, Index], tuple[Index, Index]]:
    op = cx.op
    assert isinstance(op, pooling.AdaptivePool2D)
    kb = cx.kb
    layout, out_layout = op.layouts()
    _, _, oh_i, ow_i = to_nchw(idx, out_layout)
    _, _, h, w = to_nchw(cx.operand(0).shape, layout)
    _, _, oh, ow = to_nchw(cx.out_shape(), out_layout)
    assert isinstance(h, int)
    assert isinstance(w, int)
    assert isinstance(oh, int)
    assert isinstance(ow, int)

    def bin_of(i: Index, size: int, out: int) -> tuple[Index, Index]:
        start = kb.idiv(kb.imul(i, size), out)
        end = ceil_div(kb, kb.imul(kb.iadd(i, 1), size), out)
        return start, end

    return bin_of(oh_i, h, oh), bin_of(ow_i, w, ow)


@pointwise(pooling.AdaptiveMaxPool2DOp, cheap=False)
def _adaptive_max(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb, dt = cx.kb, cx.out_dtype()
    bins = _adaptive_bins(cx, idx)
    return _plane_fold(
        cx, idx, bins, [kb.lowest(dt)], lambda c, v: [kb.max(c[0], v, dt)]
    )[0]


@pointwise(pooling.AdaptiveAvgPool2DOp, cheap=False)
def _adaptive_avg(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb, dt = cx.kb, cx.out_dtype()
    acc = acc_dtype(dt) if is_float(dt) else I64
    bins = _adaptive_bins(cx, idx)
    total = _plane_fold(
        cx, idx, bins, [kb.zero(acc)], lambda c, v: [kb.add(c[0], kb.cast(v, dt, acc))]
    )[0]
    (h0, h1), (w0, w1) = bins
    count = kb.imul(kb.isub(h1, h0), kb.isub(w1, w0))
    return _divide_by_count(kb, total, count, dt)
