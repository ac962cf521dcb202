"""The window functions ``HannWindow``, ``HammingWindow``, ``BlackmanWindow`` and
``MelWeightMatrix`` (opset 17): their outputs depend only on sizes, so they are
computed at import time with numpy and become constants.

The sizes must be known then (an initializer, a ``Constant`` or folded from them);
a graph input there is a one-line error naming it.

A window of ``size`` points evaluates its cosine sum at ``n = 0 .. size - 1`` over a
period of ``N = size`` (``periodic=1``, the default) or ``N = size - 1``
(symmetric), in float64, then casts to ``output_datatype`` (float by default). A
symmetric window of one point divides 0 by 0 and is NaN, as in the ONNX reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter, numpy_dtype_of

Array = np.ndarray[Any, Any]

COSINE_TERMS: dict[str, tuple[float, ...]] = {
    "HannWindow": (0.5, -0.5),
    "HammingWindow": (25.0 / 46.0, -21.0 / 46.0),
    "BlackmanWindow": (0.42, -0.5, 0.08),
}
"""``w[n] = sum_k a_k cos(2 pi k n / N)``: the coefficients ``a_k`` of each window."""


def _scalar_int(node: Node, i: int, what: str) -> int:
    value = node.static(i, what)
    if value.size != 1 or value.dtype.kind not in "iu":
        raise ConversionError(
            f"{what} must be one integer, got {value.dtype} of shape {list(value.shape)}"
        )
    return int(value.reshape(-1)[0])


def _scalar_float(node: Node, i: int, what: str) -> Array:
    value = node.static(i, what)
    if value.size != 1 or value.dtype.kind not in "iuf":
        raise ConversionError(
            f"{what} must be one number, got {value.dtype} of shape {list(value.shape)}"
        )
    return value.reshape(())


def _output_dtype(node: Node, default: int = TensorProto.FLOAT) -> np.dtype[Any]:
    return numpy_dtype_of(node.attr_int("output_datatype", default), "output_datatype")


def window(coefficients: tuple[float, ...], size: int, periodic: bool) -> Array:
    """The cosine-sum window of ``size`` points, in float64."""
    n = np.arange(size, dtype=np.float64)
    period = float(size if periodic else size - 1)
    out = np.zeros(size, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k, a in enumerate(coefficients):
            out += a * np.cos(2.0 * np.pi * k * n / period)
    return out


@converter(*COSINE_TERMS)
def cosine_window(node: Node) -> Outputs:
    size = _scalar_int(node, 0, "size")
    if size < 0:
        raise ConversionError(f"the window size must not be negative, got {size}")
    periodic = node.attr_int("periodic", 1) != 0
    out = window(COSINE_TERMS[node.op_type], size, periodic)
    return node.const(out.astype(_output_dtype(node)))


def _hertz_to_mel(hertz: Array) -> Array:
    return 2595 * np.log1p(hertz / 700) / np.log(10)


def _mel_to_hertz(mel: Array) -> Array:
    return 700 * np.expm1(mel / 2595 * np.log(10))


def mel_weight_matrix(
    bins: int, dft_length: int, rate: int, low: Array, high: Array
) -> Array:
    """``[dft_length // 2 + 1, bins]`` triangular filters, float64: filter ``i``
    rises linearly from DFT bin ``edges[i]`` to 1 at ``edges[i + 1]`` and falls to 0
    at ``edges[i + 2]``, where ``edges`` are ``bins + 2`` points spaced evenly on the
    mel scale from ``low`` and by ``(high - low) / (bins + 2)``, each mapped to the
    DFT bin ``floor((dft_length + 1) * hertz / rate)``. The arithmetic runs in the
    dtype of the edge inputs, as in the ONNX reference, so the bins agree exactly."""
    low_mel, high_mel = _hertz_to_mel(low), _hertz_to_mel(high)
    points = np.arange(bins + 2)
    step = (high_mel - low_mel) / points.shape[0]
    hertz = _mel_to_hertz(points * step + low_mel)
    edges = (((dft_length + 1) * hertz) // rate).astype(np.int64)
    rows = dft_length // 2 + 1
    if bins and (edges.min() < 0 or edges.max() >= rows):
        raise ConversionError(
            f"the mel filters reach DFT bins {int(edges.min())} to {int(edges.max())}, "
            f"outside the {rows} bins of dft_length {dft_length} (check the edge "
            "frequencies against sample_rate)"
        )
    out = np.zeros((rows, bins), np.float64)
    for i in range(bins):
        left, center, right = (int(e) for e in edges[i : i + 3])
        if center == left:
            out[center, i] = 1.0
        else:
            j = np.arange(left, center + 1)
            out[j, i] = (j - left) / float(center - left)
        if right > center:
            j = np.arange(center, right)
            out[j, i] = (right - j) / float(right - center)
    return out


@converter("MelWeightMatrix")
def mel_weight(node: Node) -> Outputs:
    bins = _scalar_int(node, 0, "num_mel_bins")
    dft_length = _scalar_int(node, 1, "dft_length")
    rate = _scalar_int(node, 2, "sample_rate")
    low = _scalar_float(node, 3, "lower_edge_hertz")
    high = _scalar_float(node, 4, "upper_edge_hertz")
    if bins < 0 or dft_length < 1 or rate < 1:
        raise ConversionError(
            f"num_mel_bins ({bins}) must not be negative and dft_length "
            f"({dft_length}) and sample_rate ({rate}) must be positive"
        )
    out = mel_weight_matrix(bins, dft_length, rate, low, high)
    return node.const(out.astype(_output_dtype(node)))
