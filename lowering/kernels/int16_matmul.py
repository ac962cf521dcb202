"""Matrix products on int16 operands with int32 sums (``pmaddwd``), next to the
convolutions of :mod:`xrelay.lowering.kernels.int16`: the register tiles of the
int16 products (:func:`pair_gemm_tile`).

Without a fused multiply-add of pairs (AVX2, AVX-512BW without VNNI), each step of
a tile is ``pmaddwd`` into a temporary, then an add into the sum: the temporary
needs a register the float tiles (``vfmadd`` into the sum) do not, so the float
tile (:func:`~xrelay.lowering.tiling.gemm_tile`) of 12 sums, 3 weight vectors and
a broadcast spills on AVX2's 16 registers.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.base import get_bool
from xrelay.lowering.builder import Buffer, Index
from xrelay.lowering.kernels import OpContext
from xrelay.lowering.kernels.int16 import PairOps, pair_lanes
from xrelay.lowering.scalar_types import DType
from xrelay.lowering.tiling import gemm_tile

PAIR_TEMPORARIES = 2
"""Registers a step of an int16 tile needs besides its sums and weight vectors: the
broadcast pair and the product of ``pmaddwd``."""


def pair_gemm_tile(rows: int, vectors: int) -> tuple[int, int]:
    """``(mr, nv)``: the register tile of an int16 matrix product whose output has
    ``rows`` rows and ``vectors`` vectors of int32 sums per row
    (:func:`~xrelay.lowering.tiling.gemm_tile` with :data:`PAIR_TEMPORARIES`)."""
    return gemm_tile(rows, vectors, PAIR_TEMPORARIES)


def batch_matmul_pairs_fit(
    transpose_a: bool,
    transpose_b: bool,
    x: tuple[tuple[int, ...], DType],
    y: tuple[tuple[int, ...], DType],
    out_dtype: DType,
) -> bool:
    """Whether :func:`batch_matmul_int16` runs a ``batch_matmul`` of these operands
    (shape, dtype): int16 ``x [B, M, K]`` (not transposed) and ``y``, int32 sums,
    an even ``K``, ``N`` a multiple of the host's ``pmaddwd`` lanes."""
    lanes = pair_lanes()
    (x_shape, x_dt), (y_shape, y_dt) = x, y
    if lanes == 0 or transpose_a or len(x_shape) != 3 or len(y_shape) != 3:
        return False
    if not (_is_int(x_dt, 2) and _is_int(y_dt, 2) and _is_int(out_dtype, 4)):
        return False
    k_n = x_shape[2]
    n_n = y_shape[1] if transpose_b else y_shape[2]
    return k_n > 0 and k_n % 2 == 0 and n_n > 0 and n_n % lanes == 0


def _is_int(dt: DType, size: int) -> bool:
    return dt.kind == "i" and dt.itemsize == size


def batch_matmul_pairs_scratch(
    batches: int, y_shape: tuple[int, ...], transpose_b: bool
) -> tuple[int, ...]:
    """The scratch of :func:`batch_matmul_int16` for an output of ``batches``
    entries: ``y`` repacked for each as ``[K/2, N, 2]`` (the two ``k`` of a pair
    side by side for every column), held in a ``[batches, K, N]`` buffer (a ``y``
    broadcast over the batch is repacked once per entry: each thread fills the
    slots it computes)."""
    n, k = y_shape[1:] if transpose_b else (y_shape[2], y_shape[1])
    return (batches, k, n)


def batch_matmul_int16(cx: OpContext, out: Buffer, packed: Buffer | None) -> bool:
    """A ``batch_matmul`` of int16 ``x [B, M, K]`` and ``y`` (``[B, K, N]``, or
    ``[B, N, K]`` with ``transpose_b``) into int32 sums with ``pmaddwd``: ``y`` is
    first repacked into ``packed`` with the two ``k`` of each pair side by side
    (:func:`batch_matmul_pairs_scratch`), then the tiles of :func:`pair_gemm_tile`
    over the rows of the entry, in one parallel nest over the batch entries (the
    threads share them; a kernel with a second nest or a store outside it would
    run on one thread): a step
    broadcasts each row's pair ``x[b, m, k:k+2]`` (one 32-bit load) and loads the
    ``nv`` vectors of pairs of ``y``. False (nothing emitted) when the operands do
    not fit (:func:`batch_matmul_pairs_fit`) or ``x`` is not stored."""
    from xrelay.lowering.kernels.gemm import store_tile

    op = cx.op
    assert isinstance(op, nn.BatchMatmulOp)
    kb = cx.kb
    x, y = cx.operand(0), cx.operand(1)
    ta, tb = get_bool(op.transpose_a), get_bool(op.transpose_b)
    x_buf = x.buffer
    if packed is None or x_buf is None:
        return False
    if not batch_matmul_pairs_fit(
        ta, tb, (x.shape, x.dtype), (y.shape, y.dtype), out.dtype
    ):
        return False
    b_n, m_n, n_n = out.shape
    k_n = x.shape[2]
    y_batches = y.shape[0]
    lanes = pair_lanes()
    vectors = n_n // lanes
    ops = PairOps(kb, lanes)
    p_flat, x_flat = kb.flat(packed), kb.flat(x_buf)
    if m_n == 0 or b_n == 0:
        return True

    def repack(b: Index) -> None:
        """``y``'s entry for output batch ``b`` into its slot of ``packed``."""
        by = 0 if y_batches == 1 else b
        with kb.nest([k_n // 2, n_n]) as (p, n):
            at = kb.flat_index([b, p, n, 0], [b_n, k_n // 2, n_n, 2])
            for half in range(2):
                k = kb.iadd(kb.imul(p, 2), half)
                value = y.at([by, n, k] if tb else [by, k, n])
                kb.store(value, p_flat, [kb.iadd(at, half)])

    def tile(b: Index, m0: Index, mr: int, v0: Index, nv: int) -> None:
        bx = 0 if x.shape[0] == 1 else b
        rows = [
            kb.imul(kb.iadd(kb.imul(bx, m_n), kb.iadd(m0, r)), k_n) for r in range(mr)
        ]
        y_base = kb.imul(b, k_n * n_n)
        bases = [kb.iadd(y_base, kb.imul(kb.iadd(v0, j), 2 * lanes)) for j in range(nv)]

        def step(p: Index, acc: list[SSAValue]) -> list[SSAValue]:
            ws = [
                ops.load_pairs(p_flat, kb.iadd(base, kb.imul(p, 2 * n_n)))
                for base in bases
            ]
            new = list(acc)
            for r in range(mr):
                a = ops.splat_load(x_flat, kb.iadd(rows[r], kb.imul(p, 2)))
                for j in range(nv):
                    new[r * nv + j] = ops.madd(a, ws[j], new[r * nv + j])
            return new

        sums = kb.fold_loop(0, k_n // 2, [ops.zero()] * (mr * nv), step)
        store_tile(
            kb,
            [sums[r * nv : (r + 1) * nv] for r in range(mr)],
            out,
            lambda r, j: kb.iadd(
                kb.imul(kb.iadd(kb.imul(b, m_n), kb.iadd(m0, r)), n_n),
                kb.imul(kb.iadd(v0, j), lanes),
            ),
        )

    mr, nv = pair_gemm_tile(m_n, vectors)
    full_rows, full_cols = m_n // mr * mr, vectors // nv

    def rows_of(b: Index, v0: Index, nvv: int) -> None:
        if full_rows:
            with kb.loop(0, full_rows, mr) as m0:
                tile(b, m0, mr, v0, nvv)
        if m_n - full_rows:
            tile(b, full_rows, m_n - full_rows, v0, nvv)

    # one parallel nest over the batch (the kernel's only one: its threads share
    # the entries), each repacking its own slot, then its tiles
    with kb.parallel([b_n]) as (b,):
        repack(b)
        if full_cols:
            with kb.loop(0, full_cols) as ct:
                rows_of(b, kb.imul(ct, nv), nv)
        if vectors % nv:
            rows_of(b, full_cols * nv, vectors % nv)
    return True
