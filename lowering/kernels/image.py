"""Kernel of ``image.grid_sample`` (pointwise: one output element from its grid
point and up to 16 (bicubic) or 8 (3-D bilinear) data elements).

The grid is data: every neighbour position is checked in floating point against
``[0, size - 1]`` (ordered compares, so NaN fails) before it is converted to an
integer, and a neighbour outside reads element 0 and is replaced by 0. So no grid
value (NaN and infinities included) makes the kernel read outside the data or
convert an out-of-range float (LLVM's poison). The arithmetic follows the op's
numpy semantics (:mod:`xrelay.dialects.relay.image`) operation for operation.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import image
from xrelay.dialects.relay.base import get_bool, get_str
from xrelay.lowering.builder import Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, pointwise
from xrelay.lowering.scalar_types import DType

F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)


def _clamp(kb: KernelBuilder, x: SSAValue, size: int, dt: DType) -> SSAValue:
    """``x`` clamped to ``[0, size - 1]`` (NaN stays NaN)."""
    lo, hi = kb.zero(dt), kb.const(size - 1, dt)
    x = kb.select(kb.cmp("lt", x, lo, dt), lo, x)
    return kb.select(kb.cmp("gt", x, hi, dt), hi, x)


def _reflect(
    kb: KernelBuilder, x: SSAValue, lo: float, hi: float, dt: DType
) -> SSAValue:
    """:func:`image.reflect`: ``x`` (of ``dt``) reflected into ``[lo, hi]`` in
    float64, back in ``dt``."""
    w = kb.cast(x, dt, F64)
    lo_v, hi_v = kb.const(lo, F64), kb.const(hi, F64)
    below = kb.cmp("lt", w, lo_v, F64)
    above = kb.cmp("gt", w, hi_v, F64)
    span = hi - lo
    if span == 0:
        out = kb.select(kb.logical_or(below, above), lo_v, w)
        return kb.cast(out, F64, dt)
    zero = kb.zero(F64)
    dx = kb.select(below, kb.sub(lo_v, w), kb.select(above, kb.sub(w, hi_v), zero))
    span_v = kb.const(span, F64)
    n = kb.math("floor", kb.div(dx, span_v, F64))
    r = kb.sub(dx, kb.mul(n, span_v))
    half = kb.math("floor", kb.div(n, kb.const(2, F64), F64))
    even = kb.cmp("eq", kb.sub(n, kb.mul(kb.const(2, F64), half)), zero, F64)
    low_side = kb.add(lo_v, r)
    high_side = kb.sub(hi_v, r)
    out = kb.select(
        below,
        kb.select(even, low_side, high_side),
        kb.select(above, kb.select(even, high_side, low_side), w),
    )
    return kb.cast(out, F64, dt)


def _cubic(kb: KernelBuilder, t: SSAValue, dt: DType) -> list[SSAValue]:
    """:func:`image.cubic_weights` of the fraction ``t``."""
    a = image.CUBIC_A
    one, two = kb.const(1, dt), kb.const(2, dt)

    def near(d: SSAValue) -> SSAValue:
        # ((a + 2) * d - (a + 3)) * d * d + 1
        p = kb.sub(kb.mul(kb.const(a + 2, dt), d), kb.const(a + 3, dt))
        return kb.add(kb.mul(kb.mul(p, d), d), one)

    def far(d: SSAValue) -> SSAValue:
        # ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
        p = kb.sub(kb.mul(kb.const(a, dt), d), kb.const(5 * a, dt))
        p = kb.add(kb.mul(p, d), kb.const(8 * a, dt))
        return kb.sub(kb.mul(p, d), kb.const(4 * a, dt))

    return [far(kb.add(t, one)), near(t), near(kb.sub(one, t)), far(kb.sub(two, t))]


def _taps(
    kb: KernelBuilder, x: SSAValue, method: str, dt: DType
) -> list[tuple[SSAValue, SSAValue]]:
    """``(position, weight)`` of each neighbour of coordinate ``x``."""
    one = kb.const(1, dt)
    if method == "nearest":
        return [(kb.math("trunc", x), one)]
    base = kb.math("floor", x)
    t = kb.sub(x, base)
    if method == "bilinear":
        return [(base, kb.sub(one, t)), (kb.add(base, one), t)]
    return [
        (kb.add(base, kb.const(k - 1, dt)), w) for k, w in enumerate(_cubic(kb, t, dt))
    ]


def _tap_index(
    kb: KernelBuilder,
    p: SSAValue,
    size: int,
    padding: str,
    bounds: tuple[float, float],
    dt: DType,
) -> tuple[Index, SSAValue]:
    """A neighbour's index after padding and whether it is inside (index 0 when
    not): the float is converted only when it is in ``[0, size - 1]``."""
    if padding == "border":
        p = _clamp(kb, p, size, dt)
    elif padding == "reflection":
        p = kb.math("trunc", _reflect(kb, p, *bounds, dt))
    zero = kb.zero(dt)
    inside = kb.logical_and(
        kb.cmp("ge", p, zero, dt), kb.cmp("le", p, kb.const(size - 1, dt), dt)
    )
    safe = kb.select(inside, p, zero)
    return kb.index_cast(kb.cast(safe, dt, I64), I64), inside


@pointwise(image.GridSampleOp, cheap=False)
def _grid_sample(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, image.GridSampleOp)
    kb = cx.kb
    data, grid = cx.operands
    method, padding = get_str(op.method), get_str(op.padding_mode)
    align = get_bool(op.align_corners)
    nd = len(data.shape) - 2
    n, c, out = idx[0], idx[1], idx[2:]
    dt = F64 if data.dtype == F64 else np.dtype(np.float32)
    one, half = kb.const(1, dt), kb.const(0.5, dt)
    per_axis: list[list[tuple[Index, SSAValue, SSAValue]]] = []
    for k, size in enumerate(data.shape[2:]):
        g = kb.cast(grid.at([n, nd - 1 - k, *out]), grid.dtype, dt)
        # (g + 1) / 2 * (size - 1) or ((g + 1) * size - 1) / 2; halving is exact
        if align:
            x = kb.mul(kb.mul(kb.add(g, one), half), kb.const(size - 1, dt))
        else:
            x = kb.mul(kb.sub(kb.mul(kb.add(g, one), kb.const(size, dt)), one), half)
        if method == "nearest":
            x = kb.math("roundeven", x)
        bounds = image.sample_bounds(size, align)
        outside = kb.logical_or(
            kb.cmp("lt", x, kb.const(bounds[0], dt), dt),
            kb.cmp("gt", x, kb.const(bounds[1], dt), dt),
        )
        if padding == "border":
            x = kb.select(outside, _clamp(kb, x, size, dt), x)
        elif padding == "reflection":
            x = kb.select(outside, _reflect(kb, x, *bounds, dt), x)
        taps: list[tuple[Index, SSAValue, SSAValue]] = []
        for p, w in _taps(kb, x, method, dt):
            i, inside = _tap_index(kb, p, size, padding, bounds, dt)
            taps.append((i, inside, w))
        per_axis.append(taps)
    zero = kb.zero(dt)

    def blend(k: int, at: list[Index], inside: SSAValue | None) -> SSAValue:
        if k == nd:
            v = kb.cast(data.at([n, c, *at]), data.dtype, dt)
            assert inside is not None
            return kb.select(inside, v, zero)
        acc: SSAValue | None = None
        for i, ok, w in per_axis[k]:
            both = ok if inside is None else kb.logical_and(inside, ok)
            term = kb.mul(w, blend(k + 1, [*at, i], both))
            acc = term if acc is None else kb.add(acc, term)
        assert acc is not None
        return acc

    return kb.cast(blend(0, [], None), dt, cx.out_dtype())
