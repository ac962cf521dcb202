"""Kernel of ``nn.deformable_conv2d`` in ``NCHW`` / ``OIHW`` (other layouts run as
that between transforms): pointwise, one output element from a loop over its
group's input channels and the kernel taps.

Offsets are data: a sample position is compared in float (ordered: NaN fails)
against ``[0, H)`` x ``[0, W)`` before it is floored and converted, and a position
outside reads pixel ``(0, 0)`` and counts 0, so no offset makes the kernel read
outside the data or convert an out-of-range float. The arithmetic follows the op's
numpy semantics (:mod:`xrelay.dialects.relay.deformable`) sample by sample; the sum
runs channel, then tap, in order.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay.deformable import DeformableConv2DOp
from xrelay.lowering.builder import Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, pointwise
from xrelay.lowering.scalar_types import DType

I64 = np.dtype(np.int64)


def _as_float(kb: KernelBuilder, v: Index, dt: DType) -> SSAValue:
    if isinstance(v, int):
        return kb.const(float(v), dt)
    return kb.cast(kb.int_of_index(v), I64, dt)


def _index(kb: KernelBuilder, v: SSAValue, dt: DType) -> Index:
    """A whole, non-negative float of ``dt`` (known in range) as an index."""
    return kb.index_cast(kb.cast(v, dt, I64), I64)


@pointwise(DeformableConv2DOp, cheap=False)
def _deformable_conv2d(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, DeformableConv2DOp)
    kb = cx.kb
    data, offset, weight = cx.operand(0), cx.operand(1), cx.operand(2)
    dt = cx.out_dtype()
    (sh, sw), (pt, pl, _, _), (dh, dw), groups, dg = op.params()
    _, c, h, w = data.shape
    o, cg, kh, kw = weight.shape
    n, f, y, x = idx
    g = kb.udiv(f, o // groups)
    per_dg = c // dg
    zero, one = kb.zero(dt), kb.const(1, dt)
    hi_h, hi_w = kb.const(h, dt), kb.const(w, dt)
    base_y = kb.sub(kb.mul(_as_float(kb, y, dt), kb.const(sh, dt)), kb.const(pt, dt))
    base_x = kb.sub(kb.mul(_as_float(kb, x, dt), kb.const(sw, dt)), kb.const(pl, dt))

    def load(buf_at: SSAValue, src: DType) -> SSAValue:
        return kb.cast(buf_at, src, dt)

    def channel(ci: Index, carried: list[SSAValue]) -> list[SSAValue]:
        ch = kb.iadd(kb.imul(g, cg), ci)
        d = kb.udiv(ch, per_dg)

        def tap(t: Index, acc: list[SSAValue]) -> list[SSAValue]:
            i, j = kb.udiv(t, kw), kb.imod(t, kw)
            k = kb.iadd(kb.imul(d, kh * kw), t)
            dy = load(offset.at([n, kb.imul(k, 2), y, x]), offset.dtype)
            dx = load(offset.at([n, kb.iadd(kb.imul(k, 2), 1), y, x]), offset.dtype)
            hp = kb.add(
                kb.add(base_y, kb.mul(_as_float(kb, i, dt), kb.const(dh, dt))), dy
            )
            wp = kb.add(
                kb.add(base_x, kb.mul(_as_float(kb, j, dt), kb.const(dw, dt))), dx
            )
            inside = kb.logical_and(
                kb.logical_and(kb.cmp("ge", hp, zero, dt), kb.cmp("lt", hp, hi_h, dt)),
                kb.logical_and(kb.cmp("ge", wp, zero, dt), kb.cmp("lt", wp, hi_w, dt)),
            )
            hs, ws = kb.select(inside, hp, zero), kb.select(inside, wp, zero)
            y0f, x0f = kb.math("floor", hs), kb.math("floor", ws)
            ty, tx = kb.sub(hs, y0f), kb.sub(ws, x0f)
            y0, x0 = _index(kb, y0f, dt), _index(kb, x0f, dt)
            y1, x1 = kb.imin(kb.iadd(y0, 1), h - 1), kb.imin(kb.iadd(x0, 1), w - 1)

            def px(a: Index, b: Index) -> SSAValue:
                return load(data.at([n, ch, a, b]), data.dtype)

            top = kb.add(kb.mul(px(y0, x0), kb.sub(one, tx)), kb.mul(px(y0, x1), tx))
            bottom = kb.add(kb.mul(px(y1, x0), kb.sub(one, tx)), kb.mul(px(y1, x1), tx))
            val = kb.add(kb.mul(top, kb.sub(one, ty)), kb.mul(bottom, ty))
            val = kb.select(inside, val, zero)
            wv = load(weight.at([f, ci, i, j]), weight.dtype)
            return [kb.add(acc[0], kb.mul(wv, val))]

        return kb.fold_loop(0, kh * kw, carried, tap)

    (total,) = kb.fold_loop(0, cg, [zero], channel)
    return total
