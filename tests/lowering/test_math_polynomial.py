"""The inline ``f32`` approximations of ``exp``, ``log``, ``tanh``, ``erf`` (and the
``sigmoid`` built on ``exp``) against float64 numpy / ``math.erf``, over the whole
``f32`` range: random bit patterns (every exponent, denormals, both signs), a dense
sweep of [-12, 12], and the edges (±0, ±inf, NaN, the overflow and underflow
thresholds, the clamps and branch points of the expansions). The bounds are the ones stated in
:mod:`xrelay.lowering.llvm.math_polynomial`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 1e-40]
SPECIAL += [88.72, 88.73, 89.0, -87.3, -103.9, -104.0, -110.0, 1.0, -1.0, 0.5, 2.0]
SPECIAL += [3.4e38, -3.4e38, 20.0, -20.0]
# the clamps of tanh and erf and where they round to ±1; log's sqrt(1/2), sqrt(2)
SPECIAL += [9.0, -9.0, 9.01, 8.99, 3.9375, -3.9375, 3.92, 3.93, 4.0, -4.0]
SPECIAL += [0.70710677, 0.7071068, 1.4142135, 1.4142137, 5.877472e-39, 1.1754944e-38]

MAX_ULP = {"exp": 2.0, "log": 2.0, "tanh": 6.0, "erf": 6.0, "sigmoid": 3.0}


def _inputs() -> Any:
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, 300_000, dtype=np.uint64).astype(np.uint32)
    dense = np.linspace(-12, 12, 100_001, dtype=np.float32)
    return np.concatenate([bits.view(np.float32), np.array(SPECIAL, "float32"), dense])


def _reference(name: str, x: Any) -> Any:
    with np.errstate(all="ignore"):
        d = x.astype(np.float64)
        if name == "erf":
            return np.vectorize(math.erf, otypes=[float])(d)
        if name == "sigmoid":
            return 1 / (1 + np.exp(-d))
        return getattr(np, name)(d)


def _build(name: str, x: Any, cache: bool = True) -> Any:
    v = relay.var("x", shape=x.shape, dtype=str(x.dtype))
    with PassContext(opt_level=3):
        return xrelay.build(
            relay.IRModule.from_expr(getattr(relay, name)(v)), cache=cache
        )


@pytest.mark.parametrize("scalef", [True, False], ids=["host", "two-step-2^n"])
@pytest.mark.parametrize("name", sorted(MAX_ULP))
def test_f32_accuracy_over_the_whole_range(
    name: str, scalef: bool, monkeypatch: pytest.MonkeyPatch
):
    """On the host's path (``ldexp`` on AVX-512 hosts), and on the two-step scaling
    by 2^n that other hosts take."""
    from xrelay.lowering.llvm import math_polynomial
    from xrelay.lowering.tiling import VectorUnit, host_vector_unit

    avx512 = host_vector_unit().bytes >= 64
    if not scalef:
        monkeypatch.setattr(
            math_polynomial, "host_vector_unit", lambda: VectorUnit(32, 16)
        )
    x = _inputs()
    lib = _build(name, x, cache=scalef)
    # inlined: no per-element library call is left in the optimised code
    optimized = lib.get_source("opt")
    for symbol in ("@llvm.exp.", "@llvm.log.", "@llvm.tanh.", "@expf", "@erff"):
        assert symbol not in optimized
    # exp's 2^n is one ldexp (vscalefps) only where AVX-512 has it
    uses_exp = name in ("exp", "sigmoid")
    assert ("@llvm.ldexp." in optimized) == (uses_exp and scalef and avx512)
    y = lib(x)
    ref = _reference(name, x)
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref32))
    np.testing.assert_array_equal(np.isinf(y), np.isinf(ref32))
    inf = np.isinf(ref32)
    np.testing.assert_array_equal(y[inf], ref32[inf])
    fin = np.isfinite(ref32)
    ulp = np.abs(y[fin] - ref[fin]) / np.spacing(np.abs(ref32[fin])).astype(np.float64)
    assert ulp.max() <= MAX_ULP[name], (x[fin][ulp.argmax()], ulp.max())
    # odd functions keep the sign of zero; their limits are exactly ±1, and they pass
    # 1 by one ulp at most
    if name in ("tanh", "erf"):
        assert np.signbit(lib(np.array([-0.0], "float32").repeat(x.size))).all()
        ends = lib(np.resize(np.array([np.inf, -np.inf], "float32"), x.size))
        np.testing.assert_array_equal(ends[:2], [1.0, -1.0])
        assert np.abs(y[~np.isnan(y)]).max() <= np.nextafter(np.float32(1), 2)


@pytest.mark.parametrize("name", ["exp", "tanh", "erf"])
def test_f16_goes_through_f32(name: str):
    x = np.linspace(-6, 6, 1001).astype("float16")
    y = _build(name, x)(x)
    ref = _reference(name, x).astype(np.float16)
    np.testing.assert_allclose(y.astype(float), ref.astype(float), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "erf"])
def test_f64_keeps_libm(name: str):
    x = np.linspace(0.01, 6, 1001)
    y = _build(name, x)(x)
    np.testing.assert_allclose(y, _reference(name, x), rtol=1e-15, atol=1e-300)
