"""``power`` by a constant -1, 1, 2, 3 or 4 lowers to products (no libm ``powf``
call per element, which would keep the loop and a GEMM epilogue around it from
vectorising: GPT-2's tanh GELU has ``x ** 3``), with powf's special values; other
exponents, run-time exponents and float16 keep ``powf``."""

from __future__ import annotations

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext

SPECIALS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3e12, -3e12, 1e-30, 7.5e37]


def _build(exponent: float, dtype: str = "float32", shape: tuple[int, ...] = (67,)):
    x = relay.var("x", shape=shape, dtype=dtype)
    expr = relay.power(x, relay.const(exponent, dtype))
    with PassContext(opt_level=3):
        return xrelay.build(relay.IRModule.from_expr(relay.Function([x], expr)))


def _data(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(56) * 10, SPECIALS])
    return values.astype(dtype)


@pytest.mark.parametrize("exponent", [-1.0, 1.0, 2.0, 3.0, 4.0])
def test_small_integer_exponents_are_products(exponent: float) -> None:
    lib = _build(exponent)
    assert "llvm.pow" not in lib.get_source()
    x = _data("float32")
    with np.errstate(all="ignore"):
        expected = np.power(x, np.float32(exponent))
    got = lib(x)
    # two roundings for ** 3 and ** 4, one (exact as powf) for the others
    np.testing.assert_allclose(got, expected, rtol=2.5e-7, atol=0)
    finite = np.isfinite(expected)
    assert (np.signbit(got[~finite]) == np.signbit(expected[~finite])).all()
    zeros = expected == 0
    assert (np.signbit(got[zeros]) == np.signbit(expected[zeros])).all()


# (not 0.5: numpy's power by a scalar 0.5 is its sqrt, which differs from powf at
# -0 and -inf)
@pytest.mark.parametrize("exponent", [2.5, -2.0, 5.0])
def test_other_exponents_keep_powf(exponent: float) -> None:
    lib = _build(exponent)
    assert "llvm.pow" in lib.get_source()
    x = _data("float32")
    with np.errstate(all="ignore"):
        expected = np.power(x, np.float32(exponent))
    np.testing.assert_allclose(lib(x), expected, rtol=1e-6, atol=0)


def test_run_time_exponent_keeps_powf() -> None:
    x = relay.var("x", shape=(8,), dtype="float32")
    y = relay.var("y", shape=(8,), dtype="float32")
    with PassContext(opt_level=3):
        lib = xrelay.build(
            relay.IRModule.from_expr(relay.Function([x, y], relay.power(x, y)))
        )
    assert "llvm.pow" in lib.get_source()
    a = np.linspace(0.5, 4.0, 8, dtype=np.float32)
    b = np.full(8, 3.0, np.float32)
    np.testing.assert_allclose(lib(a, b), a**b, rtol=1e-6)


def test_float16_cube_rounds_once() -> None:
    lib = _build(3.0, "float16", (40,))
    x = np.linspace(-6.0, 6.0, 40).astype(np.float16)
    expected = (x.astype(np.float32) ** 3).astype(np.float16)
    np.testing.assert_array_equal(lib(x), expected)
