"""Matrix products, the softmax family and the transposed convolution.

* ``dense``, ``matmul``, ``batch_matmul``: the value at an output index is a dot
  product over the reduction axis (operands converted to ``out_dtype`` first,
  accumulated in it, as the reference does).
* ``softmax``, ``log_softmax``, ``fast_softmax``: per slice along the axis, a max
  pass, a sum pass (``f64`` accumulator) and a write pass (:class:`SliceLoops`).
* ``conv2d_transpose``: per output pixel, a sum over the taps and input channels
  that reach it (a tap reaches it when the stride divides its distance).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Generator, Sequence

from xdsl.ir import SSAValue

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.base import RelayOp, get_bool, get_int
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import (
    Epilogue,
    OpContext,
    TensorInfo,
    materialize,
    pointwise,
    scratch,
    with_epilogue,
)
from xrelay.lowering.kernels.gemm import (
    batch_matmul_dot,
    batch_matmul_vectors,
    dense_dot_vectors,
    dense_pack_vectors,
)
from xrelay.lowering.kernels.pool import from_nchw, to_nchw
from xrelay.lowering.kernels.reduce import F64, fold_lanes
from xrelay.lowering.scalar_types import DType, is_float
from xrelay.lowering.tiling import host_vector_unit, tile_rows


def dot(
    kb: KernelBuilder,
    k_extent: int,
    a_at: Callable[[Index], SSAValue],
    b_at: Callable[[Index], SSAValue],
    src_dt: DType,
    dt: DType,
) -> SSAValue:
    """``sum_k a(k) * b(k)`` in dtype ``dt`` (operands converted from ``src_dt``)."""

    def body(k: Index, c: list[SSAValue]) -> list[SSAValue]:
        a = kb.cast(a_at(k), src_dt, dt)
        b = kb.cast(b_at(k), src_dt, dt)
        return [kb.fma(a, b, c[0])]

    return kb.fold_loop(0, k_extent, [kb.zero(dt)], body)[0]


@pointwise(nn.DenseOp, cheap=False)
def _dense(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    x, w = cx.operand(0), cx.operand(1)
    lead, u = idx[:-1], idx[-1]
    return dot(
        cx.kb,
        w.shape[1],
        lambda k: x.at([*lead, k]),
        lambda k: w.at([u, k]),
        x.dtype,
        cx.out_dtype(),
    )


@materialize(nn.DenseOp)
def _dense_tiled(cx: OpContext, outs: list[Buffer]) -> None:
    dense(cx, outs[0])


def dense(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    """``dense`` with its plain weight ``[N, K]`` (AlterOpLayout packs the weights
    whose ``N`` has a block; the others stay here, e.g. a language model's 50257
    outputs): on the dot-product vector tiles of
    :func:`~xrelay.lowering.kernels.gemm.dense_dot_vectors` where the operands are
    stored ``f32`` / ``f64`` buffers, else one dot product per output; ``epilogue``
    applied as each output is stored."""
    kb = cx.kb
    if dense_dot_vectors(kb, cx.operand(0), cx.operand(1), out, epilogue):
        return
    with kb.nest(out.shape) as idx:
        value = _dense(cx, 0, idx)
        kb.store(value if epilogue is None else epilogue(value, idx), out, idx)


with_epilogue(nn.DenseOp)(dense)


@pointwise(nn.MatmulOp, cheap=False)
def _matmul(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, nn.MatmulOp)
    a, b = cx.operand(0), cx.operand(1)
    ta, tb = get_bool(op.transpose_a), get_bool(op.transpose_b)
    lead, m, n = idx[:-2], idx[-2] if len(idx) >= 2 else 0, idx[-1]
    k_extent = a.shape[-2] if ta else a.shape[-1]
    rank_a = len(a.shape)

    def a_at(k: Index) -> SSAValue:
        if rank_a == 1:
            return a.at([k])
        return a.at([*lead, k, m] if ta else [*lead, m, k])

    def b_at(k: Index) -> SSAValue:
        return b.at([n, k] if tb else [k, n])

    if rank_a == 1:
        n = idx[-1]
    return dot(cx.kb, k_extent, a_at, b_at, a.dtype, cx.out_dtype())


@pointwise(nn.BatchMatmulOp, cheap=False)
def _batch_matmul(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, nn.BatchMatmulOp)
    x, y = cx.operand(0), cx.operand(1)
    ta, tb = get_bool(op.transpose_a), get_bool(op.transpose_b)
    bi, m, n = idx
    bx = 0 if x.shape[0] == 1 else bi
    by = 0 if y.shape[0] == 1 else bi
    k_extent = x.shape[1] if ta else x.shape[2]
    return dot(
        cx.kb,
        k_extent,
        lambda k: x.at([bx, k, m] if ta else [bx, m, k]),
        lambda k: y.at([by, n, k] if tb else [by, k, n]),
        x.dtype,
        cx.out_dtype(),
    )


class SliceLoops:
    """Loops over the slices of ``shape`` along ``axes``: :meth:`slices` enumerates
    the other axes; inside, :meth:`fold` and :meth:`each` run over one slice."""

    def __init__(self, kb: KernelBuilder, shape: Sequence[int], axes: Sequence[int]):
        self.kb = kb
        self.shape = tuple(shape)
        self.axes = tuple(axes)

    @contextlib.contextmanager
    def slices(self) -> Generator[list[Index], None, None]:
        """The base index of each slice (the sliced axes at 0). Slices are
        independent: the threads share them out (:meth:`KernelBuilder.parallel`)."""
        outer = [1 if k in self.axes else d for k, d in enumerate(self.shape)]
        with self.kb.parallel(outer) as idx:
            yield list(idx)

    def _index(self, base: Sequence[Index], inner: Sequence[Index]) -> list[Index]:
        out = list(base)
        for a, i in zip(self.axes, inner, strict=True):
            out[a] = i
        return out

    def fold(
        self,
        base: Sequence[Index],
        inits: Sequence[SSAValue],
        body: Callable[[list[Index], list[SSAValue]], Sequence[SSAValue]],
        combine: Callable[[SSAValue, SSAValue], SSAValue] | None = None,
    ) -> list[SSAValue]:
        """Fold ``body`` over the slice at ``base``. With ``combine`` (an associative
        and commutative merge of two partial results, e.g. a sum or a max, with the
        ``inits`` as its identities) and a slice whose innermost axis is the last
        one, partial folds (:func:`~xrelay.lowering.kernels.reduce.fold_lanes`)."""
        extents = [self.shape[a] for a in self.axes]
        if self.axes[-1] != len(self.shape) - 1:
            combine = None  # partial folds only along contiguous elements
        return fold_lanes(
            self.kb,
            extents,
            inits,
            lambda inner, c: body(self._index(base, inner), c),
            combine,
        )

    @contextlib.contextmanager
    def each(self, base: Sequence[Index]) -> Generator[list[Index], None, None]:
        extents = [self.shape[a] for a in self.axes]
        with self.kb.nest(extents) as inner:
            yield self._index(base, inner)

    @property
    def count(self) -> int:
        n = 1
        for a in self.axes:
            n *= self.shape[a]
        return n


@materialize(nn.SoftmaxOp, nn.FastSoftmaxOp, nn.LogSoftmaxOp)
def _softmax(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, nn.SoftmaxBase)
    kb = cx.kb
    x = cx.operand(0)
    dt = x.dtype
    axis = get_int(op.axis) % len(x.shape)
    loops = SliceLoops(kb, x.shape, [axis])
    log = isinstance(op, nn.LogSoftmaxOp)
    out = outs[0]

    def fmax(a: SSAValue, b: SSAValue) -> SSAValue:
        return kb.max(a, b, dt)

    def fadd(a: SSAValue, b: SSAValue) -> SSAValue:
        return kb.add(a, b)

    with loops.slices() as base:
        m = loops.fold(
            base, [kb.lowest(dt)], lambda i, c: [kb.max(c[0], x.at(i), dt)], fmax
        )[0]
        if log:

            def add_exp(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
                e = kb.math("exp", kb.sub(x.at(i), m))
                return [kb.add(c[0], kb.cast(e, dt, F64))]

            total = loops.fold(base, [kb.zero(F64)], add_exp, fadd)[0]
            log_total = kb.math("log", kb.cast(total, F64, dt))
            with loops.each(base) as i:
                kb.store(kb.sub(kb.sub(x.at(i), m), log_total), out, i)
        else:
            # exp once, into the output (a loop without a carried value: LLVM
            # vectorises it); then the sum of the stored values, then the division
            with loops.each(base) as i:
                kb.store(kb.math("exp", kb.sub(x.at(i), m)), out, i)

            def add_out(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
                return [kb.add(c[0], kb.cast(kb.load(out, i), dt, F64))]

            total = kb.cast(loops.fold(base, [kb.zero(F64)], add_out, fadd)[0], F64, dt)
            with loops.each(base) as i:
                kb.store(kb.div(kb.load(out, i), total, dt), out, i)


@pointwise(nn.Conv2DTransposeOp, cheap=False)
def _conv2d_transpose(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, nn.Conv2DTransposeOp)
    kb = cx.kb
    data, weight = cx.operand(0), cx.operand(1)
    data_layout, kernel_layout, out_layout = op.layouts()
    (sh, sw), (pt, pl, _, _), (dh, dw), groups = op.conv_params()
    (_, c, h, w), (_, og, kh, kw), _, _ = op.geometry(data.shape, weight.shape)
    cg = c // groups
    n, oc, y, x = to_nchw(idx, out_layout)
    g = kb.idiv(oc, og)
    o = kb.imod(oc, og)
    dt = cx.out_dtype()
    src_dt = data.dtype

    def weight_at(ci: Index, i: Index, j: Index) -> SSAValue:
        logical = {"I": ci, "O": o, "H": i, "W": j}
        return weight.at([logical[a] for a in kernel_layout])

    def tap(i: Index, j: Index, acc: SSAValue) -> SSAValue:
        ty = kb.isub(kb.iadd(y, pt), kb.imul(i, dh))
        tx = kb.isub(kb.iadd(x, pl), kb.imul(j, dw))
        iy, ix = kb.idiv(ty, sh), kb.idiv(tx, sw)
        ok = kb.logical_and(
            kb.logical_and(
                kb.icmp("eq", kb.imod(ty, sh), 0), kb.icmp("eq", kb.imod(tx, sw), 0)
            ),
            kb.logical_and(
                kb.logical_and(kb.icmp("sge", iy, 0), kb.icmp("slt", iy, h)),
                kb.logical_and(kb.icmp("sge", ix, 0), kb.icmp("slt", ix, w)),
            ),
        )

        def inside() -> list[SSAValue]:
            def over_c(k: Index, carried: list[SSAValue]) -> list[SSAValue]:
                ci = kb.iadd(kb.imul(g, cg), k)
                v = kb.cast(
                    data.at(from_nchw([n, ci, iy, ix], data_layout)), src_dt, dt
                )
                wv = kb.cast(weight_at(ci, i, j), src_dt, dt)
                return [kb.fma(v, wv, carried[0])]

            return kb.fold_loop(0, cg, [acc], over_c)

        return kb.if_(ok, inside, lambda: [acc])[0]

    def over_i(i: Index, c: list[SSAValue]) -> list[SSAValue]:
        return kb.fold_loop(0, kw, c, lambda j, c2: [tap(i, j, c2[0])])

    return kb.fold_loop(0, kh, [kb.zero(dt)], over_i)[0]


@materialize(nn.DensePackOp)
def _dense_pack(cx: OpContext, outs: list[Buffer]) -> None:
    dense_pack(cx, outs[0])


def dense_pack(cx: OpContext, out: Buffer, epilogue: Epilogue | None = None) -> None:
    """``data [..., K] @ unpack(weight).T`` with ``weight [U/n, K, n]`` (the leading
    dims of ``data`` are the ``M`` rows of one matrix), register-tiled. Stored
    ``f32`` / ``f64`` weights whose blocks split into vectors run the vector tiles of
    :func:`~xrelay.lowering.kernels.gemm.dense_pack_vectors`; the others (``f16``,
    mixed dtypes, blocks of an odd size) this kernel:
    a tile of one row times ``B`` blocks of ``n`` units
    (``B`` = :func:`~xrelay.lowering.tiling.tile_rows`) is carried through the ``k``
    loop and stored once. Each step loads the ``B`` contiguous weight blocks
    (vectors) and one data value (broadcast); LLVM's SLP vectoriser keeps the sums in
    vector registers. Every output sums over ``k`` in order, as the reference loop
    does; ``epilogue`` (a fused bias add, activation...) is applied as the sums are
    stored."""
    from xrelay.lowering.kernels.int16 import dense_pack_int16

    if dense_pack_int16(cx, out, epilogue):  # int16 pair products (pmaddwd)
        return
    kb = cx.kb
    x, w = cx.operand(0), cx.operand(1)
    if dense_pack_vectors(kb, x, w, out, epilogue):
        return
    dt = out.dtype
    # N-D data: the leading dims are the rows of one matrix (row-major)
    lead, k_n = x.shape[:-1], x.shape[-1]
    m_n = math.prod(lead)
    b_n, _, blk = w.shape
    total = tile_rows(blk, dt.itemsize)
    # one row per tile: tiles of several rows were left scalar by LLVM's SLP
    # vectoriser once the row loop has more than one trip
    rows = 1
    blocks = max(1, min(b_n, total))

    def tile(m0: Index, nr: int, b0: Index, nb: int) -> None:
        row_idx = [kb.unflatten(kb.iadd(m0, r), lead, unsigned=True) for r in range(nr)]

        def body(k: Index, acc: list[SSAValue]) -> list[SSAValue]:
            xs = [kb.cast(x.at([*row_idx[r], k]), x.dtype, dt) for r in range(nr)]
            bs = [kb.iadd(b0, c) for c in range(nb)]
            ws = [
                kb.cast(w.at([bs[c], k, j]), w.dtype, dt)
                for c in range(nb)
                for j in range(blk)
            ]
            return [
                kb.mac(xs[r], ws[q], acc[r * nb * blk + q])
                for r in range(nr)
                for q in range(nb * blk)
            ]

        acc = kb.fold_loop(0, k_n, [kb.zero(dt)] * (nr * nb * blk), body)
        first = kb.imul(b0, blk)
        for r in range(nr):
            for q in range(nb * blk):
                idx = [*row_idx[r], kb.iadd(first, q)]
                value = acc[r * nb * blk + q]
                if epilogue is not None:
                    value = epilogue(value, idx)
                kb.store(value, out, idx)

    def block_tiles(b0: Index, nb: int) -> None:
        full_m = m_n // rows * rows
        if full_m:
            with kb.loop(0, full_m, rows) as m0:
                tile(m0, rows, b0, nb)
        if m_n - full_m:
            tile(full_m, m_n - full_m, b0, nb)

    # unit blocks outside: a block's weights stay in cache over all the rows; the
    # threads share out the groups of ``blocks`` unit blocks (the last group may be
    # short)
    full = b_n // blocks
    rest = b_n - full * blocks
    with kb.parallel([full + (1 if rest else 0)]) as (g,):
        b0 = kb.imul(g, blocks)
        if not rest:
            block_tiles(b0, blocks)
        elif not full:
            block_tiles(0, rest)
        else:

            def whole() -> list[SSAValue]:
                block_tiles(b0, blocks)
                return []

            def short() -> list[SSAValue]:
                block_tiles(full * blocks, rest)
                return []

            kb.if_(kb.icmp("slt", g, full), whole, short)


with_epilogue(nn.DensePackOp)(dense_pack)


def _vector_lanes(dt: DType) -> int:
    return max(1, host_vector_unit().bytes // dt.itemsize)


def _batch_matmul_scratch(
    op: RelayOp, operands: list[TensorInfo], results: list[TensorInfo]
) -> list[TensorInfo]:
    """``y`` as ``[B, K, N]`` when it is given transposed (``transpose_b``, Relay's
    default): :func:`_batch_matmul_tiled` reads it along ``N``."""
    assert isinstance(op, nn.BatchMatmulOp)
    from xrelay.lowering.kernels.int16_matmul import (
        batch_matmul_pairs_fit,
        batch_matmul_pairs_scratch,
    )

    (_, x_dt), (y_shape, y_dt) = operands
    dt = results[0][1]
    ta, tb = get_bool(op.transpose_a), get_bool(op.transpose_b)
    if batch_matmul_pairs_fit(ta, tb, operands[0], operands[1], dt):
        batches = results[0][0][0]
        return [(batch_matmul_pairs_scratch(batches, y_shape, tb), y_dt)]
    if not (is_float(dt) and is_float(x_dt)) or not get_bool(op.transpose_b):
        return []
    b, n, k = y_shape
    return [((b, k, n), dt)]


@materialize(nn.BatchMatmulOp)
def _batch_matmul_tiled(cx: OpContext, outs: list[Buffer]) -> None:
    """``batch_matmul`` for floats, register-tiled: on the vector tiles of
    :func:`~xrelay.lowering.kernels.gemm.batch_matmul_vectors` where the operands
    allow (stored ``f32`` / ``f64``), else for each batch entry and row, the
    row's outputs are done in tiles of ``V`` vectors of lanes
    (``V`` = :func:`~xrelay.lowering.tiling.tile_rows`) carried through the ``k``
    loop: each step broadcasts ``x[b, m, k]`` and loads ``y[b, k, n0:n0+V*L]``
    (contiguous; a transposed ``y`` is first copied into the kernel's scratch as
    ``[B, K, N]``, unless the product has a few rows: then
    :func:`~xrelay.lowering.kernels.gemm.batch_matmul_dot` reads it along ``K``). Every output sums over ``k`` in order, as the reference loop does.
    Integer products keep the one-dot-per-output loop nest."""
    op = cx.op
    assert isinstance(op, nn.BatchMatmulOp)
    kb = cx.kb
    out = outs[0]
    dt = out.dtype
    x, y = cx.operand(0), cx.operand(1)
    from xrelay.lowering.kernels.int16_matmul import batch_matmul_int16

    if cx.scratch and batch_matmul_int16(cx, out, cx.scratch[0]):
        return  # int16 pair products (pmaddwd)
    if not (is_float(dt) and is_float(x.dtype)):
        with kb.nest(out.shape) as idx:
            kb.store(_batch_matmul(cx, 0, idx), out, idx)
        return
    ta, tb = get_bool(op.transpose_a), get_bool(op.transpose_b)
    if tb and batch_matmul_dot(kb, x, y, out, ta):
        return
    if batch_matmul_vectors(kb, x, y, out, ta, cx.scratch[0] if tb else None):
        return
    b_n, m_n, n_n = out.shape
    k_n = x.shape[1] if ta else x.shape[2]
    # one repack of a transposed y per batch entry, inside the parallel nest over
    # the batch when y has one entry per output batch (the threads then share the
    # repack too); a broadcast y is repacked once, before the nest (one thread)
    per_batch = tb and y.shape[0] == b_n and b_n > 1

    def repack(b: Index) -> None:
        yt = cx.scratch[0]
        with kb.nest(yt.shape[1:]) as (k, n):
            kb.store(kb.cast(y.at([b, n, k]), y.dtype, dt), yt, [b, k, n])

    if tb:
        yt = cx.scratch[0]
        if not per_batch:
            with kb.nest(yt.shape[:1]) as (b,):
                repack(b)
        y_at: Callable[[Index, Index, Index], SSAValue] = lambda b, k, n: kb.load(  # noqa: E731
            yt, [b, k, n]
        )
        y_batches = yt.shape[0]
    else:
        y_at = lambda b, k, n: kb.cast(y.at([b, k, n]), y.dtype, dt)  # noqa: E731
        y_batches = y.shape[0]
    lanes = _vector_lanes(dt)
    width = min(n_n, lanes * tile_rows(lanes, dt.itemsize))

    def tile(b: Index, m: Index, n0: Index, nw: int) -> None:
        bx = 0 if x.shape[0] == 1 else b
        by = 0 if y_batches == 1 else b

        def body(k: Index, acc: list[SSAValue]) -> list[SSAValue]:
            xv = kb.cast(x.at([bx, k, m] if ta else [bx, m, k]), x.dtype, dt)
            return [kb.mac(xv, y_at(by, k, kb.iadd(n0, j)), acc[j]) for j in range(nw)]

        acc = kb.fold_loop(0, k_n, [kb.zero(dt)] * nw, body)
        for j in range(nw):
            kb.store(acc[j], out, [b, m, kb.iadd(n0, j)])

    full = n_n // width * width

    def row(b: Index, m: Index) -> None:
        if full:
            with kb.loop(0, full, width) as n0:
                tile(b, m, n0, width)
        if n_n - full:
            tile(b, m, full, n_n - full)

    if per_batch:
        with kb.parallel([b_n]) as (b,):
            repack(b)
            with kb.loop(0, m_n) as m:
                row(b, m)
    else:
        with kb.parallel([b_n, m_n]) as (b, m):
            row(b, m)


scratch(nn.BatchMatmulOp)(_batch_matmul_scratch)
