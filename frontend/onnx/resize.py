"""The ``Resize`` converter (opset 11+, modes ``nearest`` and ``linear``), built from
existing relay ops: the dialect has no resize op.

Resizing is separable, so each resized axis is done on its own, with index and weight
tensors computed here with numpy (in float64, as the ONNX reference does):

* ``nearest``: ``take`` along the axis with the source index of every output
  position (rounded by ``nearest_mode``, clamped to the input);
* ``linear``: ``take`` of the two neighbours ``floor(x)`` and ``floor(x) + 1``
  (clamped: the edge value repeats outside the input), blended with constant weights
  ``1 - t`` and ``t`` by ``multiply`` / ``add``.

The source coordinate ``x`` of output position ``y`` follows
``coordinate_transformation_mode``: ``half_pixel``, ``pytorch_half_pixel``,
``align_corners``, ``asymmetric`` and ``half_pixel_symmetric``.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay.base import Array
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

COORDINATE_MODES = (
    "half_pixel",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "half_pixel_symmetric",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def source_coordinates(mode: str, size: int, out: int, scale: float) -> Array:
    """The input coordinate of each of the ``out`` output positions (float64)."""
    y = np.arange(out, dtype=np.float64)
    width = scale * size  # the real-valued output length
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        if width == 1:
            return np.full(out, -0.5)
        return (y + 0.5) / scale - 0.5
    if mode == "align_corners":
        if width == 1:
            return np.zeros(out)
        return y * (size - 1) / (width - 1)
    if mode == "asymmetric":
        return y / scale
    if mode == "half_pixel_symmetric":
        adjustment = out / width
        offset = size / 2 * (1 - adjustment)
        return offset + (y + 0.5) / scale - 0.5
    raise ConversionError(
        f"coordinate_transformation_mode '{mode}' is not supported "
        f"({', '.join(COORDINATE_MODES)})"
    )


def nearest_indices(x: Array, mode: str, size: int) -> Array:
    """The nearest input index of each coordinate, by ``nearest_mode``."""
    base = np.floor(x)
    frac = x - base
    if mode == "round_prefer_floor":
        idx = base + (frac > 0.5)
    elif mode == "round_prefer_ceil":
        idx = base + (frac >= 0.5)
    elif mode == "floor":
        idx = base
    elif mode == "ceil":
        idx = np.ceil(x)
    else:
        raise ConversionError(
            f"nearest_mode '{mode}' is not one of {', '.join(NEAREST_MODES)}"
        )
    return np.clip(idx, 0, size - 1).astype(np.int64)


def _output_geometry(
    node: Node, shape: tuple[int, ...], axes: list[int]
) -> tuple[list[int], list[float]]:
    """Output length and coordinate scale of each axis in ``axes``."""
    scales = node.optional_static(2, "scales")
    if scales is not None and scales.size == 0:
        scales = None
    sizes = node.static_ints(3, "sizes") if node.has_input(3) else None
    if sizes is not None and len(sizes) == 0:
        sizes = None
    if (scales is None) == (sizes is None):
        raise ConversionError("exactly one of scales and sizes must be given")
    in_sizes = [shape[a] for a in axes]
    if sizes is not None:
        if len(sizes) != len(axes):
            raise ConversionError(f"sizes has {len(sizes)} values for {len(axes)} axes")
        ratios = [o / i if i else 1.0 for o, i in zip(sizes, in_sizes, strict=True)]
        policy = node.attr_str("keep_aspect_ratio_policy", "stretch")
        if policy == "stretch":
            return list(sizes), ratios
        if policy not in ("not_larger", "not_smaller"):
            raise ConversionError(f"unknown keep_aspect_ratio_policy '{policy}'")
        scale = min(ratios) if policy == "not_larger" else max(ratios)
        return [int(scale * i + 0.5) for i in in_sizes], [scale] * len(axes)
    assert scales is not None
    factors = [float(s) for s in scales.reshape(-1)]
    if len(factors) != len(axes):
        raise ConversionError(f"scales has {len(factors)} values for {len(axes)} axes")
    if any(s <= 0 for s in factors):
        raise ConversionError(f"scales must be positive, got {factors}")
    outs = [int(s * i) for s, i in zip(factors, in_sizes, strict=True)]
    return outs, factors


@converter("Resize")
def resize(node: Node) -> Outputs:
    if node.opset < 11:
        raise ConversionError("Resize before opset 11 is not supported")
    x = node.input(0)
    shape = node.shape(x)
    rank = len(shape)
    mode = node.attr_str("mode", "nearest")
    if mode not in ("nearest", "linear"):
        raise ConversionError(f"mode '{mode}' is not supported (nearest, linear)")
    if node.attr_int("antialias", 0):
        raise ConversionError("antialias=1 is not supported")
    coord_mode = node.attr_str("coordinate_transformation_mode", "half_pixel")
    if coord_mode not in COORDINATE_MODES:
        raise ConversionError(
            f"coordinate_transformation_mode '{coord_mode}' is not supported "
            f"({', '.join(COORDINATE_MODES)})"
        )
    nearest_mode = node.attr_str("nearest_mode", "round_prefer_floor")
    if mode == "linear" and node.dtype(x).kind != "f":
        raise ConversionError(
            f"linear mode needs floating-point data, got {node.dtype(x)}"
        )
    given_axes = node.opt_attr_ints("axes")
    axes = (
        list(range(rank))
        if given_axes is None
        else [node.axis(a, rank, "axes entry") for a in given_axes]
    )
    outs, scales = _output_geometry(node, shape, axes)
    out = x
    for a, size, length, scale in zip(
        axes, [shape[a] for a in axes], outs, scales, strict=True
    ):
        if length == size and math.isclose(scale, 1.0):
            continue  # the identity along this axis
        if size == 0 or length <= 0:
            raise ConversionError(f"cannot resize axis {a} from {size} to {length}")
        coords = source_coordinates(coord_mode, size, length, scale)
        if mode == "nearest":
            idx = nearest_indices(coords, nearest_mode, size)
            out = node.op("take", [out, node.const(idx)], axis=a)
            continue
        out = _linear(node, out, a, coords, size)
    return out


def _linear(node: Node, x: SSAValue, axis: int, coords: Array, size: int) -> SSAValue:
    """Linear interpolation along ``axis`` at ``coords``."""
    base = np.floor(coords)
    t = coords - base
    lo = np.clip(base, 0, size - 1).astype(np.int64)
    hi = np.clip(base + 1, 0, size - 1).astype(np.int64)
    near = node.op("take", [x, node.const(lo)], axis=axis)
    if not t.any():
        return near
    far = node.op("take", [x, node.const(hi)], axis=axis)
    weight_shape = [len(coords)] + [1] * (node.rank(x) - axis - 1)
    dtype = node.dtype(x)
    w_far = node.const((t.reshape(weight_shape)).astype(dtype))
    w_near = node.const((1 - t).reshape(weight_shape).astype(dtype))
    return node.op(
        "add",
        [node.op("multiply", [near, w_near]), node.op("multiply", [far, w_far])],
    )
