"""Image ops (``tvm.relay.image``): ``grid_sample``, ``resize2d``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from xrelay.frontend.relay.expr import Call, Constant, Expr
from xrelay.frontend.relay.op._make import ExprLike, call, ints


def grid_sample(
    data: ExprLike,
    grid: ExprLike,
    method: str = "bilinear",
    layout: str = "NCHW",
    padding_mode: str = "zeros",
    align_corners: bool = True,
) -> Call:
    """``data`` sampled at the normalised coordinates of ``grid`` (channel-first:
    ``[N, 2, OH, OW]`` for ``NCHW``, ``[N, 3, OD, OH, OW]`` for ``NCDHW``);
    ``method`` ``bilinear`` / ``nearest`` / ``bicubic``, ``padding_mode`` ``zeros``
    / ``border`` / ``reflection``."""
    return call(
        "image.grid_sample",
        [data, grid],
        method=method,
        layout=layout,
        padding_mode=padding_mode,
        align_corners=align_corners,
    )


def _roi(roi: object) -> list[float]:
    if roi is None:
        return [0.0, 0.0, 0.0, 0.0]
    if isinstance(roi, Constant):
        return [float(v) for v in roi.data.reshape(-1)]
    if isinstance(roi, Expr):
        raise TypeError("roi must be static (floats or a constant)")
    return [float(v) for v in cast(Sequence[Any], roi)]


def resize2d(
    data: ExprLike,
    size: Sequence[int] | Expr,
    roi: Sequence[float] | Expr | None = None,
    layout: str = "NCHW",
    method: str = "linear",
    coordinate_transformation_mode: str = "half_pixel",
    rounding_method: str = "",
    cubic_alpha: float = -0.5,
    cubic_exclude: int = 0,
    extrapolation_value: float = 0.0,
    out_dtype: str | None = None,
) -> Call:
    """``data`` resized to ``size`` (``[OH, OW]``) on its H and W axes;
    ``out_dtype`` must be the data's (or ``None``)."""
    if out_dtype not in (None, ""):
        raise ValueError(
            f"out_dtype={out_dtype!r}: xrelay's resize2d keeps the data's dtype "
            "(cast the result)"
        )
    return call(
        "image.resize2d",
        [data],
        size=ints(size, "size"),
        roi=_roi(roi),
        layout=layout,
        method=method,
        coordinate_transformation_mode=coordinate_transformation_mode,
        rounding_method=rounding_method,
        cubic_alpha=float(cubic_alpha),
        cubic_exclude=[int(cubic_exclude)],
        extrapolation_value=float(extrapolation_value),
    )


__all__ = ["grid_sample", "resize2d"]
