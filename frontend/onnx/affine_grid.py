"""The ``AffineGrid`` converter (opset 20): the grid of normalised coordinates of
every output pixel (a constant ``[1, P, k + 1]`` of homogeneous points ``(x, y[, z],
1)``, ``P`` the pixel count) times ``theta`` ``[N, k, k + 1]``, as one
``nn.batch_matmul`` in float64 (the reference's precision), reshaped to ``[N, *size,
k]``. ``size`` must be known at import time."""

from __future__ import annotations

import numpy as np

from xrelay.dialects.relay.base import Array
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def axis_points(size: int, align_corners: bool) -> Array:
    """The normalised coordinates of ``size`` pixel centres along one axis (a lone
    pixel sits at -1 with ``align_corners``, as in the reference)."""
    if align_corners:
        if size == 1:
            return np.array([-1.0])
        return np.linspace(-1.0, 1.0, size)
    return (2.0 * np.arange(size) + 1.0) / size - 1.0


def homogeneous_points(sizes: list[int], align_corners: bool) -> Array:
    """``[P, k + 1]``: each pixel's ``(x, y[, z], 1)`` (x runs along the last axis),
    pixels in row-major order of ``sizes``."""
    axes = [axis_points(s, align_corners) for s in sizes]
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]
    return np.stack([*coords, np.ones_like(coords[0])], axis=1)


@converter("AffineGrid")
def affine_grid(node: Node) -> Outputs:
    theta = node.input(0)
    shape = node.shape(theta)
    size = node.static_ints(1, "size")
    assert size is not None
    if len(size) not in (4, 5):
        raise ConversionError(f"size must have 4 or 5 values, got {size}")
    k = len(size) - 2
    if len(shape) != 3 or shape[1:] != (k, k + 1):
        raise ConversionError(
            f"theta must be [N, {k}, {k + 1}] for a size of {len(size)} values, "
            f"got {list(shape)}"
        )
    if size[0] != shape[0]:
        raise ConversionError(f"size has batch {size[0]} but theta has {shape[0]}")
    spatial = size[2:]
    if any(s <= 0 for s in spatial):
        raise ConversionError(f"size must be positive, got {size}")
    dtype = node.dtype(theta)
    if dtype.kind != "f":
        raise ConversionError(f"theta must be a float tensor, got {dtype}")
    points = homogeneous_points(spatial, bool(node.attr_int("align_corners", 0)))
    wide = node.op("cast", [theta], dtype="float64")
    grid = node.op("nn.batch_matmul", [node.const(points[None]), wide])
    grid = node.op("cast", [grid], dtype=str(dtype))
    return node.reshape(grid, [shape[0], *spatial, k])
