"""Integer convolutions on int16 operands with int32 sums, at the host's integer
speed: the form ``relay.qnn.transform.Legalize`` gives the 8-bit QNN convolutions
(``x - zero_point`` in int16, exact).

x86's ``pmaddwd`` multiplies two vectors of int16 pairwise and adds each pair of
neighbouring products into one int32 lane: ``2 * lanes`` exact multiply-adds per
instruction (no saturation: ``|a * b + c * d| <= 2 * 2**30``), twice the float32
lanes of the same register. :func:`pair_lanes` picks its widest form from the
host's features as the float tiles do (:mod:`xrelay.lowering.tiling`): AVX-512BW
(16 int32 lanes), AVX2 (8), SSE2 (4); on a host with AVX-512 VNNI or AVX-VNNI, LLVM
turns ``pmaddwd`` and the add after it into one ``vpdpwssd``. Other hosts (none
of those features) keep the generic kernels.

* :func:`conv2d_nchwc_int16`: a blocked ``contrib_conv2d_NCHWc`` (data ``[N, C/x, H,
  W, x]``, kernel ``[O/y, C/x, KH, KW, x, y]``), grouped or not, register-tiled as
  :class:`~xrelay.lowering.kernels.conv.RowTiles` is: each output row of ``nb``
  output blocks is cut into tiles of pixels whose sums (``y / lanes`` vectors per
  block and pixel) are carried through the loops over the input-channel blocks,
  kernel rows, kernel columns and input-channel *pairs*. A step broadcasts, per
  pixel, the pair ``(x[c], x[c+1])`` as one int32 (both int16 halves) to every
  lane, interleaves the two weight rows of the pair (``w[c, o], w[c+1, o]`` side by
  side) and issues one ``pmaddwd`` and one add per pixel and vector. An odd block
  pairs its last channel with zero. A pixel whose window reaches the padding at a
  column reads a clamped column and a ``select`` zeroes its pair.
* :func:`depthwise_nchwc_int16`: a depthwise ``contrib_conv2d_NCHWc`` (every lane
  its own channel: no pairs to sum), vectors of int16 sign-extended to int32 and
  multiplied, the tiles of the float kernel.

Both store int32 sums through the fused epilogue, as the float kernels do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerType,
    TensorType,
    UnitAttr,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.base import Array, RelayOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import Epilogue, OpContext, TensorInfo
from xrelay.lowering.kernels.pool import tap_range
from xrelay.lowering.tiling import (
    MAX_ROW_SUMS,
    conv_row_group,
    host_vector_unit,
    row_tile,
    tile_rows_override,
)

I16, I32 = IntegerType(16), IntegerType(32)
INT16, INT32 = np.dtype("int16"), np.dtype("int32")

PMADD_INTRINSICS = {
    4: "llvm.x86.sse2.pmadd.wd",
    8: "llvm.x86.avx2.pmadd.wd",
    16: "llvm.x86.avx512.pmaddw.d.512",
}
"""The ``pmaddwd`` intrinsic per count of int32 lanes."""


@functools.cache
def pair_lanes() -> int:
    """The int32 lanes of the host's widest ``pmaddwd`` (16 with AVX-512BW, 8 with
    AVX2, 4 with SSE2), 0 when it has none (not x86)."""
    try:
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features()
    except Exception:  # no usable LLVM
        return 0
    if features.get("avx512bw", False):
        return 16
    if features.get("avx2", False):
        return 8
    if features.get("sse2", False):
        return 4
    return 0


class PairOps:
    """The vector steps of the int16 pair products, ``lanes`` int32 lanes wide."""

    def __init__(self, kb: KernelBuilder, lanes: int):
        self.kb = kb
        self.lanes = lanes
        self.pairs = VectorType(I16, [2 * lanes])
        self.sums = VectorType(I32, [lanes])
        self.halves = VectorType(I16, [lanes])

    def zero(self) -> SSAValue:
        return self.kb.vsplat(self.kb.const(0, INT32), self.lanes)

    def pair(self, low: SSAValue, high: SSAValue | None) -> SSAValue:
        """The int16 values ``low``, ``high`` (``None``: zero) as the halves of one
        int32 (``low`` in the low half, as memory holds them)."""
        kb = self.kb
        a = kb.result(arith.ExtUIOp(low, I32))
        if high is None:
            return a
        b = kb.result(arith.ExtUIOp(high, I32))
        b = kb.result(arith.ShLIOp(b, kb.const(16, INT32)))
        return kb.result(arith.OrIOp(a, b))

    def splat(self, pair: SSAValue) -> SSAValue:
        """An int32 pair in every lane, as ``2 * lanes`` int16."""
        wide = self.kb.vsplat(pair, self.lanes)
        return self.kb.result(vector.BitcastOp(wide, self.pairs))

    def splat_load(self, flat: Buffer, at: Index) -> SSAValue:
        """The int16 pair of the 1-D buffer ``flat`` at ``at`` in every lane (one
        32-bit broadcast load)."""
        kb = self.kb
        two = VectorType(I16, [2])
        pair = kb.result(vector.LoadOp(flat.value, [kb.index(at)], two))
        mask = [k % 2 for k in range(2 * self.lanes)]
        return kb.result(
            vector.ShuffleOp(
                pair, pair, DenseArrayBase.from_list(i64, mask), result_type=self.pairs
            )
        )

    def load_pairs(self, flat: Buffer, at: Index) -> SSAValue:
        """``2 * lanes`` int16 from the 1-D buffer ``flat`` at ``at``."""
        kb = self.kb
        return kb.result(vector.LoadOp(flat.value, [kb.index(at)], self.pairs))

    def load(self, flat: Buffer, at: Index) -> SSAValue:
        """``lanes`` int16 from the 1-D buffer ``flat`` at ``at``."""
        kb = self.kb
        op = vector.LoadOp(flat.value, [kb.index(at)], self.halves)
        return kb.result(op)

    def interleave(self, first: SSAValue, second: SSAValue | None) -> SSAValue:
        """``[first[0], second[0], first[1], second[1], ...]`` (``None``: zeros)."""
        kb = self.kb
        if second is None:
            second = kb.vsplat(kb.const(0, INT16), self.lanes)
        mask = [v for k in range(self.lanes) for v in (k, self.lanes + k)]
        return kb.result(
            vector.ShuffleOp(
                first,
                second,
                DenseArrayBase.from_list(i64, mask),
                result_type=self.pairs,
            )
        )

    def madd(self, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
        """``acc`` plus the pair sums of ``a * b`` (``pmaddwd``; ``vpdpwssd`` on
        VNNI hosts)."""
        from xrelay.lowering.llvm.fast_ops import call_intrinsic  # (import cycle)

        name = PMADD_INTRINSICS[self.lanes]
        products = self.kb.insert(call_intrinsic(name, [a, b], self.sums)).results[0]
        return self.kb.result(arith.AddiOp(acc, products))


def pair_tile(width: int, vecs: int) -> int:
    """How many pixels a tile of :func:`conv2d_nchwc_int16` holds for an output row
    of ``width`` pixels and ``vecs`` vectors of sums per pixel: the sums, the
    ``vecs`` weight vectors of a step and a broadcast pair fit the vector
    registers (at most :data:`~xrelay.lowering.tiling.MAX_ROW_SUMS` sums). Each
    weight vector is interleaved once per step and serves every pixel of the tile,
    so tiles are as wide as fit (one output block, unlike the float tiles' two).
    A row is cut into tiles of one size, the last moved back to end with the row:
    among the sizes from that bound down to two thirds of it, the one computing
    the fewest pixels."""
    value = tile_rows_override()
    if value is not None:
        return max(1, min(value, width))
    registers = host_vector_unit().registers
    bound = max(1, min(MAX_ROW_SUMS // vecs, (registers - vecs - 2) // vecs))
    if width <= bound:
        return max(1, width)
    return min(
        range(max(1, -(-2 * bound // 3)), bound + 1),
        key=lambda p: (-(-width // p) * p, -p),
    )


PAIR_UNROLL = 2
"""Input-channel pairs one iteration of :func:`conv2d_nchwc_int16`'s innermost loop
steps over (LLVM does not unroll it: full unrolling is off). Four ran no faster
than two (3x3 convolutions of 64 and 256 channels on AVX2, within 2%) for twice
the IR of every convolution."""

PREPACKED = "xrelay.prepacked"
"""The attribute marking a weight constant stored repacked (:func:`prepack_weights`)."""


def is_prepacked(const: ConstantOp) -> bool:
    return PREPACKED in const.attributes


def _elem(value: SSAValue) -> str:
    ty = value.type
    return str(ty.get_element_type()) if isinstance(ty, TensorType) else ""


def interleaves_weights(op: Operation) -> bool:
    """Whether the int16 kernels read ``op``'s weight repacked (:func:`prepack`)
    when it is a constant: an int16 ``contrib_conv2d_NCHWc`` (not depthwise,
    :func:`conv2d_nchwc_int16`) or ``contrib_dense_pack``
    (:func:`dense_pack_int16`) with int32 sums on a host with ``pmaddwd``, an even
    reduction (input block, ``K``) and output blocks of whole vectors."""
    if not isinstance(op, nn.Conv2DNCHWcOp | nn.DensePackOp):
        return False
    data, weight = op.operands[0], op.operands[1]
    if (_elem(data), _elem(weight), _elem(op.results[0])) != ("i16", "i16", "i32"):
        return False
    shape = cast(TensorType[Attribute], weight.type).get_shape()
    rank = 6 if isinstance(op, nn.Conv2DNCHWcOp) else 3
    if len(shape) != rank or shape[-2] == 1:
        return False
    x_blk, y_blk = shape[-2], shape[-1]
    lanes = min(pair_lanes(), y_blk)
    return lanes >= 4 and y_blk % lanes == 0 and x_blk % 2 == 0


def prepack(array: Array) -> Array:
    """A ``[O/y, C/x, KH, KW, x, y]`` convolution weight (``x`` even) with each
    block's input channels paired: ``[O/y, C/x, KH, KW, x/2, y, 2]`` (the two
    weights of a pair side by side for every output channel, what ``pmaddwd``
    multiplies), stored in the original shape; a packed dense weight ``[U/n, K,
    n]`` likewise along ``K``."""
    *lead, x, y = array.shape
    pairs = array.reshape(*lead, x // 2, 2, y)
    k = len(lead)
    axes = [*range(k), k, k + 2, k + 1]
    return np.ascontiguousarray(pairs.transpose(axes)).reshape(array.shape)


def prepack_weights(
    ops: Sequence[Operation],
    constants: dict[SSAValue, ConstantOp],
    cache: dict[int, ConstantOp],
) -> dict[SSAValue, ConstantOp]:
    """The constant weights of ``ops`` (a kernel's ops; ``constants``: the kernel's
    inputs bound to constants) that their kernels read repacked
    (:func:`interleaves_weights`), as repacked constants marked
    :data:`PREPACKED`; ``cache`` keeps one copy per original constant."""
    out: dict[SSAValue, ConstantOp] = {}
    for op in ops:
        if not interleaves_weights(op):
            continue
        weight = op.operands[1]
        const = constants.get(weight)
        if const is None or is_prepacked(const):
            continue
        packed = cache.get(id(const))
        if packed is None:
            packed = ConstantOp.from_numpy(prepack(const.numpy()))
            packed.attributes[PREPACKED] = UnitAttr()
            cache[id(const)] = packed
        out[weight] = packed
    return out


def _int_dtype(dt: Any, bits: int) -> bool:
    return dt.kind == "i" and dt.itemsize * 8 == bits


def _stored(value: SSAValue) -> bool:
    """Whether a kernel reads ``value`` from a buffer: an argument of the fused
    function (a kernel input) or a constant, not a value inlined in the group."""
    return isinstance(value, BlockArgument) or isinstance(value.owner, ConstantOp)


def _is_depthwise(groups: int, data: Sequence[int], weight: Sequence[int]) -> bool:
    return groups > 1 and weight[4] == 1 and data[4] == weight[5] and weight[1] == 1


@dataclass(frozen=True)
class ConvPlan:
    """How :func:`conv2d_nchwc_int16` (or :func:`depthwise_nchwc_int16`) cuts an
    int16 ``contrib_conv2d_NCHWc``: ``lanes`` int32 sums per vector, ``vecs``
    vectors per pixel of an output block, ``tile`` pixels per register tile and
    ``group`` output rows per iteration of the parallel nest (``slots``
    iterations: each stages the sums of its tile in its own slice of the stage
    buffer, :func:`conv_stage`)."""

    depthwise: bool
    lanes: int
    vecs: int
    tile: int
    group: int
    slots: int


def conv_plan(op: Operation) -> ConvPlan | None:
    """The :class:`ConvPlan` of ``op`` when the int16 kernels take it (int16 data
    and weights, int32 sums, a host with ``pmaddwd``, output blocks a multiple of
    its lanes; depthwise: blocks of whole vectors); ``None`` otherwise."""
    if not isinstance(op, nn.Conv2DNCHWcOp):
        return None
    data, weight = op.operands[0], op.operands[1]
    if (_elem(data), _elem(weight), _elem(op.results[0])) != ("i16", "i16", "i32"):
        return None
    d_shape = cast(TensorType[Attribute], data.type).get_shape()
    w_shape = cast(TensorType[Attribute], weight.type).get_shape()
    o_shape = cast(TensorType[Attribute], op.results[0].type).get_shape()
    if len(d_shape) != 5 or len(w_shape) != 6 or len(o_shape) != 5:
        return None
    lanes = pair_lanes()
    if lanes == 0:
        return None
    n_, _, oh, ow, _ = o_shape
    groups = op.conv_params()[3]
    if _is_depthwise(groups, d_shape, w_shape):
        blocks, lanes = d_shape[1], d_shape[4]
        tile = row_tile(ow, 1, lanes, 4)
        group = conv_row_group(oh, n_ * blocks)
        return ConvPlan(True, lanes, 1, tile, group, n_ * blocks * -(-oh // group))
    y_blk = w_shape[5]
    lanes = min(lanes, y_blk)
    if lanes < 4 or y_blk % lanes:
        return None
    vecs = y_blk // lanes
    tile = pair_tile(ow, vecs)
    group = conv_row_group(oh, n_ * w_shape[0])
    return ConvPlan(False, lanes, vecs, tile, group, n_ * w_shape[0] * -(-oh // group))


def casting_epilogue(op: RelayOp) -> bool:
    """Whether the int16 kernels take ``op`` with an epilogue that stores another
    dtype than its int32 sums (the requantized 8-bit value): their data and
    weights are read from buffers (:attr:`~xrelay.lowering.kernels.OpLowering.
    epilogue_casts`)."""
    return (
        conv_plan(op) is not None
        and _stored(op.operands[0])
        and _stored(op.operands[1])
    )


def conv_stage(
    op: RelayOp, operands: list[TensorInfo], results: list[TensorInfo]
) -> list[TensorInfo]:
    """The scratch buffer of an int16 convolution (:func:`conv_plan`): ``[slots,
    tile, block]`` int32, where each iteration of the parallel nest stages a tile's
    sums for the epilogue (which reads them as scalars and may store another
    dtype); none for other convolutions."""
    plan = conv_plan(op)
    if plan is None:
        return []
    block = results[0][0][-1]
    return [((plan.slots, plan.tile, block), INT32)]


def _store_tile(
    kb: KernelBuilder,
    sums: list[SSAValue],
    out: Buffer,
    out_at: Callable[[Index, Index], list[Index]],
    block: int,
    lanes: int,
    epilogue: Epilogue | None,
    stage: Buffer | None,
    slot: Index,
) -> None:
    """Store a tile's sums (``sums[t * vecs + v]``: lanes ``v * lanes`` on of pixel
    ``t``; ``out_at(t, lane)``: the output index) into ``out``. Without an
    epilogue, as vectors; with one, the sums go through the tile's slice of
    ``stage`` (``[slot, t, lane]``) and a loop over the tile applies the epilogue
    to each and stores its value (in ``out``'s dtype); without a stage, the sums
    are stored in ``out`` (int32) and rewritten in place."""
    vecs = block // lanes
    tile = len(sums) // vecs
    if epilogue is None or stage is None:
        flat_out = kb.flat(out)
        for t in range(tile):
            for v in range(vecs):
                at = kb.flat_index(out_at(t, v * lanes), out.shape)
                kb.insert(
                    vector.StoreOp(sums[t * vecs + v], flat_out.value, [kb.index(at)])
                )
        if epilogue is not None:
            with kb.loop(0, tile) as t, kb.loop(0, block) as oi:
                idx = out_at(t, oi)
                kb.store(epilogue(kb.load(out, idx), idx), out, idx)
        return
    for t in range(tile):
        for v in range(vecs):
            kb.vstore(sums[t * vecs + v], stage, [slot, t, v * lanes])
    with kb.loop(0, tile) as t, kb.loop(0, block) as oi:
        idx = out_at(t, oi)
        kb.store(epilogue(kb.load(stage, [slot, t, oi]), idx), out, idx)


def _declined(cx: OpContext, out: Buffer) -> bool:
    """False (the generic kernel then) unless ``out`` is not the op's int32 result
    (a casting epilogue the generic kernel cannot apply): a lowering error then."""
    if _int_dtype(out.dtype, 32):
        return False
    raise cx.error("the int16 convolution cannot apply this epilogue here")


def conv2d_nchwc_int16(
    cx: OpContext, out: Buffer, epilogue: Epilogue | None = None
) -> bool:
    """Emit ``cx.op`` (a ``contrib_conv2d_NCHWc``) with int16 pair products into
    ``out`` when it fits (:func:`conv_plan`, stored int16 weights); False otherwise
    (the caller emits the generic kernel). Depthwise: :func:`depthwise_nchwc_int16`.

    The loops over the input-channel blocks, kernel rows and kernel columns carry
    the tile's sums; a tap computes each pixel's input address once (clamped into
    the row where it may reach the padding), and the loop over the input-channel
    pairs (:data:`PAIR_UNROLL` per iteration) adds the pair offset to it."""
    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    plan = conv_plan(op)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    wbuf = weight.buffer
    if (
        plan is None
        or wbuf is None
        or wbuf.runtime is not None
        or (data.buffer is not None and data.buffer.runtime is not None)
    ):
        return False if plan is None else _declined(cx, out)
    if plan.depthwise:
        return depthwise_nchwc_int16(cx, out, epilogue) or _declined(cx, out)
    (sh, sw), (pt, pl, _, _), (dh, dw), groups = op.conv_params()
    n_, _, h, w, x_blk = data.shape
    ob_n, cb_n, kh, kw, _, y_blk = weight.shape
    _, _, oh, ow, _ = out.shape
    lanes, vecs, tile, group = plan.lanes, plan.vecs, plan.tile, plan.group
    ob_per_group = ob_n // groups
    tiles, last = -(-ow // tile), ow - tile
    low = [t * sw - pl < 0 for t in range(tile)]
    high = [(last + t) * sw - pl + (kw - 1) * dw >= w for t in range(tile)]
    ops = PairOps(kb, lanes)
    packed = 1 in cx.prepacked
    assert not packed or interleaves_weights(op)
    flat_w = kb.flat(wbuf)
    dbuf = data.buffer
    flat_in = kb.flat(dbuf) if dbuf is not None else None
    zero_pairs = kb.vsplat(kb.const(0, INT16), 2 * lanes)
    zero_halves = kb.vsplat(kb.const(0, INT16), lanes)
    stage = cx.scratch[0] if cx.scratch else None
    row_groups = -(-oh // group)

    with kb.parallel([n_, ob_n, row_groups]) as (n, ob, g):
        slot = kb.iadd(kb.imul(kb.iadd(kb.imul(n, ob_n), ob), row_groups), g)
        cb_base = 0 if groups == 1 else kb.imul(kb.idiv(ob, ob_per_group), cb_n)
        y_lo = kb.imul(g, group)
        y_hi = kb.imin(kb.iadd(y_lo, group), oh)
        with kb.loop(y_lo, y_hi) as y, kb.loop(0, tiles * tile, tile) as xt:
            x = xt if ow % tile == 0 else kb.imin(xt, last)
            y0 = kb.isub(kb.imul(y, sh), pt)
            ky_lo, ky_hi = tap_range(kb, y0, kh, dh, 0, h)

            def tap(
                cb: Index, ky: Index, kx: Index, acc: list[SSAValue]
            ) -> list[SSAValue]:
                iy = kb.iadd(y0, kb.imul(ky, dh))
                ix0 = kb.isub(kb.iadd(kb.imul(x, sw), kb.imul(kx, dw)), pl)
                c = kb.iadd(cb, cb_base)
                ixs: list[Index] = []
                valid: list[SSAValue | None] = []
                for t in range(tile):
                    ix, ok = _clamped(kb, kb.iadd(ix0, t * sw), w, low[t], high[t])
                    ixs.append(ix)
                    valid.append(ok)
                # each pixel's input address (its pairs follow it), once per tap
                bases: list[Index] = []
                if flat_in is not None:
                    row = kb.flat_index([n, c, iy, 0, 0], data.shape)
                    bases = [kb.iadd(row, kb.imul(ix, x_blk)) for ix in ixs]
                w_at = kb.flat_index([ob, cb, ky, kx, 0, 0], weight.shape)

                def step(ci: Index, odd: bool, acc: list[SSAValue]) -> list[SSAValue]:
                    xs: list[SSAValue] = []
                    # an odd block's last channel: the pair before it (in the
                    # pixel) times the weights (0, w), with 3 channels and more
                    shifted = odd and x_blk > 1
                    for t in range(tile):
                        ok = valid[t]
                        if flat_in is not None and (shifted or not odd):
                            at = kb.iadd(bases[t], kb.isub(ci, 1) if odd else ci)
                            v = ops.splat_load(flat_in, at)
                            xs.append(v if ok is None else kb.select(ok, v, zero_pairs))
                            continue
                        first = data.at([n, c, iy, ixs[t], ci])
                        second = (
                            None if odd else data.at([n, c, iy, ixs[t], kb.iadd(ci, 1)])
                        )
                        p = ops.pair(first, second)
                        if ok is not None:
                            p = kb.select(ok, p, kb.const(0, INT32))
                        xs.append(ops.splat(p))
                    new = list(acc)
                    row = kb.iadd(w_at, kb.imul(ci, y_blk))
                    for v in range(vecs):
                        if packed and not odd:  # the pair side by side
                            wv = ops.load_pairs(flat_w, kb.iadd(row, 2 * v * lanes))
                        elif shifted and flat_in is not None:
                            w1 = ops.load(flat_w, kb.iadd(row, v * lanes))
                            wv = ops.interleave(zero_halves, w1)
                        else:
                            at = kb.iadd(row, v * lanes)
                            w0 = ops.load(flat_w, at)
                            w1 = None if odd else ops.load(flat_w, kb.iadd(at, y_blk))
                            wv = ops.interleave(w0, w1)
                        for t in range(tile):
                            k = t * vecs + v
                            new[k] = ops.madd(xs[t], wv, new[k])
                    return new

                # PAIR_UNROLL pairs per iteration (fewer loop steps per multiply)
                pairs = x_blk // 2
                unroll = max(d for d in range(1, PAIR_UNROLL + 1) if pairs % d == 0)

                def pairs_step(p: Index, a: list[SSAValue]) -> list[SSAValue]:
                    base = kb.imul(p, 2 * unroll)
                    for u in range(unroll):
                        a = step(kb.iadd(base, 2 * u), False, a)
                    return a

                acc = kb.fold_loop(0, pairs // unroll, acc, pairs_step)
                if x_blk % 2:
                    acc = step(x_blk - 1, True, acc)
                return acc

            acc = kb.fold_loop(
                0,
                cb_n,
                [ops.zero()] * (tile * vecs),
                lambda cb, a0: kb.fold_loop(
                    ky_lo,
                    ky_hi,
                    a0,
                    lambda ky, a1: kb.fold_loop(
                        0, kw, a1, lambda kx, a2: tap(cb, ky, kx, a2)
                    ),
                ),
            )
            _store_tile(
                kb,
                acc,
                out,
                lambda t, oi: [n, ob, y, kb.iadd(x, t), oi],
                y_blk,
                lanes,
                epilogue,
                stage,
                slot,
            )
    return True


def _clamped(
    kb: KernelBuilder, ix: Index, w: int, low: bool, high: bool
) -> tuple[Index, SSAValue | None]:
    """Column ``ix`` clamped into ``[0, w)`` where it may fall in the padding, and
    whether it is inside (``None``: always)."""
    checks: list[SSAValue] = []
    if low:
        checks.append(kb.icmp("sge", ix, 0))
        ix = kb.imax(ix, 0)
    if high:
        checks.append(kb.icmp("slt", ix, w))
        ix = kb.imin(ix, w - 1)
    if not checks:
        return ix, None
    return ix, checks[0] if len(checks) == 1 else kb.logical_and(checks[0], checks[1])


def depthwise_nchwc_int16(
    cx: OpContext, out: Buffer, epilogue: Epilogue | None = None
) -> bool:
    """A depthwise ``contrib_conv2d_NCHWc`` (data and output ``[N, C/c, H, W, c]``,
    kernel ``[C/c, 1, KH, KW, 1, c]``) of stored int16 data into int32 sums: the
    ``c`` channels of a block are vector lanes, sign-extended and multiplied, over
    the float kernel's tiles (:func:`~xrelay.lowering.kernels.conv.depthwise_nchwc`),
    stored through :func:`_store_tile`. False when the data is not a stored buffer
    (the generic kernel then)."""
    from xrelay.lowering.kernels.conv import tile_edges

    op = cx.op
    assert isinstance(op, nn.Conv2DNCHWcOp)
    plan = conv_plan(op)
    assert plan is not None
    assert plan.depthwise
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    data_buf, weight_buf = data.buffer, weight.buffer
    if data_buf is None or weight_buf is None or data_buf.runtime is not None:
        return False
    (sh, sw), (pt, pl, _, _), (dh, dw), _ = op.conv_params()
    n_, cb_n, h, w, lanes = data.shape
    _, _, kh, kw, _, _ = weight.shape
    _, _, oh, ow, _ = out.shape
    tile, group = plan.tile, plan.group
    tiles, last, low, high = tile_edges(ow, w, tile, kw, sw, dw, pl)
    halves, sums_t = VectorType(I16, [lanes]), VectorType(I32, [lanes])
    zero = kb.vsplat(kb.const(0, INT32), lanes)
    flat_w, flat_in = kb.flat(weight_buf), kb.flat(data_buf)
    stage = cx.scratch[0] if cx.scratch else None
    row_groups = -(-oh // group)

    def load(flat: Buffer, at: Index) -> SSAValue:
        v = kb.result(vector.LoadOp(flat.value, [kb.index(at)], halves))
        return kb.result(arith.ExtSIOp(v, cast(Any, sums_t)))

    with kb.parallel([n_, cb_n, row_groups]) as (n, cb, g):
        slot = kb.iadd(kb.imul(kb.iadd(kb.imul(n, cb_n), cb), row_groups), g)
        y_lo = kb.imul(g, group)
        y_hi = kb.imin(kb.iadd(y_lo, group), oh)
        with kb.loop(y_lo, y_hi) as y, kb.loop(0, tiles * tile, tile) as xt:
            x = xt if ow % tile == 0 else kb.imin(xt, last)
            y0 = kb.isub(kb.imul(y, sh), pt)
            ky_lo, ky_hi = tap_range(kb, y0, kh, dh, 0, h)
            x0 = kb.isub(kb.imul(x, sw), pl)

            def row(ky: Index, acc: list[SSAValue]) -> list[SSAValue]:
                iy = kb.iadd(y0, kb.imul(ky, dh))
                row_at = kb.flat_index([n, cb, iy, 0, 0], data.shape)
                w_at = kb.flat_index([cb, 0, ky, 0, 0, 0], weight.shape)
                acc = list(acc)
                for kx in range(kw):
                    wv = load(flat_w, kb.iadd(w_at, kx * lanes))
                    for t in range(tile):
                        ix, ok = _clamped(
                            kb,
                            kb.iadd(x0, t * sw + kx * dw),
                            w,
                            low[t][kx],
                            high[t][kx],
                        )
                        v = load(flat_in, kb.iadd(row_at, kb.imul(ix, lanes)))
                        if ok is not None:
                            v = kb.select(ok, v, zero)
                        product = kb.result(arith.MuliOp(v, wv))
                        acc[t] = kb.result(arith.AddiOp(acc[t], product))
                return acc

            acc = kb.fold_loop(ky_lo, ky_hi, [zero] * tile, row)
            _store_tile(
                kb,
                acc,
                out,
                lambda t, c: [n, cb, y, kb.iadd(x, t), c],
                lanes,
                lanes,
                epilogue,
                stage,
                slot,
            )
    return True


def dense_pack_int16(
    cx: OpContext, out: Buffer, epilogue: Epilogue | None = None
) -> bool:
    """A ``contrib_dense_pack`` (``x [..., K]``, weight ``[U/n, K, n]`` stored
    repacked, :func:`prepack`) of int16 operands into int32 sums with ``pmaddwd``:
    the vector tiles of :func:`~xrelay.lowering.kernels.gemm.dense_pack_vectors`
    (``mr`` rows times ``nv`` vectors of sums, :func:`~xrelay.lowering.tiling.
    gemm_tile`), each step a pair of ``k``: the rows' pairs ``x[m, k:k+2]``
    broadcast (one 32-bit load each), the weight's vectors of pairs loaded as they
    are stored. False (nothing emitted) unless the weight was repacked and ``x``
    is a stored buffer."""
    from xrelay.lowering.kernels.gemm import store_tile, tiled_rows
    from xrelay.lowering.kernels.int16_matmul import pair_gemm_tile

    op = cx.op
    kb = cx.kb
    x, w = cx.operand(0), cx.operand(1)
    x_buf, w_buf = x.buffer, w.buffer
    if 1 not in cx.prepacked or x_buf is None or w_buf is None:
        return False
    assert interleaves_weights(op)
    lead, k_n = x.shape[:-1], x.shape[-1]
    m_n = int(np.prod(lead)) if lead else 1
    b_n, _, blk = w.shape
    lanes = min(pair_lanes(), blk)
    per_block = blk // lanes
    units = b_n * blk
    if m_n == 0 or b_n == 0:
        return False
    ops = PairOps(kb, lanes)
    w_flat, x_flat = kb.flat(w_buf), kb.flat(x_buf)

    def tile(_: list[Index], m0: Index, mr: int, v0: Index, nv: int) -> None:
        rows = [kb.imul(kb.iadd(m0, r), k_n) for r in range(mr)]
        # vector v: block v // per_block, lanes (v % per_block) * lanes, as pairs
        w_bases: list[Index] = []
        for j in range(nv):
            v = kb.iadd(v0, j)
            b = kb.udiv(v, per_block) if per_block > 1 else v
            lane = kb.isub(v, kb.imul(b, per_block)) if per_block > 1 else 0
            w_bases.append(kb.iadd(kb.imul(b, k_n * blk), kb.imul(lane, 2 * lanes)))

        def step(p: Index, acc: list[SSAValue]) -> list[SSAValue]:
            k = kb.imul(p, 2)
            ws = [
                ops.load_pairs(w_flat, kb.iadd(base, kb.imul(k, blk)))
                for base in w_bases
            ]
            new = list(acc)
            for r in range(mr):
                a = ops.splat_load(x_flat, kb.iadd(rows[r], k))
                for j in range(nv):
                    new[r * nv + j] = ops.madd(a, ws[j], new[r * nv + j])
            return new

        sums = kb.fold_loop(0, k_n // 2, [ops.zero()] * (mr * nv), step)
        u0 = kb.imul(v0, lanes)
        store_tile(
            kb,
            [sums[r * nv : (r + 1) * nv] for r in range(mr)],
            out,
            lambda r, j: kb.iadd(
                kb.imul(kb.iadd(m0, r), units), kb.iadd(u0, j * lanes)
            ),
        )
        if epilogue is not None:
            with kb.loop(0, mr) as r, kb.loop(u0, kb.iadd(u0, nv * lanes)) as u:
                idx = [*kb.unflatten(kb.iadd(m0, r), lead, unsigned=True), u]
                kb.store(epilogue(kb.load(out, idx), idx), out, idx)

    vectors = b_n * per_block
    tiled_rows(kb, m_n, vectors, tile, shape=pair_gemm_tile(m_n, vectors))
    return True
