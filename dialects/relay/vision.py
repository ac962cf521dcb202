"""Vision ops (Relay's ``vision.*``): ``vision.roi_align``, ``vision.roi_pool``
(:class:`RoiPoolOp`).

``vision.roi_align(data, rois)`` pools each region of interest of ``NCHW`` (or
``NHWC``: the same, transposed; the kernel runs it as ``NCHW`` between transforms)
data to ``pooled_size``: ``rois`` is ``[R, 5]``, a row ``(batch index, x1, y1, x2, y2)`` in
input coordinates scaled by ``spatial_scale`` (Relay's form; the batch index is a
float holding an integer). Each output bin averages (``mode="avg"``) or takes the
largest of (``"max"``) ``gh x gw`` bilinear samples at the centres of a regular grid
in the bin; ``gh = sample_ratio`` when positive, else ``ceil(roi_height /
pooled_height)`` (adaptive, likewise ``gw``). The semantics are ONNX's ``RoiAlign``
(its reference evaluator's, in the data's float type):

* ``aligned=False`` (Relay's and ONNX's ``output_half_pixel``): no pixel offset, and
  a region smaller than 1x1 is widened to 1x1; ``aligned=True`` (ONNX's
  ``half_pixel``): coordinates shifted by -0.5, no widening;
* a sample outside ``[-1, H] x [-1, W]`` is 0; inside, it is clamped to the data and
  interpolated from its 4 neighbours; ``max`` takes the largest of the 4 weighted
  neighbours, then of the samples;
* an average divides by ``gh * gw`` (at least 1); a bin without samples is 0.

A batch index (truncated toward zero) outside ``[0, N)`` (or not a number) fails the run
(:class:`~xrelay.status.IndexOutOfRangeError`). The samples outside the data are
never visited one by one: with an adaptive grid, only a window of rows (columns) that
can be inside is (at most ``2 H + 6``), so a huge region costs no more than the data
-- and its outside samples still count in the divisor and as 0 in the max.
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
    float_prop,
    get_bool,
    get_float,
    get_int,
    get_ints,
    get_str,
    int_prop,
    ints_prop,
    ranked,
    same_elem,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.dtypes import astype, is_float
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    LayoutConversionError,
    MaybeLayout,
)
from xrelay.status import index_error

ROI_ALIGN_MODES = ("avg", "max")
GRID_CAP = 2.0**40
"""Adaptive sample counts are clamped to this before they become integers (the
divisor keeps the float count)."""


def window_bound(size: int) -> int:
    """The most rows (columns) of an adaptive sample grid that can be inside
    ``[-1, size]``: the spacing of adaptive samples is at least 0.5."""
    return 2 * size + 6


def sample_window(
    base: float, spacing: float, grid: int, size: int, adaptive: bool
) -> tuple[int, int]:
    """The samples ``[lo, hi)`` of one bin's row (column) to visit: all of them for a
    fixed grid, else a window holding every sample that can be inside ``[-1, size]``
    (:func:`window_bound` of them, starting one before the first)."""
    if not adaptive or grid <= 0:
        return 0, max(grid, 0)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        first = np.floor((-1.0 - np.float64(base)) / np.float64(spacing) - 0.5) - 1.0
    lo = int(min(first, float(grid))) if first > 0 else 0  # NaN: 0
    return lo, min(grid, lo + window_bound(size))


def batch_index(b: Any) -> int:
    """A row's batch index: truncated toward zero; -1 (out of range) for NaN and
    values beyond +-2**62."""
    return int(b) if b == b and abs(b) < 2.0**62 else -1


def _axis_sample(pos: Any, size: int, dt: Any) -> tuple[bool, int, int, Any, Any]:
    """``(inside, low, high, weight of low, weight of high)`` of one sample
    coordinate (the reference's clamping)."""
    if not (pos >= -1.0 and pos <= size):  # NaN is outside too
        return False, 0, 0, dt(0), dt(0)
    pos = max(pos, dt(0))
    low = int(pos)
    if low >= size - 1:
        low = high = size - 1
        pos = dt(low)
    else:
        high = low + 1
    frac = dt(pos - dt(low))
    return True, low, high, dt(1) - frac, frac


def roi_align(
    data: Array,
    rois: Array,
    pooled: tuple[int, int],
    scale: float,
    ratio: int,
    mode: str,
    aligned: bool,
    name: str = "relay.vision.roi_align",
) -> Array:
    """The reference semantics of ``vision.roi_align`` (module docstring)."""
    n, c, h, w = data.shape
    dt = np.float64 if data.dtype == np.float64 else np.float32
    x = data.astype(dt)
    ph, pw = pooled
    out = np.zeros((rois.shape[0], c, ph, pw), dt)
    for r, roi in enumerate(rois.astype(dt)):
        bi = batch_index(roi[0])
        if not 0 <= bi < n:
            raise index_error(name, bi, n)
        offset = dt(0.5 if aligned else 0.0)
        sx, sy, ex, ey = (v * dt(scale) - offset for v in roi[1:])
        rw, rh = ex - sx, ey - sy
        if not aligned:
            rw, rh = max(rw, dt(1)), max(rh, dt(1))
        bh, bw = dt(rh / dt(ph)), dt(rw / dt(pw))
        grids: list[float] = []
        for roi_len, p in ((rh, ph), (rw, pw)):
            g = float(np.ceil(dt(roi_len / dt(p)))) if ratio <= 0 else float(ratio)
            grids.append(g if g == g else 0.0)
        gh_f, gw_f = grids
        gh = int(min(max(gh_f, 0.0), GRID_CAP))
        gw = int(min(max(gw_f, 0.0), GRID_CAP))
        count = dt(max(float(gh) * float(gw), 1.0)) if gh > 0 and gw > 0 else dt(1)
        image = x[bi]
        for i in range(ph):
            base_y = sy + dt(i) * bh
            ylo, yhi = sample_window(
                float(base_y), float(bh / dt(max(gh, 1))), gh, h, ratio <= 0
            )
            for j in range(pw):
                base_x = sx + dt(j) * bw
                xlo, xhi = sample_window(
                    float(base_x), float(bw / dt(max(gw, 1))), gw, w, ratio <= 0
                )
                partial = yhi - ylo < gh or xhi - xlo < gw
                empty = gh == 0 or gw == 0
                if mode == "avg":
                    acc = np.zeros(c, dt)
                else:
                    fill = 0 if partial or empty else -np.inf
                    acc = np.full(c, fill, dt)
                for iy in range(ylo, yhi):
                    yy = base_y + dt(iy + 0.5) * bh / dt(gh)
                    for ix in range(xlo, xhi):
                        xx = base_x + dt(ix + 0.5) * bw / dt(gw)
                        oky, y0, y1, hy, ly = _axis_sample(yy, h, dt)
                        okx, x0, x1, hx, lx = _axis_sample(xx, w, dt)
                        if oky and okx:
                            ws = (hy * hx, hy * lx, ly * hx, ly * lx)
                            vs = (
                                image[:, y0, x0],
                                image[:, y0, x1],
                                image[:, y1, x0],
                                image[:, y1, x1],
                            )
                        else:
                            ws = (dt(0),) * 4
                            vs = (np.zeros(c, dt),) * 4
                        terms = [wk * vk for wk, vk in zip(ws, vs, strict=True)]
                        if mode == "avg":
                            acc = acc + (((terms[0] + terms[1]) + terms[2]) + terms[3])
                        else:
                            val = np.maximum(
                                np.maximum(terms[0], terms[1]),
                                np.maximum(terms[2], terms[3]),
                            )
                            acc = np.maximum(acc, val)
                out[r, :, i, j] = acc / count if mode == "avg" else acc
    return astype(out, data.dtype)


ROI_ALIGN_LAYOUTS = ("NCHW", "NHWC")
_ROIS = Layout.parse("NC")


class RoiOp(RelayOp):
    """What ``vision.roi_align`` and ``vision.roi_pool`` share: data in ``NCHW`` or
    ``NHWC`` (computed as ``NCHW`` between transforms), rois ``[R, 5]``, a result
    ``[R, C, pooled_size[0], pooled_size[1]]`` in the data's layout, and Relay's
    layout rules for them."""

    pooled_size = ints_prop()
    layout = str_prop("NCHW")
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data", "rois")

    def check_mode(self) -> None:
        """Raise a TypeRelationError for a bad attribute of the op's own."""

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        rois = ranked(operand_types[1], "rois")
        elem = same_elem([x, rois], ["data", "rois"])
        if not is_float(elem):
            raise TypeRelationError(f"data must be a float tensor, got {x}")
        layout = get_str(self.layout)
        if layout not in ROI_ALIGN_LAYOUTS:
            raise TypeRelationError(
                f'layout "{layout}" is not supported (NCHW or NHWC)'
            )
        self.check_mode()
        pooled = get_ints(self.pooled_size)
        if len(pooled) != 2 or min(pooled) < 1:
            raise TypeRelationError(
                f"pooled_size must be 2 positive ints, got {list(pooled)}"
            )
        xs, rs = x.get_shape(), rois.get_shape()
        if len(xs) != 4:
            raise TypeRelationError(f"data must be {layout} (rank 4), got {x}")
        nchw = [xs[layout.index(c)] for c in "NCHW"]
        self.check_spatial(nchw, x)
        if len(rs) != 2 or rs[1] not in (5, DYN):
            raise TypeRelationError(
                f"rois must be [R, 5] (batch index, x1, y1, x2, y2), got {rois}"
            )
        out = {"N": rs[0], "C": nchw[1], "H": pooled[0], "W": pooled[1]}
        return [tensor([out[c] for c in layout], elem)]

    def check_spatial(self, nchw: list[int], data: Attribute) -> None:
        """Raise a TypeRelationError for spatial sizes the op cannot take."""

    def compute_nchw(self, data: Array, rois: Array, pooled: tuple[int, int]) -> Array:
        """The op on ``NCHW`` data (the numpy semantics)."""
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        pooled = get_ints(self.pooled_size)
        nhwc = get_str(self.layout) == "NHWC"
        data = np.asarray(args[0])
        if nhwc:
            data = data.transpose(0, 3, 1, 2)
        with np.errstate(invalid="ignore", over="ignore"):
            out = self.compute_nchw(data, np.asarray(args[1]), (pooled[0], pooled[1]))
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if nhwc else out

    def primal_form(
        self,
    ) -> tuple[RelayOp, list[tuple[str, str] | None], tuple[str, str] | None] | None:
        """``NHWC``: the ``NCHW`` op between transforms (what the kernel runs)."""
        if get_str(self.layout) != "NHWC":
            return None
        op = self.layout_variant(updates={"layout": "NCHW"})
        return op, [("NHWC", "NCHW"), None], ("NCHW", "NHWC")

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``ROIAlignInferCorrectLayout`` / ``ROIPoolInferCorrectLayout``:
        the data in the op's ``layout`` (whatever its producer gives), the rois as
        they are; the result in ``layout``."""
        layout = get_str(self.layout)
        if layout not in ROI_ALIGN_LAYOUTS:
            return None
        data = Layout.parse(layout)
        return InferredLayouts((data, _ROIS), (data,))

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``convert_roi_align`` / ``convert_roi_pool``: ``layout`` becomes
        ``desired[0]`` (``NCHW`` or ``NHWC``); the rois' layout is ``"default"``."""
        if len(desired) != 2:
            raise LayoutConversionError(
                f"{self.name} takes 2 desired layouts (data and rois), got "
                f"{len(desired)}: {list(desired)}"
            )
        if desired[0] not in ROI_ALIGN_LAYOUTS or desired[1] != "default":
            raise LayoutConversionError(
                f"{self.name} takes the desired layouts [NCHW or NHWC, 'default'], got "
                f"{list(desired)}"
            )
        return self.layout_variant(updates={"layout": desired[0]})


@irdl_op_definition
class RoiAlignOp(RoiOp):
    """Region-of-interest pooling by bilinear samples (module docstring); the result
    is ``[R, C, pooled_size[0], pooled_size[1]]``."""

    name = "relay.vision.roi_align"
    data = operand_def(ANY_TENSOR)
    rois = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    pooled_size = ints_prop()
    spatial_scale = float_prop()
    sample_ratio = int_prop(-1)
    layout = str_prop("NCHW")
    mode = str_prop("avg")
    aligned = bool_prop(False)
    assembly_format = FORMAT

    def check_mode(self) -> None:
        if get_str(self.mode) not in ROI_ALIGN_MODES:
            raise TypeRelationError(f'unknown mode "{get_str(self.mode)}" (avg or max)')

    def check_spatial(self, nchw: list[int], data: Attribute) -> None:
        if 0 in nchw[2:]:
            raise TypeRelationError(f"data has an empty spatial axis: {data}")

    def compute_nchw(self, data: Array, rois: Array, pooled: tuple[int, int]) -> Array:
        return roi_align(
            data,
            rois,
            pooled,
            get_float(self.spatial_scale),
            get_int(self.sample_ratio),
            get_str(self.mode),
            get_bool(self.aligned),
        )


"""The rois' layout in the rules: ``[R, 5]`` rows, never transformed."""


ROI_POOL_EPSILON = 1e-5
"""Relay's guard against float error in the bin bounds (``floor(p * bin + eps)``,
``ceil((p + 1) * bin - eps)``)."""
ROI_POOL_LIMIT = 2.0**30
"""A scaled, rounded coordinate at or beyond this magnitude (or NaN) makes its region
empty: every bin is 0."""


def roi_pool_bounds(
    roi: Any, scale: Any, size: tuple[int, int], pooled: tuple[int, int], dt: Any
) -> list[list[tuple[int, int, int, int]]] | None:
    """``[ph][pw] -> (h0, h1, w0, w1)`` window bounds (clamped into the data) of each
    bin of one region (floats of ``dt``), or ``None`` for an empty region."""
    coords: list[int] = []
    for v in roi[1:]:
        r = np.round(dt(v) * dt(scale))
        if not abs(r) < ROI_POOL_LIMIT:  # NaN too
            return None
        coords.append(int(r))
    sw, sh, ew, eh = coords
    eps = dt(ROI_POOL_EPSILON)
    out: list[list[tuple[int, int, int, int]]] = []
    rh, rw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
    bin_h, bin_w = dt(rh) / dt(pooled[0]), dt(rw) / dt(pooled[1])
    h, w = size

    def span(p: int, step: Any, start: int, limit: int) -> tuple[int, int]:
        lo = int(np.floor(dt(p) * step + eps)) + start
        hi = int(np.ceil(dt(p + 1) * step - eps)) + start
        return min(max(lo, 0), limit), min(max(hi, 0), limit)

    for p in range(pooled[0]):
        h0, h1 = span(p, bin_h, sh, h)
        out.append([(h0, h1, *span(q, bin_w, sw, w)) for q in range(pooled[1])])
    return out


def roi_pool(
    data: Array,
    rois: Array,
    pooled: tuple[int, int],
    scale: float,
    name: str = "relay.vision.roi_pool",
) -> Array:
    """The reference semantics of ``vision.roi_pool`` on ``NCHW`` data (the
    :class:`RoiPoolOp` docstring)."""
    n, c, h, w = data.shape
    dt = np.float64 if data.dtype == np.float64 else np.float32
    x = data.astype(dt)
    out = np.zeros((rois.shape[0], c, pooled[0], pooled[1]), dt)
    for r, roi in enumerate(rois.astype(dt)):
        bi = batch_index(roi[0])
        if not 0 <= bi < n:
            raise index_error(name, bi, n)
        bounds = roi_pool_bounds(roi, scale, (h, w), pooled, dt)
        if bounds is None:
            continue
        for p, row in enumerate(bounds):
            for q, (h0, h1, w0, w1) in enumerate(row):
                if h0 < h1 and w0 < w1:
                    out[r, :, p, q] = np.max(x[bi, :, h0:h1, w0:w1], axis=(1, 2))
    return astype(out, data.dtype)


@irdl_op_definition
class RoiPoolOp(RoiOp):
    """Region-of-interest max pooling (Relay's ``vision.roi_pool``): each region of
    ``rois`` (``[R, 5]``: batch index, x1, y1, x2, y2) scaled by ``spatial_scale`` and
    rounded (ties to even) to whole pixels, at least 1x1, split into ``pooled_size``
    bins (``floor(p * bin + 1e-5)`` to ``ceil((p + 1) * bin - 1e-5)``, clamped into
    the data); each bin is the largest value of its window (NaN wins), 0 when the
    window is empty. A coordinate that is NaN or rounds beyond 2**30 empties its
    region (all 0); a bad batch index fails the run, as ``roi_align``. ``NCHW`` or
    ``NHWC`` (computed as NCHW between transforms). The result is ``[R, C, PH, PW]``
    in the layout."""

    name = "relay.vision.roi_pool"
    data = operand_def(ANY_TENSOR)
    rois = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    pooled_size = ints_prop()
    spatial_scale = float_prop()
    layout = str_prop("NCHW")
    assembly_format = FORMAT

    def compute_nchw(self, data: Array, rois: Array, pooled: tuple[int, int]) -> Array:
        return roi_pool(data, rois, pooled, get_float(self.spatial_scale))


VISION_OPS: list[type[RelayOp]] = [RoiAlignOp, RoiPoolOp]

__all__ = [
    "ROI_ALIGN_MODES",
    "VISION_OPS",
    "RoiAlignOp",
    "RoiPoolOp",
    "roi_align",
    "roi_pool",
]
