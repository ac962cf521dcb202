"""Tile sizes of the register-tiled kernels, from the host's vector registers.

The convolution and matrix-product kernels keep a tile of outputs in registers while
they run over the reduction axes: ``pixels`` output pixels (or matrix rows) times one
channel block (or unit block) of ``lanes`` values, or two channel blocks for the
blocked convolutions (:func:`row_tile`); ``mr`` rows times ``nv`` vectors for the
vector matrix products (:func:`gemm_tile`). The tile must fit in the vector
register file with room left for the operands, so the tile sizes follow from the
widest SIMD register of the host (``avx512f``: 32 registers of 64 bytes, ``avx``: 16
of 32 bytes, otherwise 16 of 16 bytes), as LLVM reports the host's CPU features.

Override: ``XRELAY_TILE_ROWS=<n>`` fixes the number of pixels / rows of a tile (caps
``mr`` for the vector matrix products; otherwise ``1`` turns register tiling off: one output at a time, the loop order of the reference
kernels). The value is read when a model is lowered.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xrelay.settings import positive_int


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
"""Upper bound of the automatic tile height of the matrix products (:func:`tile_rows`;
convolutions: :func:`row_tile`). Every tile is unrolled in the IR, which adds to the
traced Python heap of building ResNet-18 (``test_resnet18_memory``)."""


MAX_TILE_ROWS_OVERRIDE = 64
"""The largest ``XRELAY_TILE_ROWS`` (every tile is unrolled in the IR: a huge value
would make a kernel of that many copies; 64 already exceeds any register file)."""


def tile_rows_override() -> int | None:
    """``XRELAY_TILE_ROWS`` as an integer from 1 to :data:`MAX_TILE_ROWS_OVERRIDE`
    (``None`` when unset; a bad value is a :class:`~xrelay.settings.SettingError`)."""
    return positive_int("XRELAY_TILE_ROWS", MAX_TILE_ROWS_OVERRIDE)


def tile_rows(block: int, itemsize: int) -> int:
    """How many pixels (conv) or rows (matrix products) a register tile holds, for an
    output block of ``block`` values of ``itemsize`` bytes: the accumulators take at
    most half of the vector registers (the rest holds the operands).

    ``XRELAY_TILE_ROWS`` overrides it (see the module docstring)."""
    value = tile_rows_override()
    if value is not None:
        return value
    unit = host_vector_unit()
    per_row = max(1, -(-block * itemsize // unit.bytes))
    return max(1, min(MAX_TILE_ROWS, (unit.registers // 2) // per_row))


MAX_ROW_SUMS = 14
"""Upper bound of the vector accumulators (pixels times output blocks) of a
convolution row tile (:func:`row_tile`). Every tile is unrolled in the IR (one copy
per kernel): 16 (8 pixels of two blocks) runs no faster than 14 on ResNet-18's
convolutions and adds to the Python heap of building it (``test_resnet18_memory``);
14 also gives 7-pixel tiles, which divide ResNet's rows (56, 28, 14, 7)."""


def row_tile(width: int, blocks: int, block: int, itemsize: int) -> int:
    """How many pixels a convolution row tile holds, for a row of ``width`` outputs
    and ``blocks`` output blocks of ``block`` values of ``itemsize`` bytes per pixel:
    the accumulators take at most half of the vector registers (and at most
    :data:`MAX_ROW_SUMS` registers). A row is cut into tiles of one size (the last
    one moved back to end with the row), so among the sizes from that bound down to
    two thirds of it, the one that computes the fewest pixels (the largest of
    those: more independent sums).

    ``XRELAY_TILE_ROWS`` overrides it (see the module docstring)."""
    value = tile_rows_override()
    if value is not None:
        return max(1, min(value, width))
    unit = host_vector_unit()
    per_pixel = blocks * max(1, -(-block * itemsize // unit.bytes))
    value = max(1, min(MAX_ROW_SUMS // blocks, (unit.registers // 2) // per_pixel))
    if width <= value:
        return max(1, width)
    return min(
        range(max(1, -(-2 * value // 3)), value + 1),
        key=lambda p: (-(-width // p) * p, -p),
    )


def row_pieces(width: int, tile: int) -> list[tuple[int, int, int]]:
    """A row of ``width`` outputs cut into tiles of at most ``tile`` pixels without
    overlap: ``(first column, count, size)`` per run of equal tiles. The fewest
    tiles, their sizes as even as possible (differing by at most one, the larger
    first): 7 by 3 is 3 + 2 + 2, not 3 + 3 + 1; 7 by 5 is 4 + 3."""
    width = max(1, width)
    tiles = -(-width // max(1, min(tile, width)))
    size, larger = divmod(width, tiles)
    pieces = [(0, larger, size + 1), (larger * (size + 1), tiles - larger, size)]
    return [piece for piece in pieces if piece[1] > 0]


def _row_cost(width: int, tile: int, per_pixel: int) -> int:
    """Issue slots of one reduction step over a row cut by :func:`row_pieces`: per
    tile, its multiply-adds (``per_pixel`` vectors a pixel) or
    :data:`GEMM_MIN_STEP`, whichever is more (a tile of fewer independent sums
    waits on their latency)."""
    return sum(
        count * max(size * per_pixel, GEMM_MIN_STEP)
        for _, count, size in row_pieces(width, tile)
    )


def row_tile_bound(blocks: int, block: int, itemsize: int) -> int:
    """The most pixels a tile of :func:`split_row_tile` holds, for ``blocks`` output
    blocks of ``block`` values of ``itemsize`` bytes. As :func:`row_tile`: the sums
    take at most half of the vector registers (the rest holds the weights of a
    tap, the broadcast input values, and the general registers the pixels'
    columns), and at most :data:`MAX_ROW_SUMS`. One block wider than a vector (16
    float32 channels on AVX2: two vectors) may fill the registers instead, less
    the block's weights of a tap and a broadcast: 6 pixels (12 sums) where half
    the registers hold 4 (8 sums). On AVX2 that ran ResNet-18's 3x3 convolutions
    at 87-101 GFLOP/s, two blocks of 2 pixels at 75-82; blocks of one vector
    (8 channels) ran slower with 12 sums than with 8 (their 8-channel taps are too
    short to pay for the columns of 6 pixels, which spill)."""
    unit = host_vector_unit()
    vectors = max(1, -(-block * itemsize // unit.bytes))
    if blocks == 1 and vectors > 1:
        room = (unit.registers - 1 - vectors) // vectors
        return max(1, min(MAX_ROW_SUMS // vectors, room))
    return max(
        1, min(MAX_ROW_SUMS // blocks, (unit.registers // 2) // (blocks * vectors))
    )


def split_row_tile(width: int, blocks: int, block: int, itemsize: int) -> int:
    """The largest tile of a convolution row cut by :func:`row_pieces` (no tile
    overlaps another, so a kernel may sum a row in several passes): at most
    :func:`row_tile_bound` pixels; among those sizes, the one with the fewest issue
    slots over the row (:func:`_row_cost`), then the fewest tiles (more independent
    sums per step, the loop's own work spread over more of them: on AVX2, tiles of
    6 pixels of one 16-channel block ran ResNet-18's 56x56 convolution at 89
    GFLOP/s, tiles of 4 at 77, the same issue slots), then the fewest tile sizes
    (one copy of the tile's code), then the largest.

    ``XRELAY_TILE_ROWS`` overrides it (see the module docstring)."""
    value = tile_rows_override()
    if value is not None:
        return max(1, min(value, width))
    unit = host_vector_unit()
    per_pixel = blocks * max(1, -(-block * itemsize // unit.bytes))
    bound = min(row_tile_bound(blocks, block, itemsize), max(1, width))
    return min(
        range(1, bound + 1),
        key=lambda p: (
            _row_cost(width, p, per_pixel),
            sum(count for _, count, _ in row_pieces(width, p)),
            len(row_pieces(width, p)),
            -p,
        ),
    )


L1_BYTES = 32 << 10
"""The L1 data cache a kernel's working set should fit (32 KiB or more on every
x86-64 host of this decade)."""

CONV_CHUNK_BYTES = 8 << 10
"""Budget of the weights one pass of a blocked convolution reads
(:func:`conv_chunk`): they are read again for every tile of the rows the pass
covers, so they should stay in the L1 cache (32 KiB) next to the input rows. A pass
over one 3x3 block of 16 channels for two 16-channel output blocks (18 KiB) exceeds
it but is the smallest; two such blocks per pass run about 15% slower on ResNet-18."""


def conv_chunk(blocks: int, block_bytes: int) -> int:
    """How many input-channel blocks one pass of a blocked convolution sums over,
    out of ``blocks`` whose weights (for the output blocks of a tile) take
    ``block_bytes`` each: the most that divide ``blocks`` and fit
    :data:`CONV_CHUNK_BYTES` (at least one)."""
    fits = [d for d in range(1, blocks + 1) if blocks % d == 0]
    return max([d for d in fits if d * block_bytes <= CONV_CHUNK_BYTES], default=1)


CONV_MIN_TASKS = 16
"""Fewest parallel iterations (batch entries times output-block groups times row
groups) the blocked convolution aims for when it groups output rows
(:func:`conv_row_group`)."""


def conv_row_group(rows: int, tasks: int) -> int:
    """How many output rows one iteration of the blocked convolution's parallel nest
    computes, when there are ``tasks`` iterations per row group (batch entries times
    output-block groups): the rows are cut into the fewest groups of nearly equal
    size that give :data:`CONV_MIN_TASKS` iterations (the weights a pass reads are
    reused by every row of a group; more groups share the work among threads)."""
    groups = max(1, min(rows, -(-CONV_MIN_TASKS // max(1, tasks))))
    return -(-rows // groups)


MAX_GEMM_SUMS = 28
"""Upper bound of the vector accumulators (rows times vectors) of a matrix-product
register tile (:func:`gemm_tile`): the tile is unrolled in the IR."""

GEMM_MIN_STEP = 8
"""Fewest multiply-adds one step of a matrix-product tile should issue
(:func:`gemm_tile`): a tile of fewer independent sums waits on the latency of its
multiply-adds (about 4 cycles, two issued per cycle) rather than their throughput."""


def _gemm_cost(rows: int, vectors: int, mr: int, nv: int) -> int:
    """Issue slots of one reduction step over all the tiles of a ``rows`` x
    ``vectors`` output cut into ``mr`` x ``nv`` tiles (the last row and column tiles
    short): per tile, the most of its multiply-adds, its loads (a broadcast per row,
    a vector per column) and :data:`GEMM_MIN_STEP`."""
    total = 0
    for r, r_count in ((mr, rows // mr), (rows % mr, 1)):
        for v, v_count in ((nv, vectors // nv), (vectors % nv, 1)):
            if r and v and r_count and v_count:
                total += r_count * v_count * max(r * v, r + v, GEMM_MIN_STEP)
    return total


def gemm_tile(rows: int, vectors: int, temporaries: int = 1) -> tuple[int, int]:
    """``(mr, nv)``: the register tile of a matrix product whose output has ``rows``
    rows and ``vectors`` host vectors per row: ``mr`` rows times ``nv`` vectors of
    sums, carried through the reduction loop. Each step loads ``nv`` vectors of the
    right operand and broadcasts ``mr`` values of the left one, so the sums, those
    ``nv`` vectors and a broadcast must fit the vector registers (and the sums
    :data:`MAX_GEMM_SUMS`). Among those, the tile with the fewest issue slots over the
    whole output (:func:`_gemm_cost`: short edge tiles count), then the most sums,
    then the most rows (each weight vector loaded serves more rows).

    ``temporaries``: the registers a step needs besides the sums and the ``nv``
    vectors (a float step: the broadcast). ``XRELAY_TILE_ROWS`` caps ``mr`` (see the
    module docstring)."""
    unit = host_vector_unit()
    cap_rows = tile_rows_override()
    best: tuple[int, int, int, int] | None = None
    best_tile = (1, 1)
    for nv in range(1, max(1, vectors) + 1):
        limit = min(
            (unit.registers - temporaries - nv) // nv, MAX_GEMM_SUMS // nv, rows
        )
        if cap_rows is not None:
            limit = min(limit, cap_rows)
        for mr in range(1, limit + 1):
            key = (_gemm_cost(rows, vectors, mr, nv), -mr * nv, -mr, nv)
            if best is None or key < best:
                best, best_tile = key, (mr, nv)
    return best_tile


LINE_BYTES = 64
"""Bytes of a cache line (every x86-64 host)."""

MATVEC_MAX_LINES = 8
"""Most cache lines one step of a one-row skinny tile reads (:func:`matvec_tile`):
each is a stream of the weight (a block of a packed weight), and a few streams at
once keep the prefetchers busy where one alone does not (8 lanes x 8 sums also
cover the multiply-add latency of two units), while many more would compete
for the prefetchers' streams and the line-fill buffers."""


def matvec_tile(rows: int, vectors: int, align: int = 1) -> tuple[int, int]:
    """``(mr, nv)``: the register tile of a skinny matrix product (at most
    :data:`DOT_MAX_ROWS` rows: a matrix-vector product, a few tokens of a decode
    step, a query row against a KV cache's values), whose time is streaming the
    right operand once. As :func:`gemm_tile`, with two differences:

    * ``nv`` is a multiple of ``align`` (the vectors of one cache line of the
      right operand's rows or blocks) unless the whole output is narrower: no two
      tiles read the same line (a 7-vector tile of 8-lane vectors next to a
      1-vector one reads a 256-byte row as five lines instead of four);
    * a one-row tile needs no register per loaded vector (each is used by one
      multiply-add as it arrives), so it may carry up to the registers less two
      vector sums (at most :data:`MATVEC_MAX_LINES` lines a step): enough
      independent sums to hide the multiply-add latency, one stream of the
      weight per cache line of a step.

    ``XRELAY_TILE_ROWS`` caps ``mr`` (see the module docstring)."""
    unit = host_vector_unit()
    cap_rows = tile_rows_override()
    align = max(1, align)
    vectors = max(1, vectors)
    best: tuple[int, int, int, int] | None = None
    best_tile = (1, 1)
    candidates = [v for v in range(align, vectors + 1, align)] or [vectors]
    for nv in candidates:
        limit = min(max(1, rows), MAX_GEMM_SUMS // nv)
        if cap_rows is not None:
            limit = min(limit, cap_rows)
        for mr in range(1, limit + 1):
            live = mr * nv + (1 if mr == 1 else nv) + 1
            if live > unit.registers or (mr == 1 and nv > MATVEC_MAX_LINES * align):
                break
            key = (_gemm_cost(max(1, rows), vectors, mr, nv), -mr * nv, -mr, nv)
            if best is None or key < best:
                best, best_tile = key, (mr, nv)
    return best_tile


DOT_MAX_ROWS = 8
"""A product of at most this many rows (a matrix-vector product, a query row
against a KV cache) whose right operand comes transposed (``[N, K]``) reads it
along ``K`` with dot-product tiles (:func:`dot_tile`) rather than copying it into
``[K, N]`` first: the copy would move the operand three times for the one read
the product needs."""

DOT_MAX_UNITS = 8
"""Upper bound of the outputs per row of a dot-product register tile
(:func:`dot_tile`)."""


def dot_tile(rows: int, units: int) -> tuple[int, int]:
    """``(mr, nu)``: the register tile of a matrix product whose right operand is
    read along the reduction axis (``w [units, K]``, one contiguous row per output
    column): ``mr`` rows times ``nu`` columns of vector sums, carried through the
    reduction loop and added across their lanes at the end. Each step loads ``mr``
    vectors of the left operand and ``nu`` of the right one, so the sums, the
    ``mr`` left vectors and one right vector must fit the vector registers (and
    the sums :data:`MAX_GEMM_SUMS`, ``nu`` :data:`DOT_MAX_UNITS`). Among those, the
    tile with the fewest issue slots over the whole output (:func:`_gemm_cost`),
    then the most sums, then the most rows.

    ``temporaries``: the registers a step needs besides the sums and the ``nv``
    vectors (a float step: the broadcast). ``XRELAY_TILE_ROWS`` caps ``mr`` (see the
    module docstring)."""
    unit = host_vector_unit()
    cap_rows = tile_rows_override()
    limit = max(1, rows) if cap_rows is None else max(1, min(rows, cap_rows))
    best: tuple[int, int, int] | None = None
    best_tile = (1, 1)
    for mr in range(1, limit + 1):
        nu = min(
            DOT_MAX_UNITS,
            max(1, units),
            (unit.registers - 1 - mr) // mr,
            MAX_GEMM_SUMS // mr,
        )
        if nu < 1:
            break
        key = (_gemm_cost(max(1, rows), max(1, units), mr, nu), -mr * nu, -mr)
        if best is None or key < best:
            best, best_tile = key, (mr, nu)
    return best_tile


def depthwise_tile(width: int, stride: int) -> int:
    """How many pixels a depthwise convolution row tile holds (one vector register
    of sums per pixel, :func:`~xrelay.lowering.kernels.conv.depthwise_nchwc`), for a
    row of ``width`` outputs read at column ``stride``. Besides its sums, a tile of
    ``p`` pixels keeps the input columns its pixels share live across the kernel
    columns (LLVM loads each distinct column once): ``(p - 1) * stride + 1`` of
    them, plus a weight and a spare. The largest ``p`` (at most
    :data:`MAX_ROW_SUMS`) whose sums and columns fit the vector registers, then,
    as :func:`row_tile` does, among the sizes down to two thirds of it the one that
    computes the fewest pixels. On AVX2 (16 registers) stride 1 takes 7 pixels,
    stride 2 takes 5 (8 and 6 spilled sums: 3x3 on 56x56, 144 channels, 72 -> 45
    and 47 -> 35 GFLOP/s); on AVX-512 14 and 10.

    ``XRELAY_TILE_ROWS`` overrides it (see the module docstring)."""
    value = tile_rows_override()
    if value is not None:
        return max(1, min(value, width))
    registers = host_vector_unit().registers
    fits = [
        p
        for p in range(1, MAX_ROW_SUMS + 1)
        if p + (p - 1) * max(1, stride) + 1 <= registers - 2
    ]
    bound = max(fits, default=1)
    if width <= bound:
        return max(1, width)
    return min(
        range(max(1, -(-2 * bound // 3)), bound + 1),
        key=lambda p: (-(-width // p) * p, -p),
    )


def pointwise_tile(rows: int, vectors: int) -> tuple[int, int]:
    """``(mr, nv)``: the register tile of a 1x1 convolution run as a matrix product
    over its pixels (``rows``) and output vectors (``vectors`` host vectors), as
    :func:`gemm_tile` chooses it, with ``nv`` dividing ``vectors`` (every column
    tile the same, one copy of the tile's code per row size)."""
    unit = host_vector_unit()
    cap_rows = tile_rows_override()
    best: tuple[int, int, int, int] | None = None
    best_tile = (1, 1)
    for nv in range(1, max(1, vectors) + 1):
        if vectors % nv:
            continue
        limit = min((unit.registers - 1 - nv) // nv, MAX_GEMM_SUMS // nv, rows)
        if cap_rows is not None:
            limit = min(limit, cap_rows)
        for mr in range(1, limit + 1):  # none when the nv vectors do not fit
            key = (_gemm_cost(rows, vectors, mr, nv), -mr * nv, -mr, nv)
            if best is None or key < best:
                best, best_tile = key, (mr, nv)
    return best_tile
