"""``nn.deformable_conv2d``: the numpy semantics against a reference written pixel by
pixel (zero offsets give ``conv2d``; integer offsets shift the taps; outside samples
and NaN give 0), and the compiled kernel against the semantics in NCHW and NHWC."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.runtime.interpreter import interpret


def module(x: np.ndarray, off: np.ndarray, w: np.ndarray, **attrs: Any) -> Any:
    d = relay.var("d", shape=x.shape)
    o = relay.var("o", shape=off.shape)
    k = relay.var("k", shape=w.shape)
    y = relay.nn.deformable_conv2d(d, o, k, **attrs)
    return relay.IRModule.from_expr(relay.Function([d, o, k], y))


def reference(x: np.ndarray, off: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    """Pixel by pixel, float64, groups = deformable_groups = 1, stride 1."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = off.shape[2:]
    out = np.zeros((n, o, oh, ow))

    def sample(p: np.ndarray, yy: float, xx: float) -> float:
        if not (0 <= yy < h and 0 <= xx < wd):
            return 0.0
        y0, x0 = math.floor(yy), math.floor(xx)
        y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, wd - 1)
        ty, tx = yy - y0, xx - x0
        top = p[y0, x0] * (1 - tx) + p[y0, x1] * tx
        bottom = p[y1, x0] * (1 - tx) + p[y1, x1] * tx
        return top * (1 - ty) + bottom * ty

    for b in range(n):
        for f in range(o):
            for yy in range(oh):
                for xx in range(ow):
                    acc = 0.0
                    for ch in range(c):
                        for i in range(kh):
                            for j in range(kw):
                                k = i * kw + j
                                sy = yy - pad + i + float(off[b, 2 * k, yy, xx])
                                sx = xx - pad + j + float(off[b, 2 * k + 1, yy, xx])
                                acc += w[f, ch, i, j] * sample(x[b, ch], sy, sx)
                    out[b, f, yy, xx] = acc
    return out


def test_semantics_match_a_pixel_loop():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 2, 4, 5)).astype(np.float32)
    w = rng.normal(size=(3, 2, 3, 3)).astype(np.float32)
    off = (rng.normal(size=(1, 18, 4, 5)) * 1.5).astype(np.float32)
    got = interpret(module(x, off, w, padding=1, channels=3, kernel_size=3), x, off, w)
    np.testing.assert_allclose(got, reference(x, off, w, 1), rtol=1e-5, atol=1e-5)


def test_zero_offsets_are_a_convolution_and_nan_reads_zero():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(1, 2, 5, 5)).astype(np.float32)
    w = rng.normal(size=(2, 2, 3, 3)).astype(np.float32)
    off = np.zeros((1, 18, 5, 5), np.float32)
    got = interpret(module(x, off, w, padding=1), x, off, w)
    d, k = relay.var("d", shape=x.shape), relay.var("k", shape=w.shape)
    conv = relay.IRModule.from_expr(
        relay.Function([d, k], relay.nn.conv2d(d, k, padding=1))
    )
    np.testing.assert_allclose(got, interpret(conv, x, w), rtol=1e-5, atol=1e-5)
    off[0, :, 2, 2] = np.nan  # every tap of one output pixel samples nothing
    assert np.all(interpret(module(x, off, w, padding=1), x, off, w)[0, :, 2, 2] == 0)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_compiled_kernel_matches_the_semantics(layout: str):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 4, 5, 4)).astype(np.float32)
    w = rng.normal(size=(4, 2, 3, 3)).astype(np.float32)
    off = (rng.normal(size=(1, 36, 3, 2)) * 3).astype(np.float32)
    off[0, 3, 1, 1] = np.inf
    off[0, 5, 0, 0] = np.nan
    attrs: dict[str, Any] = {
        "strides": 2,
        "padding": 1,
        "groups": 2,
        "deformable_groups": 2,
    }
    if layout == "NHWC":
        x, off = x.transpose(0, 2, 3, 1).copy(), off.transpose(0, 2, 3, 1).copy()
        w = w.transpose(2, 3, 1, 0).copy()
        attrs.update(data_layout="NHWC", kernel_layout="HWIO")
    mod = module(x, off, w, **attrs)
    want = interpret(mod, x, off, w)
    np.testing.assert_array_equal(np.asarray(xrelay.build(mod)(x, off, w)), want)
