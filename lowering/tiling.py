"""Tile sizes of the register-tiled kernels, from the host's vector registers.

The convolution and matrix-product kernels keep a tile of outputs in registers while
they run over the reduction axes: ``pixels`` output pixels (or matrix rows) times one
channel block (or unit block) of ``lanes`` values. The tile must fit in the vector
register file with room left for the operands, so the tile sizes follow from the
widest SIMD register of the host (``avx512f``: 32 registers of 64 bytes, ``avx``: 16
of 32 bytes, otherwise 16 of 16 bytes), as LLVM reports the host's CPU features.

Override: ``XRELAY_TILE_ROWS=<n>`` fixes the number of pixels / rows of a tile (``1``
turns register tiling off: one output at a time, the loop order of the reference
kernels). The value is read when a model is lowered.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class VectorUnit:
    """The host's widest SIMD registers."""

    bytes: int
    """Width of one register in bytes."""
    registers: int
    """Number of architectural vector registers."""


@functools.cache
def host_vector_unit() -> VectorUnit:
    """The vector unit of the host CPU (from LLVM's host feature list)."""
    try:
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features()
    except Exception:  # no usable LLVM: assume SSE
        return VectorUnit(16, 16)
    if features.get("avx512f", False):
        return VectorUnit(64, 32)
    if features.get("avx", False):
        return VectorUnit(32, 16)
    return VectorUnit(16, 16)


MAX_TILE_ROWS = 6
"""Upper bound of the automatic tile height. Every tile is unrolled in the IR: 7 and 8
are faster on resnet_block (about 17 and 16 ms against 21 ms) but raise the traced
Python heap of building ResNet-18 to 140 and 145 MB, against the 147 MB budget of
``test_resnet18_memory`` (126 MB with 6)."""


def tile_rows(block: int, itemsize: int) -> int:
    """How many pixels (conv) or rows (matrix products) a register tile holds, for an
    output block of ``block`` values of ``itemsize`` bytes: the accumulators take at
    most half of the vector registers (the rest holds the operands).

    ``XRELAY_TILE_ROWS`` overrides it (see the module docstring)."""
    env = os.environ.get("XRELAY_TILE_ROWS", "").strip()
    if env:
        try:
            value = int(env)
        except ValueError:
            raise ValueError(
                f"XRELAY_TILE_ROWS must be a positive integer, got {env!r}"
            ) from None
        if value < 1:
            raise ValueError(
                f"XRELAY_TILE_ROWS must be a positive integer, got {env!r}"
            )
        return value
    unit = host_vector_unit()
    per_row = max(1, -(-block * itemsize // unit.bytes))
    return max(1, min(MAX_TILE_ROWS, (unit.registers // 2) // per_row))
