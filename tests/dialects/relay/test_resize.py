"""``image.resize2d`` and ``nn.upsampling``: the numpy semantics against references
written independently (loops over output pixels, ``np.repeat``), and the compiled
kernel against the semantics, bit for bit, on every coordinate mode and rounding."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.runtime.interpreter import interpret


def run(body: Any, x: np.ndarray) -> np.ndarray:
    v = relay.var("x", shape=x.shape, dtype=str(x.dtype))
    mod = relay.IRModule.from_expr(relay.Function([v], body(v)))
    return interpret(mod, x)


def built(body: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(interpreter, compiled) results of ``body`` on ``x``."""
    v = relay.var("x", shape=x.shape, dtype=str(x.dtype))
    mod = relay.IRModule.from_expr(relay.Function([v], body(v)))
    return interpret(mod, x), np.asarray(xrelay.build(mod)(x))


def linear_reference(img: np.ndarray, oh: int, ow: int, coord: Any) -> np.ndarray:
    """Bilinear resize of a 2-D image, pixel by pixel in float64, ``coord(o, n,
    m)`` giving the input coordinate."""
    h, w = img.shape
    out = np.zeros((oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        y, x = coord(i, h, oh), coord(j, w, ow)
        y0, x0 = math.floor(y), math.floor(x)
        ty, tx = y - y0, x - x0

        def px(a: int, b: int) -> float:
            return float(img[min(max(a, 0), h - 1), min(max(b, 0), w - 1)])

        top = px(y0, x0) * (1 - tx) + px(y0, x0 + 1) * tx
        bottom = px(y0 + 1, x0) * (1 - tx) + px(y0 + 1, x0 + 1) * tx
        out[i, j] = top * (1 - ty) + bottom * ty
    return out


def test_linear_half_pixel_matches_a_pixel_loop():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 2, 3, 5)).astype(np.float32)
    out = run(lambda v: relay.image.resize2d(v, (7, 4)), x)
    for c in range(2):
        ref = linear_reference(x[0, c], 7, 4, lambda o, n, m: (o + 0.5) * n / m - 0.5)
        np.testing.assert_allclose(out[0, c], ref, rtol=1e-5, atol=1e-5)


def test_linear_align_corners_keeps_the_corners():
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    out = run(
        lambda v: relay.image.resize2d(
            v, (5, 7), coordinate_transformation_mode="align_corners"
        ),
        x,
    )
    ref = linear_reference(x[0, 0], 5, 7, lambda o, n, m: o * (n - 1) / (m - 1))
    np.testing.assert_allclose(out[0, 0], ref, rtol=1e-6)
    assert out[0, 0, 0, 0] == 0
    assert out[0, 0, -1, -1] == 11


def test_nearest_upsampling_repeats_pixels_in_any_layout():
    rng = np.random.default_rng(1)
    x = rng.integers(-100, 100, size=(1, 3, 4, 2)).astype(np.int8)  # NHWC
    out = run(lambda v: relay.nn.upsampling(v, 2, 3, layout="NHWC"), x)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, np.repeat(np.repeat(x, 2, axis=1), 3, axis=2))
    blocked = x.transpose(0, 3, 1, 2).reshape(1, 1, 2, 3, 4).transpose(0, 1, 3, 4, 2)
    out_b = run(lambda v: relay.nn.upsampling(v, 2, 3, layout="NCHW2c"), blocked)
    want = np.repeat(np.repeat(blocked, 2, axis=2), 3, axis=3)
    np.testing.assert_array_equal(out_b, want)


def test_nearest_rounding_methods():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4)

    # half_pixel 4 -> 8: coordinates (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, ...
    def pick(rounding: str) -> list[float]:
        out = run(
            lambda v: relay.image.resize2d(
                v, (1, 8), method="nearest_neighbor", rounding_method=rounding
            ),
            x,
        )
        return out.reshape(-1).tolist()

    assert pick("floor") == [0, 0, 0, 1, 1, 2, 2, 3]
    assert pick("ceil") == [0, 1, 1, 2, 2, 3, 3, 3]
    assert pick("round") == [0, 0, 1, 1, 2, 2, 3, 3]

    # asymmetric 4 -> 8: 0, 0.5, 1, 1.5, ...: ties
    def tie(rounding: str) -> list[float]:
        out = run(
            lambda v: relay.image.resize2d(
                v,
                (1, 8),
                method="nearest_neighbor",
                coordinate_transformation_mode="asymmetric",
                rounding_method=rounding,
            ),
            x,
        )
        return out.reshape(-1).tolist()

    assert tie("round") == [0, 0, 1, 2, 2, 2, 3, 3]  # ties to even
    assert tie("round_prefer_floor") == [0, 0, 1, 1, 2, 2, 3, 3]
    assert tie("round_prefer_ceil") == [0, 1, 1, 2, 2, 3, 3, 3]


def test_tf_crop_and_resize_extrapolates_outside_the_roi():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    out = run(
        lambda v: relay.image.resize2d(
            v,
            (3, 3),
            roi=[0.0, -0.5, 1.0, 0.5],
            coordinate_transformation_mode="tf_crop_and_resize",
            extrapolation_value=-7.0,
        ),
        x,
    )
    # width coordinates -1.5, 0, 1.5: the first is outside
    np.testing.assert_array_equal(out[0, 0, :, 0], [-7.0, -7.0, -7.0])
    np.testing.assert_allclose(out[0, 0, :, 1], [0.0, 6.0, 12.0])
    np.testing.assert_allclose(out[0, 0, :, 2], [1.5, 7.5, 13.5])


def test_bicubic_and_bad_settings_are_clear_errors():
    x = relay.var("x", shape=(1, 1, 4, 4))
    with pytest.raises(Exception, match="method 'bicubic' is not supported"):
        relay.IRModule.from_expr(
            relay.Function([x], relay.nn.upsampling(x, 2, 2, method="bicubic"))
        )
    with pytest.raises(ValueError, match="keeps the data's dtype"):
        relay.image.resize2d(x, (2, 2), out_dtype="int8")


MODES = [
    "half_pixel",
    "align_corners",
    "asymmetric",
    "pytorch_half_pixel",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
]


@pytest.mark.parametrize("method", ["nearest_neighbor", "linear"])
def test_compiled_kernel_matches_the_semantics(method: str):
    """Every coordinate mode in three layouts, compiled as one function."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 2, 3, 5)).astype(np.float32)

    def body(v: Any) -> Any:
        outs: list[Any] = []
        for mode in MODES:
            outs.append(
                relay.image.resize2d(
                    v,
                    (4, 7),
                    roi=[0.1, -0.2, 0.9, 1.3],
                    method=method,
                    coordinate_transformation_mode=mode,
                    extrapolation_value=-1.5,
                )
            )
        nhwc = relay.image.resize2d(
            relay.transpose(v, [0, 2, 3, 1]), (1, 6), layout="NHWC", method=method
        )
        outs.append(relay.reshape(nhwc, [-1]))
        return relay.concatenate([relay.reshape(o, [-1]) for o in outs], 0)

    want, got = built(body, x)
    np.testing.assert_array_equal(got, want)


def test_compiled_upsampling_float64_and_float16():
    rng = np.random.default_rng(3)
    for dtype in ("float64", "float16"):
        x = rng.normal(size=(1, 2, 3, 3)).astype(dtype)
        want, got = built(
            lambda v: relay.nn.upsampling(
                v, 2, 1.5, method="bilinear", align_corners=True
            ),
            x,
        )
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)
