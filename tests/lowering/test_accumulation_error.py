"""How far compiled float32 results may be from the exact ones, and why.

Reductions in float32 (conv2d, dense, batch_matmul) round after every addition, and
the order of the additions differs between xrelay, onnxruntime and numpy. Whatever the
order, the error of a dot product of length K is bounded by

    |y32 - y| <= gamma_K * sum_i |a_i * b_i|,   gamma_K = K*u / (1 - K*u),  u = 2**-24

(Higham, *Accuracy and Stability of Numerical Algorithms*, 3.1). These tests check
every output element of the compiled kernels against that bound, computed in float64
from the same float32 operands, and check that the typical (root-mean-square) error
stays at the level of a random walk of roundings, sqrt(K) * u relative to the outputs.
A wrong tap or a lost term would give errors of the size of the outputs themselves.

This answers the question of issue 12: the few outputs of deep random-weight models
(Inception-V3, FCN-ResNet50) that differ from onnxruntime by more than rtol 1e-3 are
outputs that are small next to the terms that were summed into them (cancellation);
see docs/decisions.md, "Accuracy of float32 reductions".
"""

from __future__ import annotations

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext

U = 2.0**-24


def _gamma(k: int) -> float:
    return k * U / (1 - k * U)


def _build(expr: relay.Expr, level: int):
    with PassContext(opt_level=level):
        return xrelay.build(relay.IRModule.from_expr(expr))


def _check(y32: np.ndarray, exact: np.ndarray, abs_terms: np.ndarray, k: int) -> None:
    err = np.abs(y32.astype(np.float64) - exact)
    bound = _gamma(k) * abs_terms
    worst = float((err / np.maximum(bound, np.finfo(np.float64).tiny)).max())
    assert (err <= bound).all(), f"error above gamma_K * sum|a*b| (ratio {worst:.3g})"
    rms_rel = float(np.sqrt((err**2).mean() / (exact**2).mean()))
    assert rms_rel <= np.sqrt(k) * U, f"rms relative error {rms_rel:.3g} for K={k}"


def _im2col(x: np.ndarray, kh: int, kw: int, pad: int) -> np.ndarray:
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    taps = [xp[:, :, i : i + h, j : j + w] for i in range(kh) for j in range(kw)]
    return np.stack(taps, axis=2).reshape(n, c * kh * kw, h * w)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize(
    ("channels", "out_channels", "size", "kernel"),
    [(512, 64, 7, 3), (1024, 32, 5, 1), (17, 19, 9, 5)],
)
def test_conv2d_error_within_summation_bound(
    level: int, channels: int, out_channels: int, size: int, kernel: int
):
    rng = np.random.default_rng(channels + kernel)
    x = rng.standard_normal((1, channels, size, size)).astype(np.float32)
    fan_in = channels * kernel * kernel
    w = (
        rng.standard_normal((out_channels, channels, kernel, kernel)) / np.sqrt(fan_in)
    ).astype(np.float32)
    pad = kernel // 2
    data = relay.var("x", shape=x.shape, dtype="float32")
    lib = _build(relay.nn.conv2d(data, relay.const(w), padding=(pad, pad)), level)
    cols = _im2col(x.astype(np.float64), kernel, kernel, pad)[0]
    w2 = w.reshape(out_channels, -1).astype(np.float64)
    shape = (1, out_channels, size, size)
    exact = (w2 @ cols).reshape(shape)
    abs_terms = (np.abs(w2) @ np.abs(cols)).reshape(shape)
    _check(lib(x), exact, abs_terms, fan_in)


@pytest.mark.parametrize("level", [0, 3])
def test_dense_error_within_summation_bound(level: int):
    rng = np.random.default_rng(7)
    k = 4096
    x = rng.standard_normal((4, k)).astype(np.float32)
    w = (rng.standard_normal((48, k)) / np.sqrt(k)).astype(np.float32)
    data = relay.var("x", shape=x.shape, dtype="float32")
    lib = _build(relay.nn.dense(data, relay.const(w)), level)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    _check(lib(x), x64 @ w64.T, np.abs(x64) @ np.abs(w64).T, k)


@pytest.mark.parametrize("level", [0, 3])
def test_batch_matmul_error_within_summation_bound(level: int):
    rng = np.random.default_rng(11)
    k = 2048
    a = rng.standard_normal((3, 8, k)).astype(np.float32)
    b = (rng.standard_normal((3, 16, k)) / np.sqrt(k)).astype(np.float32)
    va = relay.var("a", shape=a.shape, dtype="float32")
    vb = relay.var("b", shape=b.shape, dtype="float32")
    lib = _build(relay.nn.batch_matmul(va, vb), level)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact = a64 @ b64.transpose(0, 2, 1)
    abs_terms = np.abs(a64) @ np.abs(b64).transpose(0, 2, 1)
    _check(lib(a, b), exact, abs_terms, k)


def test_bound_detects_a_lost_term():
    """The bound is tight enough to tell a summation error from a dropped product."""
    rng = np.random.default_rng(3)
    k = 4608
    a = rng.standard_normal((64, k))
    b = rng.standard_normal((k, 32)) / np.sqrt(k)
    exact = a @ b
    broken = exact.copy()
    broken[5, 7] -= a[5, 100] * b[100, 7]  # one product missing from one output
    with pytest.raises(AssertionError):
        _check(broken.astype(np.float32), exact, np.abs(a) @ np.abs(b), k)


@pytest.mark.parametrize("level", [0, 3])
@pytest.mark.parametrize(("channels", "multiplier"), [(8, 1), (3, 2)])
def test_float16_depthwise_conv2d_rounds_once(
    level: int, channels: int, multiplier: int
):
    """float16 is a storage type: a depthwise convolution (the planes kernel in a
    plain layout, NCHWc at level 3) sums its taps in float32 and rounds once, so every
    output is within half a float16 ulp (plus the float32 summation bound) of the
    exact value; rounding every partial sum to float16 would not be."""
    rng = np.random.default_rng(channels)
    k, size = 5, 9
    x = rng.standard_normal((1, channels, size, size)).astype(np.float16)
    w = (rng.standard_normal((channels, multiplier, k, k)) / k).astype(np.float16)
    data = relay.var("x", shape=x.shape, dtype="float16")
    conv = relay.nn.conv2d(data, relay.const(w), padding=(2, 2), groups=channels)
    got = np.asarray(_build(conv, level)(x)).astype(np.float64)
    cols = _im2col(x.astype(np.float64), k, k, 2)[0].reshape(channels, k * k, -1)
    w2 = w.astype(np.float64).reshape(channels, multiplier, k * k)
    exact = np.einsum("cmk,ckp->cmp", w2, cols).reshape(got.shape)
    terms = np.einsum("cmk,ckp->cmp", np.abs(w2), np.abs(cols)).reshape(got.shape)
    half_ulp = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64) / 2
    err = np.abs(got - exact)
    assert (err <= half_ulp + _gamma(k * k) * terms).all(), float(err.max())
