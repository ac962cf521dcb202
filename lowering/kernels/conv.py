"""2-D convolution: direct kernels, register-tiled for floats.

* Float, ungrouped ``conv2d`` (any layout) and ``contrib_conv2d_NCHWc`` (made by
  AlterOpLayout at opt_level 3) run :class:`RowTiles`: each output row of a block of
  output channels is cut into tiles of pixels whose sums stay in vector registers
  through the reduction loops (see the class). ``conv2d`` first repacks its weights
  into a scratch buffer as ``[O/L, I, KH, KW, L]`` (:func:`conv2d_tiled`), so that a
  3-channel first convolution, which AlterOpLayout leaves in ``NCHW``, runs at vector
  speed too.
* Grouped float ``conv2d`` with more than one output channel per group runs the same
  tiled kernel, the weights repacked per group (blocks never straddle two groups);
  AlterOpLayout puts grouped convolutions whose groups take a block of at least half
  the vector lanes, and depthwise ones, on ``contrib_conv2d_NCHWc`` tiles
  (:func:`conv2d_nchwc`, :func:`depthwise_nchwc`).
* Depthwise convolutions left in a plain layout (no channel block fits) and integer
  convolutions (and every ``conv2d`` with ``XRELAY_TILE_ROWS=1``) accumulate output
  planes (:func:`conv2d_planes`): for each
  batch entry and output channel, the plane is zeroed, then every (input channel,
  kernel row, kernel column) tap adds ``weight * input`` to the part of the plane it
  reaches (rows and columns computed from the tap: no padding is read), the innermost
  loop along the output row. Grouped and depthwise convolutions only change which
  input channels and weights an output channel reads. A float16 output is summed per
  output in a float32 register instead (a float16 plane would round every tap).
  Stride-1 depthwise planes as wide as their input (ShuffleNet's, whose 58 or 116
  channels take no block of at least half the lanes) sum the taps of their inner
  rows in registers over the flat plane (:func:`_inner_taps`), the edge rows tap by
  tap.

Other layouts (permutations of ``NCHW`` / ``OIHW``) are read through their axis order.
``out_dtype`` converts both operands before multiplying. Every kernel takes an
``epilogue`` (a function of the accumulated value and its output index) applied to
each output as it is stored: the hook for fused bias/activation epilogues.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.base import RelayOp
from xrelay.lowering import tiling
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import (
    BufferSource,
    Epilogue,
    OpContext,
    Source,
    TensorInfo,
    epilogue_casts,
    materialize,
    scratch,
    with_epilogue,
)
from xrelay.lowering.kernels.int16 import casting_epilogue, conv_stage
from xrelay.lowering.kernels.pool import (
    ceil_div,
    flat_inner_rows,
    flat_taps,
    from_nchw,
    tap_range,
    to_nchw,
)
from xrelay.lowering.scalar_types import DType, is_half
from xrelay.lowering.tiling import (
    conv_chunk,
    conv_row_group,
    depthwise_tile,
    host_vector_unit,
    pointwise_tile,
    row_pieces,
    row_tile,
    split_row_tile,
)


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

    # every plane is zeroed, accumulated and finished inside its own iteration: the
    # threads share out the planes
    with kb.parallel([n_, out_c]) as (n, oc):
        plane = lambda y, x: from_nchw([n, oc, y, x], out_layout)  # noqa: E731
        if depthwise:
            base_c = kb.idiv(oc, multiplier)
            w_o, w_i = base_c, kb.imod(oc, multiplier)
        else:
            base_c = kb.imul(kb.idiv(oc, out_per_group), per_group)
            w_o, w_i = oc, 0
        if is_half(dt):
            # a float16 plane would round every tap's partial sum: each output
            # sums its taps in a float32 register instead, stored once
            def tap(
                ci: Index,
                wi: Index,
                iy: Index,
                ix: Index,
                ky: Index,
                kx: Index,
                acc: SSAValue,
            ) -> SSAValue:
                logical = {"O": w_o, "I": wi, "H": ky, "W": kx}
                wv = kb.cast(weight.at([logical[a] for a in kernel_layout]), src_dt, dt)
                v = kb.cast(
                    data.at(from_nchw([n, ci, iy, ix], data_layout)), src_dt, dt
                )
                return kb.fma(wv, v, acc)

            with kb.loop(0, oh) as y, kb.loop(0, ow) as x:
                y0 = kb.isub(kb.imul(y, sh), pt)
                x0 = kb.isub(kb.imul(x, sw), pl)
                ky0, ky1 = tap_range(kb, y0, kh, dh, 0, h)
                kx0, kx1 = tap_range(kb, x0, kw, dw, 0, w)

                def by_channel(ic: Index, acc: list[SSAValue]) -> list[SSAValue]:
                    ci, wi = kb.iadd(base_c, ic), kb.iadd(w_i, ic)

                    def by_row(ky: Index, acc: list[SSAValue]) -> list[SSAValue]:
                        iy = kb.iadd(y0, kb.imul(ky, dh))
                        return kb.fold_loop(
                            kx0,
                            kx1,
                            acc,
                            lambda kx, a: [
                                tap(
                                    ci,
                                    wi,
                                    iy,
                                    kb.iadd(x0, kb.imul(kx, dw)),
                                    ky,
                                    kx,
                                    a[0],
                                )
                            ],
                        )

                    return kb.fold_loop(ky0, ky1, acc, by_row)

                (total,) = kb.fold_loop(0, per_group, [kb.zero(dt)], by_channel)
                idx = plane(y, x)
                if epilogue is not None:
                    total = epilogue(total, idx)
                kb.store(total, out, idx)
            return
        # rows every tap reaches, all of them in registers (see _inner_rows);
        # the other rows accumulate tap by tap below
        inner = _inner_rows(op, data, per_group, (h, w), (oh, ow), (kh, kw), src_dt)
        a, b = inner if inner is not None else (oh, oh)
        if inner is not None:
            data_buf = data.buffer
            assert data_buf is not None
            taps = [
                [
                    kb.cast(
                        weight.at(
                            [{"O": w_o, "I": w_i, "H": ky, "W": kx}[c] for c in kernel_layout]
                        ),
                        src_dt,
                        dt,
                    )
                    for kx in range(kw)
                ]
                for ky in range(kh)
            ]  # fmt: skip
            _inner_taps(
                kb,
                kb.flat(data_buf),
                kb.flat(out),
                kb.imul(kb.iadd(kb.imul(n, _c), base_c), h * w),
                kb.imul(kb.iadd(kb.imul(n, out_c), oc), oh * ow),
                taps,
                (w, a, b),
                (dh, dw, pt, pl),
                dt,
            )
        edge_rows = [(0, a), (b, oh)] if inner is not None else [(0, oh)]
        for r0, r1 in edge_rows:
            with kb.loop(r0, r1) as y, kb.loop(0, ow) as x:
                kb.store(kb.zero(dt), out, plane(y, x))
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
                for r0, r1 in edge_rows:
                    lo, hi = kb.imax(y_lo, r0), kb.imin(y_hi, r1)
                    with kb.loop(lo, kb.imax(lo, hi)) as y:
                        iy = kb.iadd(kb.imul(y, sh), y0)
                        with kb.loop(x_lo, x_hi) as x:
                            ix = kb.iadd(kb.imul(x, sw), x0)
                            at = from_nchw([n, ci, iy, ix], data_layout)
                            v = kb.cast(data.at(at), src_dt, dt)
                            idx = plane(y, x)
                            kb.store(kb.fma(wv, v, kb.load(out, idx)), out, idx)
        if epilogue is not None:
            with kb.loop(0, oh) as y, kb.loop(0, ow) as x:
                idx = plane(y, x)
                kb.store(epilogue(kb.load(out, idx), idx), out, idx)


def _inner_rows(
    op: nn.Conv2DOp,
    data: Source,
    per_group: int,
    in_hw: tuple[int, int],
    out_hw: tuple[int, int],
    kernel_hw: tuple[int, int],
    src_dt: DType,
) -> tuple[int, int] | None:
    """The output rows ``[a, b)`` of a depthwise-like plane (one input channel per
    output channel) that :func:`_inner_taps` computes (:func:`flat_inner_rows`), or
    ``None`` when it does not apply: stride 1, plain ``NCHW`` planes read from a
    buffer."""
    (sh, sw), (pt, pl, _, _), dilation, _ = op.conv_params()
    data_layout, _, out_layout = op.layouts()
    if (
        per_group != 1
        or (sh, sw) != (1, 1)
        or data_layout != "NCHW"
        or out_layout != "NCHW"
        or data.buffer is None
        or data.dtype != src_dt
    ):
        return None
    return flat_inner_rows(in_hw, out_hw, kernel_hw, dilation, (pt, pl))


def _inner_taps(
    kb: KernelBuilder,
    data: Buffer,
    out: Buffer,
    data_base: Index,
    out_base: Index,
    taps: list[list[SSAValue]],
    rows: tuple[int, int, int],
    geometry: tuple[int, int, int, int],
    dt: DType,
) -> None:
    """Output rows ``[a, b)`` of a stride-1 depthwise plane whose rows are as wide as
    the input's (``width``), as one loop over the flat positions ``q``: output ``q``
    reads input ``q + (ky*dh - pt)*width + kx*dw - pl`` for each tap, the taps
    summed in registers (in order, one fused multiply-add each, as the tap-by-tap
    planes) and stored once. A tap whose column falls outside the row (it would
    read the neighbouring row's first or last columns) is skipped by a select on
    the column. One long loop that LLVM vectorises, where loops per row of 14 or
    28 pixels stayed mostly scalar."""
    width, a, b = rows
    dh, dw, pt, pl = geometry
    window = (len(taps), len(taps[0]))
    weights = [wv for row in taps for wv in row]
    with kb.loop(a * width, b * width) as q:
        acc = kb.zero(dt)
        reads = flat_taps(kb, q, width, window, (dh, dw), (pt, pl))
        for wv, (offset, reached) in zip(weights, reads, strict=True):
            v = kb.load(data, [kb.iadd(data_base, kb.iadd(q, offset))])
            summed = kb.fma(wv, v, acc)
            acc = summed if reached is None else kb.select(reached, summed, acc)
        kb.store(acc, out, [kb.iadd(out_base, q)])


DataAt = Callable[[Index, Index, Index, Index], SSAValue]
"""``(in-channel block, input row, input column, channel in the block) -> value``."""
WeightAt = Callable[[int, Index, Index, Index, Index, int], SSAValue]
"""``(output block of the tile, in-channel block, kernel row, kernel column, channel
in block, lane) -> value``."""
OutAt = Callable[[Index, Index, Index], list[Index]]
"""``(output block of the tile, output column, lane) -> output index`` (in the
current row)."""
WeightVecAt = Callable[[int, Index, Index, Index, Index, int], SSAValue]
"""``(output block of the tile, in-channel block, kernel row, kernel column, channel
in block, lanes) -> vector`` of the ``lanes`` weights :data:`WeightAt` reads one by
one (contiguous in the weight)."""


UNROLL_CHANNELS = 4
"""Input blocks of at most this many channels (a first convolution's ``NCHW3c``)
have their channel steps unrolled in :class:`RowTiles` instead of looped."""


@dataclass(frozen=True)
class RowTiles:
    """One output row of a channel-blocked direct convolution, register-tiled.

    The row of ``out_blocks`` output-channel blocks (``lanes`` channels each) is cut
    into tiles of at most ``tile`` pixels that never overlap (when ``tile`` does not
    divide the row, tiles of two sizes: :func:`~xrelay.lowering.tiling.row_pieces`;
    one copy of the tile's code per size), so that a pass over a chunk of input
    channels may add to the sums a pass before it stored; each tile's
    ``out_blocks * size * lanes`` sums are carried as loop values
    through the reduction (input channel block, kernel row, kernel column, channel
    in the block: the reference's order for every output), then stored once through
    the epilogue. The innermost step loads the ``lanes`` weights of one tap per
    output block (contiguous: a vector) and one input value per pixel (broadcast),
    so LLVM's SLP vectoriser keeps each pixel's sums in vector registers:
    ``out_blocks * tile`` independent chains of fused multiply-adds, each input
    value used by every block.

    Every tile of a size runs the same code: the pixels (places in the tile)
    whose window can reach the padding in some tile of that size read a clamped column,
    and a ``select`` turns the value into zero outside the data, once per pixel and
    input channel (the reference pads with zeros too).

    Given the weights as vectors (``weight_vec``) and a float type held as it is
    stored (``f32``, ``f64``), the sums are carried as ``out_blocks * tile``
    vectors of ``lanes`` instead of scalars: each step loads a block's weights as
    one vector, broadcasts each pixel's input value and issues one vector
    multiply-add per (block, pixel), the same fused multiply-adds in the same order
    per output (bit for bit the scalar form's results), in an IR ``lanes`` times
    smaller for every later stage (the ``llvm`` dialect, the IR text, LLVM's
    optimisation and code generation) than the scalar sums LLVM's SLP vectoriser
    would otherwise have to gather back into vectors."""

    kb: KernelBuilder
    strides: tuple[int, int]
    pads: tuple[int, int]
    dilation: tuple[int, int]
    in_hw: tuple[int, int]
    kernel_hw: tuple[int, int]
    out_w: int
    blocks: Index
    block: int
    dt: DType
    src_dt: DType
    tile: int
    out_blocks: int = 1

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
        chunk: tuple[Index, Index] | None = None,
        stage_row: Index = 0,
        weight_vec: WeightVecAt | None = None,
    ) -> None:
        """Emit output row ``y`` of ``out_blocks`` blocks of ``lanes`` channels.
        ``stage`` (an ``[out_blocks * tile, lanes]`` buffer, from its row
        ``stage_row`` on), when the blocks' channels are not contiguous in the
        output: each tile is stored there first (contiguous stores keep LLVM
        vectorising along the channels), then copied out through the epilogue."""
        kb = self.kb
        sh, sw = self.strides
        pt, pl = self.pads
        dh, dw = self.dilation
        h, w = self.in_hw
        kh, kw = self.kernel_hw
        ow, dt, src_dt = self.out_w, self.dt, self.src_dt
        nb = self.out_blocks
        y0 = kb.isub(kb.imul(y, sh), pt)
        ky_lo, ky_hi = tap_range(kb, y0, kh, dh, 0, h)
        zero = kb.zero(dt)
        cb_lo, cb_n = (0, self.blocks) if chunk is None else chunk
        cb_hi = kb.iadd(cb_lo, cb_n)
        # vector sums: the weights given as vectors, every value held as stored
        held = dt.kind == "f" and not is_half(dt)
        vec = (
            weight_vec is not None
            and held
            and lanes > 1
            and src_dt == dt
            and out.dtype == dt
            and (stage is None or stage.dtype == dt)
        )
        width = 1 if vec else lanes  # scalars per (block, pixel) carried

        def piece(first: int, count: int, tile: int) -> None:
            """Emit the ``count`` tiles of ``tile`` pixels from column ``first``."""
            last = first + (count - 1) * tile  # the first column of the last tile
            # the columns pixel t of a tile reads, over these tiles and every
            # kernel column: from (first + t) * sw - pl to (last + t) * sw - pl +
            # (kw - 1) * dw; whether it can read left of the data, right of it
            low = [(first + t) * sw - pl < 0 for t in range(tile)]
            high = [(last + t) * sw - pl + (kw - 1) * dw >= w for t in range(tile)]

            def over_kx(
                x: Index, cb: Index, ky: Index, kx: Index, acc: list[SSAValue]
            ) -> list[SSAValue]:
                iy = kb.iadd(y0, kb.imul(ky, dh))
                ix0 = kb.isub(kb.iadd(kb.imul(x, sw), kb.imul(kx, dw)), pl)
                ixs = [kb.iadd(ix0, t * sw) for t in range(tile)]
                valid: list[SSAValue | None] = [None] * tile
                for t in range(tile):
                    checks: list[SSAValue] = []
                    if low[t]:
                        checks.append(kb.icmp("sge", ixs[t], 0))
                        ixs[t] = kb.imax(ixs[t], 0)
                    if high[t]:
                        checks.append(kb.icmp("slt", ixs[t], w))
                        ixs[t] = kb.imin(ixs[t], w - 1)
                    if checks:
                        valid[t] = (
                            checks[0]
                            if len(checks) == 1
                            else kb.logical_and(checks[0], checks[1])
                        )

                def over_ci(ci: Index, acc: list[SSAValue]) -> list[SSAValue]:
                    vs: list[SSAValue] = []
                    for t in range(tile):
                        v = kb.cast(data_at(cb, iy, ixs[t], ci), src_dt, dt)
                        ok = valid[t]
                        vs.append(v if ok is None else kb.select(ok, v, zero))
                    new: list[SSAValue] = []
                    if vec:
                        assert weight_vec is not None
                        splats = [kb.vsplat(v, lanes) for v in vs]
                        for b in range(nb):
                            wv = weight_vec(b, cb, ky, kx, ci, lanes)
                            for t in range(tile):
                                new.append(kb.mac(splats[t], wv, acc[b * tile + t]))
                        return new
                    for b in range(nb):
                        ws = [
                            kb.cast(weight_at(b, cb, ky, kx, ci, oi), src_dt, dt)
                            for oi in range(lanes)
                        ]
                        for t in range(tile):
                            for oi in range(lanes):
                                a = acc[(b * tile + t) * lanes + oi]
                                new.append(kb.mac(vs[t], ws[oi], a))
                    return new

                if self.block <= UNROLL_CHANNELS:
                    # a few channels a block (an RGB image's 3): the tap's steps
                    # one after the other, no loop around them
                    for ci in range(self.block):
                        acc = over_ci(kb.index(ci), acc)
                    return acc
                return kb.fold_loop(0, self.block, acc, over_ci)

            def taps(x: Index) -> list[SSAValue]:
                """The tile's sums over every tap: for a block of one channel, nested
                loops over (in-channel block, kernel row, kernel column), the kernel
                column innermost; otherwise one loop over the taps around the channel
                loop, the tap carried as an odometer of counters (kernel column
                fastest), a level of loop-carried sums instead of three."""
                sums = nb * tile * width
                # the kernel columns some pixel of the tile reaches inside the data
                # (a dilated kernel wider than the row reaches only its centre)
                if kw > 1 and (low[0] or high[-1]):
                    kx_lo = tap_range(
                        kb, kb.isub(kb.imul(kb.iadd(x, tile - 1), sw), pl), kw, dw, 0, w
                    )[0]
                    kx_hi = tap_range(
                        kb, kb.isub(kb.imul(x, sw), pl), kw, dw, -(kw * dw + w), w
                    )[1]
                    kx_hi = kb.imax(kx_lo, kx_hi)
                else:
                    kx_lo, kx_hi = 0, kw
                if chunk is None:
                    init = [kb.vsplat(zero, lanes) if vec else zero] * sums
                else:
                    flat_out = kb.flat(out)
                    init = []
                    for b in range(nb):
                        for t in range(tile):
                            base = kb.flat_index(out_at(b, kb.iadd(x, t), 0), out.shape)
                            if vec:
                                init.append(kb.vload(flat_out, [base], lanes))
                                continue
                            init += [
                                kb.load(flat_out, [kb.iadd(base, oi)])
                                for oi in range(lanes)
                            ]
                if self.block == 1:
                    return kb.fold_loop(
                        cb_lo,
                        cb_hi,
                        init,
                        lambda cb, a0: kb.fold_loop(
                            ky_lo,
                            ky_hi,
                            a0,
                            lambda ky, a1: kb.fold_loop(
                                kx_lo,
                                kx_hi,
                                a1,
                                lambda kx, a2: over_kx(x, cb, ky, kx, a2),
                            ),
                        ),
                    )
                # (counter's first value, its end, whether it can count past its
                # first value) per counter, fastest first
                axes = (
                    (kx_lo, kx_hi, kw > 1),
                    (ky_lo, ky_hi, kh > 1),
                    (cb_lo, cb_hi, not isinstance(cb_n, int) or cb_n > 1),
                )
                digits = [(lo, hi) for lo, hi, counts in axes if counts]

                def over_taps(_: Index, carried: list[SSAValue]) -> list[SSAValue]:
                    tap: list[Index] = [lo for lo, _, _ in axes]
                    counters = iter(carried[sums:])
                    for pos, (_, _, counts) in enumerate(axes):
                        if counts:
                            tap[pos] = next(counters)
                    kx, ky, cb = tap
                    new = over_kx(x, cb, ky, kx, carried[:sums])
                    carry: SSAValue | None = None  # the previous counter wrapped
                    for k, (lo, hi) in enumerate(digits):
                        d = carried[sums + k]
                        step = kb.index(kb.iadd(d, 1))
                        if carry is not None:
                            step = kb.select(carry, step, d)
                        if k == len(digits) - 1:  # the slowest: the loop ends there
                            new.append(step)
                            break
                        carry = kb.icmp("eq", step, hi)
                        new.append(kb.select(carry, kb.index(lo), step))
                    return new

                return kb.fold_loop(
                    0,
                    kb.imul(
                        kb.isub(ky_hi, ky_lo), kb.imul(kb.isub(kx_hi, kx_lo), cb_n)
                    ),
                    init + [kb.index(lo) for lo, _ in digits],
                    over_taps,
                )[:sums]

            def pixels(x: Index) -> None:
                acc = taps(x)
                if stage is None:
                    # the sums, then the epilogue as a loop over the tile (vectorised
                    # by LLVM along the lanes; one copy of its code, not one per output)
                    # (the lanes are contiguous in the output here: one address per pixel)
                    flat_out = kb.flat(out)
                    for b in range(nb):
                        for t in range(tile):
                            base = kb.flat_index(out_at(b, kb.iadd(x, t), 0), out.shape)
                            if vec:
                                kb.vstore(acc[b * tile + t], flat_out, [base])
                                continue
                            for oi in range(lanes):
                                kb.store(
                                    acc[(b * tile + t) * lanes + oi],
                                    flat_out,
                                    [kb.iadd(base, oi)],
                                )
                    if epilogue is not None:
                        with (
                            kb.loop(0, nb) as b,
                            kb.loop(0, tile) as t,
                            kb.loop(0, lanes) as oi,
                        ):
                            idx = out_at(b, kb.iadd(x, t), oi)
                            kb.store(epilogue(kb.load(out, idx), idx), out, idx)
                    return
                for b in range(nb):
                    for t in range(tile):
                        row = kb.iadd(stage_row, b * tile + t)
                        if vec:
                            kb.vstore(acc[b * tile + t], stage, [row, 0])
                            continue
                        for oi in range(lanes):
                            kb.store(acc[(b * tile + t) * lanes + oi], stage, [row, oi])
                with (
                    kb.loop(0, nb) as b,
                    kb.loop(0, tile) as t,
                    kb.loop(0, lanes) as oi,
                ):
                    idx = out_at(b, kb.iadd(x, t), oi)
                    row = kb.iadd(stage_row, kb.iadd(kb.imul(b, tile), t))
                    value = kb.load(stage, [row, oi])
                    if epilogue is not None:
                        value = epilogue(value, idx)
                    kb.store(value, out, idx)

            with kb.loop(first, first + count * tile, tile) as xt:
                pixels(xt)

        # no two tiles overlap (a pass may add to sums another pass stored)
        for first, count, tile in row_pieces(ow, self.tile):
            for run in edge_runs(first, count, tile, (w, kw, sw, dw, pl)):
                piece(*run)


def edge_runs(
    first: int, count: int, tile: int, geometry: tuple[int, int, int, int, int]
) -> list[tuple[int, int, int]]:
    """The ``count`` tiles of ``tile`` pixels from column ``first`` as runs of
    ``(first, count, tile)``, each one copy of the tile's code. When the run's
    tiles would read more than one clamped column (pixels of the first tile
    left of the data, of the last one right of it, counted over the run: the
    code is the same for every tile), the tiles at either end whose window can
    reach the padding are split from those between, which then read the data
    with no clamped column and no ``select``: a 7x7 stride-2 first convolution
    has 2 of the 6 pixels of its first tile in the padding (on AVX2: 68 -> 78
    GFLOP/s). A 3x3 convolution (one such pixel at each end of the row) keeps
    one run: splitting it ran no faster and its code would grow by half.
    ``geometry``: the input width, kernel width, stride, dilation and left
    padding of the row."""
    w, kw, sw, dw, pl = geometry
    last = first + (count - 1) * tile
    low = sum((first + t) * sw - pl < 0 for t in range(tile))
    high = sum((last + t) * sw - pl + (kw - 1) * dw >= w for t in range(tile))
    if low + high < 2:
        return [(first, count, tile)]

    def edge(k: int) -> bool:
        x = first + k * tile
        return x * sw - pl < 0 or (x + tile - 1) * sw - pl + (kw - 1) * dw >= w

    lead = 0
    while lead < count and edge(lead):
        lead += 1
    trail = 0
    while trail < count - lead and edge(count - 1 - trail):
        trail += 1
    runs = [
        (first, lead, tile),
        (first + lead * tile, count - lead - trail, tile),
        (first + (count - trail) * tile, trail, tile),
    ]
    return [run for run in runs if run[1] > 0]


def tile_blocks(blocks: int, block_bytes: int) -> int:
    """How many output blocks (of ``blocks`` in a group, ``block_bytes`` each) a
    row tile sums at once. Full-vector blocks: two when they pair up and that
    gives a tile at least as many sums as one block
    (:func:`~xrelay.lowering.tiling.row_tile_bound`): on AVX-512 two 16-channel
    blocks of 7 pixels (14 sums), on AVX2 one 16-channel block (two vectors) of 6
    pixels (12 sums; two blocks: 2 pixels, 8 sums). Narrower blocks (8
    channels on AVX-512, 4 on AVX2): the largest divisor of ``blocks`` up to ``2 *
    vector / block + 1``, so that each input value broadcast feeds several
    multiply-adds; with one block (or pixel pairs merged into full vectors by
    LLVM's SLP vectoriser, which then needs a shuffle per multiply-add) RegNet's
    440-channel 1x1 convolutions ran at 53 GFLOP/s, with five blocks at 85 (the
    448-channel one, 16-lane blocks: 85)."""
    vector = host_vector_unit().bytes
    if block_bytes >= vector:
        if blocks % 2:
            return 1

        def sums(nb: int) -> int:
            return nb * tiling.row_tile_bound(nb, block_bytes, 1)

        return 2 if sums(2) >= sums(1) else 1
    most = 2 * vector // max(1, block_bytes) + 1
    return max(d for d in range(1, min(most, blocks) + 1) if blocks % d == 0)


def weight_row(
    kb: KernelBuilder,
    weight: Source,
    lead: Callable[[int], list[Index]],
    has_ci: bool = True,
) -> WeightAt:
    """:data:`WeightAt` for a weight ``[*lead(b), cb, ky, kx, (ci,) lane]`` (``b``:
    the output block of the tile) whose lanes are contiguous: a stored weight is
    read through its 1-D view, one address computation per tap and the lanes at
    constant offsets from it (cached per tap, since the lanes are read one after
    the other)."""
    buf = weight.buffer
    last: dict[str, Any] = {}

    def at(b: int, cb: Index, ky: Index, kx: Index, ci: Index, oi: int) -> SSAValue:
        idx = [*lead(b), cb, ky, kx, *([ci] if has_ci else []), 0]
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
            last["base"] = kb.flat_index(idx, buf.dims)
        flat = kb.flat(buf)
        return kb.load(flat, [kb.iadd(last["base"], oi)])

    return at


def weight_vector(
    kb: KernelBuilder,
    weight: Source,
    lead: Callable[[int], list[Index]],
    has_ci: bool = True,
) -> WeightVecAt | None:
    """:data:`WeightVecAt` for the weight :func:`weight_row` reads (the same
    layout): the lanes of a tap as one vector load from its 1-D view; ``None``
    when the weight is not stored in a buffer or not in a vector type."""
    buf = weight.buffer
    if buf is None or buf.dtype.kind != "f" or is_half(buf.dtype):
        return None

    def at(b: int, cb: Index, ky: Index, kx: Index, ci: Index, lanes: int) -> SSAValue:
        idx = [*lead(b), cb, ky, kx, *([ci] if has_ci else []), 0]
        return kb.vload(kb.flat(buf), [kb.flat_index(idx, buf.dims)], lanes)

    return at


def _tiled_plain_conv(op: nn.Conv2DOp, src_dt: DType, dt: DType) -> bool:
    """Whether :func:`conv2d_tiled` handles ``op``: a float convolution, ungrouped or
    grouped with more than one output channel per group (one per group: the planes
    kernel, vectorised along the rows), and tiling not turned off."""
    return (
        dt.kind == "f"
        and src_dt.kind == "f"
        and os.environ.get("XRELAY_TILE_ROWS", "").strip() != "1"
    )


def _plain_lanes(dt: DType) -> int:
    return max(1, host_vector_unit().bytes // dt.itemsize)


PLAIN_SCRATCH_BYTES = 2 << 20
"""Budget of :func:`conv2d_tiled`'s repacked weights: one copy of a block's weights
per iteration of its parallel nest, so at most this many bytes in all (fewer row
groups otherwise)."""


@dataclass(frozen=True)
class _PlainTasks:
    """How :func:`conv2d_tiled` shares out its work: ``blocks`` output blocks (of
    ``lanes`` channels, the blocks of each group's channels) times ``row_groups``
    groups of ``rows`` output rows; each iteration repacks its block's weights
    into its own slice of the scratch and stages its tiles in its own rows."""

    lanes: int
    per_group: int
    blocks: int
    rows: int
    row_groups: int
    tile: int

    @property
    def iterations(self) -> int:
        return self.blocks * self.row_groups


def _plain_tasks(
    op: nn.Conv2DOp,
    data: tuple[int, ...],
    weight: tuple[int, ...],
    out: tuple[int, ...],
    dt: DType,
) -> _PlainTasks:
    _, (_, i, kh, kw), _, out_c = op.geometry(data, weight)
    groups = op.conv_params()[3]
    lanes = _plain_lanes(dt)
    _, _, oh, ow = to_nchw(out, op.layouts()[2])
    assert isinstance(ow, int)
    assert isinstance(oh, int)
    assert isinstance(out_c, int)
    tile = split_row_tile(ow, 1, lanes, dt.itemsize)
    per_group = -(-(out_c // groups) // lanes)
    blocks = groups * per_group
    rows = conv_row_group(oh, blocks)
    block_bytes = i * kh * kw * lanes * dt.itemsize
    most = max(1, PLAIN_SCRATCH_BYTES // max(1, blocks * block_bytes))
    row_groups = min(-(-oh // rows), most)
    rows = -(-oh // row_groups)
    return _PlainTasks(lanes, per_group, blocks, rows, -(-oh // rows), tile)


def _conv2d_scratch(
    op: RelayOp, operands: list[TensorInfo], results: list[TensorInfo]
) -> list[TensorInfo]:
    """The repacked weights ``[iterations, I, KH, KW, L]`` of :func:`conv2d_tiled`
    (one block's weights per iteration of its parallel nest) and its staging
    buffer ``[iterations * tile, L]``."""
    assert isinstance(op, nn.Conv2DOp)
    dt = results[0][1]
    if not _tiled_plain_conv(op, operands[0][1], dt):
        return []
    _, (_, i, kh, kw), depthwise, out_c = op.geometry(operands[0][0], operands[1][0])
    groups = op.conv_params()[3]
    if depthwise or out_c // groups < 2:
        return []
    tasks = _plain_tasks(op, operands[0][0], operands[1][0], results[0][0], dt)
    its, lanes = tasks.iterations, tasks.lanes
    return [((its, i, kh, kw, lanes), dt), ((its * tasks.tile, lanes), dt)]


def conv2d_tiled(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    """A float ``conv2d`` in any layout, register-tiled like the blocked kernel
    (:class:`RowTiles`, one output block per tile), each input channel its own
    block. The threads share out (output block, group of output rows) pairs
    (:func:`_plain_tasks`); each first repacks its block's weights into its own
    slice of the scratch as ``[I, KH, KW, L]`` (``L`` = the host's vector lanes,
    the blocks of each group's output channels, the last one of a group partial
    and padded with zeros; a copy per row group, small next to the rows'
    products), then computes its rows of every batch entry, staging each tile in
    its own rows of the staging buffer. A grouped convolution's blocks read their
    group's input channels. This is how a first convolution on 3-channel images
    (which AlterOpLayout leaves in ``NCHW``), and ShuffleNet's convolutions whose
    channels take no block, run at vector speed on every thread."""
    op = cx.op
    assert isinstance(op, nn.Conv2DOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    packed, stage = cx.scratch
    data_layout, kernel_layout, out_layout = op.layouts()
    (sh, sw), (pt, pl, _, _), (dh, dw), groups = op.conv_params()
    (n_, _, h, w), (_, c_, kh, kw), _, out_c = op.geometry(data.shape, weight.shape)
    _, _, oh, ow = to_nchw(out.shape, out_layout)
    assert isinstance(ow, int)
    assert isinstance(oh, int)
    assert isinstance(out_c, int)
    assert isinstance(c_, int)
    dt = out.dtype
    tasks = _plain_tasks(op, data.shape, weight.shape, out.shape, dt)
    lanes, per_g = tasks.lanes, tasks.per_group
    out_g = out_c // groups  # output channels per group; c_: input channels per group
    full = out_g // lanes
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
        tasks.tile,
    )

    with kb.parallel([groups, per_g, tasks.row_groups]) as (g, ob, rg):
        it = kb.iadd(kb.imul(kb.iadd(kb.imul(g, per_g), ob), tasks.row_groups), rg)
        # this block's weights, the channels past the group's end as zeros
        with kb.loop(0, lanes) as j, kb.nest([c_, kh, kw]) as (ic, ky, kx):
            jj = kb.iadd(kb.imul(ob, lanes), j)
            oc = kb.iadd(kb.imul(g, out_g), kb.imin(jj, out_g - 1))
            logical = {"O": oc, "I": ic, "H": ky, "W": kx}
            wv = kb.cast(
                weight.at([logical[a] for a in kernel_layout]), weight.dtype, dt
            )
            if out_g % lanes:
                wv = kb.select(kb.icmp("slt", jj, out_g), wv, kb.zero(dt))
            kb.store(wv, packed, [it, ic, ky, kx, j])
        c0 = 0 if groups == 1 else kb.imul(g, c_)  # the group's first input channel
        o0 = kb.iadd(kb.imul(g, out_g), kb.imul(ob, lanes))
        y_lo = kb.imul(rg, tasks.rows)
        y_hi = kb.imin(kb.iadd(y_lo, tasks.rows), oh)

        def block(nl: int) -> list[SSAValue]:
            with kb.loop(0, n_) as n, kb.loop(y_lo, y_hi) as y:
                rows.emit(
                    y,
                    nl,
                    lambda cb, iy, ix, _: data.at(
                        from_nchw([n, kb.iadd(c0, cb), iy, ix], data_layout)
                    ),
                    weight_row(
                        kb, BufferSource(kb, packed), lambda _: [it], has_ci=False
                    ),
                    lambda _, x, oi: from_nchw([n, kb.iadd(o0, oi), y, x], out_layout),
                    out,
                    epilogue,
                    stage,
                    stage_row=kb.imul(it, tasks.tile),
                    weight_vec=weight_vector(
                        kb, BufferSource(kb, packed), lambda _: [it], has_ci=False
                    ),
                )
            return []

        if out_g % lanes == 0:
            block(lanes)
        elif full == 0:
            block(out_g % lanes)
        else:
            kb.if_(
                kb.icmp("slt", ob, full),
                lambda: block(lanes),
                lambda: block(out_g % lanes),
            )


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
    (the ``y`` channels of an output block are the vector lanes). Grouped: each
    output block reads the input blocks of its group (the kernel ``[O/y, (C/G)/x,
    ...]``); depthwise (kernel ``[C/y, 1, KH, KW, 1, y]``): :func:`depthwise_nchwc`."""
    from xrelay.lowering.kernels.int16 import conv2d_nchwc_int16

    if conv2d_nchwc_int16(cx, out, epilogue):  # int16 pair products (pmaddwd)
        return
    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    (sh, sw), (pt, pl, _, _), (dh, dw), groups = op.conv_params()
    n_, _, h, w, x_blk = data.shape
    ob_n, cb_n, kh, kw, w_x, y_blk = weight.shape
    if groups > 1 and w_x == 1 and x_blk == y_blk and cb_n == 1 and x_blk > 1:
        depthwise_nchwc(cx, out, epilogue)
        return
    if pointwise_nchwc(cx, out, epilogue):
        return
    _, _, oh, ow, _ = out.shape
    dt = out.dtype
    # the count of input-channel blocks: cb_n, or an argument of a kernel shared by
    # convolutions that differ in it (lowering.group.channel_blocks), whose tiling
    # is then chosen for its largest count, cb_n
    blocks: Index = cb_n
    if data.buffer is not None and data.buffer.runtime is not None:
        blocks = data.buffer.dims[1]
    # a group's output blocks read the group's input blocks (cb_n of them, from
    # the group's first one): no block straddles two groups
    ob_per_group = ob_n // groups
    nb = tile_blocks(ob_per_group, y_blk * dt.itemsize)
    tile = split_row_tile(ow, nb, y_blk, dt.itemsize)
    rows = RowTiles(
        kb,
        (sh, sw),
        (pt, pl),
        (dh, dw),
        (h, w),
        (kh, kw),
        ow,
        blocks,
        x_blk,
        dt,
        data.dtype,
        tile,
        nb,
    )
    # The rows of a group are summed one pass per chunk of input-channel blocks
    # (the chunk's weights stay in the L1 cache while every tile of the group reads
    # them), the partial sums kept in the output: zeroed first, loaded and stored by
    # every pass (in the order of the reference's sums), then the epilogue (the
    # tiles of a row never overlap: :func:`~xrelay.lowering.tiling.row_pieces`).
    # A count known at run time only: as
    # many blocks as fit the budget (the largest count's chunk need not divide
    # the others), the last chunk cut at the count.
    block_bytes = nb * kh * kw * x_blk * y_blk * weight.dtype.itemsize
    if isinstance(blocks, int):
        chunk = conv_chunk(cb_n, block_bytes)
    else:
        chunk = max(1, min(cb_n, tiling.CONV_CHUNK_BYTES // block_bytes))
    # the epilogue of a one-pass row runs over the whole row once it is summed (one
    # long loop: a SiLU's is latency-bound in the short loops of a tile) when the
    # row stays in the L1 cache next to the input rows and weights it was summed
    # from; otherwise after each tile
    row_epilogue = (
        nb * ow * y_blk * dt.itemsize
        + cb_n * x_blk * ((kh - 1) * dh + 1) * w * data.dtype.itemsize
        + cb_n * block_bytes
        <= tiling.L1_BYTES
    )
    group = conv_row_group(oh, n_ * (ob_n // nb))
    with kb.parallel([n_, ob_n // nb, -(-oh // group)]) as (n, obp, g):
        ob = kb.imul(obp, nb)
        cb_base = 0 if groups == 1 else kb.imul(kb.idiv(ob, ob_per_group), cb_n)

        def data_at(cb: Index, iy: Index, ix: Index, ci: Index) -> SSAValue:
            return data.at([n, kb.iadd(cb, cb_base), iy, ix, ci])

        y_lo = kb.imul(g, group)
        y_hi = kb.imin(kb.iadd(y_lo, group), oh)

        @contextlib.contextmanager
        def plane() -> Generator[list[Index], None, None]:
            with (
                kb.loop(0, nb) as b,
                kb.loop(y_lo, y_hi) as y,
                kb.loop(0, ow) as x,
                kb.loop(0, y_blk) as oi,
            ):
                yield [n, kb.iadd(ob, b), y, x, oi]

        if chunk == cb_n:  # one pass: the sums start at zero, then the epilogue
            with kb.loop(y_lo, y_hi) as y:
                rows.emit(
                    y,
                    y_blk,
                    data_at,
                    weight_row(kb, weight, lambda b: [kb.iadd(ob, b)]),
                    lambda b, x, oi: [n, kb.iadd(ob, b), y, x, oi],
                    out,
                    None if row_epilogue else epilogue,
                    weight_vec=weight_vector(kb, weight, lambda b: [kb.iadd(ob, b)]),
                )
                if epilogue is not None and row_epilogue:
                    with (
                        kb.loop(0, nb) as b,
                        kb.loop(0, ow) as x,
                        kb.loop(0, y_blk) as oi,
                    ):
                        idx = [n, kb.iadd(ob, b), y, x, oi]
                        kb.store(epilogue(kb.load(out, idx), idx), out, idx)
            return
        with plane() as idx:
            kb.store(kb.zero(dt), out, idx)
        with kb.loop(0, blocks, chunk) as cb0, kb.loop(y_lo, y_hi) as y:
            size = (
                chunk
                if isinstance(blocks, int)
                else kb.imin(chunk, kb.isub(blocks, cb0))
            )
            rows.emit(
                y,
                y_blk,
                data_at,
                weight_row(kb, weight, lambda b: [kb.iadd(ob, b)]),
                lambda b, x, oi: [n, kb.iadd(ob, b), y, x, oi],
                out,
                None,
                chunk=(cb0, size),
                weight_vec=weight_vector(kb, weight, lambda b: [kb.iadd(ob, b)]),
            )
        if epilogue is not None:
            with plane() as idx:
                kb.store(epilogue(kb.load(out, idx), idx), out, idx)


POINTWISE_MIN_CHANNELS = 64
"""Fewest input channels :func:`pointwise_nchwc` takes a 1x1 convolution with: below,
the row tiles are faster (16 -> 96 on 112 x 112: 85 against 68 GFLOP/s; 48 -> 288 on
14 x 14: 95 against 89), at 56-64 the two are even, from 80 on the matrix product
wins (80 -> 480 on 14 x 14: 94 against 88; one thread, AVX2)."""

POINTWISE_GROUP_BYTES = 128 << 10
"""Most input bytes a group of row tiles of :func:`pointwise_nchwc` reads: the
column tiles of a group follow each other (in one thread's chunk of the parallel
nest), each reading the group's inputs again, from the L2 cache when they fit."""

POINTWISE_EPILOGUE_BYTES = 8 << 10
"""Most output bytes one iteration of :func:`pointwise_nchwc` sums before it runs
the epilogue over them (in the L1 cache then)."""


def pointwise_nchwc(
    cx: OpContext, out: Buffer, epilogue: Epilogue | None = None
) -> bool:
    """A 1x1, stride-1, unpadded, ungrouped float ``contrib_conv2d_NCHWc`` as the
    matrix product it is: ``out[p, o] = sum_i data[p, i] * weight[i, o]`` over the
    pixels ``p`` of a batch entry taken as one flat axis (rows do not matter to a
    1x1 kernel), in register tiles of ``mr`` pixels times ``nv`` host vectors of
    output channels (:func:`~xrelay.lowering.tiling.pointwise_tile`: 6 x 2 on AVX2,
    twelve sums, where row tiles of a 7-wide row held 2 pixels of 2 blocks). The
    reduction runs over the input-channel blocks (their count may be known at run
    time only: a kernel shared by the 1x1 convolutions after DenseNet's
    concatenations) and the channels of a block, in the reference's order; each step
    broadcasts ``mr`` inputs and loads ``nv`` weight vectors (the weight
    ``[O/y, C/x, 1, 1, x, y]`` is contiguous along the input channels of an output
    block). The threads share out (batch entry, column tile, group of row tiles); a
    group holds at most :data:`POINTWISE_EPILOGUE_BYTES` of outputs when there is an
    epilogue, which then runs over the group's outputs in one loop.

    ``False`` (nothing emitted) for any other convolution, fewer than
    :data:`POINTWISE_MIN_CHANNELS` input channels (the largest count of a shared
    kernel), operands not stored in buffers of the output's ``f32`` / ``f64`` dtype,
    or output blocks that are not whole host vectors."""
    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    (sh, sw), pads, _, groups = op.conv_params()
    n_, cb_n, h, w, x_blk = data.shape
    ob_n, _, kh, kw, _, y_blk = weight.shape
    _, _, oh, ow, _ = out.shape
    dt = out.dtype
    data_buf, weight_buf = data.buffer, weight.buffer
    lanes = max(1, host_vector_unit().bytes // max(1, dt.itemsize))
    if (
        groups != 1
        or (kh, kw, sh, sw) != (1, 1, 1, 1)
        or any(pads)
        or (oh, ow) != (h, w)
        or data_buf is None
        or weight_buf is None
        or dt.kind != "f"
        or dt.itemsize < 4
        or data.dtype != dt
        or weight.dtype != dt
        or y_blk % lanes
        or cb_n * x_blk < POINTWISE_MIN_CHANNELS
        or out.runtime is not None
        or n_ * oh * ow * ob_n == 0
    ):
        return False
    blocks: Index = cb_n
    if data_buf.runtime is not None:
        blocks = data_buf.dims[1]
    w_blocks = weight_buf.dims[1]
    per_block = y_blk // lanes
    vectors = ob_n * per_block
    pixels = oh * ow
    mr, nv = pointwise_tile(pixels, vectors)
    full, rest = divmod(pixels, mr)
    row_tiles = full + (1 if rest else 0)
    col_tiles = vectors // nv
    # a group's inputs stay in the L2 cache while every column tile reads them
    per_group = min(
        conv_row_group(row_tiles, n_ * col_tiles),
        max(1, POINTWISE_GROUP_BYTES // (mr * cb_n * x_blk * dt.itemsize)),
    )
    if epilogue is not None:
        per_group = min(
            per_group,
            max(1, POINTWISE_EPILOGUE_BYTES // (mr * nv * lanes * dt.itemsize)),
        )
    groups_n = -(-row_tiles // per_group)
    d_flat, w_flat, o_flat = kb.flat(data_buf), kb.flat(weight_buf), kb.flat(out)
    zero = kb.vsplat(kb.zero(dt), lanes)

    def vector_at(v: Index) -> tuple[Index, Index]:
        """Output block and first lane of output vector ``v``."""
        if per_block == 1:
            return v, 0
        ob = kb.udiv(v, per_block)
        return ob, kb.imul(kb.isub(v, kb.imul(ob, per_block)), lanes)

    def tile(n: Index, p0: Index, rows: int, v0: Index) -> None:
        w_bases: list[Index] = []
        o_bases: list[Index] = []
        for j in range(nv):
            ob, lane0 = vector_at(kb.iadd(v0, j))
            w_bases.append(
                kb.iadd(kb.imul(kb.imul(ob, w_blocks), x_blk * y_blk), lane0)
            )
            o_bases.append(
                kb.iadd(
                    kb.imul(
                        kb.iadd(kb.imul(kb.iadd(kb.imul(n, ob_n), ob), pixels), p0),
                        y_blk,
                    ),
                    lane0,
                )
            )

        def over_cb(cb: Index, acc: list[SSAValue]) -> list[SSAValue]:
            d_base = kb.imul(
                kb.iadd(kb.imul(kb.iadd(kb.imul(n, blocks), cb), pixels), p0), x_blk
            )
            k0 = kb.imul(cb, x_blk)

            def over_ci(ci: Index, acc: list[SSAValue]) -> list[SSAValue]:
                k = kb.imul(kb.iadd(k0, ci), y_blk)
                bs = [kb.vload(w_flat, [kb.iadd(wb, k)], lanes) for wb in w_bases]
                new = list(acc)
                for r in range(rows):
                    at = kb.iadd(d_base, kb.iadd(ci, r * x_blk))
                    a = kb.vsplat(kb.load(d_flat, [at]), lanes)
                    for j in range(nv):
                        new[r * nv + j] = kb.mac(a, bs[j], new[r * nv + j])
                return new

            return kb.fold_loop(0, x_blk, acc, over_ci)

        sums = kb.fold_loop(0, blocks, [zero] * (rows * nv), over_cb)
        for r in range(rows):
            for j in range(nv):
                kb.vstore(sums[r * nv + j], o_flat, [kb.iadd(o_bases[j], r * y_blk)])

    with kb.parallel([n_, groups_n, col_tiles]) as (n, g, ct):
        v0 = kb.imul(ct, nv)
        t_lo = kb.imul(g, per_group)
        with kb.loop(t_lo, kb.imin(kb.iadd(t_lo, per_group), full)) as t:
            tile(n, kb.imul(t, mr), mr, v0)
        if rest:

            def last() -> list[SSAValue]:
                tile(n, full * mr, rest, v0)
                return []

            if groups_n == 1:
                last()
            else:
                kb.if_(kb.icmp("eq", g, groups_n - 1), last)
        if epilogue is not None:
            p_lo = kb.imul(t_lo, mr)
            p_hi = kb.imin(kb.iadd(p_lo, per_group * mr), pixels)
            if nv % per_block == 0:  # whole blocks: each pixel's lanes in a run
                runs = [
                    (kb.iadd(kb.udiv(v0, per_block), b), 0, y_blk)
                    for b in range(nv // per_block)
                ]
            else:
                runs = [(*vector_at(kb.iadd(v0, j)), lanes) for j in range(nv)]
            for ob, lane0, count in runs:
                with (
                    kb.loop(
                        kb.udiv(p_lo, ow), kb.iadd(kb.udiv(kb.isub(p_hi, 1), ow), 1)
                    ) as y,
                    kb.loop(
                        kb.imax(kb.isub(p_lo, kb.imul(y, ow)), 0),
                        kb.imin(kb.isub(p_hi, kb.imul(y, ow)), ow),
                    ) as x,
                    kb.loop(0, count) as c,
                ):
                    idx = [n, ob, y, x, kb.iadd(lane0, c)]
                    kb.store(epilogue(kb.load(out, idx), idx), out, idx)
    return True


@materialize(nn.Conv2DNCHWcOp)
def _conv2d_nchwc(cx: OpContext, outs: list[Buffer]) -> None:
    conv2d_nchwc(cx, outs[0])


with_epilogue(nn.Conv2DNCHWcOp)(conv2d_nchwc)
# the int16 kernels stage their sums: their epilogue may store 8-bit values
scratch(nn.Conv2DNCHWcOp)(conv_stage)
epilogue_casts(nn.Conv2DNCHWcOp)(casting_epilogue)


def tile_edges(
    ow: int, w: int, tile: int, kw: int, sw: int, dw: int, pl: int
) -> tuple[int, int, list[list[bool]], list[list[bool]]]:
    """The pixel tiles of a depthwise output row: their count, the first column of
    the last one (moved back to end with the row), and per (pixel of the tile,
    kernel column) whether some tile reads left of the data (``low``) or right of
    it (``high``)."""
    last = ow - tile
    low = [[t * sw + kx * dw - pl < 0 for kx in range(kw)] for t in range(tile)]
    high = [
        [(last + t) * sw + kx * dw - pl >= w for kx in range(kw)] for t in range(tile)
    ]
    return -(-ow // tile), last, low, high


def padded_column(
    kb: KernelBuilder, ix: Index, w: int, low: bool, high: bool
) -> tuple[Index, SSAValue | None]:
    """Input column ``ix`` of a depthwise tap clamped into ``[0, w)`` where it may
    fall in the padding (``low``: left of 0, ``high``: at or past ``w``), and the
    condition under which the tap reads real data (None: it always does)."""
    checks: list[SSAValue] = []
    if low:
        checks.append(kb.icmp("sge", ix, 0))
        ix = kb.imax(ix, 0)
    if high:
        checks.append(kb.icmp("slt", ix, w))
        ix = kb.imin(ix, w - 1)
    if not checks:
        return ix, None
    ok = checks[0] if len(checks) == 1 else kb.logical_and(checks[0], checks[1])
    return ix, ok


def depthwise_nchwc(
    cx: OpContext, out: Buffer, epilogue: Epilogue | None = None
) -> None:
    """A depthwise ``contrib_conv2d_NCHWc`` (data and output ``[N, C/c, H, W, c]``,
    kernel ``[C/c, 1, KH, KW, 1, c]``): every output channel reads its own input
    channel, so the ``c`` channels of a block are the vector lanes of the inputs,
    the weights and the sums alike.

    The threads share out (batch entry, channel block, group of output rows). The
    ``c`` channels of a block are cut into parts of one host vector each
    (:func:`depthwise_vector`: 16 channels are two parts on AVX2, one on AVX-512), and
    an output row of one part is cut into tiles of pixels
    (:func:`~xrelay.lowering.tiling.depthwise_tile`, the last tile moved back to end
    with the row) whose ``tile`` sums stay in registers through an ``scf`` loop over
    the kernel rows that reach the data: one register per pixel, so a tile holds as
    many pixels as the registers allow (7 at stride 1 on AVX2, where whole 16-channel
    pixels gave tiles of 4), and with stride 1 neighbouring pixels share their input
    loads. Each kernel row is a vector FMA per pixel and kernel
    column, the columns written out; a pixel whose window can reach the padding at
    that column (in some tile) reads a clamped column and a ``select`` makes the
    vector zero outside the data. The epilogue runs over each output row once its
    parts are stored (a long loop: sigmoid-like epilogues are bound by their
    latency in short ones). Stored ``f32`` / ``f64`` operands only (the others:
    :func:`_depthwise_nchwc_scalars`)."""
    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    dt, src_dt = out.dtype, data.dtype
    data_buf, weight_buf = data.buffer, weight.buffer
    if (
        data_buf is None
        or weight_buf is None
        or dt != src_dt
        or weight.dtype != dt
        or dt.kind != "f"
        or dt.itemsize < 4
    ):
        _depthwise_nchwc_scalars(cx, out, epilogue)
        return
    (sh, sw), (pt, pl, _, _), (dh, dw), _ = op.conv_params()
    n_, cb_n, h, w, lanes = data.shape
    _, _, kh, kw, _, _ = weight.shape
    _, _, oh, ow, _ = out.shape
    width = depthwise_vector(lanes, dt)
    parts = lanes // width
    tile = depthwise_tile(ow, sw)
    tiles, last, low, high = tile_edges(ow, w, tile, kw, sw, dw, pl)
    zero = kb.vsplat(kb.zero(dt), width)
    flat_w, flat_in, flat_out = kb.flat(weight_buf), kb.flat(data_buf), kb.flat(out)
    group = conv_row_group(oh, n_ * cb_n)
    with kb.parallel([n_, cb_n, -(-oh // group)]) as (n, cb, g):
        y_lo = kb.imul(g, group)
        y_hi = kb.imin(kb.iadd(y_lo, group), oh)
        with kb.loop(y_lo, y_hi) as y:
            y0 = kb.isub(kb.imul(y, sh), pt)
            ky_lo, ky_hi = tap_range(kb, y0, kh, dh, 0, h)
            out_row = kb.flat_index([n, cb, y, 0, 0], out.shape)
            with (
                kb.loop(0, tiles * tile, tile) as xt,
                kb.loop(0, parts) as part,
            ):
                x = xt if ow % tile == 0 else kb.imin(xt, last)
                x0 = kb.isub(kb.imul(x, sw), pl)
                lane0 = kb.imul(part, width)

                def row(ky: Index, acc: list[SSAValue]) -> list[SSAValue]:
                    iy = kb.iadd(y0, kb.imul(ky, dh))
                    row_at = kb.iadd(
                        kb.flat_index([n, cb, iy, 0, 0], data.shape), lane0
                    )
                    w_at = kb.iadd(
                        kb.flat_index([cb, 0, ky, 0, 0, 0], weight.shape), lane0
                    )
                    acc = list(acc)
                    for kx in range(kw):
                        wv = kb.vload(flat_w, [kb.iadd(w_at, kx * lanes)], width)
                        for t in range(tile):
                            ix, ok = padded_column(
                                kb,
                                kb.iadd(x0, t * sw + kx * dw),
                                w,
                                low[t][kx],
                                high[t][kx],
                            )
                            at = kb.iadd(row_at, kb.imul(ix, lanes))
                            v = kb.vload(flat_in, [at], width)
                            if ok is not None:
                                v = kb.select(ok, v, zero)
                            acc[t] = kb.mac(v, wv, acc[t])
                    return acc

                acc = kb.fold_loop(ky_lo, ky_hi, [zero] * tile, row)
                base = kb.iadd(kb.iadd(out_row, kb.imul(x, lanes)), lane0)
                for t in range(tile):
                    kb.vstore(acc[t], flat_out, [kb.iadd(base, t * lanes)])
            if epilogue is not None:
                # over the whole row once its sums are stored (still in the L1
                # cache): one long loop, whose iterations the core overlaps
                with kb.loop(0, ow) as x, kb.loop(0, lanes) as c:
                    idx = [n, cb, y, x, c]
                    kb.store(epilogue(kb.load(out, idx), idx), out, idx)


def depthwise_vector(block: int, dt: DType) -> int:
    """Lanes of the vectors :func:`depthwise_nchwc` computes a block of ``block``
    channels of ``dt`` in: the host's vector lanes when they divide the block
    (parts of a block), else the largest divisor of the block below them (the whole
    block when it fits a vector)."""
    lanes = max(1, host_vector_unit().bytes // dt.itemsize)
    return max(d for d in range(1, min(lanes, block) + 1) if block % d == 0)


def _depthwise_nchwc_scalars(
    cx: OpContext, out: Buffer, epilogue: Epilogue | None = None
) -> None:
    """:func:`depthwise_nchwc` for operands that are not stored ``f32`` / ``f64``
    buffers of one dtype (``f16``, mixed dtypes, an inlined producer): the same
    tiles, each lane a scalar and the kernel columns unrolled."""
    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    (sh, sw), (pt, pl, _, _), (dh, dw), _ = op.conv_params()
    n_, cb_n, h, w, lanes = data.shape
    _, _, kh, kw, _, _ = weight.shape
    _, _, oh, ow, _ = out.shape
    dt, src_dt = out.dtype, data.dtype
    tile = row_tile(ow, 1, lanes, dt.itemsize)
    tiles, last, low, high = tile_edges(ow, w, tile, kw, sw, dw, pl)
    zero = kb.zero(dt)
    flat_w = kb.flat(weight.buffer) if weight.buffer is not None else None
    group = conv_row_group(oh, n_ * cb_n)
    with kb.parallel([n_, cb_n, -(-oh // group)]) as (n, cb, g):
        y_lo = kb.imul(g, group)
        y_hi = kb.imin(kb.iadd(y_lo, group), oh)
        flat_out = kb.flat(out)
        with kb.loop(y_lo, y_hi) as y, kb.loop(0, tiles * tile, tile) as xt:
            x = xt if ow % tile == 0 else kb.imin(xt, last)
            y0 = kb.isub(kb.imul(y, sh), pt)
            ky_lo, ky_hi = tap_range(kb, y0, kh, dh, 0, h)
            x0 = kb.isub(kb.imul(x, sw), pl)

            def row(ky: Index, acc: list[SSAValue]) -> list[SSAValue]:
                iy = kb.iadd(y0, kb.imul(ky, dh))
                acc = list(acc)
                for kx in range(kw):
                    if flat_w is not None:
                        base = kb.flat_index([cb, 0, ky, kx, 0, 0], weight.shape)
                        ws = [kb.load(flat_w, [kb.iadd(base, c)]) for c in range(lanes)]
                    else:
                        ws = [weight.at([cb, 0, ky, kx, 0, c]) for c in range(lanes)]
                    ws = [kb.cast(v, src_dt, dt) for v in ws]
                    for t in range(tile):
                        ix, ok = padded_column(
                            kb,
                            kb.iadd(x0, t * sw + kx * dw),
                            w,
                            low[t][kx],
                            high[t][kx],
                        )
                        for c in range(lanes):
                            v = kb.cast(data.at([n, cb, iy, ix, c]), src_dt, dt)
                            if ok is not None:
                                v = kb.select(ok, v, zero)
                            acc[t * lanes + c] = kb.mac(v, ws[c], acc[t * lanes + c])
                return acc

            acc = kb.fold_loop(ky_lo, ky_hi, [zero] * (tile * lanes), row)
            for t in range(tile):
                base = kb.flat_index([n, cb, y, kb.iadd(x, t), 0], out.shape)
                for c in range(lanes):
                    kb.store(acc[t * lanes + c], flat_out, [kb.iadd(base, c)])
            if epilogue is not None:
                with kb.loop(0, tile) as t, kb.loop(0, lanes) as c:
                    idx = [n, cb, y, kb.iadd(x, t), c]
                    kb.store(epilogue(kb.load(out, idx), idx), out, idx)
