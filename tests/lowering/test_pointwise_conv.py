"""1x1 blocked convolutions run as matrix products over their pixels
(``conv.pointwise_nchwc``), against the op's numpy semantics: pixel counts the tile
does not divide, one pixel, row tiles shared out in groups, input blocks of any size
(3, 8, 16), output blocks of one, two or three host vectors, batches, float64 (and
fewer than 64 input channels left to the row tiles); the
same on SSE's and AVX-512's vector units (tiles and vectors from the host); and,
built at opt_level 3, the fused SiLU and residual epilogues run over each group's
outputs (groups that start inside a row) against a float64 numpy reference."""

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

# (N, C, H, W, O, input block, output block, dtype)
SHAPES: list[tuple[int, int, int, int, int, int, int, str]] = [
    (1, 64, 7, 7, 64, 16, 16, "float32"),  # 49 pixels: a short last row tile
    (2, 80, 3, 5, 48, 16, 16, "float32"),  # a batch; three output blocks
    (1, 96, 1, 1, 32, 16, 16, "float32"),  # one pixel
    (1, 64, 23, 9, 8, 8, 8, "float32"),  # one output vector: many row groups
    (1, 66, 6, 11, 16, 3, 16, "float32"),  # 3-channel input blocks
    (1, 72, 5, 13, 48, 8, 24, "float32"),  # output blocks of three AVX2 vectors
    (1, 64, 9, 4, 32, 16, 16, "float64"),
]


def _taken(dtype: str, block: int) -> bool:
    """Whether ``pointwise_nchwc`` takes output blocks of ``block`` channels of
    ``dtype`` on this host (whole host vectors)."""
    lanes = tiling.host_vector_unit().bytes // np.dtype(dtype).itemsize
    return block % lanes == 0


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each call of ``pointwise_nchwc`` answered (the convolutions it took)."""
    from xrelay.lowering.kernels import conv

    calls: list[bool] = []
    real = conv.pointwise_nchwc

    def record(*args: Any, **kwargs: Any) -> bool:
        calls.append(real(*args, **kwargs))
        return calls[-1]

    monkeypatch.setattr(conv, "pointwise_nchwc", record)
    return calls


def _cases(rng: Gen, case: Any) -> list[Any]:
    out: list[Any] = []
    for n, c, h, w, o, ib, ob, dtype in SHAPES:
        x = (rng.standard_normal((n, c, h, w)) * 0.5).astype(dtype)
        k = (rng.standard_normal((o, c, 1, 1)) * 0.5).astype(dtype)
        data, kernel = f"NCHW{ib}c", f"OIHW{ib}i{ob}o"
        out.append(
            case(
                nn.Conv2DNCHWcOp,
                [transform_array(x, "NCHW", data), transform_array(k, "OIHW", kernel)],
                {
                    "data_layout": data,
                    "kernel_layout": kernel,
                    "out_layout": f"NCHW{ob}c",
                    "channels": o,
                    "kernel_size": [1, 1],
                },
            )
        )
    return out


def test_pointwise_odd_shapes(rng: Gen, check: Check, case: Any, spy: list[bool]):
    check(_cases(rng, case))
    assert sum(spy) == sum(_taken(s[7], s[6]) for s in SHAPES) > 0


def test_few_input_channels_keep_row_tiles(
    rng: Gen, check: Check, case: Any, spy: list[bool]
):
    """Below ``POINTWISE_MIN_CHANNELS`` input channels the row tiles are faster."""
    x = (rng.standard_normal((1, 48, 5, 7)) * 0.5).astype("float32")
    k = (rng.standard_normal((32, 48, 1, 1)) * 0.5).astype("float32")
    check(
        [
            case(
                nn.Conv2DNCHWcOp,
                [
                    transform_array(x, "NCHW", "NCHW16c"),
                    transform_array(k, "OIHW", "OIHW16i16o"),
                ],
                {
                    "data_layout": "NCHW16c",
                    "kernel_layout": "OIHW16i16o",
                    "out_layout": "NCHW16c",
                    "channels": 32,
                    "kernel_size": [1, 1],
                },
            )
        ]
    )
    assert spy == [False]


@pytest.mark.parametrize(
    "unit",
    [tiling.VectorUnit(16, 16), tiling.VectorUnit(64, 32)],
    ids=["sse", "avx512"],
)
def test_pointwise_any_vector_unit(
    monkeypatch: pytest.MonkeyPatch,
    rng: Gen,
    check: Check,
    case: Any,
    unit: tiling.VectorUnit,
):
    """Other hosts' tiles and vectors (the code is compiled for this host): output
    blocks of 8 channels are not whole AVX-512 vectors and take the row-tiled
    kernel there."""
    from xrelay.lowering.kernels import conv

    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    monkeypatch.setattr(conv, "host_vector_unit", lambda: unit)
    monkeypatch.setattr(tiling, "host_vector_unit", lambda: unit)
    check(_cases(rng, case))


def test_pointwise_tile(monkeypatch: pytest.MonkeyPatch):
    """Tiles of 6 pixels by 2 vectors on AVX2 (12 sums), wider on AVX-512; the
    vectors of a tile divide the output's; never more pixels than there are."""
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    monkeypatch.setattr(tiling, "host_vector_unit", lambda: tiling.VectorUnit(32, 16))
    assert tiling.pointwise_tile(196, 14) == (6, 2)
    assert tiling.pointwise_tile(3136, 18) == (6, 2)
    assert tiling.pointwise_tile(3, 2) == (3, 2)
    for rows, vectors in ((49, 7), (49, 5), (1, 1), (12544, 12), (196, 29)):
        mr, nv = tiling.pointwise_tile(rows, vectors)
        assert vectors % nv == 0
        assert 1 <= mr <= rows
        assert mr * nv <= tiling.MAX_GEMM_SUMS
        assert mr * nv + nv + 1 <= 16
    monkeypatch.setattr(tiling, "host_vector_unit", lambda: tiling.VectorUnit(64, 32))
    mr, nv = tiling.pointwise_tile(196, 14)
    assert mr * nv > 12
    assert mr * nv + nv + 1 <= 32
    monkeypatch.setenv("XRELAY_TILE_ROWS", "2")
    assert tiling.pointwise_tile(196, 14)[0] == 2


@pytest.fixture(scope="module")
def silu_block() -> tuple[Any, Any, Any]:
    """1x1 conv -> bias -> SiLU -> 1x1 conv -> bias -> + input, built once at
    opt_level 3 (the SiLU and the residual add are the convolutions' epilogues);
    its input and float64 reference."""
    import xrelay
    from xrelay import relay
    from xrelay.pass_manager import PassContext

    rng = np.random.default_rng(7)
    c, e, h, w = 64, 128, 11, 13  # 143 pixels: groups of tiles start inside rows
    w1 = (rng.standard_normal((e, c, 1, 1)) / np.sqrt(c)).astype("float32")
    b1 = (rng.standard_normal(e) * 0.1).astype("float32")
    w2 = (rng.standard_normal((c, e, 1, 1)) / np.sqrt(e)).astype("float32")
    b2 = (rng.standard_normal(c) * 0.1).astype("float32")
    x = relay.var("x", shape=(1, c, h, w), dtype="float32")
    y = relay.nn.bias_add(relay.nn.conv2d(x, relay.const(w1)), relay.const(b1))
    y = relay.multiply(y, relay.sigmoid(y))
    y = relay.nn.bias_add(relay.nn.conv2d(y, relay.const(w2)), relay.const(b2))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.add(y, x)))
    with PassContext(opt_level=3):
        lib = xrelay.build(mod, keep_mlir=True)
    data = rng.standard_normal((1, c, h, w)).astype("float32")
    xd = data.astype(np.float64)
    t = np.einsum("nchw,oc->nohw", xd, w1[:, :, 0, 0]) + b1[None, :, None, None]
    t = t / (1.0 + np.exp(-t))
    ref = np.einsum("nchw,oc->nohw", t, w2[:, :, 0, 0]) + b2[None, :, None, None] + xd
    return lib, data, ref


def test_pointwise_epilogues(silu_block: tuple[Any, Any, Any]):
    lib, data, ref = silu_block
    kernels = lib.get_source("mlir")
    assert "contrib_conv2d_NCHWc_add_sigmoid_multiply" in kernels
    for threads in (1, 2):
        m = lib.create()
        m.set_num_threads(threads)
        m.set_input(0, data)
        m.run()
        np.testing.assert_allclose(m.get_output(0), ref, rtol=1e-4, atol=1e-5)
