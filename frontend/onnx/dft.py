"""``DFT`` (opsets 17 and 20) and ``STFT`` (opset 17) as matrix products with
constant cosine/sine matrices (``nn.dense``): exact in layout, O(n²) per transform,
which is what the short axes of signal models need.

A complex signal ``[..., L, 2]`` (real and imaginary parts interleaved) or a real one
``[..., L, 1]`` along the transformed axis, with that axis moved next to the last,
is a row of ``L * c`` numbers; one real matrix ``[K * c', L * c]`` maps it to the
``K * c'`` numbers of the result ``[..., K, c']``. The matrix holds the real and
imaginary parts of the twiddle factors ``exp(∓2πi k t / n)`` (angles reduced modulo
``n`` in integers, evaluated in float64) and does the zero padding or truncation to
``dft_length = n`` by its zero rows or missing columns:

* forward: ``X[k] = Σ_t x[t] exp(-2πi k t / n)``, ``k < n``, or ``k ≤ n / 2`` when
  ``onesided``;
* inverse: ``x[t] = (1 / n) Σ_k X[k] exp(2πi k t / n)``;
* inverse and ``onesided`` (numpy's ``irfft``): the input holds bins ``0 .. n / 2``
  of a Hermitian spectrum and the output is real ``[..., n, 1]`` (default
  ``n = 2 (L - 1)``); the bins other than 0 and ``n / 2`` count twice and only
  the real part is kept.

float16 signals are transformed in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

Array = np.ndarray[Any, Any]

MAX_MATRIX = 1 << 24
"""The most elements a transform's matrix may have (64 MiB in float32): a complex
DFT of up to 2048 points."""


def dft_matrix(
    length: int, n: int, complex_in: bool, inverse: bool, onesided: bool
) -> Array:
    """The real ``[K * c', length * c]`` matrix of the transform (float64): rows in
    the output's order (bin, then real / imaginary part), columns in the input's."""
    c_in = 2 if complex_in else 1
    real_out = inverse and onesided
    c_out = 1 if real_out else 2
    bins = n // 2 + 1 if onesided and not inverse else n
    used = min(length, n // 2 + 1 if real_out else n)  # input points that count
    t = np.arange(used)[:, None]
    k = np.arange(bins)[None, :]
    angle = 2.0 * np.pi * ((t * k) % n) / n
    sign = 1.0 if inverse else -1.0
    scale = 1.0 / n if inverse else 1.0
    wr = np.cos(angle) * scale
    wi = sign * np.sin(angle) * scale
    if real_out:  # the Hermitian spectrum: bins 1 .. ceil(n / 2) - 1 count twice
        twice = (np.arange(used) > 0) & (2 * np.arange(used) != n)
        weight = np.where(twice, 2.0, 1.0)[:, None]
        wr, wi = wr * weight, wi * weight
    m = np.zeros((length, c_in, bins, c_out))
    # out = Σ x W with x = xr + i xi and W = wr + i wi
    m[:used, 0, :, 0] = wr
    if c_out == 2:
        m[:used, 0, :, 1] = wi
    if c_in == 2:
        m[:used, 1, :, 0] = -wi
        if c_out == 2:
            m[:used, 1, :, 1] = wr
    return m.reshape(length * c_in, bins * c_out).T


def _static_int(node: Node, i: int, what: str) -> int | None:
    if not node.has_input(i):
        return None
    value = node.static(i, what)
    if value.size != 1 or value.dtype.kind not in "iu":
        raise ConversionError(
            f"{what} must be one integer, got {value.dtype} of shape {list(value.shape)}"
        )
    return int(value.reshape(-1)[0])


def transform(
    node: Node,
    x: SSAValue,
    axis: int,
    n: int | None,
    inverse: bool,
    onesided: bool,
) -> SSAValue:
    """The DFT of ``x [..., c]`` along ``axis`` (not the last); ``n``: the DFT
    length (default: the axis's length, ``2 (L - 1)`` for a one-sided inverse)."""
    shape = node.shape(x)
    rank = len(shape)
    if rank < 2 or shape[-1] not in (1, 2):
        raise ConversionError(
            f"the signal must be [..., 1] (real) or [..., 2] (complex), "
            f"got {list(shape)}"
        )
    axis = node.axis(axis, rank)
    if axis == rank - 1:
        raise ConversionError("the DFT axis cannot be the last (complex) dim")
    length = shape[axis]
    if n is None:
        n = 2 * (length - 1) if inverse and onesided else length
    if n < 1:
        raise ConversionError(f"the DFT length must be positive, got {n}")
    dtype = node.dtype(x)
    if dtype.kind != "f":
        raise ConversionError(f"the signal must be floating point, got {dtype}")
    work = np.dtype(np.float32) if dtype == np.float16 else dtype
    if work != dtype:
        x = node.op("cast", [x], dtype=str(work))
    # move the axis next to the last, flatten the (axis, complex) pair
    perm = [d for d in range(rank - 1) if d != axis] + [axis, rank - 1]
    if perm != list(range(rank)):
        x = node.op("transpose", [x], axes=perm)
    moved = node.shape(x)
    rows = node.reshape(x, [*moved[:-2], moved[-2] * moved[-1]])
    outs = (n // 2 + 1 if onesided and not inverse else n) * (
        1 if inverse and onesided else 2
    )
    if outs * length * shape[-1] > MAX_MATRIX:
        raise ConversionError(
            f"a DFT of length {n} over {length} points needs a "
            f"{outs} x {length * shape[-1]} matrix, more than the "
            f"{MAX_MATRIX} elements xrelay's matrix form allows (no FFT yet)"
        )
    matrix = dft_matrix(length, n, shape[-1] == 2, inverse, onesided)
    out = node.op("nn.dense", [rows, node.const(matrix.astype(work))])
    c_out = 1 if inverse and onesided else 2
    out = node.reshape(out, [*moved[:-2], matrix.shape[0] // c_out, c_out])
    if perm != list(range(rank)):
        out = node.op("transpose", [out], axes=[int(p) for p in np.argsort(perm)])
    if work != dtype:
        out = node.op("cast", [out], dtype=str(dtype))
    return out


@converter("DFT")
def dft(node: Node) -> Outputs:
    x = node.input(0, "input")
    n = _static_int(node, 1, "dft_length")
    if node.opset >= 20:
        axis = _static_int(node, 2, "axis")
        axis = -2 if axis is None else axis
    else:
        axis = node.attr_int("axis", 1)
    return transform(
        node,
        x,
        axis,
        n,
        node.attr_int("inverse", 0) != 0,
        node.attr_int("onesided", 0) != 0,
    )


@converter("STFT")
def stft(node: Node) -> Outputs:
    """Frames ``f * frame_step + [0, window length)`` of ``signal [batch, L, c]``
    (a ``take`` with constant indices; frames past the end read zeros), times the
    window, then the DFT of length ``frame_length`` of each frame:
    ``[batch, frames, bins, 2]`` with ``frames = 1 + (L - frame_length) //
    frame_step``."""
    signal = node.input(0, "signal")
    shape = node.shape(signal)
    if len(shape) != 3:
        raise ConversionError(
            f"the signal must be [batch, length, 1 or 2], got {list(shape)}"
        )
    step = _static_int(node, 1, "frame_step")
    if step is None or step < 1:
        raise ConversionError(f"frame_step must be positive, got {step}")
    window = node.optional_input(2)
    if window is not None and node.rank(window) != 1:
        raise ConversionError(f"the window must be 1-D, got {list(node.shape(window))}")
    size = node.shape(window)[0] if window is not None else None
    frame = _static_int(node, 3, "frame_length")
    if frame is None:
        frame = size if size is not None else shape[1]
    size = frame if size is None else size
    if frame < 1 or frame > shape[1]:
        raise ConversionError(
            f"frame_length {frame} must be in [1, {shape[1]}] (the signal length)"
        )
    frames = 1 + (shape[1] - frame) // step
    starts = np.arange(frames)[:, None] * step
    index = starts + np.arange(size)[None, :]
    past = int(index.max()) + 1 - shape[1]
    if past > 0:  # frames reaching past the end read zeros
        zeros = node.const(np.zeros((shape[0], past, shape[2]), node.dtype(signal)))
        signal = node.op("concatenate", [signal, zeros], axis=1)
    x = node.op("take", [signal, node.const(index.astype(np.int64))], axis=1)
    if window is not None:
        if node.dtype(window) != node.dtype(signal):
            window = node.op("cast", [window], dtype=str(node.dtype(signal)))
        x = node.op("multiply", [x, node.reshape(window, [1, 1, size, 1])])
    return transform(node, x, 2, frame, False, node.attr_int("onesided", 1) != 0)
