"""Image ops (Relay's ``image.*``): ``image.grid_sample``.

``image.grid_sample`` keeps Relay's operand layout: the grid is channel-first,
``[N, 2, OH, OW]`` for ``NCHW`` data (``grid[:, 0]`` is the x / width coordinate,
``grid[:, 1]`` the y / height one) and ``[N, 3, OD, OH, OW]`` for ``NCDHW`` data,
in normalised coordinates (-1 and 1 are the first and last pixel's centre with
``align_corners``, their outer edges without). Its semantics are PyTorch's and ONNX's
``GridSample`` (the ONNX reference evaluator's, float for float):

* the coordinate is denormalised in the data's float type (float32 for float16);
  ``nearest`` rounds it half to even;
* a coordinate outside ``[lo, hi]`` (``[0, size - 1]`` with ``align_corners``,
  ``[-0.5, size - 0.5]`` without) is clamped to ``[0, size - 1]`` (``border``) or
  reflected into ``[lo, hi]`` (``reflection``, computed in float64) -- ``zeros``
  keeps it;
* ``bilinear`` blends the 2 neighbours ``floor(x)``, ``floor(x) + 1`` per axis,
  ``bicubic`` the 4 ``floor(x) - 1 .. floor(x) + 2`` with Keys' kernel (``a =
  -0.75``), ``nearest`` takes the one pixel ``trunc(x)``; the innermost axis is
  blended first;
* each neighbour index goes through the padding again: ``border`` clamps it,
  ``reflection`` reflects it (and truncates), and a neighbour still outside the
  data (``zeros``, or a NaN coordinate in any mode) reads 0.

No coordinate in the grid, NaN and infinities included, makes a kernel read outside
the data: a neighbour index is converted to an integer only when it is inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    DYN,
    FORMAT,
    Array,
    OpPattern,
    RelayOp,
    TypeRelationError,
    bool_prop,
    get_bool,
    get_str,
    ranked,
    same_elem,
    shape_str,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.dtypes import astype, is_float

GRID_SAMPLE_METHODS = ("bilinear", "nearest", "bicubic")
GRID_SAMPLE_PADDING = ("zeros", "border", "reflection")
GRID_SAMPLE_LAYOUTS = {"NCHW": 2, "NCDHW": 3}
"""The data layouts and their count of spatial axes."""
CUBIC_A = -0.75
"""Keys' cubic kernel parameter of ``bicubic`` (PyTorch's and ONNX's)."""


def sample_bounds(size: int, align_corners: bool) -> tuple[float, float]:
    """The coordinates ``[lo, hi]`` a sample may take before padding applies."""
    return (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)


def denormalize(g: Array, size: int, align_corners: bool) -> Array:
    """Pixel coordinates of normalised ones (in ``g``'s dtype, the ONNX reference's
    order of operations)."""
    one = g.dtype.type(1)
    two = g.dtype.type(2)
    if align_corners:
        return (g + one) / two * g.dtype.type(size - 1)
    return ((g + one) * g.dtype.type(size) - one) / two


def reflect(x: Array, lo: float, hi: float) -> Array:
    """``x`` reflected by the nearer border until it is in ``[lo, hi]`` (float64; a
    zero-width range maps everything but NaN to ``lo``)."""
    x = x.astype(np.float64)
    span = hi - lo
    below, above = x < lo, x > hi
    if span == 0:
        return np.where(below | above, lo, x)
    dx = np.where(below, lo - x, np.where(above, x - hi, 0.0))
    n = np.floor(dx / span)
    r = dx - n * span
    even = n - 2 * np.floor(n / 2) == 0
    return np.where(
        below,
        np.where(even, lo + r, hi - r),
        np.where(above, np.where(even, hi - r, lo + r), x),
    )


def cubic_weights(t: Array) -> list[Array]:
    """Keys' weights of the neighbours at offsets -1, 0, 1, 2 from ``floor(x)``, for
    the fraction ``t`` (in ``t``'s dtype)."""
    a = t.dtype.type(CUBIC_A)

    def near(d: Array) -> Array:
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: Array) -> Array:
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    one, two = t.dtype.type(1), t.dtype.type(2)
    return [far(t + one), near(t), near(one - t), far(two - t)]


def _taps(
    x: Array, method: str
) -> list[tuple[Array, Array]]:  # (position, weight) per neighbour
    if method == "nearest":
        return [(np.trunc(x), np.ones_like(x))]
    base = np.floor(x)
    t = x - base
    if method == "bilinear":
        return [(base, 1 - t), (base + 1, t)]
    return [(base + k - 1, w) for k, w in enumerate(cubic_weights(t))]


def _tap_index(
    p: Array, size: int, padding: str, lo: float, hi: float
) -> tuple[Array, Array]:
    """A neighbour's position after padding: ``(index, inside)``; the index is 0
    where the neighbour is outside."""
    if padding == "border":
        p = np.clip(p, 0, size - 1)
    elif padding == "reflection":
        p = np.trunc(reflect(p, lo, hi))
    inside = (p >= 0) & (p <= size - 1)
    return np.where(inside, p, 0).astype(np.int64), inside


def grid_sample(
    data: Array, grid: Array, method: str, padding: str, align_corners: bool
) -> Array:
    """The reference semantics of ``image.grid_sample`` (module docstring); ``grid``
    is channel-first."""
    nd = data.ndim - 2
    sizes = data.shape[2:]
    cdt = np.dtype(np.float64 if data.dtype == np.float64 else np.float32)
    per_axis: list[list[tuple[Array, Array, Array]]] = []
    for k, size in enumerate(sizes):
        x = denormalize(grid[:, nd - 1 - k].astype(cdt), size, align_corners)
        if method == "nearest":
            x = np.rint(x)
        lo, hi = sample_bounds(size, align_corners)
        outside = (x < lo) | (x > hi)
        if padding == "border":
            x = np.where(outside, np.clip(x, 0, size - 1), x)
        elif padding == "reflection":
            x = np.where(outside, reflect(x, lo, hi).astype(cdt), x)
        taps: list[tuple[Array, Array, Array]] = []
        for p, w in _taps(x, method):
            idx, inside = _tap_index(p, size, padding, lo, hi)
            taps.append((idx, inside, w.astype(cdt)))
        per_axis.append(taps)
    batch = np.arange(data.shape[0]).reshape((-1,) + (1,) * (grid.ndim - 2))
    values = data.astype(cdt)

    def blend(k: int, idx: list[Array], inside: Array) -> Array:
        if k == nd:
            picked = np.moveaxis(values[(batch, slice(None), *idx)], -1, 1)
            return np.where(inside[:, None], picked, cdt.type(0))
        out: Array | None = None
        for i, ok, w in per_axis[k]:
            term = w[:, None] * blend(k + 1, [*idx, i], inside & ok)
            out = term if out is None else out + term
        assert out is not None
        return out

    start = np.ones(grid.shape[:1] + grid.shape[2:], dtype=bool)
    return astype(blend(0, [], start), data.dtype)


@irdl_op_definition
class GridSampleOp(RelayOp):
    """Samples ``data`` (``NCHW`` or ``NCDHW``) at the points of ``grid``
    (channel-first, normalised coordinates): the result is ``[N, C, *grid.shape[2:]]``
    (module docstring). ``method``: ``"bilinear"``, ``"nearest"``, ``"bicubic"``
    (``NCHW`` only); ``padding_mode``: ``"zeros"``, ``"border"``, ``"reflection"``."""

    name = "relay.image.grid_sample"
    data = operand_def(ANY_TENSOR)
    grid = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    method = str_prop("bilinear")
    layout = str_prop("NCHW")
    padding_mode = str_prop("zeros")
    align_corners = bool_prop(True)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        g = ranked(operand_types[1], "grid")
        elem = same_elem([x, g], ["data", "grid"])
        if not is_float(elem):
            raise TypeRelationError(f"data must be a float tensor, got {x}")
        layout, method = get_str(self.layout), get_str(self.method)
        padding = get_str(self.padding_mode)
        if layout not in GRID_SAMPLE_LAYOUTS:
            raise TypeRelationError(f'unknown layout "{layout}" (NCHW or NCDHW)')
        if method not in GRID_SAMPLE_METHODS:
            raise TypeRelationError(
                f'unknown method "{method}" (one of {", ".join(GRID_SAMPLE_METHODS)})'
            )
        if padding not in GRID_SAMPLE_PADDING:
            raise TypeRelationError(
                f'unknown padding_mode "{padding}" '
                f"(one of {', '.join(GRID_SAMPLE_PADDING)})"
            )
        nd = GRID_SAMPLE_LAYOUTS[layout]
        if method == "bicubic" and nd != 2:
            raise TypeRelationError("bicubic sampling needs NCHW data")
        xs, gs = x.get_shape(), g.get_shape()
        if len(xs) != nd + 2:
            raise TypeRelationError(f"{layout} data must have rank {nd + 2}, got {x}")
        if len(gs) != nd + 2 or gs[1] not in (nd, DYN):
            raise TypeRelationError(
                f"grid must be [N, {nd}, {', '.join('?' * nd)}] for {layout} data, "
                f"got {shape_str(gs)}"
            )
        if DYN not in (xs[0], gs[0]) and xs[0] != gs[0]:
            raise TypeRelationError(
                f"data and grid must have one batch size, got {xs[0]} and {gs[0]}"
            )
        if 0 in xs[2:]:
            raise TypeRelationError(f"data has an empty spatial axis: {x}")
        return [tensor([xs[0], xs[1], *gs[2:]], elem)]

    def compute(self, *args: Any) -> Any:
        with np.errstate(invalid="ignore", over="ignore"):  # non-finite coordinates
            return grid_sample(
                np.asarray(args[0]),
                np.asarray(args[1]),
                get_str(self.method),
                get_str(self.padding_mode),
                get_bool(self.align_corners),
            )


IMAGE_OPS: list[type[RelayOp]] = [GridSampleOp]

__all__ = [
    "GRID_SAMPLE_METHODS",
    "GRID_SAMPLE_PADDING",
    "IMAGE_OPS",
    "GridSampleOp",
    "grid_sample",
]
