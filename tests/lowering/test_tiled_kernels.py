"""The register-tiled kernels (issue 8) on odd shapes, against the ops' numpy
semantics: sizes that are not multiples of the tile or of the vector lanes, 1-sized
dimensions, padding on either side of a row, strides and dilations, large channel
counts; and the tile-size override (``XRELAY_TILE_ROWS``).

Families: the plain ``conv2d`` (weights repacked into scratch, e.g. a 3-channel first
convolution), the blocked ``contrib_conv2d_NCHWc`` and ``contrib_dense_pack``.
Default tolerances (rtol 1e-5, atol 1e-6), inputs with a standard deviation of 0.5
(small integers for the large channel counts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.layout import transform_array
from xrelay.lowering import tiling

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _x(rng: Gen, *shape: int) -> Any:
    return (rng.standard_normal(shape) * 0.5).astype("float32")


def _ints(rng: Gen, *shape: int) -> Any:
    """Small integers as float32: the long sums of the large-channel cases are then
    exact in any order (float32 rounding of a 600-term sum alone exceeds the default
    tolerances near zero, for the reference loop nest too)."""
    return rng.integers(-4, 5, shape).astype("float32")


def _plain_cases(rng: Gen, case: Any) -> list[Any]:
    out: list[Any] = []
    # (N, C, H, W), (O, KH, KW), attrs
    shapes: list[tuple[tuple[int, ...], tuple[int, ...], dict[str, Any]]] = [
        # a ResNet-like stem, scaled down: 3 channels, 7x7, stride 2, padding 3
        ((1, 3, 23, 29), (20, 7, 7), {"strides": [2, 2], "padding": [3, 3]}),
        # one output channel, one input channel, 1-wide rows
        ((2, 1, 5, 1), (1, 3, 1), {"padding": [1, 0]}),
        # width 1 output with padding on both sides of the row
        ((1, 2, 4, 3), (3, 3, 3), {"strides": [1, 3], "padding": [1, 1, 0, 1]}),
        # large channel counts, not multiples of the lanes
        ((1, 70, 6, 11), (33, 3, 3), {"padding": [1, 1]}),
        # dilation, asymmetric padding, a kernel wider than the data
        ((1, 4, 9, 5), (17, 2, 7), {"dilation": [2, 1], "padding": [0, 2, 1, 3]}),
        # 1x1 with stride
        ((1, 8, 7, 7), (16, 1, 1), {"strides": [2, 2]}),
        # a row the tile does not divide (tiles of two sizes)
        ((1, 3, 9, 37), (40, 5, 5), {"strides": [2, 2], "padding": [2, 2]}),
    ]
    for (n, c, h, w), (o, kh, kw), attrs in shapes:
        gen = _ints if c > 32 else _x
        out.append(
            case(nn.Conv2DOp, [gen(rng, n, c, h, w), gen(rng, o, c, kh, kw)], attrs)
        )
    # grouped, no block fitting a group's channels (the weights repacked per
    # group): 17 and 3 output channels per group, 1001 = 7 x 143, a 1x1 row
    for (n, c, h, w), (o, kh, kw), attrs in [
        ((1, 34, 5, 9), (34, 3, 3), {"groups": 2, "padding": [1, 1]}),
        ((2, 9, 7, 6), (9, 3, 3), {"groups": 3, "strides": [2, 2], "padding": [1, 1]}),
        ((1, 1001, 1, 1), (1001, 1, 1), {"groups": 7}),
        (
            (1, 12, 9, 11),
            (24, 5, 5),
            {"groups": 4, "strides": [2, 2], "padding": [2, 2]},
        ),
    ]:
        groups = attrs["groups"]
        gen = _ints if c // groups > 32 else _x
        out.append(
            case(
                nn.Conv2DOp,
                [gen(rng, n, c, h, w), gen(rng, o, c // groups, kh, kw)],
                attrs,
            )
        )
    # other layouts: NHWC data and output, HWIO kernel
    x = _x(rng, 1, 5, 13, 3)
    out.append(
        case(
            nn.Conv2DOp,
            [np.transpose(x, (0, 2, 3, 1)).copy(), _x(rng, 3, 3, 5, 18)],
            {
                "data_layout": "NHWC",
                "kernel_layout": "HWIO",
                "out_layout": "NHWC",
                "padding": [1, 2],
                "strides": [2, 1],
            },
        )
    )
    return out


def test_plain_conv_odd_shapes(rng: Gen, check: Check, case: Any):
    check(_plain_cases(rng, case))


def _nchwc(
    case: Any,
    x: Any,
    w: Any,
    ic: int,
    oc: int,
    attrs: dict[str, Any],
) -> Any:
    return case(
        nn.Conv2DNCHWcOp,
        [
            transform_array(x, "NCHW", f"NCHW{ic}c"),
            transform_array(w, "OIHW", f"OIHW{ic}i{oc}o"),
        ],
        {
            "data_layout": f"NCHW{ic}c",
            "kernel_layout": f"OIHW{ic}i{oc}o",
            "out_layout": f"NCHW{oc}c",
            **attrs,
        },
    )


def _nchwc_cases(rng: Gen, case: Any) -> list[Any]:
    return [
        # rows of 1, 9 and 23 pixels (tiles of 8: remainders and masked borders)
        _nchwc(
            case,
            _x(rng, 1, 16, 3, 1),
            _x(rng, 16, 16, 3, 3),
            16,
            16,
            {"padding": [1, 1]},
        ),
        _nchwc(
            case, _x(rng, 2, 8, 5, 9), _x(rng, 32, 8, 3, 3), 8, 16, {"padding": [1, 1]}
        ),
        _nchwc(
            case,
            _ints(rng, 1, 32, 4, 46),
            _ints(rng, 16, 32, 3, 5),
            16,
            16,
            {"strides": [1, 2], "padding": [0, 2, 1, 1]},
        ),
        # large channel counts, a 1x1 kernel
        _nchwc(case, _ints(rng, 1, 128, 3, 13), _ints(rng, 64, 128, 1, 1), 16, 16, {}),
        # dilation wider than the row, blocks of 4 and 2
        _nchwc(
            case,
            _x(rng, 1, 4, 6, 5),
            _x(rng, 6, 4, 3, 3),
            4,
            2,
            {"dilation": [2, 2], "padding": [2, 2]},
        ),
        # pairs of output blocks in a tile; rows the tile does not divide (tiles
        # of two sizes), padding on both ends
        _nchwc(
            case,
            _ints(rng, 1, 16, 5, 17),
            _ints(rng, 32, 16, 3, 3),
            16,
            16,
            {"padding": [1, 1]},
        ),
        # pairs, stride, dilation and asymmetric padding; 4 output blocks
        _nchwc(
            case,
            _ints(rng, 2, 8, 11, 20),
            _ints(rng, 64, 8, 3, 3),
            8,
            16,
            {"strides": [2, 2], "dilation": [1, 2], "padding": [1, 2, 0, 3]},
        ),
        # pairs, a 1x1 kernel on 2x2 rows; 3 output blocks (no pairs), 5x5 kernel
        _nchwc(case, _x(rng, 2, 16, 2, 2), _x(rng, 32, 16, 1, 1), 16, 16, {}),
        _nchwc(
            case,
            _ints(rng, 1, 8, 9, 12),
            _ints(rng, 24, 8, 5, 5),
            8,
            8,
            {"padding": [2, 1]},
        ),
        # passes over one of 3 input blocks at a time (partial sums in the
        # output); 4 pairs of output blocks: rows in groups of 3, the last of 1
        _nchwc(
            case,
            _ints(rng, 1, 48, 10, 7),
            _ints(rng, 128, 48, 3, 3),
            16,
            16,
            {"padding": [1, 1]},
        ),
    ]


def test_nchwc_conv_odd_shapes(rng: Gen, check: Check, case: Any):
    check(_nchwc_cases(rng, case))


@pytest.mark.parametrize(
    "unit",
    [None, tiling.VectorUnit(32, 16), tiling.VectorUnit(64, 32)],
    ids=["host", "avx2", "avx512"],
)
def test_split_row_tiles_in_passes(
    unit: tiling.VectorUnit | None,
    rng: Gen,
    check: Check,
    case: Any,
    monkeypatch: pytest.MonkeyPatch,
):
    """Rows cut into tiles of two sizes (:func:`tiling.row_pieces`: 7 as 4 + 3 or 2
    + 2 + 2 + 1, 14, 9), summed in passes over one input block at a time (the
    partial sums loaded and stored by every pass: an overlapping tile would add a
    pass twice), with padding and stride 2 (ResNet's 7x7 and 14x14 layers, scaled
    down), one and two output blocks a tile, and a 7x7 stride-2 stem with its 3
    input channels in one block; the tiles as the host, an AVX2 host and an
    AVX-512 host would choose them."""
    if unit is not None:
        from xrelay.lowering.kernels import conv

        monkeypatch.setattr(conv, "host_vector_unit", lambda: unit)
        monkeypatch.setattr(tiling, "host_vector_unit", lambda: unit)
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    check(
        [
            _nchwc(
                case,
                _ints(rng, 1, 48, 7, 7),
                _ints(rng, 32, 48, 3, 3),
                16,
                16,
                {"padding": [1, 1]},
            ),
            _nchwc(
                case,
                _ints(rng, 1, 32, 14, 14),
                _ints(rng, 48, 32, 3, 3),
                16,
                16,
                {"strides": [2, 2], "padding": [1, 1]},
            ),
            _nchwc(
                case,
                _ints(rng, 1, 32, 3, 9),
                _ints(rng, 16, 32, 3, 3),
                16,
                16,
                {"padding": [1, 1]},
            ),
            _nchwc(
                case,
                _ints(rng, 1, 3, 17, 27),
                _ints(rng, 32, 3, 7, 7),
                3,
                16,
                {"strides": [2, 2], "padding": [3, 3]},
            ),
        ]
    )


def test_row_pieces():
    """A row is covered once, in order, by tiles of at most the tile's size, of at
    most two sizes differing by one, as few tiles as the size allows."""
    assert tiling.row_pieces(7, 3) == [(0, 1, 3), (3, 2, 2)]
    assert tiling.row_pieces(7, 6) == [(0, 1, 4), (4, 1, 3)]
    assert tiling.row_pieces(56, 6) == [(0, 6, 6), (36, 4, 5)]
    assert tiling.row_pieces(3, 8) == [(0, 1, 3)]
    for width in (1, 2, 5, 7, 13, 56, 112):
        for tile in range(1, 16):
            pieces = tiling.row_pieces(width, tile)
            columns = [
                first + k * size + t
                for first, count, size in pieces
                for k in range(count)
                for t in range(size)
            ]
            assert columns == list(range(width))
            sizes = [size for _, _, size in pieces]
            assert max(sizes) <= tile
            assert max(sizes) - min(sizes) <= 1
            assert sum(count for _, count, _ in pieces) == -(-width // tile)


def test_edge_runs():
    """A run of tiles whose code would clamp several columns is split: the tiles
    that reach the padding at either end apart from those between (which read
    the data unchecked); one clamped pixel keeps the run whole."""
    from xrelay.lowering.kernels.conv import edge_runs

    stem = (224, 7, 2, 1, 3)  # a 7x7 stride-2 first convolution, padding 3
    assert edge_runs(0, 17, 6, stem) == [(0, 1, 6), (6, 16, 6)]
    assert edge_runs(102, 2, 5, stem) == [(102, 2, 5)]  # one pixel past the end
    assert edge_runs(0, 5, 4, (39, 7, 2, 1, 3)) == [(0, 1, 4), (4, 3, 4), (16, 1, 4)]
    assert edge_runs(0, 6, 6, (56, 3, 1, 1, 1)) == [(0, 6, 6)]  # 3x3: one pixel
    assert edge_runs(0, 1, 4, (7, 3, 1, 1, 1)) == [(0, 1, 4)]
    for geometry in (stem, (56, 3, 1, 1, 1), (23, 5, 2, 2, 4), (9, 7, 1, 1, 3)):
        for first, count, tile in ((0, 5, 3), (2, 7, 4), (0, 1, 6)):
            runs = edge_runs(first, count, tile, geometry)
            columns = [a + k * size for a, n, size in runs for k in range(n)]
            assert columns == [first + k * tile for k in range(count)]
            assert all(size == tile for _, _, size in runs)


def test_split_row_tile(monkeypatch: pytest.MonkeyPatch):
    """The tile of a split row: within :func:`tiling.row_tile_bound`, the bound
    where the row's tiles run as many sums (ResNet's rows on AVX-512: 7 pixels of
    two blocks; on AVX2: up to 6 of one 16-channel block, 7 as 4 + 3)."""
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    avx512, avx2 = tiling.VectorUnit(64, 32), tiling.VectorUnit(32, 16)
    monkeypatch.setattr(tiling, "host_vector_unit", lambda: avx512)
    for width in (7, 14, 28, 56, 112):
        assert tiling.split_row_tile(width, 2, 16, 4) == 7
    monkeypatch.setattr(tiling, "host_vector_unit", lambda: avx2)
    assert tiling.row_tile_bound(1, 16, 4) == 6
    assert tiling.row_tile_bound(2, 16, 4) == 2
    assert tiling.split_row_tile(56, 1, 16, 4) == 6
    assert tiling.row_pieces(7, tiling.split_row_tile(7, 1, 16, 4)) == [
        (0, 1, 4),
        (4, 1, 3),
    ]
    assert tiling.split_row_tile(3, 1, 16, 4) == 3
    monkeypatch.setenv("XRELAY_TILE_ROWS", "2")
    assert tiling.split_row_tile(7, 1, 16, 4) == 2


def test_dilation_wider_than_the_tile(rng: Gen, check: Check, case: Any):
    """DeepLab's atrous convolutions: dilations wider than the row or the tile, so
    that tiles skip the kernel columns none of their pixels reaches (only the
    centre, or one side), with rows the tile does not divide and a stride."""
    check(
        [
            _nchwc(
                case,
                _x(rng, 1, 16, 7, 9),
                _x(rng, 16, 16, 3, 3),
                16,
                16,
                {"dilation": [8, 8], "padding": [8, 8]},
            ),
            _nchwc(
                case,
                _x(rng, 1, 16, 9, 29),
                _x(rng, 32, 16, 3, 3),
                16,
                16,
                {"dilation": [5, 12], "padding": [5, 12]},
            ),
            _nchwc(
                case,
                _x(rng, 1, 8, 6, 23),
                _x(rng, 16, 8, 3, 5),
                8,
                8,
                {"dilation": [1, 6], "padding": [1, 3, 1, 21], "strides": [1, 2]},
            ),
            _nchwc(
                case,
                _x(rng, 1, 16, 5, 40),
                _x(rng, 16, 16, 1, 3),
                16,
                16,
                {"dilation": [1, 36], "padding": [0, 36]},
            ),
        ]
    )


def test_narrow_blocks_many_per_tile(rng: Gen, check: Check, case: Any):
    """Output blocks narrower than the host's vectors, several per tile
    (:func:`tile_blocks`: 5 of 8 channels, 3 of 8, 5 of 4), grouped and not; rows
    the tile does not divide, padding, 1-sized dims."""
    check(
        [
            _nchwc(case, _x(rng, 1, 16, 3, 7), _x(rng, 40, 16, 1, 1), 16, 8, {}),
            _nchwc(
                case,
                _x(rng, 1, 8, 5, 9),
                _x(rng, 24, 8, 3, 3),
                8,
                8,
                {"padding": [1, 1]},
            ),
            _nchwc(
                case,
                _ints(rng, 1, 8, 1, 11),
                _ints(rng, 20, 8, 3, 3),
                8,
                4,
                {"strides": [1, 2], "padding": [1, 1]},
            ),
            # RegNet's group width 8: 5 groups, one 8-channel block each
            _grouped_nchwc(
                case,
                _x(rng, 1, 40, 7, 6),
                _x(rng, 40, 8, 3, 3),
                5,
                8,
                8,
                {"padding": [1, 1]},
            ),
        ]
    )


def test_tile_blocks(monkeypatch: pytest.MonkeyPatch):
    """Full-vector output blocks pair up; narrower ones take the largest divisor of
    the group's blocks up to ``2 * vector / block + 1``."""
    from xrelay.lowering.kernels import conv

    for unit in (tiling.VectorUnit(64, 32), tiling.VectorUnit(32, 16)):
        monkeypatch.setattr(conv, "host_vector_unit", lambda u=unit: u)
        monkeypatch.setattr(tiling, "host_vector_unit", lambda u=unit: u)
        assert conv.tile_blocks(4, unit.bytes) == 2
        assert conv.tile_blocks(5, unit.bytes) == 1
        half = unit.bytes // 2
        assert conv.tile_blocks(55, half) == 5  # RegNet's 440 channels
        assert conv.tile_blocks(13, half) == 1
        assert conv.tile_blocks(3, half) == 3
        assert conv.tile_blocks(1, half) == 1
        assert conv.tile_blocks(8, half) == 5 - 1  # 4 divides 8, 5 does not
        assert conv.tile_blocks(12, unit.bytes // 4) == 6  # at most 9 quarter blocks
        # a block of two vectors (16 float32 channels on AVX2): one block per tile
        # where that holds more sums (16 registers: 6 pixels of 2 vectors, 12 sums,
        # against 2 pixels of two blocks; 32 registers: two blocks of 4 pixels)
        pair = unit.registers >= 32
        assert conv.tile_blocks(4, 2 * unit.bytes) == (2 if pair else 1)
        assert tiling.row_tile_bound(1, 2 * unit.bytes, 1) == min(
            tiling.MAX_ROW_SUMS // 2, (unit.registers - 3) // 2
        )


def _grouped_nchwc(
    case: Any, x: Any, w: Any, groups: int, ic: int, oc: int, attrs: dict[str, Any]
) -> Any:
    """A grouped or depthwise convolution in the blocked layout AlterOpLayout gives
    it (depthwise: ``ic == 1``, data and output in blocks of ``oc``)."""
    data = f"NCHW{ic if ic > 1 else oc}c"
    return case(
        nn.Conv2DNCHWcOp,
        [
            transform_array(x, "NCHW", data),
            transform_array(w, "OIHW", f"OIHW{ic}i{oc}o"),
        ],
        {
            "data_layout": data,
            "kernel_layout": f"OIHW{ic}i{oc}o",
            "out_layout": f"NCHW{oc}c",
            "groups": groups,
            **attrs,
        },
    )


DEPTHWISE_SHAPES: list[tuple[int, int, int, int, int, dict[str, Any]]] = [
    # (N, C, H, W, K, attrs): every kernel size, stride 1 and 2 with odd sizes,
    # 1-sized spatial dims, rows the tile does not divide, asymmetric padding
    (1, 16, 9, 23, 3, {"padding": [1, 1]}),
    (2, 32, 7, 13, 3, {"strides": [2, 2], "padding": [1, 1]}),
    (1, 16, 1, 1, 3, {"padding": [1, 1]}),
    (1, 8, 1, 17, 5, {"padding": [2, 2]}),
    (1, 24, 11, 1, 5, {"strides": [2, 2], "padding": [2, 2]}),
    (1, 16, 15, 29, 7, {"padding": [3, 3]}),
    (1, 48, 9, 9, 7, {"strides": [2, 2], "padding": [3, 3]}),
    (1, 4, 6, 5, 3, {"strides": [1, 2], "dilation": [2, 1], "padding": [0, 2, 1, 1]}),
    (1, 2, 5, 5, 3, {}),
]


def _depthwise_cases(rng: Gen, case: Any) -> list[Any]:
    out: list[Any] = []
    for n, c, h, w, k, attrs in DEPTHWISE_SHAPES:
        lanes = next(b for b in (16, 8, 4, 2) if c % b == 0)
        out.append(
            _grouped_nchwc(
                case, _x(rng, n, c, h, w), _x(rng, c, 1, k, k), c, 1, lanes, attrs
            )
        )
    return out


def _grouped_cases(rng: Gen, case: Any) -> list[Any]:
    return [
        # 1x1, groups 2, 4, 8 (blocks of a group's channels; pairs of blocks)
        _grouped_nchwc(
            case, _x(rng, 1, 32, 5, 7), _x(rng, 64, 16, 1, 1), 2, 16, 16, {}
        ),
        _grouped_nchwc(case, _x(rng, 1, 32, 3, 9), _x(rng, 32, 8, 1, 1), 4, 8, 8, {}),
        _grouped_nchwc(case, _x(rng, 2, 16, 4, 3), _x(rng, 24, 2, 1, 1), 8, 2, 3, {}),
        # 3x3, stride 2, odd sizes, padding; 3 output blocks per group
        _grouped_nchwc(
            case,
            _ints(rng, 1, 64, 9, 11),
            _ints(rng, 96, 16, 3, 3),
            4,
            16,
            8,
            {"strides": [2, 2], "padding": [1, 1]},
        ),
        # 1-sized spatial dims, a 5x5 kernel
        _grouped_nchwc(
            case,
            _x(rng, 1, 16, 1, 1),
            _x(rng, 16, 8, 5, 5),
            2,
            8,
            8,
            {"padding": [2, 2]},
        ),
    ]


def test_depthwise_nchwc_odd_shapes(rng: Gen, check: Check, case: Any):
    check(_depthwise_cases(rng, case))


def test_grouped_nchwc_odd_shapes(rng: Gen, check: Check, case: Any):
    check(_grouped_cases(rng, case))


@pytest.mark.parametrize(
    "unit",
    [tiling.VectorUnit(16, 16), tiling.VectorUnit(64, 32)],
    ids=["sse", "avx512"],
)
def test_depthwise_nchwc_any_vector_unit(
    monkeypatch: pytest.MonkeyPatch,
    rng: Gen,
    check: Check,
    case: Any,
    unit: tiling.VectorUnit,
):
    """The depthwise kernel's parts (a block cut into host vectors: four parts of
    a 16-channel block with SSE's 4 lanes, one with AVX-512's 16) and tiles (from
    the host's registers) give the same results whatever the host's vector unit
    (the code itself is compiled for this host)."""
    from xrelay.lowering.kernels import conv

    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    monkeypatch.setattr(conv, "host_vector_unit", lambda: unit)
    monkeypatch.setattr(tiling, "host_vector_unit", lambda: unit)
    check(_depthwise_cases(rng, case))


def test_depthwise_parts_and_tiles(monkeypatch: pytest.MonkeyPatch):
    """A depthwise block is cut into vectors of the host's lanes (or the largest
    divisor of the block below them); a tile holds as many one-register pixels as
    fit beside the input columns they share: 7 at stride 1 and 5 at stride 2 on
    AVX2, 14 and 10 on AVX-512; no wider than the row, cutting it evenly where a
    size near the bound does; ``XRELAY_TILE_ROWS`` fixes it."""
    from xrelay.lowering.kernels import conv

    f32, f64 = np.dtype("float32"), np.dtype("float64")
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    avx2, avx512 = tiling.VectorUnit(32, 16), tiling.VectorUnit(64, 32)
    for unit, widths, tiles in (
        (avx2, {(16, f32): 8, (8, f32): 8, (4, f32): 4, (16, f64): 4, (6, f32): 6},
         {(56, 1): 7, (25, 2): 5, (28, 2): 4, (14, 1): 7, (3, 1): 3, (23, 1): 6}),
        (avx512, {(16, f32): 16, (8, f32): 8, (48, f32): 16, (16, f64): 8},
         {(56, 1): 14, (30, 2): 10, (28, 2): 7, (112, 1): 14, (7, 2): 7}),
    ):  # fmt: skip
        monkeypatch.setattr(conv, "host_vector_unit", lambda u=unit: u)
        monkeypatch.setattr(tiling, "host_vector_unit", lambda u=unit: u)
        for (block, dt), width in widths.items():
            assert conv.depthwise_vector(block, dt) == width, (unit, block, dt)
        for (row, stride), tile in tiles.items():
            assert tiling.depthwise_tile(row, stride) == tile, (unit, row, stride)
    monkeypatch.setenv("XRELAY_TILE_ROWS", "3")
    assert tiling.depthwise_tile(56, 1) == 3
    assert tiling.depthwise_tile(2, 1) == 2


def _dense_pack_cases(rng: Gen, case: Any) -> list[Any]:
    out: list[Any] = []
    # (M, K, units, n): 1 row; blocks not a multiple of the tile; K = 1; large K
    for m, k, u, n in [
        (1, 37, 48, 16),
        (9, 5, 88, 8),
        (3, 1, 4, 4),
        (2, 700, 160, 16),
        # vector tiles: rows no tile divides, blocks of several vectors (32, 64)
        # or fewer lanes than a vector (2), a short last column tile
        (17, 19, 96, 32),
        (29, 3, 1024, 64),
        (31, 4, 6, 2),
        (128, 9, 1008, 16),
        # one row (matvec_tile): several whole-line tiles and a short last one
        (1, 19, 144, 16),
        (1, 300, 464, 16),
        (1, 7, 40, 8),
    ]:
        gen = _ints if k > 32 else _x
        out.append(
            case(
                nn.DensePackOp,
                [gen(rng, m, k), gen(rng, u // n, k, n)],
                {"weight_layout": f"NC{n}n"},
                constants=[1],
            )
        )
    # N-D data: the leading dims are the rows (a 1-sized dim, 17 and 30 rows; 1001
    # units in blocks of 7)
    for lead, k, u, n in [
        ((1, 17), 33, 48, 16),
        ((2, 3, 5), 3, 1001, 7),
        ((1, 1, 1), 1, 2, 2),
        ((3, 1, 43), 17, 80, 16),
    ]:
        out.append(
            case(
                nn.DensePackOp,
                [_x(rng, *lead, k), _x(rng, u // n, k, n)],
                {"weight_layout": f"NC{n}n"},
                constants=[1],
            )
        )
    return out


def test_dense_pack_odd_shapes(rng: Gen, check: Check, case: Any):
    check(_dense_pack_cases(rng, case))


@pytest.mark.parametrize("rows", ["1", "3"])
def test_tile_override(
    rows: str, rng: Gen, check: Check, case: Any, monkeypatch: pytest.MonkeyPatch
):
    """``XRELAY_TILE_ROWS`` changes the tiles (1: the untiled plain convolution),
    not the results."""
    monkeypatch.setenv("XRELAY_TILE_ROWS", rows)
    assert tiling.tile_rows(16, 4) == int(rows)
    check(_plain_cases(rng, case)[:3] + _nchwc_cases(rng, case)[:2])
    check(_dense_pack_cases(rng, case)[:2])


def test_row_tile(monkeypatch: pytest.MonkeyPatch):
    """Convolution row tiles: within the registers, no wider than the row, cutting
    the row evenly when a size near the bound does; ``XRELAY_TILE_ROWS`` fixes it."""
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    unit = tiling.host_vector_unit()
    for blocks in (1, 2):
        cap = min(
            tiling.MAX_ROW_SUMS // blocks,
            max(1, unit.registers // 2) // (blocks * -(-64 // unit.bytes)),
        )
        for width in (1, 2, 5, 7, 23, 56, 1000):
            tile = tiling.row_tile(width, blocks, 16, 4)
            assert 1 <= tile <= min(width, max(1, cap))
            if width <= cap:
                assert tile == width
            elif width % cap == 0:
                assert tile == cap
    monkeypatch.setenv("XRELAY_TILE_ROWS", "3")
    assert tiling.row_tile(56, 2, 16, 4) == 3
    assert tiling.row_tile(2, 2, 16, 4) == 2


def test_conv_passes_and_row_groups():
    """Input-channel blocks per pass: as many as divide the blocks and fit the
    budget, at least one; row groups: nearly equal, enough parallel iterations."""
    budget = tiling.CONV_CHUNK_BYTES
    assert tiling.conv_chunk(32, 18 << 10) == 1
    assert tiling.conv_chunk(16, budget // 4) == 4
    assert tiling.conv_chunk(6, budget // 4) == 3
    assert tiling.conv_chunk(7, budget // 4) == 1
    assert tiling.conv_chunk(2, 1) == 2
    assert tiling.conv_row_group(7, 16) == 7
    assert tiling.conv_row_group(14, 8) == 7
    assert tiling.conv_row_group(56, 2) == 7
    assert tiling.conv_row_group(10, 4) == 3
    assert tiling.conv_row_group(3, 1) == 1
    for rows in (1, 5, 7, 28):
        for tasks in (1, 3, 16, 64):
            group = tiling.conv_row_group(rows, tasks)
            assert 1 <= group <= rows
            if tasks >= tiling.CONV_MIN_TASKS:
                assert group == rows


def test_fused_conv_odd_rows():
    """Blocked convolutions with bias, relu and a residual add as their epilogue, on
    rows the tiles do not divide (tiles of two sizes, summed in passes: the
    epilogue must run once on each value, after the last pass), against the
    interpreter; one and two threads agree bit for bit."""
    import xrelay
    from xrelay import relay
    from xrelay.build import optimize_module
    from xrelay.pass_manager import PassContext
    from xrelay.runtime import interpret

    rng = np.random.default_rng(5)

    def const(*shape: int) -> Any:
        return relay.const((rng.standard_normal(shape) * 0.2).astype("float32"))

    x = relay.var("x", shape=(1, 16, 9, 23), dtype="float32")
    y = relay.nn.relu(
        relay.nn.bias_add(
            relay.nn.conv2d(x, const(32, 16, 3, 3), padding=(1, 1)), const(32)
        )
    )
    z = relay.nn.conv2d(y, const(32, 32, 3, 3), padding=(1, 1))
    y = relay.nn.relu(relay.add(relay.nn.bias_add(z, const(32)), y))
    y = relay.nn.conv2d(y, const(48, 32, 3, 3), padding=(0, 1), strides=(2, 1))
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    data = rng.standard_normal((1, 16, 9, 23)).astype("float32")
    with PassContext(opt_level=3):
        lib = xrelay.build(mod)
        expected = interpret(optimize_module(mod), data)
    outs: list[Any] = []
    for count in (1, 2):
        m = lib.create()
        m.set_num_threads(count)
        m.set_input(0, data)
        m.run()
        outs.append(m.get_output(0))
    np.testing.assert_allclose(outs[0], expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(outs[1], outs[0])


def test_tile_rows_from_host(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    unit = tiling.host_vector_unit()
    rows = tiling.tile_rows(16, 4)
    assert 1 <= rows <= tiling.MAX_TILE_ROWS
    assert rows * -(-64 // unit.bytes) <= max(1, unit.registers // 2)
    monkeypatch.setenv("XRELAY_TILE_ROWS", "zero")
    with pytest.raises(ValueError, match="XRELAY_TILE_ROWS"):
        tiling.tile_rows(16, 4)


def test_batch_matmul_odd_shapes(rng: Gen, check: Check, case: Any):
    cases: list[Any] = []
    # (B_x, B_y, M, K, N, transpose_a, transpose_b)
    for bx, by, m, k, n, ta, tb in [
        (2, 2, 3, 5, 37, False, True),  # Relay's default layout, N not a tile multiple
        (1, 3, 1, 1, 1, False, False),  # 1-sized dims, broadcast batch
        (3, 1, 4, 7, 130, True, False),  # transposed x, broadcast y, N > one tile
        (1, 1, 2, 300, 20, True, True),  # large K (small integers: exact sums)
        (1, 3, 17, 9, 33, False, True),  # broadcast x, y repacked per batch entry
        (4, 1, 5, 3, 17, False, True),  # broadcast transposed y: repacked once
        # vector tiles: rows the tile does not divide, a short last column tile and
        # tail columns after the last whole vector (1001 = 62 x 16 + 9)
        (2, 2, 30, 17, 1001, False, False),
        # one row (matvec_tile): whole-line tiles along N, a short last tile,
        # tail columns; a query row's probabilities times a KV cache's values
        (2, 2, 1, 40, 208, False, False),
        (3, 3, 1, 129, 64, False, False),
        (1, 2, 1, 7, 1001, False, False),
        (1, 1, 29, 64, 128, False, False),
        (3, 3, 17, 5, 24, True, True),
        (2, 1, 1, 1, 1001, False, True),
    ]:
        gen = _ints if k > 32 else _x
        xs = (bx, k, m) if ta else (bx, m, k)
        ys = (by, n, k) if tb else (by, k, n)
        cases.append(
            case(
                nn.BatchMatmulOp,
                [gen(rng, *xs), gen(rng, *ys)],
                {"transpose_a": ta, "transpose_b": tb},
            )
        )
    check(cases)


def test_gemm_tile(monkeypatch: pytest.MonkeyPatch):
    """Matrix-product tiles: the sums, a vector per column and a broadcast fit the
    host's registers (and ``MAX_GEMM_SUMS``), never larger than the output; a tall
    output gets a tile of several rows and enough sums to hide the multiply-add
    latency; ``XRELAY_TILE_ROWS`` caps the rows."""
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    registers = tiling.host_vector_unit().registers
    for rows in (1, 2, 17, 128, 1001):
        for vectors in (1, 3, 16, 63):
            mr, nv = tiling.gemm_tile(rows, vectors)
            assert 1 <= mr <= rows
            assert 1 <= nv <= vectors
            assert mr * nv + nv + 1 <= registers
            assert mr * nv <= tiling.MAX_GEMM_SUMS
            if rows >= 17 and vectors >= 16:
                assert mr > 1
                assert mr * nv >= tiling.GEMM_MIN_STEP
    # a tile dividing the output beats one leaving short edge tiles
    cost = tiling._gemm_cost  # pyright: ignore[reportPrivateUsage]
    assert cost(12, 4, 6, 2) < cost(12, 4, 5, 2)
    monkeypatch.setenv("XRELAY_TILE_ROWS", "3")
    assert 1 < tiling.gemm_tile(128, 16)[0] <= 3
    assert tiling.gemm_tile(2, 16)[0] == 2


def test_matvec_tile(monkeypatch: pytest.MonkeyPatch):
    """Skinny-product tiles: whole cache lines per tile (``nv`` a multiple of
    ``align`` unless the output is narrower), the registers fit (a one-row tile
    needs none per loaded vector, so it carries more sums than ``gemm_tile``'s),
    never larger than the output."""
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    registers = tiling.host_vector_unit().registers
    for rows in (1, 2, 5, 8):
        for vectors in (1, 3, 8, 63, 704):
            for align in (1, 2, 4):
                mr, nv = tiling.matvec_tile(rows, vectors, align)
                assert 1 <= mr <= rows
                assert 1 <= nv <= vectors
                assert nv % align == 0 or nv == vectors < align
                assert mr * nv + (1 if mr == 1 else nv) + 1 <= registers
                assert mr * nv <= tiling.MAX_GEMM_SUMS
    # one row: more independent sums than gemm_tile allows, in whole lines
    mr, nv = tiling.matvec_tile(1, 704, 2)
    assert mr == 1
    assert nv > tiling.gemm_tile(1, 704)[1]
    assert nv >= tiling.GEMM_MIN_STEP
    # a 256-byte row of 8-lane vectors: one tile, not 7 + 1 (5 lines read)
    assert tiling.matvec_tile(1, 8, 2) == (1, 8)
