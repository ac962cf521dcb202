"""int16 ``batch_matmul`` with int32 sums on the pair-product kernel (``pmaddwd``,
:mod:`xrelay.lowering.kernels.int16_matmul`): the reference's integers bit for bit
with ``y`` given transposed or not, broadcast over the batch, rows that leave a
short last tile, the extremes of int16 (a pair of products near ``2**31``), and
operands the kernel does not take (odd ``K``, ``N`` not a multiple of the lanes,
int32) on the generic loop; the register tile leaves room for the product. One
build for every case (module fixture)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.lowering.kernels.int16 import pair_lanes
from xrelay.lowering.kernels.int16_matmul import (
    PAIR_TEMPORARIES,
    batch_matmul_pairs_fit,
    pair_gemm_tile,
)
from xrelay.lowering.tiling import host_vector_unit
from xrelay.runtime.interpreter import interpret

RNG = np.random.default_rng(0)
I16, I32 = np.dtype("int16"), np.dtype("int32")

# (x shape, y shape, transpose_b, dtype)
CASES: list[tuple[tuple[int, ...], tuple[int, ...], bool, str]] = [
    ((3, 9, 6), (3, 16, 6), True, "int16"),
    ((2, 7, 4), (2, 4, 24), False, "int16"),
    ((4, 13, 8), (1, 8, 8), True, "int16"),  # y broadcast over the batch
    ((1, 5, 2), (1, 8, 2), True, "int16"),  # extremes
    ((2, 3, 5), (2, 8, 5), True, "int16"),  # odd K: the generic loop
    ((2, 3, 4), (2, 4, 5), False, "int16"),  # N = 5: the generic loop
    ((2, 3, 4), (2, 8, 4), True, "int32"),
]


@pytest.fixture(scope="module")
def built() -> tuple[Any, Any, list[np.ndarray]]:
    params: list[Any] = []
    outs: list[Any] = []
    arrays: list[np.ndarray] = []
    for k, (xs, ys, tb, dt) in enumerate(CASES):
        x = relay.var(f"x{k}", shape=xs, dtype=dt)
        y = relay.var(f"y{k}", shape=ys, dtype=dt)
        params += [x, y]
        outs.append(relay.nn.batch_matmul(x, y, out_dtype="int32", transpose_b=tb))
        xa = RNG.integers(-32768, 32768, xs).astype(dt)
        ya = RNG.integers(-32768, 32768, ys).astype(dt)
        if k == 3:  # -32768 * -32768 twice: one pair at 2**31, which wraps alike
            xa[...], ya[...] = -32768, -32768
            xa[0, 1], ya[0, 1] = 32767, -32768
        arrays += [xa, ya]
    mod = relay.IRModule.from_expr(relay.Function(params, relay.Tuple(outs)))
    lib = xrelay.build(mod, keep_mlir=True, cache=False)
    return mod, lib, arrays


def test_batch_matmul_int16_is_exact(built: tuple[Any, Any, list[np.ndarray]]):
    mod, lib, arrays = built
    want = interpret(mod, *arrays)
    got = lib(*arrays)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_array_equal(g, w, err_msg=f"case {CASES[k]}")


def test_batch_matmul_int16_runs_pairs(built: tuple[Any, Any, list[np.ndarray]]):
    if pair_lanes() == 0:
        pytest.skip("the host has no pmaddwd")
    kernels = re.split(r"\n\s*func\.func ", built[1].get_source("mlir"))
    assert len([k for k in kernels if "pmadd" in k]) == 4  # the fitting cases


def test_batch_matmul_int16_is_shared_by_the_threads(monkeypatch: Any):
    """The kernel has one parallel nest (over the batch entries, each repacking
    its own slot) and stores nothing outside it, so several threads run it: a
    repack before the nest would make it single-threaded."""
    if pair_lanes() == 0:
        pytest.skip("the host has no pmaddwd")
    from xrelay.build import optimize_module
    from xrelay.lowering import graph
    from xrelay.lowering.pipeline import relay_to_kernels
    from xrelay.pass_manager import PassContext

    seen: dict[str, bool] = {}
    share_out = graph.share_out

    def spy(kb: Any, parallel: dict[str, bool], *rest: Any) -> Any:
        seen.update(parallel)
        return share_out(kb, parallel, *rest)

    monkeypatch.setattr(graph, "share_out", spy)
    x = relay.var("x", shape=(4, 16, 8), dtype="int16")
    y = relay.var("y", shape=(1, 16, 8), dtype="int16")
    expr = relay.nn.batch_matmul(x, y, out_dtype="int32")
    with PassContext(opt_level=3):
        module = optimize_module(relay.IRModule.from_expr(relay.Function([x, y], expr)))
    relay_to_kernels(module)
    assert [v for k, v in seen.items() if "batch_matmul" in k] == [True]


@pytest.mark.parametrize(
    ("ta", "tb", "xs", "ys", "dts", "fits"),
    [
        (False, True, (2, 3, 4), (2, 16, 4), (I16, I16, I32), True),
        (False, False, (2, 3, 4), (2, 4, 16), (I16, I16, I32), True),
        (True, True, (2, 4, 3), (2, 16, 4), (I16, I16, I32), False),
        (False, True, (2, 3, 5), (2, 16, 5), (I16, I16, I32), False),
        (False, True, (2, 3, 4), (2, 12, 4), (I16, I16, I32), False),
        (False, True, (2, 3, 4), (2, 16, 4), (I32, I32, I32), False),
        (False, True, (2, 3, 4), (2, 16, 4), (I16, I16, I16), False),
    ],
)
def test_batch_matmul_pairs_fit(
    ta: bool, tb: bool, xs: Any, ys: Any, dts: Any, fits: bool
):
    if pair_lanes() not in (4, 8):
        pytest.skip("lanes other than SSE2's or AVX2's")
    assert batch_matmul_pairs_fit(ta, tb, (xs, dts[0]), (ys, dts[1]), dts[2]) == fits


@pytest.mark.parametrize(("rows", "vectors"), [(128, 32), (7, 3), (1, 40), (197, 8)])
def test_pair_tile_leaves_room_for_the_product(rows: int, vectors: int):
    mr, nv = pair_gemm_tile(rows, vectors)
    assert 1 <= mr <= rows
    assert 1 <= nv <= vectors
    assert mr * nv + nv + PAIR_TEMPORARIES <= host_vector_unit().registers
