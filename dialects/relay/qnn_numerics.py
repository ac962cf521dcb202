"""The integer arithmetic of the QNN ops (:mod:`xrelay.dialects.relay.qnn`), in numpy.

One rule serves every op that turns a float32 value into a quantized integer
(``qnn.quantize``, ``qnn.requantize`` and the ops built on it). It is onnxruntime's
(``MlasQuantizeLinear``, ``MlasRequantizeOutput``): the value is a float32 (``x /
scale`` for quantize, ``float32(acc) * float32(s_in / s_out)`` for requantize), rounded
to an integer half to even, the zero point added and the sum saturated to the output
type. Clamping before rounding (as onnxruntime does) or after gives the same integers;
xrelay clamps the float32 value to ``[-2**40, 2**40]`` (beyond any quantized range, and
exactly representable), rounds, adds the zero point in int64 and saturates, so that a
huge value or an infinity saturates and a zero point never overflows. NaN becomes the
smallest value of the type, as onnxruntime's x86 kernels give (``maxps`` returns the
bound). ``relay.qnn.transform.CanonicalizeOps`` emits exactly these steps as relay ops,
so the lowered code and this reference agree bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay.dialects.relay.base import Array

FLOAT_BOUND = 2.0**40
"""The float32 clamp applied before rounding (see the module docstring)."""

ROUNDING_MODES = ("None", "UPWARD", "TONEAREST")
"""``requantize``'s ``rounding``: ``"None"`` (xrelay's default, onnxruntime's rule)
rounds ties to even; TVM's ``"UPWARD"`` rounds ties toward +inf and ``"TONEAREST"``
away from zero."""


def round_ties(v: Array, rounding: str = "None") -> Array:
    """``v`` (float32) rounded to integers (still float32) by ``rounding``; exact for
    every float32 (no ``floor(x + 0.5)`` shortcut, which is wrong near 0.5 and above
    2**23)."""
    if rounding == "None":
        return np.rint(v)
    if rounding == "UPWARD":
        f = np.floor(v)
        return np.where(v - f >= np.float32(0.5), f + np.float32(1), f)
    if rounding == "TONEAREST":
        t = np.trunc(v)
        return np.where(np.abs(v - t) >= np.float32(0.5), t + np.sign(v), t)
    raise ValueError(f"unknown rounding {rounding!r}")


def saturate_round(
    v: Array, zero_point: Array, dtype: np.dtype[Any], rounding: str = "None"
) -> Array:
    """``saturate(round(v) + zero_point)`` in ``dtype`` for a float32 ``v`` (see the
    module docstring for the exact steps)."""
    v = np.asarray(v, dtype=np.float32)
    bound = np.float32(FLOAT_BOUND)
    v = np.where(np.isnan(v), -bound, np.clip(v, -bound, bound))
    r = round_ties(v.astype(np.float32), rounding)
    info = np.iinfo(dtype)
    total = r.astype(np.int64) + np.asarray(zero_point).astype(np.int64)
    return np.clip(total, info.min, info.max).astype(dtype)


def along(param: Array, rank: int, axis: int) -> Array:
    """A scale or zero point as an array that broadcasts against a rank-``rank`` tensor:
    a 0-d or one-element parameter as a 0-d array, a per-channel (1-D) one along
    ``axis``."""
    p = np.asarray(param)
    if p.size == 1:
        return p.reshape(())
    shape = [1] * rank
    shape[axis % rank] = p.size
    return p.reshape(shape)


def centered(x: Array, zero_point: Array) -> Array:
    """``int32(x) - zero_point`` in int32 (wrapping, like the int32 kernels)."""
    return x.astype(np.int32) - np.asarray(zero_point).astype(np.int32)


def scale_ratio(numerator: Array, denominator: Array) -> Array:
    """``numerator / denominator`` in float32 (onnxruntime's requantize multiplier)."""
    return np.asarray(numerator, np.float32) / np.asarray(denominator, np.float32)


def requantize_values(
    acc: Array, ratio: Array, zero_point: Array, dtype: np.dtype[Any], rounding: str
) -> Array:
    """``saturate(round(float32(acc) * ratio) + zero_point)``: onnxruntime's
    ``MlasRequantizeOutput`` (``acc`` is an int32 array, ``ratio`` float32)."""
    v = acc.astype(np.float32) * np.asarray(ratio, np.float32)
    return saturate_round(v, zero_point, dtype, rounding)
