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

from xrelay.lowering.tiling import gemm_tile

PAIR_TEMPORARIES = 2
"""Registers a step of an int16 tile needs besides its sums and weight vectors: the
broadcast pair and the product of ``pmaddwd``."""


def pair_gemm_tile(rows: int, vectors: int) -> tuple[int, int]:
    """``(mr, nv)``: the register tile of an int16 matrix product whose output has
    ``rows`` rows and ``vectors`` vectors of int32 sums per row
    (:func:`~xrelay.lowering.tiling.gemm_tile` with :data:`PAIR_TEMPORARIES`)."""
    return gemm_tile(rows, vectors, PAIR_TEMPORARIES)
