"""2-D convolution: a direct kernel accumulating output planes.

For each batch entry and output channel, the output plane is zeroed, then every
(input channel, kernel row, kernel column) tap adds ``weight * input`` to the part of
the plane it reaches: the rows and columns whose input position falls inside the data
are computed from the tap (no padding is read, no branch in the loops), and the
innermost loop runs along the output row, contiguous in ``NCHW`` (LLVM vectorises it).
Grouped and depthwise convolutions only change which input channels and weights an
output channel reads. The channel-blocked ``contrib_conv2d_NCHWc`` (made by
AlterOpLayout at opt_level 3) vectorises over the output-channel block instead. Other layouts (permutations of ``NCHW`` / ``OIHW``) are read
through their axis order. ``out_dtype`` converts both operands before multiplying.

:func:`conv2d_planes` takes an ``epilogue`` (a function of the accumulated value and
its output index) applied while the plane is hot: the hook for fused bias/activation
epilogues.
"""

from __future__ import annotations

from xrelay.dialects.relay import nn
from xrelay.lowering.builder import Buffer
from xrelay.lowering.kernels import Epilogue, OpContext, materialize, with_epilogue
from xrelay.lowering.kernels.pool import ceil_div, from_nchw, tap_range, to_nchw


def conv2d_planes(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    """Emit the convolution of ``cx.op`` into ``out`` (see the module docstring)."""
    op = cx.op
    assert isinstance(op, nn.Conv2DOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    data_layout, kernel_layout, out_layout = op.layouts()
    (sh, sw), (pt, pl, _, _), (dh, dw), groups = op.conv_params()
    (n_, _c, h, w), (o, i, kh, kw), depthwise, out_c = op.geometry(
        data.shape, weight.shape
    )
    _, _, oh, ow = to_nchw(out.shape, out_layout)
    assert isinstance(oh, int)
    assert isinstance(ow, int)
    dt = out.dtype
    src_dt = data.dtype

    if depthwise:
        per_group = 1
        multiplier = i
    else:
        per_group = i
        multiplier = 0
    out_per_group = o // groups if not depthwise else 0

    with kb.loop(0, n_) as n, kb.loop(0, out_c) as oc:
        plane = lambda y, x: from_nchw([n, oc, y, x], out_layout)  # noqa: E731
        with kb.loop(0, oh) as y, kb.loop(0, ow) as x:
            kb.store(kb.zero(dt), out, plane(y, x))
        if depthwise:
            base_c = kb.idiv(oc, multiplier)
            w_o, w_i = base_c, kb.imod(oc, multiplier)
        else:
            base_c = kb.imul(kb.idiv(oc, out_per_group), per_group)
            w_o, w_i = oc, 0
        with kb.loop(0, per_group) as ic, kb.loop(0, kh) as ky:
            ci = kb.iadd(base_c, ic)
            wi = kb.iadd(w_i, ic)
            y0 = kb.isub(kb.imul(ky, dh), pt)
            # output rows y with 0 <= y*sh + y0 < h
            y_lo = kb.imax(0, ceil_div(kb, kb.isub(0, y0), sh))
            y_hi = kb.imin(oh, ceil_div(kb, kb.isub(h, y0), sh))
            with kb.loop(0, kw) as kx:
                x0 = kb.isub(kb.imul(kx, dw), pl)
                x_lo = kb.imax(0, ceil_div(kb, kb.isub(0, x0), sw))
                x_hi = kb.imin(ow, ceil_div(kb, kb.isub(w, x0), sw))
                logical = {"O": w_o, "I": wi, "H": ky, "W": kx}
                wv = kb.cast(weight.at([logical[a] for a in kernel_layout]), src_dt, dt)
                with kb.loop(y_lo, y_hi) as y:
                    iy = kb.iadd(kb.imul(y, sh), y0)
                    with kb.loop(x_lo, x_hi) as x:
                        ix = kb.iadd(kb.imul(x, sw), x0)
                        v = kb.cast(
                            data.at(from_nchw([n, ci, iy, ix], data_layout)), src_dt, dt
                        )
                        idx = plane(y, x)
                        kb.store(kb.fma(wv, v, kb.load(out, idx)), out, idx)
        if epilogue is not None:
            with kb.loop(0, oh) as y, kb.loop(0, ow) as x:
                idx = plane(y, x)
                kb.store(epilogue(kb.load(out, idx), idx), out, idx)


@materialize(nn.Conv2DOp)
def _conv2d(cx: OpContext, outs: list[Buffer]) -> None:
    conv2d_planes(cx, outs[0])


with_epilogue(nn.Conv2DOp)(conv2d_planes)


def conv2d_nchwc(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    """``contrib_conv2d_NCHWc``: data ``[N, C/x, H, W, x]``, kernel ``[O/y, C/x, KH,
    KW, x, y]``, output ``[N, O/y, OH, OW, y]``.

    For each output row, every tap that reaches it (the kernel rows inside the data
    are computed from the row) adds ``data[.., ci] * weight[.., ci, :]`` to the ``y``
    output channels of each pixel: the innermost loop runs over the ``y`` contiguous
    output channels and weights (vectorised), the weight vector is reused along the
    row."""
    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    (sh, sw), (pt, pl, _, _), (dh, dw), _ = op.conv_params()
    n_, cb_n, h, w, x_blk = data.shape
    ob_n, _, kh, kw, _, y_blk = weight.shape
    _, _, oh, ow, _ = out.shape
    dt = out.dtype
    src_dt = data.dtype
    with kb.loop(0, n_) as n, kb.loop(0, ob_n) as ob, kb.loop(0, oh) as y:
        with kb.loop(0, ow) as x, kb.loop(0, y_blk) as oi:
            kb.store(kb.zero(dt), out, [n, ob, y, x, oi])
        y0 = kb.isub(kb.imul(y, sh), pt)
        ky_lo, ky_hi = tap_range(kb, y0, kh, dh, 0, h)
        with kb.loop(0, cb_n) as cb, kb.loop(ky_lo, ky_hi) as ky:
            iy = kb.iadd(y0, kb.imul(ky, dh))
            with kb.loop(0, kw) as kx:
                x0 = kb.isub(kb.imul(kx, dw), pl)
                x_lo = kb.imax(0, ceil_div(kb, kb.isub(0, x0), sw))
                x_hi = kb.imin(ow, ceil_div(kb, kb.isub(w, x0), sw))
                with kb.loop(0, x_blk) as ci, kb.loop(x_lo, x_hi) as x:
                    ix = kb.iadd(kb.imul(x, sw), x0)
                    v = kb.cast(data.at([n, cb, iy, ix, ci]), src_dt, dt)
                    with kb.loop(0, y_blk) as oi:
                        wv = kb.cast(weight.at([ob, cb, ky, kx, ci, oi]), src_dt, dt)
                        idx = [n, ob, y, x, oi]
                        kb.store(kb.fma(v, wv, kb.load(out, idx)), out, idx)
        if epilogue is not None:
            with kb.loop(0, ow) as x, kb.loop(0, y_blk) as oi:
                idx = [n, ob, y, x, oi]
                kb.store(epilogue(kb.load(out, idx), idx), out, idx)


@materialize(nn.Conv2DNCHWcOp)
def _conv2d_nchwc(cx: OpContext, outs: list[Buffer]) -> None:
    conv2d_nchwc(cx, outs[0])


with_epilogue(nn.Conv2DNCHWcOp)(conv2d_nchwc)
