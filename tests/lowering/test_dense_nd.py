"""``nn.dense`` on N-D data (ONNX MatMul on ``[batch, seq, features]``) runs as the
packed GEMM kernel at opt_level 3: AlterOpLayout packs it without flattening, and the
bias add, erf-GELU and residual add after it are its epilogue in one kernel shared by
the threads."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext


def _erf(v: Any) -> Any:
    return np.vectorize(math.erf)(v.astype(np.float64))


def _model(lead: tuple[int, ...], k: int, units: int) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((units, k)) * 0.3).astype("float32")
    b = rng.standard_normal(units).astype("float32")
    x = relay.var("x", shape=(*lead, k), dtype="float32")
    r = relay.var("r", shape=(*lead, units), dtype="float32")
    y = relay.add(relay.nn.dense(x, relay.const(w)), relay.const(b))
    gelu = relay.multiply(
        relay.multiply(y, relay.const(0.5)),
        relay.add(
            relay.erf(relay.multiply(y, relay.const(0.70710677))), relay.const(1.0)
        ),
    )
    out = relay.add(gelu, r)
    inputs = [
        rng.standard_normal((*lead, k)).astype("float32"),
        rng.standard_normal((*lead, units)).astype("float32"),
    ]
    y_ref = inputs[0].astype(np.float64) @ w.T.astype(np.float64) + b
    ref = 0.5 * y_ref * (1 + _erf(y_ref / np.sqrt(2.0))) + inputs[1]
    return relay.IRModule.from_expr(out), inputs, ref


@pytest.mark.parametrize(
    ("lead", "k", "units", "packed"),
    [
        ((1, 17), 33, 48, True),
        ((2, 3, 5), 3, 1000, True),
        ((1, 1), 64, 16, True),
        # no block divides 1001 units: the plain dense, with the same epilogue
        ((3, 2), 5, 1001, False),
    ],
)
def test_dense_nd_gelu_residual(
    lead: tuple[int, ...], k: int, units: int, packed: bool
):
    mod, inputs, ref = _model(lead, k, units)
    with PassContext(opt_level=3):
        lib = xrelay.build(mod, keep_mlir=True)
    host = lib.get_source("mlir").split("func.func @main")[1]
    calls = [line for line in host.splitlines() if "func.call @k" in line]
    # one kernel: the packed product with the whole epilogue, shared out
    assert len(calls) == 1, calls
    assert ("contrib_dense_pack" in calls[0]) == packed
    assert "erf" in calls[0]
    assert ("%tid, %nthreads, %team" in calls[0]) or not packed
    for threads in (1, 2):
        m = lib.create()
        m.set_num_threads(threads)
        m.set_input("x", inputs[0])
        m.set_input("r", inputs[1])
        m.run()
        np.testing.assert_allclose(m.get_output(0), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "ta", "tb", "packed"),
    [
        ((1, 17, 33), (33, 48), False, False, True),
        ((2, 3, 5, 3), (1000, 3), False, True, True),
        ((9, 64), (64, 16), False, False, True),
        ((33, 9), (33, 16), True, False, False),  # transpose_a: not packed
        ((4, 7), (7, 17), False, False, False),  # no block divides 17 units
    ],
)
def test_matmul_with_a_matrix_is_packed(
    a_shape: tuple[int, ...],
    b_shape: tuple[int, ...],
    ta: bool,
    tb: bool,
    packed: bool,
):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(a_shape).astype("float32")
    b = rng.standard_normal(b_shape).astype("float32")
    x = relay.var("x", shape=a_shape, dtype="float32")
    y = relay.nn.matmul(x, relay.const(b), transpose_a=ta, transpose_b=tb)
    lib = xrelay.build(relay.IRModule.from_expr(y), keep_mlir=True)
    assert ("contrib_dense_pack" in lib.get_source("mlir")) == packed
    a64 = np.swapaxes(a, -1, -2) if ta else a
    ref = a64.astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    np.testing.assert_allclose(lib(a), ref, rtol=1e-4, atol=1e-4)
