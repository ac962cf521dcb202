"""Matrix-vector and skinny matrix products (issue 26): ``dense`` with a plain
weight whose ``N`` no block divides (a language model's 50257 outputs) runs the
dot-product vector tiles, against numpy, on odd ``N`` (1, 3, 17, primes), ``K``
with and without a whole number of vectors, one to a few rows and N-D data; the
tile chooser stays within the host's registers."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.dialects.relay import nn
from xrelay.lowering import tiling

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _x(rng: Gen, *shape: int, dtype: str = "float32") -> Any:
    return (rng.standard_normal(shape) * 0.5).astype(dtype)


def test_dense_ragged_n(rng: Gen, check: Check, case: Any):
    cases: list[Any] = []
    # (rows, K, N): N = 1, 3, 17 and primes (a 50257-like LM head, small K); K below,
    # at and past the lanes, with a tail after the last whole vector
    for m, k, n in [
        (1, 8, 1),
        (1, 9, 3),
        (1, 64, 17),
        (1, 37, 251),
        (2, 16, 1009),
        (3, 31, 17),
        (5, 100, 13),
        (8, 24, 127),
        (13, 17, 3),
        (1, 3, 5),  # K shorter than a vector: the scalar loop nest
    ]:
        cases.append(case(nn.DenseOp, [_x(rng, m, k), _x(rng, n, k)], constants=[1]))
    # N-D data (the leading dims are the rows), f64, a weight given as an input
    cases.append(case(nn.DenseOp, [_x(rng, 2, 3, 20), _x(rng, 7, 20)], constants=[1]))
    cases.append(case(nn.DenseOp, [_x(rng, 1, 1, 33), _x(rng, 3, 33)]))
    cases.append(
        case(
            nn.DenseOp,
            [_x(rng, 3, 21, dtype="float64"), _x(rng, 11, 21, dtype="float64")],
            constants=[1],
        )
    )
    check(cases)


def test_lm_head_shape_with_fused_bias_and_activation():
    # 1 x 768 @ 768 x 50257-like: the built model against numpy. AlterOpLayout
    # splits the dense: the leading 5008 units packed, the last 15 a plain dense
    # (dot-product tiles), both written in place into their concatenation
    rng = np.random.default_rng(3)
    k, n = 96, 5023  # a prime number of outputs
    w, b = _x(rng, n, k), _x(rng, n)
    x_val = _x(rng, 1, k)
    x = relay.var("x", shape=(1, k), dtype="float32")
    y = relay.tanh(relay.nn.bias_add(relay.nn.dense(x, relay.const(w)), relay.const(b)))
    lib = xrelay.build(relay.IRModule.from_expr(relay.Function([x], y)), cache=False)
    kernels = re.findall(
        r'define (?:internal|hidden) void @"(k\d+_\w+)"\(', lib.llvm_ir
    )
    assert "k0_fused_nn_contrib_dense_pack" in kernels
    assert "k1_fused_nn_dense" in kernels
    assert not [k for k in kernels if "concatenate" in k or "layout_transform" in k]
    np.testing.assert_allclose(
        lib(x_val), np.tanh(x_val @ w.T + b), rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("rows", [1, 2, 3, 4, 8, 128])
@pytest.mark.parametrize("units", [1, 3, 17, 50257])
def test_dot_tile_fits_the_registers(
    rows: int, units: int, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("XRELAY_TILE_ROWS", raising=False)
    mr, nu = tiling.dot_tile(rows, units)
    regs = tiling.host_vector_unit().registers
    assert 1 <= mr <= rows
    assert 1 <= nu <= min(units, tiling.DOT_MAX_UNITS)
    assert mr * nu + mr + 1 <= regs
    assert mr * nu <= tiling.MAX_GEMM_SUMS
    monkeypatch.setenv("XRELAY_TILE_ROWS", "1")
    assert tiling.dot_tile(rows, units)[0] == 1


def test_batch_matmul_few_rows_transposed(rng: Gen, check: Check, case: Any):
    # a query row against the keys of a KV cache (y given as [B, N, K]): y read
    # along K without a copy; M up to DOT_MAX_ROWS, then the tiles along N
    cases: list[Any] = []
    for bx, by, m, k, n in [
        (12, 12, 1, 64, 127),
        (3, 3, 1, 67, 17),
        (2, 1, 2, 16, 3),  # y broadcast over the batch
        (1, 4, 3, 9, 5),  # x broadcast
        (2, 2, tiling.DOT_MAX_ROWS, 24, 11),
        (2, 2, tiling.DOT_MAX_ROWS + 1, 24, 11),  # the copy into [B, K, N]
        (2, 2, 1, 5, 7),  # K shorter than a vector
    ]:
        x, y = _x(rng, bx, m, k), _x(rng, by, n, k)
        cases.append(case(nn.BatchMatmulOp, [x, y]))
        cases.append(case(nn.BatchMatmulOp, [x, y], constants=[1]))
    check(cases)


@pytest.mark.parametrize("lead", [(1,), (2, 3)])
def test_plain_dense_with_a_fused_epilogue(lead: tuple[int, ...]):
    # 13 units (no block, fewer than one: not split): the dot-product tiles apply
    # the fused bias add and relu as each output is stored
    rng = np.random.default_rng(4)
    k, n = 40, 13
    w, b = _x(rng, n, k), _x(rng, n)
    x_val = _x(rng, *lead, k)
    x = relay.var("x", shape=(*lead, k), dtype="float32")
    y = relay.nn.relu(relay.add(relay.nn.dense(x, relay.const(w)), relay.const(b)))
    lib = xrelay.build(relay.IRModule.from_expr(relay.Function([x], y)), cache=False)
    kernels = re.findall(
        r'define (?:internal|hidden) void @"(k\d+_\w+)"\(', lib.llvm_ir
    )
    assert kernels == ["k0_fused_nn_dense_add_nn_relu"]
    assert "vector.reduce.fadd" in lib.llvm_ir
    np.testing.assert_allclose(
        lib(x_val), np.maximum(x_val @ w.T + b, 0), rtol=1e-5, atol=1e-5
    )
