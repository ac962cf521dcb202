"""Spatial resizing: ``image.resize2d`` and ``nn.upsampling`` (Relay's ``topi.image.
resize2d``, which ``nn.upsampling`` is an instance of).

The data has a 2-D layout with a height ``H`` and a width ``W`` axis, neither split
(``NCHW``, ``NHWC``, ``NCHW16c``, ...); every other axis is carried through. Each
output position ``o`` of a resized axis (input size ``n``, output size ``m``) has a
float32 coordinate in the input, by ``coordinate_transformation_mode``:

* ``half_pixel``: ``(o + 0.5) * (n / m) - 0.5``; ``pytorch_half_pixel`` the same, but
  0 when ``m == 1``;
* ``align_corners``: ``o * ((n - 1) / (m - 1))`` (0 when ``m == 1``);
* ``asymmetric``: ``o * (n / m)``; ``tf_half_pixel_for_nn``: ``(o + 0.5) * (n / m)``;
* ``tf_crop_and_resize``: ``start * (n - 1) + o * ((end - start) * (n - 1) / (m -
  1))`` with ``start`` / ``end`` from ``roi`` (``[start_h, start_w, end_h, end_w]``),
  ``0.5 * (start + end) * (n - 1)`` when ``m == 1``; an output whose coordinate falls
  outside ``[0, n - 1]`` on either axis is ``extrapolation_value``.

The ratios are float32 constants; the per-position arithmetic is float32, in this
order. ``nearest_neighbor`` takes the pixel at the rounded coordinate
(``rounding_method``: ``round`` -- ties to even --, ``round_prefer_floor``,
``round_prefer_ceil``, ``floor``, ``ceil``; ``""`` is ``round`` with
``align_corners`` and ``floor`` otherwise), clamped into the input. ``linear`` blends
the pixels ``floor(x)`` and ``floor(x) + 1`` (each clamped into the input) with
weights ``1 - t`` and ``t``, ``t = x - floor(x)``: first along the width (for the two
rows), then along the height, in the data's float type (float32 for float16).
``cubic`` is not supported (a type error naming it). ``nearest_neighbor`` takes any
dtype, ``linear`` float data only; the result has the data's dtype.

``nn.upsampling(scale_h, scale_w)`` resizes to ``round(H * scale_h)`` x ``round(W *
scale_w)`` (ties to even), ``nearest_neighbor`` or ``bilinear`` (``linear``), with
``asymmetric`` coordinates, or ``align_corners`` when asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, FloatAttr
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def

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
    get_ints,
    get_str,
    ints_prop,
    ranked,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.dtypes import is_float
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    LayoutConversionError,
    MaybeLayout,
    layout_of,
)

COORDINATE_MODES = (
    "half_pixel",
    "align_corners",
    "asymmetric",
    "pytorch_half_pixel",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
)
ROUNDING_METHODS = (
    "",
    "round",
    "round_prefer_floor",
    "round_prefer_ceil",
    "floor",
    "ceil",
)
RESIZE_METHODS = ("nearest_neighbor", "linear")
UPSAMPLING_METHODS = {"nearest_neighbor": "nearest_neighbor", "bilinear": "linear"}
F32 = np.float32


@dataclass(frozen=True)
class ResizeAxis:
    """How one spatial axis is resized: its position in the layout, the input and
    output sizes, and the float32 constants of its coordinate."""

    axis: int
    size_in: int
    size_out: int
    mode: str
    start: float = 0.0
    end: float = 0.0

    def constants(self) -> tuple[str, float, float]:
        """``(form, a, b)``: the coordinate is ``(o + a) * b - a`` (``form ==
        "shift"``), ``o * b`` (``"scale"``), ``(o + 0.5) * b`` (``"half"``), ``a +
        o * b`` (``"offset"``) or the constant ``a`` (``"const"``)."""
        n, m, mode = self.size_in, self.size_out, self.mode
        ratio = float(F32(n) / F32(m))
        if mode in ("half_pixel", "pytorch_half_pixel"):
            if mode == "pytorch_half_pixel" and m == 1:
                return "const", 0.0, 0.0
            return "shift", 0.5, ratio
        if mode == "align_corners":
            if m == 1:
                return "const", 0.0, 0.0
            return "scale", 0.0, float(F32(n - 1) / F32(m - 1))
        if mode == "asymmetric":
            return "scale", 0.0, ratio
        if mode == "tf_half_pixel_for_nn":
            return "half", 0.5, ratio
        if m == 1:
            return "const", float(F32(0.5 * (self.start + self.end) * (n - 1))), 0.0
        step = float(F32((self.end - self.start) * (n - 1) / (m - 1)))
        return "offset", float(F32(self.start * (n - 1))), step

    def coordinates(self) -> Array:
        """The float32 input coordinate of every output position."""
        o = np.arange(self.size_out).astype(F32)
        form, a, b = self.constants()
        fa, fb = F32(a), F32(b)
        if form == "shift":
            return (o + fa) * fb - fa
        if form == "scale":
            return o * fb
        if form == "half":
            return (o + fa) * fb
        if form == "offset":
            return fa + o * fb
        return np.full(self.size_out, fa, F32)


def round_coordinate(x: Array, method: str) -> Array:
    """``x`` (float32) rounded by ``method`` (see the module docstring)."""
    if method == "round":
        return np.round(x)
    if method == "round_prefer_floor":
        return np.ceil(x - F32(0.5))
    if method == "round_prefer_ceil":
        return np.floor(x + F32(0.5))
    if method == "floor":
        return np.floor(x)
    return np.ceil(x)


class ResizeBase(RelayOp):
    """The checks, shapes, numpy semantics and layout rules shared by the resizes;
    a subclass says how it is resized (:meth:`plan`)."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    layout = str_prop("NCHW")
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data",)

    def out_size(self, h: int, w: int) -> tuple[int, int]:
        raise NotImplementedError

    def settings(self) -> tuple[str, str, str, tuple[float, ...], float]:
        """``(method, coordinate mode, rounding, roi, extrapolation value)``, as
        ``image.resize2d`` names them."""
        raise NotImplementedError

    def hw_axes(self, rank: int) -> tuple[int, int]:
        """The positions of ``H`` and ``W`` in the (checked) layout."""
        name = get_str(self.layout)
        layout = layout_of(name)
        if layout is None:
            raise TypeRelationError(f"invalid layout '{name}'")
        if layout.ndim != rank:
            raise TypeRelationError(
                f"layout '{name}' has {layout.ndim} axes but the data has rank {rank}"
            )
        axes: list[int] = []
        for letter in "HW":
            k = layout.index_of(letter)
            if k < 0 or layout.factor_of(letter) > 0:
                raise TypeRelationError(
                    f"layout '{name}' must have an unsplit {letter} axis"
                )
            axes.append(k)
        return axes[0], axes[1]

    def checked(self, data: Attribute) -> tuple[list[int], tuple[int, int], Attribute]:
        """The data's shape, its ``H`` / ``W`` positions and element type, with the
        settings checked."""
        x = ranked(data, "data")
        shape = list(x.get_shape())
        hw = self.hw_axes(len(shape))
        method, mode, rounding, roi, _ = self.settings()
        if method not in RESIZE_METHODS:
            raise TypeRelationError(
                f"method '{method}' is not supported (nearest_neighbor or linear)"
            )
        if mode not in COORDINATE_MODES:
            raise TypeRelationError(
                f"unknown coordinate_transformation_mode '{mode}' (one of "
                f"{', '.join(COORDINATE_MODES)})"
            )
        if rounding not in ROUNDING_METHODS:
            raise TypeRelationError(
                f"unknown rounding_method '{rounding}' (one of "
                f"{', '.join(repr(r) for r in ROUNDING_METHODS)})"
            )
        if len(roi) != 4:
            raise TypeRelationError(f"roi must have 4 values, got {len(roi)}")
        elem = x.get_element_type()
        if method == "linear" and not is_float(elem):
            raise TypeRelationError(f"linear resizing needs float data, got {x}")
        if any(shape[k] == 0 for k in hw):
            raise TypeRelationError(f"data has an empty spatial axis: {x}")
        return shape, hw, elem

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        shape, (kh, kw), elem = self.checked(operand_types[0])
        oh, ow = self.out_size(shape[kh], shape[kw])
        if oh < 1 or ow < 1:
            raise TypeRelationError(f"the output size must be positive, got {(oh, ow)}")
        shape[kh], shape[kw] = oh, ow
        return [tensor(shape, elem)]

    def plan(self, shape: Sequence[int]) -> tuple[str, str, float, list[ResizeAxis]]:
        """``(method, rounding, extrapolation, axes)`` for data of ``shape``."""
        (kh, kw) = self.hw_axes(len(shape))
        method, mode, rounding, roi, extrapolation = self.settings()
        if rounding == "":
            rounding = "round" if mode == "align_corners" else "floor"
        if DYN in (shape[kh], shape[kw]):
            raise TypeRelationError("resizing needs static spatial sizes")
        oh, ow = self.out_size(shape[kh], shape[kw])
        axes = [
            ResizeAxis(kh, shape[kh], oh, mode, roi[0], roi[2]),
            ResizeAxis(kw, shape[kw], ow, mode, roi[1], roi[3]),
        ]
        return method, rounding, extrapolation, axes

    def compute(self, *args: Any) -> Any:
        x = np.asarray(args[0])
        method, rounding, extrapolation, axes = self.plan(x.shape)
        work = np.dtype(F32) if x.dtype == np.float16 else x.dtype
        out = x
        outside: Array | None = None
        for ax in reversed(axes):  # width first, then height
            coord = ax.coordinates()
            if ax.mode == "tf_crop_and_resize":
                bad = (coord < 0) | (coord > F32(ax.size_in - 1))
                shape = [1] * x.ndim
                shape[ax.axis] = ax.size_out
                bad = bad.reshape(shape)
                outside = bad if outside is None else (outside | bad)
            last = ax.size_in - 1
            if method == "nearest_neighbor":
                idx = np.clip(round_coordinate(coord, rounding), 0, last).astype(
                    np.int64
                )
                out = np.take(out, idx, axis=ax.axis)
                continue
            base = np.floor(coord)
            t = (coord - base).astype(work)
            i0 = np.clip(base, 0, last).astype(np.int64)
            i1 = np.clip(base + 1, 0, last).astype(np.int64)
            shape = [1] * x.ndim
            shape[ax.axis] = ax.size_out
            t = t.reshape(shape)
            a = np.take(out, i0, axis=ax.axis).astype(work)
            b = np.take(out, i1, axis=ax.axis).astype(work)
            out = a * (work.type(1) - t) + b * t
        if outside is not None:
            out = np.where(outside, np.asarray(extrapolation).astype(work), out)
        return np.asarray(out).astype(x.dtype)

    # -- layout hooks --------------------------------------------------------------------

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``ResizeInferCorrectLayout``: when its producer changed layout
        (and ``H`` and ``W`` stay whole there) the op follows (``layout`` becomes the
        new one); otherwise it keeps its own, the one a conversion gave it."""
        own = layout_of(get_str(self.layout))
        if own is None:
            return None
        new = new_layouts[0] if new_layouts is not None else None
        moved = new is not None and new != old_layouts[0]
        if new is None or not moved or new == own or not _whole_hw(new):
            return InferredLayouts((own,), (own,))
        return InferredLayouts((new,), (new,), {"layout": new.name})

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``convert_image_resize2d``: ``layout`` becomes ``desired[0]``."""
        if len(desired) != 1:
            raise LayoutConversionError(
                f"{self.name} takes 1 desired layout, got {len(desired)}: "
                f"{list(desired)}"
            )
        layout = layout_of(desired[0])
        if layout is None or not _whole_hw(layout):
            raise LayoutConversionError(
                f"{self.name} cannot take the layout '{desired[0]}' (it needs unsplit "
                "H and W axes)"
            )
        return self.layout_variant(updates={"layout": desired[0]})


def _whole_hw(layout: Layout) -> bool:
    return all(layout.index_of(c) >= 0 and layout.factor_of(c) <= 0 for c in "HW")


def _floats(attr: Attribute) -> tuple[float, ...]:
    assert isinstance(attr, ArrayAttr)
    out: list[float] = []
    for a in attr.data:  # pyright: ignore[reportUnknownVariableType]
        assert isinstance(a, FloatAttr)
        out.append(float(a.value.data))  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
    return tuple(out)


@irdl_op_definition
class Resize2DOp(ResizeBase):
    """``data`` resized to ``size`` (``[OH, OW]``) on its ``H`` and ``W`` axes (module
    docstring): ``method`` ``linear`` (default) or ``nearest_neighbor``,
    ``coordinate_transformation_mode`` (default ``half_pixel``), ``rounding_method``,
    ``roi`` and ``extrapolation_value`` (``tf_crop_and_resize``)."""

    name = "relay.image.resize2d"
    size = ints_prop()
    roi = opt_prop_def(ArrayAttr)
    method = str_prop("linear")
    coordinate_transformation_mode = str_prop("half_pixel")
    rounding_method = str_prop("")
    cubic_alpha = float_prop(-0.5)
    cubic_exclude = ints_prop((0,))
    extrapolation_value = float_prop(0.0)

    def out_size(self, h: int, w: int) -> tuple[int, int]:
        size = get_ints(self.size)
        if len(size) != 2:
            raise TypeRelationError(f"size must have 2 values, got {len(size)}")
        return size[0], size[1]

    def settings(self) -> tuple[str, str, str, tuple[float, ...], float]:
        roi = (0.0, 0.0, 0.0, 0.0) if self.roi is None else _floats(self.roi)
        return (
            get_str(self.method),
            get_str(self.coordinate_transformation_mode),
            get_str(self.rounding_method),
            roi,
            get_float(self.extrapolation_value),
        )


@irdl_op_definition
class UpSamplingOp(ResizeBase):
    """``data`` scaled by ``scale_h`` x ``scale_w`` on its ``H`` and ``W`` axes (to
    ``round(H * scale_h)`` x ``round(W * scale_w)``): ``method``
    ``nearest_neighbor`` (default) or ``bilinear``, asymmetric coordinates or, with
    ``align_corners``, aligned corners (module docstring)."""

    name = "relay.nn.upsampling"
    scale_h = float_prop(1.0)
    scale_w = float_prop(1.0)
    method = str_prop("nearest_neighbor")
    align_corners = bool_prop(False)

    def out_size(self, h: int, w: int) -> tuple[int, int]:
        sh, sw = get_float(self.scale_h), get_float(self.scale_w)
        if not (np.isfinite(sh) and np.isfinite(sw)) or sh <= 0 or sw <= 0:
            raise TypeRelationError(
                f"scale_h and scale_w must be positive, got {sh} and {sw}"
            )
        return int(np.round(h * sh)), int(np.round(w * sw))

    def settings(self) -> tuple[str, str, str, tuple[float, ...], float]:
        method = get_str(self.method)
        mode = "align_corners" if get_bool(self.align_corners) else "asymmetric"
        return UPSAMPLING_METHODS.get(method, method), mode, "", (0.0,) * 4, 0.0


RESIZE_OPS: list[type[RelayOp]] = [Resize2DOp, UpSamplingOp]

__all__ = [
    "COORDINATE_MODES",
    "RESIZE_OPS",
    "Resize2DOp",
    "ResizeAxis",
    "ResizeBase",
    "UpSamplingOp",
]
