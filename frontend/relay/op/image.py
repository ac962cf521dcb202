"""Image ops (``tvm.relay.image``): ``grid_sample``."""

from __future__ import annotations

from xrelay.frontend.relay.expr import Call
from xrelay.frontend.relay.op._make import ExprLike, call


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


__all__ = ["grid_sample"]
