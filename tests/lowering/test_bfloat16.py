"""bfloat16 as a storage type: values are ``ml_dtypes.bfloat16`` arrays, arithmetic
happens in float32 and results are rounded to nearest even once per stored value.

Casts are compared bit for bit with ``ml_dtypes`` (special values included), in the
compiled code and in the reference interpreter; ops on bfloat16 are compared with
float32 math on the same values rounded to bfloat16.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.runtime.interpreter import interpret

BF16 = np.dtype(ml_dtypes.bfloat16)


def _f32_bits(*bits: int) -> np.ndarray[Any, Any]:
    return np.array(bits, dtype=np.uint32).view(np.float32)


SPECIAL_F32 = np.concatenate(
    [
        np.array(
            [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 3.0e38, -3.0e38],
            dtype=np.float32,
        ),
        _f32_bits(
            0x7F800001,  # signalling NaN: becomes the quiet NaN of its sign
            0xFFA00000,  # negative NaN with a payload
            0x7FFFFFFF,  # NaN whose rounding would carry into the sign
            0x7F7FFFFF,  # float32 max: rounds up to inf
            0xFF7FFFFF,  # -float32 max: -inf
            0x7F7F7FFF,  # just below half an ulp above bfloat16 max: stays finite
            0x7F7F8000,  # a tie above bfloat16 max (odd): rounds to inf
            0x7F7F0000,  # bfloat16 max itself
            0x3F808000,  # 1 + 2^-8: a tie, 1.0 is even: down
            0x3F818000,  # a tie between odd 0x3F81 and even 0x3F82: up
            0x3F808001,  # just above the tie: up
            0x3F807FFF,  # just below the tie: down
            0xBF818000,  # a negative tie: away from zero to the even one
            0x00000001,  # the smallest float32 denormal: 0
            0x00008000,  # a tie at the smallest bfloat16 denormal (even 0): 0
            0x00018000,  # a tie at odd 0x0001: up to 0x0002
            0x007FFFFF,  # the largest float32 denormal: rounds up to the smallest normal
            0x00400000,  # a bfloat16 denormal, exact
            0x80010000,  # a negative bfloat16 denormal
        ),
    ]
)


def _random_f32(n: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return bits.view(np.float32)


def _bits(a: Any) -> np.ndarray[Any, Any]:
    return np.asarray(a).view(np.uint16)


def _build(expr: relay.Expr, level: int = 0) -> Any:
    with PassContext(opt_level=level):
        return xrelay.build(relay.IRModule.from_expr(expr))


def _cast_both(x: np.ndarray[Any, Any], dst: str) -> tuple[Any, Any]:
    """``x`` cast to ``dst``: compiled, and by the interpreter."""
    var = relay.var("x", shape=x.shape, dtype=str(x.dtype))
    expr = relay.cast(var, dst)
    lib = _build(expr)
    mod = relay.IRModule.from_expr(relay.Function([var], expr))
    return lib(x), interpret(mod, x)


@pytest.mark.parametrize("src", ["float32", "float64", "float16"])
def test_cast_to_bfloat16_matches_ml_dtypes(src: str):
    values = np.concatenate([SPECIAL_F32, _random_f32(4096)])
    if src == "float64":
        # f64 values between bfloat16 ties: ml_dtypes goes through float32 too
        extra = np.array([1 + 2.0**-8 + 2.0**-30, 1 + 2.0**-8 - 2.0**-30, 1e300])
        values = np.concatenate([values.astype(np.float64), extra])
    x = values.astype(src)
    want = x.astype(BF16)
    nan = np.isnan(x)
    # a NaN is quieted and keeps its sign and the top of its payload (ml_dtypes
    # gives the bare quiet NaN of the sign)
    top = (x[nan].astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    for got in _cast_both(x, "bfloat16"):
        assert got.dtype == BF16
        np.testing.assert_array_equal(_bits(got)[~nan], _bits(want)[~nan])
        assert np.isnan(got[nan]).all()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(_bits(got)[nan], top | 0x0040)


@pytest.mark.parametrize("dst", ["float32", "float64", "float16"])
def test_cast_from_bfloat16_matches_ml_dtypes(dst: str):
    every = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(BF16)
    want = every.astype(dst)
    for got in _cast_both(every, dst):
        assert got.dtype == np.dtype(dst)
        finite = ~np.isnan(want)
        np.testing.assert_array_equal(got[finite], want[finite])
        assert np.isnan(got[~finite]).all()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("src", ["int32", "int64", "uint8", "bool"])
def test_cast_integers_to_bfloat16(src: str):
    rng = np.random.default_rng(3)
    if src == "bool":
        x = rng.integers(0, 2, 64).astype(bool)
    else:
        info = np.iinfo(src)
        x = np.concatenate(
            [
                rng.integers(info.min, info.max, 256, dtype=src, endpoint=True),
                np.array(
                    [v for v in (0, 1, 257, 259, info.max, info.min) if v <= info.max],
                    dtype=src,
                ),
            ]
        )
    want = x.astype(np.float64).astype(np.float32).astype(BF16)
    for got in _cast_both(x, "bfloat16"):
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_cast_bfloat16_to_integers():
    x = np.array([0.0, -0.0, 1.5, -2.75, 100.0, -128.0, 127.0, 3.0e4], dtype=BF16)
    for dst in ["int32", "int16", "bool"]:
        want = x.astype(np.float32).astype(dst)
        for got in _cast_both(x, dst):
            np.testing.assert_array_equal(got, want)


def test_reinterpret_bfloat16_bits():
    bits = np.array([0x3F80, 0x7FC1, 0x8001, 0xFF80], dtype=np.uint16).view(np.int16)
    var = relay.var("x", shape=bits.shape, dtype="int16")
    there = relay.reinterpret(var, "bfloat16")
    expr = relay.Tuple([there, relay.reinterpret(there, "int16")])
    mod = relay.IRModule.from_expr(relay.Function([var], expr))
    for out in (_build(expr)(bits), interpret(mod, bits)):
        got, back = (np.asarray(o) for o in out)
        assert got.dtype == BF16
        np.testing.assert_array_equal(got.view(np.int16), bits)
        np.testing.assert_array_equal(back, bits)


# -- ops on bfloat16: float32 math, one rounding per stored value ----------------------


def _close_to(got: Any, want32: Any) -> None:
    """``got`` (bfloat16) within one bfloat16 ulp of ``want32`` rounded, which
    differs from the exact float32 result by the kernel's summation order."""
    assert got.dtype == BF16
    g = np.asarray(got).astype(np.float64)
    w = np.asarray(want32, dtype=np.float32).astype(BF16).astype(np.float64)
    ulp = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(w), 2.0**-126))) - 7)
    assert (np.abs(g - w) <= ulp).all(), float(np.max(np.abs(g - w) / ulp))


def _bf16_normal(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    return rng.standard_normal(shape).astype(np.float32).astype(BF16)


def test_add_is_float32_add_rounded_once():
    rng = np.random.default_rng(11)
    a, b = _bf16_normal(rng, (7, 33)), _bf16_normal(rng, (33,))
    x, y = (
        relay.var("a", shape=a.shape, dtype="bfloat16"),
        relay.var("b", shape=b.shape, dtype="bfloat16"),
    )
    expr = relay.add(x, y)
    want = (a.astype(np.float32) + b.astype(np.float32)).astype(BF16)
    mod = relay.IRModule.from_expr(relay.Function([x, y], expr))
    for got in (_build(expr)(a, b), interpret(mod, a, b)):
        np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("level", [0, 3])
def test_dense_with_bfloat16_weights(level: int):
    rng = np.random.default_rng(12)
    x, w = _bf16_normal(rng, (5, 64)), _bf16_normal(rng, (9, 64))
    var = relay.var("x", shape=x.shape, dtype="bfloat16")
    got = _build(relay.nn.dense(var, relay.const(w)), level)(x)
    _close_to(got, x.astype(np.float32) @ w.astype(np.float32).T)


@pytest.mark.parametrize("level", [0, 3])
def test_conv2d_with_bfloat16_weights(level: int):
    rng = np.random.default_rng(13)
    x, w = _bf16_normal(rng, (1, 4, 6, 6)), _bf16_normal(rng, (3, 4, 3, 3))
    var = relay.var("x", shape=x.shape, dtype="bfloat16")
    got = _build(relay.nn.conv2d(var, relay.const(w), padding=(1, 1)), level)(x)
    xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((1, 3, 6, 6), np.float32)
    for i in range(3):
        for j in range(3):
            patch = xp[:, :, i : i + 6, j : j + 6]
            want += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.float32))
    _close_to(got, want)


def test_softmax_on_bfloat16():
    rng = np.random.default_rng(14)
    x = (rng.standard_normal((4, 17)) * 4).astype(np.float32).astype(BF16)
    var = relay.var("x", shape=x.shape, dtype="bfloat16")
    got = _build(relay.nn.softmax(var))(x)
    x32 = x.astype(np.float32)
    e = np.exp(x32 - x32.max(axis=1, keepdims=True))
    _close_to(got, e / e.sum(axis=1, keepdims=True))


def test_blocked_max_pool_on_bfloat16():
    """A bfloat16 max pool in the blocked layout AlterOpLayout gives it (after a
    blocked convolution) takes the window fold, not the plain-rows path."""
    rng = np.random.default_rng(15)
    x, w = _bf16_normal(rng, (1, 16, 8, 8)), _bf16_normal(rng, (16, 16, 3, 3))
    var = relay.var("x", shape=x.shape, dtype="bfloat16")
    conv = relay.nn.conv2d(var, relay.const(w), padding=(1, 1), out_dtype="float32")
    pooled = relay.nn.max_pool2d(
        relay.cast(conv, "bfloat16"), pool_size=(3, 3), padding=(1, 1)
    )
    got = _build(pooled, 3)(x)
    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    xp = np.pad(x32, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((1, 16, 8, 8), np.float32)
    for i in range(3):
        for j in range(3):
            y += np.einsum(
                "nchw,oc->nohw", xp[:, :, i : i + 8, j : j + 8], w32[:, :, i, j]
            )
    yb = np.pad(
        y.astype(BF16).astype(np.float32),
        ((0, 0), (0, 0), (1, 1), (1, 1)),
        constant_values=-np.inf,
    )
    want = np.max(
        [yb[:, :, i : i + 8, j : j + 8] for i in range(3) for j in range(3)], axis=0
    )
    _close_to(got, want)
