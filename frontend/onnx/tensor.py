"""Converters of ONNX shape and data-movement ops, and of the ops that make constants.

Shapes, axes, pads, repeats and slice bounds given as inputs must be known at import
time (initializers, ``Constant`` nodes or values folded from them, such as
``Shape`` → ``Gather`` → ``Concat``); each converter computes the static result shape
with numpy and emits relay ops with explicit attributes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter, numpy_dtype_of
from xrelay.frontend.onnx.pad_wrap import wrap_pad


def _axes_input(
    node: Node, index: int, since: int, what: str = "axes"
) -> list[int] | None:
    """Axes given as input ``index`` (from opset ``since``) or as the attribute
    ``axes`` (before)."""
    if node.opset >= since:
        return node.static_ints(index, what)
    return node.opt_attr_ints("axes")


# ---------------------------------------------------------------------------------------
# Reshapes
# ---------------------------------------------------------------------------------------


@converter("Flatten")
def flatten(node: Node) -> Outputs:
    """``[prod(dims before axis), prod(dims from axis)]`` (axis in ``[-r, r]``)."""
    x = node.input(0)
    shape = node.shape(x)
    rank = len(shape)
    axis = node.attr_int("axis", 1)
    if not -rank <= axis <= rank:
        raise ConversionError(f"axis {axis} is out of range for rank {rank}")
    if axis < 0:
        axis += rank
    return node.reshape(x, [math.prod(shape[:axis]), math.prod(shape[axis:])])


def reshape_target(
    shape: Sequence[int], target: Sequence[int], allowzero: bool
) -> list[int]:
    """ONNX's Reshape rule: 0 copies the input dim at that position (unless
    ``allowzero``), one -1 is inferred."""
    out: list[int] = []
    for i, d in enumerate(target):
        if d == 0 and not allowzero:
            if i >= len(shape):
                raise ConversionError(
                    f"shape {list(target)} copies dim {i} (0) but the input has rank "
                    f"{len(shape)}"
                )
            out.append(shape[i])
        elif d < -1:
            raise ConversionError(f"shape {list(target)} has the invalid value {d}")
        else:
            out.append(d)
    if out.count(-1) > 1:
        raise ConversionError(f"shape {list(target)} has more than one -1")
    total = math.prod(shape)
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        if known == 0 or total % known:
            raise ConversionError(
                f"cannot reshape {list(shape)} to {list(target)}: the -1 dim cannot be "
                "inferred"
            )
        out[out.index(-1)] = total // known
    if math.prod(out) != total:
        raise ConversionError(
            f"cannot reshape {list(shape)} ({total} elements) to {out}"
        )
    return out


@converter("Reshape")
def reshape(node: Node) -> Outputs:
    x = node.input(0)
    if node.opset >= 5:
        target = node.static_ints(1, "shape")
        if target is None:
            raise ConversionError("the shape input is missing")
    else:
        target = node.attr_ints("shape")
    allowzero = bool(node.attr_int("allowzero", 0))
    return node.reshape(x, reshape_target(node.shape(x), target, allowzero))


@converter("Squeeze")
def squeeze(node: Node) -> Outputs:
    """Drop the listed size-1 dims (all of them when no axes are given)."""
    x = node.input(0)
    shape = node.shape(x)
    axes = _axes_input(node, 1, 13)
    if axes is None:
        keep = [d for d in shape if d != 1]
    else:
        norm = {node.axis(a, len(shape), "axes entry") for a in axes}
        for a in sorted(norm):
            if shape[a] != 1:
                raise ConversionError(f"cannot squeeze dim {a} of size {shape[a]}")
        keep = [d for k, d in enumerate(shape) if k not in norm]
    return node.reshape(x, keep)


@converter("Unsqueeze")
def unsqueeze(node: Node) -> Outputs:
    """Insert size-1 dims at ``axes`` (positions in the output)."""
    x = node.input(0)
    shape = list(node.shape(x))
    axes = _axes_input(node, 1, 13)
    if axes is None:
        raise ConversionError("the axes are missing")
    rank = len(shape) + len(axes)
    norm = sorted(node.axis(a, rank, "axes entry") for a in axes)
    if len(set(norm)) != len(norm):
        raise ConversionError(f"axes {axes} repeat an axis")
    for a in norm:
        shape.insert(a, 1)
    return node.reshape(x, shape)


@converter("Transpose")
def transpose(node: Node) -> Outputs:
    x = node.input(0)
    rank = node.rank(x)
    perm = node.attr_ints("perm", list(range(rank))[::-1])
    if sorted(perm) != list(range(rank)):
        raise ConversionError(f"perm {perm} is not a permutation of {rank} axes")
    if perm == list(range(rank)):
        return x
    return node.op("transpose", [x], axes=perm)


# ---------------------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------------------


@converter("Concat")
def concat(node: Node) -> Outputs:
    values = [node.input(i) for i in range(node.num_inputs) if node.has_input(i)]
    if not values:
        raise ConversionError("needs at least one input")
    axis = node.axis(node.attr_int("axis"), node.rank(values[0]))
    if len(values) == 1:
        return values[0]
    return node.op("concatenate", values, axis=axis)


@converter("Split")
def split(node: Node) -> Outputs:
    """Pieces of the sizes in ``split`` (input from opset 13, attribute before), else
    ``num_outputs`` equal pieces (opset 18: the last one may be smaller)."""
    x = node.input(0)
    shape = node.shape(x)
    axis = node.axis(node.attr_int("axis", 0), len(shape))
    dim = shape[axis]
    sizes = node.static_ints(1, "split") if node.opset >= 13 else None
    if sizes is None:
        sizes = node.opt_attr_ints("split")
    if sizes is None:
        num = node.attr_int("num_outputs", node.num_outputs)
        if num < 1:
            raise ConversionError(f"cannot split into {num} pieces")
        chunk = -(-dim // num)
        sizes = [chunk] * (num - 1) + [dim - chunk * (num - 1)]
        if sizes[-1] < 0:
            raise ConversionError(f"cannot split a dim of {dim} into {num} pieces")
    if sum(sizes) != dim or any(s < 0 for s in sizes):
        raise ConversionError(f"split sizes {sizes} do not add up to the dim {dim}")
    if len(sizes) != node.num_outputs:
        raise ConversionError(f"{len(sizes)} pieces for {node.num_outputs} outputs")
    if len(sizes) == 1:
        return [x]
    points = list(np.cumsum(sizes)[:-1])
    return node.ops("split", [x], indices_or_sections=points, axis=axis)


# ---------------------------------------------------------------------------------------
# Slicing and gathering
# ---------------------------------------------------------------------------------------


@converter("Slice")
def slice_(node: Node) -> Outputs:
    """``strided_slice`` with ONNX's clamping (an empty range gives an empty dim)."""
    x = node.input(0)
    shape = node.shape(x)
    rank = len(shape)
    if node.opset >= 10:
        starts = node.static_ints(1, "starts")
        ends = node.static_ints(2, "ends")
        axes = node.static_ints(3, "axes")
        steps = node.static_ints(4, "steps")
        if starts is None or ends is None:
            raise ConversionError("starts and ends are required")
    else:
        starts, ends = node.attr_ints("starts"), node.attr_ints("ends")
        axes, steps = node.opt_attr_ints("axes"), None
    if axes is None:
        axes = list(range(len(starts)))
    if steps is None:
        steps = [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise ConversionError(
            f"starts, ends, axes and steps have different lengths ({len(starts)}, "
            f"{len(ends)}, {len(axes)}, {len(steps)})"
        )
    norm_axes = [node.axis(a, rank, "axes entry") for a in axes]
    if len(set(norm_axes)) != len(norm_axes):
        raise ConversionError(f"axes {axes} repeat an axis")
    begin: list[int] = []
    end: list[int] = []
    for start, stop, step, a in zip(starts, ends, steps, norm_axes, strict=True):
        dim = shape[a]
        if step == 0:
            raise ConversionError("steps must not be 0")
        start = start + dim if start < 0 else start
        stop = stop + dim if stop < 0 else stop
        if step > 0:
            start, stop = min(max(start, 0), dim), min(max(stop, 0), dim)
        else:
            start, stop = min(max(start, 0), dim - 1), min(max(stop, -1), dim - 1)
        if (stop - start) * step <= 0:  # empty
            begin.append(0)
            end.append(0)
        else:
            begin.append(start)
            end.append(stop if stop >= 0 else -(dim + 1))  # relay wraps -1 once
    return node.op(
        "strided_slice", [x], begin=begin, end=end, strides=steps, axes=norm_axes
    )


@converter("Gather")
def gather(node: Node) -> Outputs:
    """``take`` along ``axis``; negative indices count from the end (constant
    indices are normalised and checked here; run-time ones use the checked
    ``fast`` mode: an index out of range fails the run)."""
    data = node.input(0)
    shape = node.shape(data)
    axis = node.axis(node.attr_int("axis", 0), len(shape))
    indices = node.graph.static(node.inputs[1]) if node.has_input(1) else None
    if indices is None:
        return node.op("take", [data, node.input(1, "indices")], axis=axis, mode="fast")
    dim = shape[axis]
    idx = np.asarray(indices).astype(np.int64)
    if idx.size and (idx.min() < -dim or idx.max() >= dim):
        raise ConversionError(
            f"indices {idx.reshape(-1).tolist()[:8]} are out of range for a dim of {dim}"
        )
    idx = np.where(idx < 0, idx + dim, idx)
    return node.op("take", [data, node.const(idx)], axis=axis)


@converter("Expand")
def expand(node: Node) -> Outputs:
    """``broadcast_to`` the numpy broadcast of the input shape and ``shape``."""
    x = node.input(0)
    target = node.static_ints(1, "shape")
    if target is None:
        raise ConversionError("the shape input is missing")
    try:
        out = list(np.broadcast_shapes(node.shape(x), tuple(target)))
    except ValueError:
        raise ConversionError(
            f"shape {list(node.shape(x))} does not broadcast with {target}"
        ) from None
    if out == list(node.shape(x)):
        return x
    return node.op("broadcast_to", [x], shape=out)


@converter("Tile")
def tile(node: Node) -> Outputs:
    x = node.input(0)
    reps = node.static_ints(1, "repeats")
    if reps is None or len(reps) != node.rank(x):
        raise ConversionError(f"repeats {reps} must have one value per dim")
    if all(r == 1 for r in reps):
        return x
    return node.op("tile", [x], reps=reps)


@converter("Pad")
def pad(node: Node) -> Outputs:
    """``nn.pad`` (modes constant, edge, reflect); negative pads crop with
    ``strided_slice``; ``wrap`` is :func:`.pad_wrap.wrap_pad`."""
    x = node.input(0)
    shape = node.shape(x)
    rank = len(shape)
    mode = node.attr_str("mode", "constant")
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise ConversionError(
            f"mode '{mode}' is not supported (constant, edge, reflect, wrap)"
        )
    value: SSAValue | None = None
    if node.opset >= 11:
        pads = node.static_ints(1, "pads")
        if pads is None:
            raise ConversionError("the pads input is missing")
        if node.has_input(2):
            value = node.input(2, "constant_value")
        axes = node.static_ints(3, "axes")
    else:
        pads = node.attr_ints("pads" if node.has_attr("pads") else "paddings")
        value = node.scalar(node.attr_float("value", 0.0), x)
        axes = None
    axes = [node.axis(a, rank, "axes entry") for a in axes or range(rank)]
    n = len(axes)
    if len(pads) != 2 * n:
        raise ConversionError(f"pads has {len(pads)} values for {n} axes")
    widths = [[0, 0] for _ in range(rank)]
    for k, a in enumerate(axes):
        widths[a] = [pads[k], pads[k + n]]
    if mode == "wrap":
        return wrap_pad(node, x, widths)
    if value is None:
        value = node.scalar(0, x)
    elif node.shape(value) != ():
        if math.prod(node.shape(value)) != 1:
            raise ConversionError("constant_value must have one element")
        value = node.reshape(value, [])
    if node.dtype(value) != node.dtype(x):
        value = node.op("cast", [value], dtype=str(node.dtype(x)))
    out = x
    if any(w > 0 for pair in widths for w in pair):
        flat = [max(w, 0) for pair in widths for w in pair]
        out = node.op("nn.pad", [x, value], pad_width=flat, pad_mode=mode)
    crop = [a for a in range(rank) if min(widths[a]) < 0]
    if crop:
        padded = node.shape(out)
        out = node.op(
            "strided_slice",
            [out],
            begin=[max(-widths[a][0], 0) for a in crop],
            end=[padded[a] - max(-widths[a][1], 0) for a in crop],
            axes=crop,
        )
    return out


# ---------------------------------------------------------------------------------------
# Constants and shapes
# ---------------------------------------------------------------------------------------


@converter("Constant")
def constant(node: Node) -> Outputs:
    if len(node.attrs) != 1:
        raise ConversionError(
            f"expects exactly one value attribute, got {list(node.attrs)}"
        )
    name, value = next(iter(node.attrs.items()))
    if name == "value":
        tensor = cast(onnx.TensorProto, value)
        numpy_dtype_of(tensor.data_type, "the value")
        return node.const(numpy_helper.to_array(tensor))
    if name == "value_float":
        return node.const(np.float32(cast(float, value)))
    if name == "value_floats":
        return node.const(np.asarray(value, dtype=np.float32))
    if name == "value_int":
        return node.const(np.int64(cast(int, value)))
    if name == "value_ints":
        return node.const(np.asarray(value, dtype=np.int64))
    raise ConversionError(f"the '{name}' form is not supported")


@converter("Shape")
def shape_(node: Node) -> Outputs:
    """The (static) shape as an int64 constant; ``start`` / ``end`` (opset 15) select
    a range of dims."""
    shape = node.input_shape(0)
    rank = len(shape)
    start, end = node.attr_int("start", 0), node.attr_int("end", rank)
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = min(max(end + rank if end < 0 else end, 0), rank)
    return node.const(np.asarray(shape[start:end], dtype=np.int64).reshape(-1))


@converter("Size")
def size(node: Node) -> Outputs:
    return node.const(np.int64(math.prod(node.input_shape(0))))


@converter("ConstantOfShape")
def constant_of_shape(node: Node) -> Outputs:
    """A constant of the (static) shape filled with ``value`` (default float32 0)."""
    shape = node.static_ints(0, "shape")
    if shape is None:
        raise ConversionError("the shape input is missing")
    if any(d < 0 for d in shape):
        raise ConversionError(f"shape {shape} has a negative dim")
    fill: Any = np.zeros((), np.float32)
    if node.has_attr("value"):
        tensor = cast(onnx.TensorProto, node.attrs["value"])
        numpy_dtype_of(tensor.data_type, "the value")
        fill = numpy_helper.to_array(tensor)
        if fill.size != 1:
            raise ConversionError("value must have one element")
    fill = np.asarray(fill).reshape(())
    return node.const(np.full(shape, fill, dtype=fill.dtype))


@converter("Range")
def range_(node: Node) -> Outputs:
    """A constant ``arange`` (start, limit and delta must be static)."""
    start, limit, delta = (node.static(i) for i in range(3))
    dtype = np.asarray(start).dtype
    return node.const(np.arange(start.item(), limit.item(), delta.item()).astype(dtype))


@converter("Dropout")
def dropout(node: Node) -> Outputs:
    """Inference: the output is the input; the mask (if used) is all true."""
    if node.has_input(2):
        training = node.graph.static(node.inputs[2])
        if training is None or bool(np.asarray(training).reshape(-1)[0]):
            raise ConversionError("training_mode must be a constant false")
    x = node.input(0)
    outputs: list[SSAValue | None] = [x]
    if node.output_used(1):
        outputs.append(node.const(np.ones(node.shape(x), np.bool_)))
    return outputs
