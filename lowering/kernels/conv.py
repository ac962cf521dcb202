"""2-D convolution: direct kernels, register-tiled for floats.

* Float, ungrouped ``conv2d`` (any layout) and ``contrib_conv2d_NCHWc`` (made by
  AlterOpLayout at opt_level 3) run :class:`RowTiles`: each output row of a block of
  output channels is cut into tiles of pixels whose sums stay in vector registers
  through the reduction loops (see the class). ``conv2d`` first repacks its weights
  into a scratch buffer as ``[O/L, I, KH, KW, L]`` (:func:`conv2d_tiled`), so that a
  3-channel first convolution, which AlterOpLayout leaves in ``NCHW``, runs at vector
  speed too.
* Grouped, depthwise and integer convolutions (and every ``conv2d`` with
  ``XRELAY_TILE_ROWS=1``) accumulate output planes (:func:`conv2d_planes`): for each
  batch entry and output channel, the plane is zeroed, then every (input channel,
  kernel row, kernel column) tap adds ``weight * input`` to the part of the plane it
  reaches (rows and columns computed from the tap: no padding is read), the innermost
  loop along the output row. Grouped and depthwise convolutions only change which
  input channels and weights an output channel reads.

Other layouts (permutations of ``NCHW`` / ``OIHW``) are read through their axis order.
``out_dtype`` converts both operands before multiplying. Every kernel takes an
``epilogue`` (a function of the accumulated value and its output index) applied to
each output as it is stored: the hook for fused bias/activation epilogues.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.base import RelayOp
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import (
    BufferSource,
    Epilogue,
    OpContext,
    Source,
    TensorInfo,
    materialize,
    scratch,
    with_epilogue,
)
from xrelay.lowering.kernels.pool import ceil_div, from_nchw, tap_range, to_nchw
from xrelay.lowering.scalar_types import DType
from xrelay.lowering.tiling import host_vector_unit, tile_rows


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


DataAt = Callable[[Index, Index, Index, Index], SSAValue]
"""``(in-channel block, input row, input column, channel in the block) -> value``."""
WeightAt = Callable[[Index, Index, Index, Index, int], SSAValue]
"""``(in-channel block, kernel row, kernel column, channel in block, lane) -> value``."""
OutAt = Callable[[Index, Index], list[Index]]
"""``(output column, lane) -> output index`` (in the current row and block)."""


@dataclass(frozen=True)
class RowTiles:
    """One output row of a channel-blocked direct convolution, register-tiled.

    The row of one output-channel block (``lanes`` channels) is cut into tiles of
    ``tile`` pixels whose ``tile * lanes`` sums are carried as loop values through
    the reduction loops (input channel block, kernel row, kernel column, channel in
    the block: the reference's order for every output), then stored once through the
    epilogue. The innermost step loads the ``lanes`` weights of one tap (contiguous:
    a vector) and one input value per pixel (broadcast), so LLVM's SLP vectoriser
    keeps each pixel's sums in vector registers. Tiles whose pixels reach the
    padding (the row's two ends) skip those taps with a ``select``, reading a
    clamped position instead."""

    kb: KernelBuilder
    strides: tuple[int, int]
    pads: tuple[int, int]
    dilation: tuple[int, int]
    in_hw: tuple[int, int]
    kernel_hw: tuple[int, int]
    out_w: int
    blocks: int
    block: int
    dt: DType
    src_dt: DType
    tile: int

    def emit(
        self,
        y: Index,
        lanes: int,
        data_at: DataAt,
        weight_at: WeightAt,
        out_at: OutAt,
        out: Buffer,
        epilogue: Epilogue | None,
        stage: Buffer | None = None,
    ) -> None:
        """Emit output row ``y`` of one block of ``lanes`` channels. ``stage`` (a
        ``[tile, lanes]`` buffer), when the block's channels are not contiguous in
        the output: each tile is stored there first (contiguous stores keep LLVM
        vectorising along the channels), then copied out through the epilogue."""
        kb = self.kb
        sh, sw = self.strides
        pt, pl = self.pads
        dh, dw = self.dilation
        h, w = self.in_hw
        kh, kw = self.kernel_hw
        ow, tile, dt, src_dt = self.out_w, self.tile, self.dt, self.src_dt
        y0 = kb.isub(kb.imul(y, sh), pt)
        ky_lo, ky_hi = tap_range(kb, y0, kh, dh, 0, h)

        def pixels(x: Index, nt: int, masked: bool) -> None:
            def over_kx(
                cb: Index, ky: Index, kx: Index, acc: list[SSAValue]
            ) -> list[SSAValue]:
                iy = kb.iadd(y0, kb.imul(ky, dh))
                ix0 = kb.isub(kb.iadd(kb.imul(x, sw), kb.imul(kx, dw)), pl)
                ixs = [kb.iadd(ix0, t * sw) for t in range(nt)]
                valid: list[SSAValue | None] = [None] * nt
                if masked:
                    for t in range(nt):
                        valid[t] = kb.logical_and(
                            kb.icmp("sge", ixs[t], 0), kb.icmp("slt", ixs[t], w)
                        )
                        ixs[t] = kb.imin(kb.imax(ixs[t], 0), w - 1)

                def over_ci(ci: Index, acc: list[SSAValue]) -> list[SSAValue]:
                    vs = [
                        kb.cast(data_at(cb, iy, ixs[t], ci), src_dt, dt)
                        for t in range(nt)
                    ]
                    ws = [
                        kb.cast(weight_at(cb, ky, kx, ci, oi), src_dt, dt)
                        for oi in range(lanes)
                    ]
                    new: list[SSAValue] = []
                    for t in range(nt):
                        ok = valid[t]
                        for oi in range(lanes):
                            a = acc[t * lanes + oi]
                            v = kb.mac(vs[t], ws[oi], a)
                            new.append(v if ok is None else kb.select(ok, v, a))
                    return new

                return kb.fold_loop(0, self.block, acc, over_ci)

            acc = kb.fold_loop(
                0,
                self.blocks,
                [kb.zero(dt)] * (nt * lanes),
                lambda cb, a0: kb.fold_loop(
                    ky_lo,
                    ky_hi,
                    a0,
                    lambda ky, a1: kb.fold_loop(
                        0, kw, a1, lambda kx, a2: over_kx(cb, ky, kx, a2)
                    ),
                ),
            )
            if stage is None:
                # the sums, then the epilogue as a loop over the tile (vectorised
                # by LLVM along the lanes; one copy of its code, not one per output)
                # (the lanes are contiguous in the output here: one address per pixel)
                flat_out = kb.flat(out)
                for t in range(nt):
                    base = kb.flat_index(out_at(kb.iadd(x, t), 0), out.shape)
                    for oi in range(lanes):
                        kb.store(acc[t * lanes + oi], flat_out, [kb.iadd(base, oi)])
                if epilogue is not None:
                    with kb.loop(0, nt) as t, kb.loop(0, lanes) as oi:
                        idx = out_at(kb.iadd(x, t), oi)
                        kb.store(epilogue(kb.load(out, idx), idx), out, idx)
                return
            for t in range(nt):
                for oi in range(lanes):
                    kb.store(acc[t * lanes + oi], stage, [t, oi])
            with kb.loop(0, nt) as t, kb.loop(0, lanes) as oi:
                idx = out_at(kb.iadd(x, t), oi)
                value = kb.load(stage, [t, oi])
                if epilogue is not None:
                    value = epilogue(value, idx)
                kb.store(value, out, idx)

        # output columns whose every kernel column reads inside the data
        xa = min(ow, max(0, -(-pl // sw)))
        xb = max(xa, min(ow, -(-(w + pl - (kw - 1) * dw) // sw)))
        if ow < 2 * tile:  # a short row: one or two masked tiles
            parts = -(-ow // tile)
            size = -(-ow // parts)
            for x in range(0, ow, size):
                pixels(x, min(size, ow - x), xa > 0 or xb < ow)
            return
        # the pixels whose window meets the padding (masked), full tiles inside,
        # the rest of the inside, then the right border (masked)
        for x in range(0, xa, tile):
            pixels(x, min(tile, xa - x), True)
        full = (xb - xa) // tile * tile
        if full:
            with kb.loop(xa, xa + full, tile) as xt:
                pixels(xt, tile, False)
        if xb - xa - full:
            pixels(xa + full, xb - xa - full, False)
        for x in range(xb, ow, tile):
            pixels(x, min(tile, ow - x), True)


def weight_row(
    kb: KernelBuilder,
    weight: Source,
    lead: list[Index],
    lanes: int,
    has_ci: bool = True,
) -> WeightAt:
    """:data:`WeightAt` for a weight ``[*lead, cb, ky, kx, (ci,) lane]`` whose lanes are
    contiguous: a stored weight is read through its 1-D view, one address computation
    per tap and the lanes at constant offsets from it (cached per tap, since the
    lanes are read one after the other)."""
    buf = weight.buffer
    last: dict[str, Any] = {}

    def at(cb: Index, ky: Index, kx: Index, ci: Index, oi: int) -> SSAValue:
        idx = [*lead, cb, ky, kx, *([ci] if has_ci else []), 0]
        if buf is None:
            idx[-1] = oi
            return weight.at(idx)
        prev = last.get("idx")
        if (
            prev is None
            or oi == 0
            or any(
                a is not b and not (isinstance(a, int) and a == b)
                for a, b in zip(prev, idx, strict=True)
            )
        ):
            last["idx"] = idx
            last["base"] = kb.flat_index(idx, buf.shape)
        flat = kb.flat(buf)
        return kb.load(flat, [kb.iadd(last["base"], oi)])

    return at


def _tiled_plain_conv(op: nn.Conv2DOp, src_dt: DType, dt: DType) -> bool:
    """Whether :func:`conv2d_tiled` handles ``op``: a float, ungrouped convolution
    (and tiling not turned off)."""
    return (
        op.conv_params()[3] == 1
        and dt.kind == "f"
        and src_dt.kind == "f"
        and os.environ.get("XRELAY_TILE_ROWS", "").strip() != "1"
    )


def _plain_lanes(dt: DType) -> int:
    return max(1, host_vector_unit().bytes // dt.itemsize)


def _conv2d_scratch(
    op: RelayOp, operands: list[TensorInfo], results: list[TensorInfo]
) -> list[TensorInfo]:
    """The repacked weight ``[ceil(O/L), I, KH, KW, L]`` of :func:`conv2d_tiled`."""
    assert isinstance(op, nn.Conv2DOp)
    dt = results[0][1]
    if not _tiled_plain_conv(op, operands[0][1], dt):
        return []
    _, (_, i, kh, kw), _, out_c = op.geometry(operands[0][0], operands[1][0])
    assert isinstance(out_c, int)
    lanes = _plain_lanes(dt)
    tile = tile_rows(lanes, dt.itemsize)
    return [((-(-out_c // lanes), i, kh, kw, lanes), dt), ((tile, lanes), dt)]


def conv2d_tiled(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    """An ungrouped float ``conv2d`` in any layout, register-tiled like the blocked
    kernel (:class:`RowTiles`): the weights are first repacked into the kernel's
    scratch buffer as ``[O/L, I, KH, KW, L]`` (``L`` = the host's vector lanes; a
    copy of the weights per call, small next to the convolution), each input channel
    is its own block. This is how a first convolution on 3-channel images (which
    AlterOpLayout leaves in ``NCHW``) runs at vector speed."""
    op = cx.op
    assert isinstance(op, nn.Conv2DOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    packed, stage = cx.scratch
    data_layout, kernel_layout, out_layout = op.layouts()
    (sh, sw), (pt, pl, _, _), (dh, dw), _ = op.conv_params()
    (n_, c_, h, w), (_, _, kh, kw), _, out_c = op.geometry(data.shape, weight.shape)
    _, _, oh, ow = to_nchw(out.shape, out_layout)
    assert isinstance(ow, int)
    assert isinstance(out_c, int)
    dt = out.dtype
    lanes = packed.shape[-1]
    with kb.loop(0, out_c) as oc, kb.nest([c_, kh, kw]) as (ic, ky, kx):
        logical = {"O": oc, "I": ic, "H": ky, "W": kx}
        wv = kb.cast(weight.at([logical[a] for a in kernel_layout]), weight.dtype, dt)
        kb.store(wv, packed, [kb.idiv(oc, lanes), ic, ky, kx, kb.imod(oc, lanes)])
    rows = RowTiles(
        kb,
        (sh, sw),
        (pt, pl),
        (dh, dw),
        (h, w),
        (kh, kw),
        ow,
        c_,
        1,
        dt,
        data.dtype,
        stage.shape[0],
    )
    full = out_c // lanes

    def block(n: Index, ob: Index, nl: int) -> None:
        with kb.loop(0, oh) as y:
            rows.emit(
                y,
                nl,
                lambda cb, iy, ix, ci: data.at(from_nchw([n, cb, iy, ix], data_layout)),
                weight_row(kb, BufferSource(kb, packed), [ob], lanes, has_ci=False),
                lambda x, oi: from_nchw(
                    [n, kb.iadd(kb.imul(ob, lanes), oi), y, x], out_layout
                ),
                out,
                epilogue,
                stage,
            )

    with kb.loop(0, n_) as n:
        if full:
            with kb.loop(0, full) as ob:
                block(n, ob, lanes)
        if out_c % lanes:
            block(n, full, out_c % lanes)


def _conv2d_any(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    op = cx.op
    assert isinstance(op, nn.Conv2DOp)
    if cx.scratch:
        conv2d_tiled(cx, out, epilogue)
    else:
        conv2d_planes(cx, out, epilogue)


@materialize(nn.Conv2DOp)
def _conv2d(cx: OpContext, outs: list[Buffer]) -> None:
    _conv2d_any(cx, outs[0])


with_epilogue(nn.Conv2DOp)(_conv2d_any)
scratch(nn.Conv2DOp)(_conv2d_scratch)


def conv2d_nchwc(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    """``contrib_conv2d_NCHWc``: data ``[N, C/x, H, W, x]``, kernel ``[O/y, C/x, KH,
    KW, x, y]``, output ``[N, O/y, OH, OW, y]``, register-tiled by :class:`RowTiles`
    (the ``y`` channels of an output block are the vector lanes)."""
    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    (sh, sw), (pt, pl, _, _), (dh, dw), _ = op.conv_params()
    n_, cb_n, h, w, x_blk = data.shape
    ob_n, _, kh, kw, _, y_blk = weight.shape
    _, _, oh, ow, _ = out.shape
    dt = out.dtype
    rows = RowTiles(
        kb,
        (sh, sw),
        (pt, pl),
        (dh, dw),
        (h, w),
        (kh, kw),
        ow,
        cb_n,
        x_blk,
        dt,
        data.dtype,
        tile_rows(y_blk, dt.itemsize),
    )
    with kb.loop(0, n_) as n, kb.loop(0, ob_n) as ob, kb.loop(0, oh) as y:
        rows.emit(
            y,
            y_blk,
            lambda cb, iy, ix, ci: data.at([n, cb, iy, ix, ci]),
            weight_row(kb, weight, [ob], y_blk),
            lambda x, oi: [n, ob, y, x, oi],
            out,
            epilogue,
        )


@materialize(nn.Conv2DNCHWcOp)
def _conv2d_nchwc(cx: OpContext, outs: list[Buffer]) -> None:
    conv2d_nchwc(cx, outs[0])


with_epilogue(nn.Conv2DNCHWcOp)(conv2d_nchwc)
