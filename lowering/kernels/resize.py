"""Kernel of ``image.resize2d`` and ``nn.upsampling`` (pointwise: one output element
from 1 (nearest) or 4 (linear) input elements).

The coordinate of an output position is computed in float32 as the op's numpy
semantics do (:mod:`xrelay.dialects.relay.resize`), operation for operation; it is
bounded by the sizes (no NaN, no infinity), rounded or floored, clamped into the
input in float and only then converted to an index, so no read leaves the data.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay.resize import (
    Resize2DOp,
    ResizeAxis,
    ResizeBase,
    UpSamplingOp,
)
from xrelay.lowering.builder import Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, pointwise
from xrelay.lowering.scalar_types import DType

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)


def _coordinate(kb: KernelBuilder, ax: ResizeAxis, o: Index) -> SSAValue:
    """The float32 input coordinate of output position ``o`` (``ResizeAxis.
    coordinates``)."""
    form, a, b = ax.constants()
    fa, fb = kb.const(a, F32), kb.const(b, F32)
    if form == "const":
        return fa
    x = kb.cast(kb.int_of_index(o), I64, F32)
    if form == "shift":
        return kb.sub(kb.mul(kb.add(x, fa), fb), fa)
    if form == "scale":
        return kb.mul(x, fb)
    if form == "half":
        return kb.mul(kb.add(x, fa), fb)
    return kb.add(fa, kb.mul(x, fb))


def _rounded(kb: KernelBuilder, x: SSAValue, method: str) -> SSAValue:
    """``round_coordinate``: ``x`` (float32) rounded by ``method``."""
    half = kb.const(0.5, F32)
    if method == "round":
        return kb.math("roundeven", x)
    if method == "round_prefer_floor":
        return kb.math("ceil", kb.sub(x, half))
    if method == "round_prefer_ceil":
        return kb.math("floor", kb.add(x, half))
    return kb.math(method, x)  # floor, ceil


def _index(kb: KernelBuilder, x: SSAValue, size: int) -> Index:
    """``x`` (a whole float32) clamped to ``[0, size - 1]``, as an index."""
    lo, hi = kb.zero(F32), kb.const(size - 1, F32)
    x = kb.select(kb.cmp("lt", x, lo, F32), lo, x)
    x = kb.select(kb.cmp("gt", x, hi, F32), hi, x)
    return kb.index_cast(kb.cast(x, F32, I64), I64)


@pointwise(Resize2DOp, UpSamplingOp, cheap=False)
def _resize(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, ResizeBase)
    kb = cx.kb
    data = cx.operand(0)
    method, rounding, extrapolation, axes = op.plan(data.shape)
    out_dt = cx.out_dtype()
    work: DType = F64 if data.dtype == F64 else F32
    fill = np.asarray(extrapolation).astype(out_dt).item()
    outside: SSAValue | None = None
    coords = {ax.axis: _coordinate(kb, ax, idx[ax.axis]) for ax in axes}
    for ax in axes:
        if ax.mode != "tf_crop_and_resize":
            continue
        x = coords[ax.axis]
        bad = kb.logical_or(
            kb.cmp("lt", x, kb.zero(F32), F32),
            kb.cmp("gt", x, kb.const(ax.size_in - 1, F32), F32),
        )
        outside = bad if outside is None else kb.logical_or(outside, bad)
    if method == "nearest_neighbor":
        at = list(idx)
        for ax in axes:
            at[ax.axis] = _index(
                kb, _rounded(kb, coords[ax.axis], rounding), ax.size_in
            )
        value = data.at(at)
        if outside is None:
            return value
        return kb.select(outside, kb.const(fill, out_dt), value)
    taps: dict[int, tuple[Index, Index, SSAValue]] = {}
    for ax in axes:
        base = kb.math("floor", coords[ax.axis])
        t = kb.sub(coords[ax.axis], base)
        one = kb.const(1, F32)
        i0 = _index(kb, base, ax.size_in)
        i1 = _index(kb, kb.add(base, one), ax.size_in)
        taps[ax.axis] = (i0, i1, t if work == F32 else kb.cast(t, F32, work))
    (kh, kw) = (axes[0].axis, axes[1].axis)
    one_w = kb.const(1, work)

    def pixel(h: Index, w: Index) -> SSAValue:
        at = list(idx)
        at[kh], at[kw] = h, w
        return kb.cast(data.at(at), data.dtype, work)

    def lerp(a: SSAValue, b: SSAValue, t: SSAValue) -> SSAValue:
        return kb.add(kb.mul(a, kb.sub(one_w, t)), kb.mul(b, t))

    h0, h1, th = taps[kh]
    w0, w1, tw = taps[kw]
    top = lerp(pixel(h0, w0), pixel(h0, w1), tw)
    bottom = lerp(pixel(h1, w0), pixel(h1, w1), tw)
    value = kb.cast(lerp(top, bottom, th), work, out_dt)
    if outside is None:
        return value
    return kb.select(outside, kb.const(fill, out_dt), value)
