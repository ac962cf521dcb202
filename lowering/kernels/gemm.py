"""Register-tiled matrix products on host vectors: ``contrib_dense_pack`` and float
``batch_matmul``.

Both compute ``out[m, n] = sum_k a[m, k] * b[k, n]`` with ``b`` readable as
contiguous vectors along ``n`` (the packed dense weight ``[N/n, K, n]``, a
``batch_matmul`` right operand ``[B, K, N]``). A tile of ``mr`` rows times ``nv``
vectors of sums (:func:`~xrelay.lowering.tiling.gemm_tile`) is carried through the
``k`` loop as ``vector`` values: each step loads ``nv`` vectors of ``b``,
broadcasts ``mr`` values of ``a`` and issues ``mr * nv`` vector fused multiply-adds.
The tile is stored as vectors; a fused epilogue then runs over the stored tile
(a loop LLVM vectorises) while it is in the L1 cache. Every output sums over ``k``
in order from zero, as the reference loop does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.ir import SSAValue

from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import Epilogue, Source
from xrelay.lowering.scalar_types import DType
from xrelay.lowering.tiling import (
    DOT_MAX_ROWS,
    LINE_BYTES,
    conv_row_group,
    dot_tile,
    gemm_tile,
    host_vector_unit,
    matvec_tile,
)

RowAt = Callable[[int, Index], SSAValue]
"""``(row of the tile, k) -> a[m0 + row, k]`` as a scalar of the sums' dtype."""
VectorAt = Callable[[int, Index], SSAValue]
"""``(vector of the tile, k) -> b[k, n0 + vector * width :]`` as a vector."""


def vector_width(dt: DType, block: int) -> int:
    """Lanes of the vectors a product of ``dt`` outputs whose ``b`` is contiguous in
    runs of ``block`` values uses: the host's lanes, or fewer to divide ``block``
    (``0``: a power of two under 2 divides it, no vectors)."""
    lanes = max(1, host_vector_unit().bytes // dt.itemsize)
    width = math.gcd(lanes, block)
    return width if width >= 2 else 0


def tile_sums(
    kb: KernelBuilder,
    k_n: int,
    rows: int,
    vectors: int,
    width: int,
    dt: DType,
    a_at: RowAt,
    b_at: VectorAt,
) -> list[list[SSAValue]]:
    """The ``rows`` x ``vectors`` sums of one tile (``sums[row][vector]``) over
    ``k`` in ``[0, k_n)``."""
    zero = kb.vsplat(kb.zero(dt), width)

    def step(k: Index, acc: list[SSAValue]) -> list[SSAValue]:
        bs = [b_at(j, k) for j in range(vectors)]
        out = list(acc)
        for r in range(rows):
            a = kb.vsplat(a_at(r, k), width)
            for j in range(vectors):
                out[r * vectors + j] = kb.mac(a, bs[j], out[r * vectors + j])
        return out

    flat = kb.fold_loop(0, k_n, [zero] * (rows * vectors), step)
    return [flat[r * vectors : (r + 1) * vectors] for r in range(rows)]


Tile = Callable[[list[Index], Index, int, Index, int], None]
"""``tile(outer_idx, m0, mr, v0, nv)``: compute and store the outputs of rows
``[m0, m0 + mr)`` and vectors ``[v0, v0 + nv)`` (``nv == 0``: the tail columns
after the last whole vector, see :func:`tiled_rows`)."""


def tiled_rows(
    kb: KernelBuilder,
    m_n: int,
    vectors: int,
    tile: Tile,
    outer: Sequence[int] = (),
    tail: bool = False,
    shape: tuple[int, int] | None = None,
) -> None:
    """Run ``tile`` over an output of ``m_n`` rows and ``vectors`` vectors per row
    (and, with ``tail``, a few columns after them), cut into
    :func:`~xrelay.lowering.tiling.gemm_tile` tiles: the last row and column tiles
    short; the tail one more column tile (``nv == 0``). The threads share out
    (``outer`` axes, e.g. a batch, then) column tiles times groups of row tiles
    (:func:`~xrelay.lowering.tiling.conv_row_group`): a thread's tiles of one
    column reuse that column's ``b`` from its caches. ``shape``: the tile's
    ``(mr, nv)`` (default :func:`~xrelay.lowering.tiling.gemm_tile`)."""
    mr, nv = shape if shape is not None else gemm_tile(m_n, max(1, vectors))
    # column tiles: (first, count, vectors per tile) of each kind
    kinds: list[tuple[int, int, int]] = []
    full_cols = vectors // nv
    if full_cols:
        kinds.append((0, full_cols, nv))
    if vectors % nv:
        kinds.append((full_cols, 1, vectors % nv))
    if tail:
        kinds.append((sum(k[1] for k in kinds), 1, 0))
    col_tiles = sum(k[1] for k in kinds)
    row_tiles = -(-m_n // mr)
    full_rows = m_n // mr * mr
    per_group = conv_row_group(row_tiles, math.prod(outer) * col_tiles)
    groups = -(-row_tiles // per_group)

    def column(o: list[Index], g: Index, v0: Index, nvv: int) -> None:
        lo = kb.imul(g, per_group * mr)
        hi = kb.imin(kb.iadd(lo, per_group * mr), full_rows)
        with kb.loop(lo, hi, mr) as m0:
            tile(o, m0, mr, v0, nvv)
        if m_n - full_rows:

            def last() -> list[SSAValue]:
                tile(o, full_rows, m_n - full_rows, v0, nvv)
                return []

            if groups == 1:
                last()
            else:
                kb.if_(kb.icmp("eq", g, groups - 1), last)

    def dispatch(
        o: list[Index], ct: Index, g: Index, rest: list[tuple[int, int, int]]
    ) -> None:
        first, count, nvv = rest[0]
        v0 = kb.imul(ct, nv) if count > 1 else first * nv
        if nvv == 0:
            v0 = vectors
        if len(rest) == 1:
            column(o, g, v0, nvv)
            return

        def this() -> list[SSAValue]:
            column(o, g, v0, nvv)
            return []

        def others() -> list[SSAValue]:
            dispatch(o, ct, g, rest[1:])
            return []

        kb.if_(kb.icmp("slt", ct, first + count), this, others)

    with kb.parallel([*outer, col_tiles, groups]) as idx:
        dispatch(list(idx[:-2]), idx[-2], idx[-1], kinds)


def store_tile(
    kb: KernelBuilder,
    sums: list[list[SSAValue]],
    out: Buffer,
    at: Callable[[int, int], Index],
) -> None:
    """Store ``sums[row][vector]`` at the flat positions ``at(row, vector)`` of
    ``out``."""
    flat = kb.flat(out)
    for r, row in enumerate(sums):
        for j, value in enumerate(row):
            kb.vstore(value, flat, [at(r, j)])


def dense_pack_vectors(
    kb: KernelBuilder,
    x: Source,
    w: Source,
    out: Buffer,
    epilogue: Epilogue | None,
) -> bool:
    """``contrib_dense_pack`` (``x [..., K]``, the leading dims the ``M`` rows;
    weight ``[U/n, K, n]``) on vector tiles; ``False`` (nothing emitted) unless the
    weight is a stored ``f32`` / ``f64`` buffer of the output's dtype whose blocks
    split into vectors (:func:`vector_width`)."""
    dt = out.dtype
    w_buf = w.buffer
    if w_buf is None or w.dtype != dt or dt.kind != "f" or dt.itemsize < 4:
        return False
    lead, k_n = x.shape[:-1], x.shape[-1]
    m_n = math.prod(lead)
    b_n, _, blk = w.shape
    width = vector_width(dt, blk)
    if not width or m_n == 0 or b_n == 0:
        return False
    per_block = blk // width
    units = b_n * blk
    w_flat = kb.flat(w_buf)
    x_buf = x.buffer
    x_flat = kb.flat(x_buf) if x_buf is not None else None

    def tile(_: list[Index], m0: Index, mr: int, v0: Index, nv: int) -> None:
        rows = [kb.iadd(m0, r) for r in range(mr)]
        if x_flat is not None:
            x_rows = [kb.imul(m, k_n) for m in rows]

            def a_at(r: int, k: Index) -> SSAValue:
                assert x_flat is not None
                return kb.cast(kb.load(x_flat, [kb.iadd(x_rows[r], k)]), x.dtype, dt)
        else:
            row_idx = [kb.unflatten(m, lead, unsigned=True) for m in rows]

            def a_at(r: int, k: Index) -> SSAValue:
                return kb.cast(x.at([*row_idx[r], k]), x.dtype, dt)

        # vector v of the weight: block v // per_block, lanes (v % per_block) * width
        w_bases: list[Index] = []
        for j in range(nv):
            v = kb.iadd(v0, j)
            if per_block == 1:
                w_bases.append(kb.imul(v, k_n * blk))
            else:
                b = kb.udiv(v, per_block)
                lane = kb.isub(v, kb.imul(b, per_block))
                w_bases.append(kb.iadd(kb.imul(b, k_n * blk), kb.imul(lane, width)))

        def b_at(j: int, k: Index) -> SSAValue:
            return kb.vload(w_flat, [kb.iadd(w_bases[j], kb.imul(k, blk))], width)

        sums = tile_sums(kb, k_n, mr, nv, width, dt, a_at, b_at)
        u0 = kb.imul(v0, width)
        store_tile(
            kb,
            sums,
            out,
            lambda r, j: kb.iadd(kb.imul(rows[r], units), kb.iadd(u0, j * width)),
        )
        if epilogue is not None:
            with kb.loop(0, mr) as r, kb.loop(u0, kb.iadd(u0, nv * width)) as u:
                idx = [*kb.unflatten(kb.iadd(m0, r), lead, unsigned=True), u]
                kb.store(epilogue(kb.load(out, idx), idx), out, idx)

    # a tile's vectors cover whole lines of each weight block
    line = min(per_block, max(1, LINE_BYTES // (width * dt.itemsize)))
    tiled_rows(
        kb, m_n, b_n * per_block, tile, shape=_skinny(m_n, b_n * per_block, line)
    )
    return True


def _skinny(m_n: int, vectors: int, line: int) -> tuple[int, int] | None:
    """The tile of a product of ``m_n`` rows and ``vectors`` vectors per row,
    ``line`` of them a cache line of the right operand:
    :func:`~xrelay.lowering.tiling.matvec_tile` (whole lines per tile) for one
    row, else ``None`` (the default :func:`~xrelay.lowering.tiling.gemm_tile`:
    with several rows the multiply-adds per load decide)."""
    if m_n != 1:
        return None
    return matvec_tile(m_n, vectors, line)


def batch_matmul_vectors(
    kb: KernelBuilder,
    x: Source,
    y: Source,
    out: Buffer,
    transpose_a: bool,
    repacked: Buffer | None,
) -> bool:
    """Float ``batch_matmul`` (``x [B, M, K]``, or ``[B, K, M]`` with
    ``transpose_a``; ``y [B, K, N]``) on vector tiles along ``N``, the columns after
    the last whole vector one scalar sum each. ``repacked``: ``y`` was given as
    ``[B, N, K]`` (``transpose_b``) and is copied there as ``[B, K, N]``, one batch
    entry at a time inside the parallel nest (the threads share out the batch
    entries; a ``y`` with one entry for every batch is copied once, before).
    ``False`` (nothing emitted) unless ``y`` (or ``repacked``) is a stored buffer of
    the output's ``f32`` / ``f64`` dtype."""
    dt = out.dtype
    b_n, m_n, n_n = out.shape
    k_n = x.shape[1] if transpose_a else x.shape[2]
    y_buf = repacked if repacked is not None else y.buffer
    if y_buf is None or y_buf.dtype != dt or dt.kind != "f" or dt.itemsize < 4:
        return False
    lanes = max(1, host_vector_unit().bytes // dt.itemsize)
    width = lanes if n_n >= lanes else vector_width(dt, n_n)
    if not width or m_n == 0 or n_n == 0 or b_n == 0:
        return False
    vectors = n_n // width
    tail = n_n - vectors * width
    # rows of y start on a cache line when N fills whole lines
    line = max(1, LINE_BYTES // (width * dt.itemsize))
    shape = _skinny(m_n, vectors, line if n_n * dt.itemsize % LINE_BYTES == 0 else 1)
    y_flat, out_flat = kb.flat(y_buf), kb.flat(out)
    y_batches = y_buf.shape[0]
    x_buf = x.buffer
    x_flat = kb.flat(x_buf) if x_buf is not None else None

    def tile(b: Index, m0: Index, mr: int, v0: Index, nv: int) -> None:
        bx = 0 if x.shape[0] == 1 else b
        by = 0 if y_batches == 1 else b
        rows = [kb.iadd(m0, r) for r in range(mr)]
        if x_flat is not None:
            # x[bx, m, k] at bx*M*K + m*K + k; transposed: bx*K*M + k*M + m
            step_m, step_k = (1, m_n) if transpose_a else (k_n, 1)
            x_rows = [kb.iadd(kb.imul(bx, m_n * k_n), kb.imul(m, step_m)) for m in rows]

            def a_at(r: int, k: Index) -> SSAValue:
                assert x_flat is not None
                at = kb.iadd(x_rows[r], kb.imul(k, step_k))
                return kb.cast(kb.load(x_flat, [at]), x.dtype, dt)
        else:

            def a_at(r: int, k: Index) -> SSAValue:
                idx = [bx, k, rows[r]] if transpose_a else [bx, rows[r], k]
                return kb.cast(x.at(idx), x.dtype, dt)

        y_base = kb.imul(by, k_n * n_n)
        out_rows = [kb.imul(kb.iadd(kb.imul(b, m_n), m), n_n) for m in rows]
        if nv == 0:  # the tail columns: one scalar sum each
            n0 = vectors * width

            def scalar_step(k: Index, acc: list[SSAValue]) -> list[SSAValue]:
                y_row = kb.iadd(y_base, kb.imul(k, n_n))
                ys = [kb.load(y_flat, [kb.iadd(y_row, n0 + t)]) for t in range(tail)]
                xs = [a_at(r, k) for r in range(mr)]
                return [
                    kb.mac(xs[r], ys[t], acc[r * tail + t])
                    for r in range(mr)
                    for t in range(tail)
                ]

            acc = kb.fold_loop(0, k_n, [kb.zero(dt)] * (mr * tail), scalar_step)
            for r in range(mr):
                for t in range(tail):
                    kb.store(
                        acc[r * tail + t], out_flat, [kb.iadd(out_rows[r], n0 + t)]
                    )
            return
        n0 = kb.imul(v0, width)

        def b_at(j: int, k: Index) -> SSAValue:
            at = kb.iadd(kb.iadd(y_base, kb.imul(k, n_n)), kb.iadd(n0, j * width))
            return kb.vload(y_flat, [at], width)

        sums = tile_sums(kb, k_n, mr, nv, width, dt, a_at, b_at)
        store_tile(
            kb, sums, out, lambda r, j: kb.iadd(out_rows[r], kb.iadd(n0, j * width))
        )

    def repack(b: Index) -> None:
        assert repacked is not None
        with kb.nest([k_n, n_n]) as (k, n):
            kb.store(kb.cast(y.at([b, n, k]), y.dtype, dt), repacked, [b, k, n])

    if repacked is not None and y_batches == b_n and b_n > 1:
        with kb.parallel([b_n]) as (b,):
            repack(b)

            def batch_tile(
                _: list[Index], m0: Index, mr: int, v0: Index, nv: int
            ) -> None:
                tile(b, m0, mr, v0, nv)

            tiled_rows(kb, m_n, vectors, batch_tile, tail=bool(tail), shape=shape)
        return True
    if repacked is not None:
        with kb.nest([y_batches]) as (b,):
            repack(b)

    def outer_tile(o: list[Index], m0: Index, mr: int, v0: Index, nv: int) -> None:
        tile(o[0], m0, mr, v0, nv)

    tiled_rows(kb, m_n, vectors, outer_tile, outer=[b_n], tail=bool(tail), shape=shape)
    return True


RowStart = Callable[[list[Index], Index], Index]
"""``(outer index, row) -> flat position`` of the first of a row's ``K`` values."""
Store = Callable[[list[Index], Index, Index, SSAValue], None]
"""``(outer index, row, column, value)``: store one output."""


def dot_tiles(
    kb: KernelBuilder,
    m_n: int,
    n_n: int,
    k_n: int,
    x: tuple[Buffer, RowStart],
    w: tuple[Buffer, RowStart],
    store: Store,
    outer: Sequence[int] = (),
) -> bool:
    """``out[o, m, n] = sum_k x[o, m, k] * w[o, n, k]`` with both operands read
    along ``k`` (rows of ``K`` contiguous values in the flat buffers given with the
    start of each row), on the register tiles of
    :func:`~xrelay.lowering.tiling.dot_tile`: ``mr`` rows times ``nu`` columns of
    vector sums over the whole vectors of ``k``, then added across their lanes and
    finished by the last ``k`` (after the last whole vector) one scalar at a time.
    Every read is inside a row, for any ``N`` (no block of columns to fill). The
    threads share out the column tiles (:func:`tiled_rows`): a matrix-vector
    product streams ``w`` once, row by row. ``False`` (nothing emitted) unless the
    buffers are ``f32`` / ``f64`` and ``K`` has a whole vector."""
    (x_buf, x_row), (w_buf, w_row) = x, w
    dt = x_buf.dtype
    if w_buf.dtype != dt or dt.kind != "f" or dt.itemsize < 4:
        return False
    width = max(1, host_vector_unit().bytes // dt.itemsize)
    if width < 2 or k_n < width or m_n == 0 or n_n == 0:
        return False
    main = k_n // width * width
    x_flat, w_flat = kb.flat(x_buf), kb.flat(w_buf)

    def tile(o: list[Index], m0: Index, mr: int, n0: Index, nu: int) -> None:
        rows = [kb.iadd(m0, r) for r in range(mr)]
        cols = [kb.iadd(n0, j) for j in range(nu)]
        xs0 = [x_row(o, m) for m in rows]
        ws0 = [w_row(o, n) for n in cols]

        def step(k: Index, acc: list[SSAValue]) -> list[SSAValue]:
            xs = [kb.vload(x_flat, [kb.iadd(b, k)], width) for b in xs0]
            out = list(acc)
            for j, b in enumerate(ws0):
                wv = kb.vload(w_flat, [kb.iadd(b, k)], width)
                for r in range(mr):
                    out[r * nu + j] = kb.mac(xs[r], wv, out[r * nu + j])
            return out

        zero = kb.vsplat(kb.zero(dt), width)
        acc = kb.fold_loop(0, main, [zero] * (mr * nu), step, step=width)
        sums = [kb.vsum(v, kb.const(-0.0, dt)) for v in acc]  # -0.0: x + -0.0 == x

        def rest(k: Index, carried: list[SSAValue]) -> list[SSAValue]:
            xs = [kb.load(x_flat, [kb.iadd(b, k)]) for b in xs0]
            ws = [kb.load(w_flat, [kb.iadd(b, k)]) for b in ws0]
            return [
                kb.mac(xs[r], ws[j], carried[r * nu + j])
                for r in range(mr)
                for j in range(nu)
            ]

        sums = kb.fold_loop(main, k_n, sums, rest)
        for r in range(mr):
            for j in range(nu):
                store(o, rows[r], cols[j], sums[r * nu + j])

    tiled_rows(kb, m_n, n_n, tile, outer, shape=dot_tile(m_n, n_n))
    return True


def dense_dot_vectors(
    kb: KernelBuilder,
    x: Source,
    w: Source,
    out: Buffer,
    epilogue: Epilogue | None,
) -> bool:
    """``dense`` (``x [..., K]``, the leading dims the ``M`` rows; the plain weight
    ``[N, K]``) on the dot-product tiles of :func:`dot_tiles`: the kernel of the
    dense layers AlterOpLayout leaves unpacked (``N`` without a block, e.g. a
    language model's 50257 outputs). ``False`` (nothing emitted) unless ``x`` and
    the weight are stored buffers of the output's ``f32`` / ``f64`` dtype."""
    x_buf, w_buf = x.buffer, w.buffer
    dt = out.dtype
    if x_buf is None or w_buf is None or x_buf.dtype != dt:
        return False
    lead, k_n = x.shape[:-1], x.shape[-1]
    m_n, n_n = math.prod(lead), w.shape[0]
    out_flat = kb.flat(out)

    def store(_: list[Index], m: Index, n: Index, value: SSAValue) -> None:
        if epilogue is not None:
            value = epilogue(value, [*kb.unflatten(m, lead, unsigned=True), n])
        kb.store(value, out_flat, [kb.iadd(kb.imul(m, n_n), n)])

    return dot_tiles(
        kb,
        m_n,
        n_n,
        k_n,
        (x_buf, lambda _, m: kb.imul(m, k_n)),
        (w_buf, lambda _, n: kb.imul(n, k_n)),
        store,
    )


def batch_matmul_dot(
    kb: KernelBuilder, x: Source, y: Source, out: Buffer, transpose_a: bool
) -> bool:
    """A skinny float ``batch_matmul`` with its right operand given transposed
    (``x [B, M, K]``, ``y [B, N, K]``, ``M`` at most
    :data:`~xrelay.lowering.tiling.DOT_MAX_ROWS`: one query row against the keys
    of a KV cache) on the dot-product tiles of :func:`dot_tiles`, ``y`` read once
    along its rows (no copy into ``[B, K, N]``); the threads share out the batch
    entries and the column tiles. ``False`` (nothing emitted) unless ``x`` and
    ``y`` are stored buffers of the output's ``f32`` / ``f64`` dtype and ``M`` is
    small."""
    x_buf, y_buf = x.buffer, y.buffer
    dt = out.dtype
    b_n, m_n, n_n = out.shape
    if transpose_a or m_n > DOT_MAX_ROWS or x_buf is None or y_buf is None:
        return False
    if x_buf.dtype != dt:
        return False
    k_n = x.shape[2]
    x_step = 0 if x.shape[0] == 1 else m_n * k_n
    y_step = 0 if y.shape[0] == 1 else n_n * k_n
    out_flat = kb.flat(out)

    def store(o: list[Index], m: Index, n: Index, value: SSAValue) -> None:
        row = kb.iadd(kb.imul(o[0], m_n), m)
        kb.store(value, out_flat, [kb.iadd(kb.imul(row, n_n), n)])

    return dot_tiles(
        kb,
        m_n,
        n_n,
        k_n,
        (x_buf, lambda o, m: kb.iadd(kb.imul(o[0], x_step), kb.imul(m, k_n))),
        (y_buf, lambda o, n: kb.iadd(kb.imul(o[0], y_step), kb.imul(n, k_n))),
        store,
        outer=[b_n],
    )
