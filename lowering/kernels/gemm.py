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
from collections.abc import Callable

from xdsl.ir import SSAValue

from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import Epilogue, Source
from xrelay.lowering.scalar_types import DType
from xrelay.lowering.tiling import conv_row_group, gemm_tile, host_vector_unit

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


def tiled_rows(
    kb: KernelBuilder,
    m_n: int,
    vectors: int,
    tile: Callable[[list[Index], Index, int, Index, int], None],
    outer: list[int] | None = None,
) -> None:
    """Run ``tile(outer_idx, m0, mr, v0, nv)`` over an output of ``m_n`` rows and ``vectors``
    vectors per row, cut into :func:`~xrelay.lowering.tiling.gemm_tile` tiles (the
    last row and column tiles short). The threads share out (``outer`` axes, e.g.
    a batch, then) column tiles times groups of row tiles
    (:func:`~xrelay.lowering.tiling.conv_row_group`): a thread's tiles of one
    column reuse that column's ``b`` from its caches."""
    mr, nv = gemm_tile(m_n, vectors)
    col_tiles = -(-vectors // nv)
    full_cols = vectors // nv
    row_tiles = -(-m_n // mr)
    full_rows = m_n // mr * mr
    outer = outer or []
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

    with kb.parallel([*outer, col_tiles, groups]) as idx:
        o, ct, g = idx[:-2], idx[-2], idx[-1]
        v0 = kb.imul(ct, nv)
        if full_cols == col_tiles:
            column(o, g, v0, nv)
        elif full_cols == 0:
            column(o, g, 0, vectors)
        else:

            def whole() -> list[SSAValue]:
                column(o, g, v0, nv)
                return []

            def short() -> list[SSAValue]:
                column(o, g, full_cols * nv, vectors - full_cols * nv)
                return []

            kb.if_(kb.icmp("slt", ct, full_cols), whole, short)


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

    tiled_rows(kb, m_n, b_n * per_block, tile)
    return True
