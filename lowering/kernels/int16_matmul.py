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
    y_shape: tuple[int, ...], transpose_b: bool
) -> tuple[int, ...]:
    """The scratch of :func:`batch_matmul_int16`: ``y`` repacked as ``[B, K/2, N,
    2]`` (the two ``k`` of a pair side by side for every column), held in a
    ``[B, K, N]`` buffer."""
    b, n, k = y_shape if transpose_b else (y_shape[0], y_shape[2], y_shape[1])
    return (b, k, n)


def batch_matmul_int16(cx: OpContext, out: Buffer, packed: Buffer | None) -> bool:
    """A ``batch_matmul`` of int16 ``x [B, M, K]`` and ``y`` (``[B, K, N]``, or
    ``[B, N, K]`` with ``transpose_b``) into int32 sums with ``pmaddwd``: ``y`` is
    first repacked into ``packed`` with the two ``k`` of each pair side by side
    (:func:`batch_matmul_pairs_scratch`; the threads share the batch entries), then
    the tiles of :func:`pair_gemm_tile` over the rows of each batch entry: a step
    broadcasts each row's pair ``x[b, m, k:k+2]`` (one 32-bit load) and loads the
    ``nv`` vectors of pairs of ``y``. False (nothing emitted) when the operands do
    not fit (:func:`batch_matmul_pairs_fit`) or ``x`` is not stored."""
    from xrelay.lowering.kernels.gemm import store_tile, tiled_rows

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

    with kb.nest([y_batches, k_n // 2, n_n]) as (b, p, n):
        at = kb.flat_index([b, p, n, 0], [y_batches, k_n // 2, n_n, 2])
        for half in range(2):
            k = kb.iadd(kb.imul(p, 2), half)
            value = y.at([b, n, k] if tb else [b, k, n])
            kb.store(value, p_flat, [kb.iadd(at, half)])

    def tile(o: list[Index], m0: Index, mr: int, v0: Index, nv: int) -> None:
        b = o[0]
        bx = 0 if x.shape[0] == 1 else b
        by = 0 if y_batches == 1 else b
        rows = [
            kb.imul(kb.iadd(kb.imul(bx, m_n), kb.iadd(m0, r)), k_n) for r in range(mr)
        ]
        y_base = kb.imul(by, k_n * n_n)
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

    tiled_rows(kb, m_n, vectors, tile, outer=[b_n], shape=pair_gemm_tile(m_n, vectors))
    return True
