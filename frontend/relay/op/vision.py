"""Vision ops (``tvm.relay.vision``): ``roi_align``."""

from __future__ import annotations

from collections.abc import Sequence

from xrelay.frontend.relay.expr import Call
from xrelay.frontend.relay.op._make import ExprLike, call


def roi_align(
    data: ExprLike,
    rois: ExprLike,
    pooled_size: Sequence[int],
    spatial_scale: float,
    sample_ratio: int = -1,
    layout: str = "NCHW",
    mode: str = "avg",
    aligned: bool = False,
) -> Call:
    """Each region of ``rois`` (``[R, 5]``: batch index, x1, y1, x2, y2) pooled to
    ``pooled_size`` by bilinear samples (``mode`` ``avg`` or ``max``); ``aligned``
    (xrelay's addition, ONNX's ``half_pixel``) shifts coordinates by -0.5 and keeps
    regions smaller than a pixel."""
    return call(
        "vision.roi_align",
        [data, rois],
        pooled_size=list(pooled_size),
        spatial_scale=float(spatial_scale),
        sample_ratio=sample_ratio,
        layout=layout,
        mode=mode,
        aligned=aligned,
    )


def roi_pool(
    data: ExprLike,
    rois: ExprLike,
    pooled_size: Sequence[int],
    spatial_scale: float,
    layout: str = "NCHW",
) -> Call:
    """Each region of ``rois`` (``[R, 5]``) max-pooled to ``pooled_size`` bins of
    whole pixels."""
    return call(
        "vision.roi_pool",
        [data, rois],
        pooled_size=list(pooled_size),
        spatial_scale=float(spatial_scale),
        layout=layout,
    )


__all__ = ["roi_align", "roi_pool"]
