"""The ``Resize`` converter (opset 11+, modes ``nearest``, ``linear`` and ``cubic``,
``antialias``), built from existing relay ops: the dialect has no resize op.

Resizing is separable, so each resized axis is done on its own, with index and weight
tensors computed here with numpy (in float64, as the ONNX reference does):

* ``nearest``: ``take`` along the axis with the source index of every output
  position (rounded by ``nearest_mode``, clamped to the input);
* ``linear``: ``take`` of the two neighbours ``floor(x)`` and ``floor(x) + 1``
  (clamped: the edge value repeats outside the input), blended with constant weights
  ``1 - t`` and ``t`` by ``multiply`` / ``add``;
* ``cubic`` and the ``antialias`` variants: ``take`` of each of the ``n`` neighbours
  of ``x`` (clamped), weighted by constant coefficients (cubic with
  ``cubic_coeff_a``; antialiased kernels stretched by ``1 / scale`` when
  downsampling); ``exclude_outside`` zeroes the weights of neighbours outside the
  input and renormalises.

The source coordinate ``x`` of output position ``y`` follows
``coordinate_transformation_mode``: ``half_pixel``, ``pytorch_half_pixel``,
``align_corners``, ``asymmetric``, ``half_pixel_symmetric`` and
``tf_crop_and_resize`` (with the static ``roi``; positions outside the input take
``extrapolation_value``).
"""

from __future__ import annotations

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
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def source_coordinates(
    mode: str, size: int, out: int, scale: float, roi: Array | None = None
) -> Array:
    """The input coordinate of each of the ``out`` output positions (float64);
    ``roi`` is the region ``[start, end]`` of ``tf_crop_and_resize``, in its own
    dtype (the ONNX reference subtracts in that dtype)."""
    y = np.arange(out, dtype=np.float64)
    width = scale * size  # the real-valued output length
    if mode == "tf_crop_and_resize":
        assert roi is not None
        lo, hi = roi[0], roi[1]
        if width == 1:
            return np.full(out, (hi - lo) * (size - 1) / 2) + lo * (size - 1)
        return y * (hi - lo) * (size - 1) / (width - 1) + lo * (size - 1)
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


def cubic_coefficients(ratio: Array, a: float) -> Array:
    """The 4 cubic convolution weights ``[out, 4]`` of the neighbours
    ``floor(x) - 1 .. floor(x) + 2`` at fractional offsets ``ratio`` (Keys' kernel with
    parameter ``a``)."""
    r = ratio[:, None]
    dist = np.concatenate([r + 1, r, 1 - r, 2 - r], axis=1)
    return _cubic_kernel(dist, a)


def _cubic_kernel(x: Array, a: float) -> Array:
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def antialias_coefficients(
    ratio: Array, scale: float, mode: str, a: float
) -> tuple[int, Array]:
    """The first neighbour (relative to ``floor(x)``) and the normalised weights
    ``[out, n]`` of the antialiased linear / cubic kernel, stretched by ``1 / scale``
    when downsampling."""
    scale = min(scale, 1.0)
    reach = 1 if mode == "linear" else 2
    start = int(np.floor(-reach / scale) + 1)
    offsets = np.arange(start, 2 - start, dtype=np.float64)
    dist = (offsets[None, :] - ratio[:, None]) * scale
    if mode == "linear":
        w = np.clip(1 - np.abs(dist), 0, 1)
    else:
        w = _cubic_kernel(dist, a)
    return start, w / w.sum(axis=1, keepdims=True)


def neighbour_weights(
    coords: Array, size: int, mode: str, scale: float, a: float, antialias: bool
) -> tuple[Array, Array]:
    """Indices ``[out, n]`` (unclamped) and weights ``[out, n]`` of the neighbours each
    output position blends, as the ONNX reference chooses them: ``floor(x)`` with the
    fractional part ``ratio``, where an integral ``x`` counts as ``x - 1`` with ratio 1."""
    base = np.floor(coords)
    integral = coords == base
    ratio = np.where(integral, 1.0, coords - base)
    left = np.where(integral, base - 1, base).astype(np.int64)
    if antialias:
        start, w = antialias_coefficients(ratio, scale, mode, a)
    elif mode == "linear":
        start, w = 0, np.stack([1 - ratio, ratio], axis=1)
    else:
        start, w = -1, cubic_coefficients(ratio, a)
    idx = left[:, None] + start + np.arange(w.shape[1])[None, :]
    return idx, w


@converter("Resize")
def resize(node: Node) -> Outputs:
    if node.opset < 11:
        raise ConversionError("Resize before opset 11 is not supported")
    x = node.input(0)
    shape = node.shape(x)
    rank = len(shape)
    mode = node.attr_str("mode", "nearest")
    if mode not in ("nearest", "linear", "cubic"):
        raise ConversionError(
            f"mode '{mode}' is not supported (nearest, linear, cubic)"
        )
    antialias = bool(node.attr_int("antialias", 0))
    if antialias and mode == "nearest":
        raise ConversionError("antialias=1 is not supported in nearest mode")
    coord_mode = node.attr_str("coordinate_transformation_mode", "half_pixel")
    if coord_mode not in COORDINATE_MODES:
        raise ConversionError(
            f"coordinate_transformation_mode '{coord_mode}' is not supported "
            f"({', '.join(COORDINATE_MODES)})"
        )
    nearest_mode = node.attr_str("nearest_mode", "round_prefer_floor")
    if mode != "nearest" and node.dtype(x).kind != "f":
        raise ConversionError(
            f"{mode} mode needs floating-point data, got {node.dtype(x)}"
        )
    given_axes = node.opt_attr_ints("axes")
    axes = (
        list(range(rank))
        if given_axes is None
        else [node.axis(a, rank, "axes entry") for a in given_axes]
    )
    outs, scales = _output_geometry(node, shape, axes)
    rois: list[Array | None] = [None] * len(axes)
    if coord_mode == "tf_crop_and_resize":
        roi = node.static(1, "roi").reshape(-1)
        if roi.size != 2 * len(axes):
            raise ConversionError(
                f"roi has {roi.size} values for {len(axes)} axes (starts, then ends)"
            )
        rois = [roi[[k, k + len(axes)]] for k in range(len(axes))]
    a = node.attr_float("cubic_coeff_a", -0.75)
    exclude = bool(node.attr_int("exclude_outside", 0))
    extrapolation = node.attr_float("extrapolation_value", 0.0)
    out = x
    for k, (ax, length, scale) in enumerate(zip(axes, outs, scales, strict=True)):
        size = shape[ax]
        if size == 0 or length <= 0:
            raise ConversionError(f"cannot resize axis {ax} from {size} to {length}")
        coords = source_coordinates(coord_mode, size, length, scale, rois[k])
        if length == size and np.array_equal(coords, np.arange(size)):
            continue  # the identity along this axis
        if mode == "nearest":
            idx = nearest_indices(coords, nearest_mode, size)
            out = node.op("take", [out, node.const(idx)], axis=ax)
        elif mode == "linear" and not antialias and not exclude:
            out = linear_along(node, out, ax, coords, size)
        else:
            idx, w = neighbour_weights(coords, size, mode, scale, a, antialias)
            out = _blend(node, out, ax, idx, w, size, exclude)
        if coord_mode == "tf_crop_and_resize":
            outside = (coords < 0) | (coords > size - 1)
            if outside.any():
                mask_shape = [length] + [1] * (rank - ax - 1)
                out = node.op(
                    "where",
                    [
                        node.const(outside.reshape(mask_shape)),
                        node.scalar(extrapolation, out),
                        out,
                    ],
                )
    return out


def _blend(
    node: Node,
    x: SSAValue,
    axis: int,
    idx: Array,
    w: Array,
    size: int,
    exclude_outside: bool,
) -> SSAValue:
    """``sum_k take(x, idx[:, k]) * w[:, k]`` along ``axis`` (indices clamped: the edge
    repeats; with ``exclude_outside`` the weights of outside neighbours are zeroed and
    the rest renormalised)."""
    if exclude_outside:
        w = np.where((idx < 0) | (idx >= size), 0.0, w)
        total = w.sum(axis=1, keepdims=True)
        w = w / np.where(total == 0, 1.0, total)
    clamped = np.clip(idx, 0, size - 1)
    weight_shape = [idx.shape[0]] + [1] * (node.rank(x) - axis - 1)
    dtype = node.dtype(x)
    out: SSAValue | None = None
    for k in range(idx.shape[1]):
        if not w[:, k].any():
            continue
        tap = node.op("take", [x, node.const(clamped[:, k])], axis=axis)
        weight = node.const(w[:, k].reshape(weight_shape).astype(dtype))
        term = node.op("multiply", [tap, weight])
        out = term if out is None else node.op("add", [out, term])
    if out is None:  # every weight is zero
        return node.op(
            "multiply",
            [
                node.op("take", [x, node.const(clamped[:, 0])], axis=axis),
                node.scalar(0.0, x),
            ],
        )
    return out


def linear_along(
    node: Node, x: SSAValue, axis: int, coords: Array, size: int
) -> SSAValue:
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
