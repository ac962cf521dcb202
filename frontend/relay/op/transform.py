"""Shape and data-movement ops (``tvm.relay.op.transform``). Shapes, axes and
indices given as attributes must be static (ints); TVM's dynamic forms (an expression
for a shape) are not supported."""

from __future__ import annotations

from collections.abc import Sequence

from xrelay.frontend.relay.expr import Call, TupleWrapper
from xrelay.frontend.relay.op._make import (
    ExprLike,
    call,
    int_axis,
    ints,
    operand,
    opt_ints,
)


def reshape(
    data: ExprLike, newshape: int | Sequence[int], allowzero: bool = False
) -> Call:
    """``data`` with shape ``newshape``; the special values 0, -1, -2, -3, -4 work as
    in Relay (copy a dim, infer one, copy the rest, merge two, split one)."""
    return call(
        "reshape", [data], newshape=ints(newshape, "newshape"), allowzero=allowzero
    )


def reverse_reshape(data: ExprLike, newshape: int | Sequence[int]) -> Call:
    """``data`` with shape ``newshape`` whose special values are read from the
    right (TVM's ``relay.reverse_reshape``): for a ``(10, 5, 4)`` input, ``(-1, 0)``
    gives ``(50, 4)`` where ``reshape`` gives ``(40, 5)``."""
    return call("contrib_reverse_reshape", [data], newshape=ints(newshape, "newshape"))


def reshape_like(
    data: ExprLike,
    shape_like: ExprLike,
    lhs_begin: int = 0,
    lhs_end: int | None = None,
    rhs_begin: int = 0,
    rhs_end: int | None = None,
) -> Call:
    """``data`` with ``shape_like.shape[rhs_begin:rhs_end]`` in place of
    ``data.shape[lhs_begin:lhs_end]``."""
    return call(
        "reshape_like",
        [data, shape_like],
        lhs_begin=lhs_begin,
        lhs_end=lhs_end,
        rhs_begin=rhs_begin,
        rhs_end=rhs_end,
    )


def transpose(data: ExprLike, axes: Sequence[int] | None = None) -> Call:
    """``data`` with its axes permuted (``None``: reversed)."""
    return call("transpose", [data], axes=opt_ints(axes, "axes"))


def expand_dims(data: ExprLike, axis: int, num_newaxis: int = 1) -> Call:
    """``data`` with ``num_newaxis`` dims of size 1 inserted at ``axis``."""
    int_axis(axis)
    return call("expand_dims", [data], axis=axis, num_newaxis=num_newaxis)


def squeeze(data: ExprLike, axis: int | Sequence[int] | None = None) -> Call:
    """``data`` without the size-1 dims ``axis`` (``None``: all of them)."""
    return call("squeeze", [data], axis=opt_ints(axis, "axis"))


def split(
    data: ExprLike, indices_or_sections: int | Sequence[int], axis: int = 0
) -> TupleWrapper:
    """``data`` cut along ``axis`` into ``indices_or_sections`` equal pieces (an int),
    or at the given indices (a list); a tuple of the pieces."""
    if isinstance(indices_or_sections, int):
        size = indices_or_sections
        value: int | list[int] = indices_or_sections
    else:
        value = ints(indices_or_sections, "indices_or_sections")
        size = len(value) + 1
    result = call("split", [data], indices_or_sections=value, axis=axis)
    return TupleWrapper(result, size)


def strided_slice(
    data: ExprLike,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    slice_mode: str = "end",
) -> Call:
    """``data[begin:end:strides]`` on each axis (or on ``axes``); ``slice_mode="size"``
    reads ``end`` as sizes."""
    return call(
        "strided_slice",
        [data],
        begin=ints(begin, "begin"),
        end=ints(end, "end"),
        strides=ints(strides, "strides") if strides else [1],
        axes=opt_ints(axes, "axes"),
        slice_mode=slice_mode,
    )


def slice_like(
    data: ExprLike, shape_like: ExprLike, axes: Sequence[int] | None = None
) -> Call:
    """``data`` cut to the extents of ``shape_like`` on ``axes`` (all of its axes
    when ``None``), from index 0."""
    return call("slice_like", [data, shape_like], axes=opt_ints(axes, "axes"))


def take(
    data: ExprLike,
    indices: ExprLike,
    axis: int | None = None,
    batch_dims: int = 0,
    mode: str = "clip",
) -> Call:
    """Elements of ``data`` at ``indices`` along ``axis`` (``None``: of the flattened
    data); out-of-range indices are clipped (``mode="clip"``) or wrapped."""
    return call("take", [data, indices], axis=axis, batch_dims=batch_dims, mode=mode)


def gather(data: ExprLike, axis: int, indices: ExprLike) -> Call:
    """``out[i][j] = data[indices[i][j]][j]`` style gathering along ``axis``."""
    return call("gather", [data, indices], axis=axis)


def gather_nd(
    data: ExprLike,
    indices: ExprLike,
    batch_dims: int = 0,
    index_rank: int | None = None,
) -> Call:
    """Slices of ``data`` at the index tuples in ``indices`` (first axis)."""
    return call(
        "gather_nd", [data, indices], batch_dims=batch_dims, index_rank=index_rank
    )


def broadcast_to(data: ExprLike, shape: int | Sequence[int]) -> Call:
    """``data`` broadcast to ``shape``."""
    return call("broadcast_to", [data], shape=ints(shape, "shape"))


def broadcast_to_like(data: ExprLike, broadcast_type: ExprLike) -> Call:
    """``data`` broadcast to the shape of ``broadcast_type``."""
    return call("broadcast_to_like", [data, broadcast_type])


def collapse_sum_like(data: ExprLike, collapse_type: ExprLike) -> Call:
    """``data`` summed down to the shape of ``collapse_type`` (undoing a broadcast)."""
    return call("collapse_sum_like", [data, collapse_type])


def collapse_sum_to(data: ExprLike, shape: int | Sequence[int]) -> Call:
    """``data`` summed down to ``shape`` (undoing a broadcast to its shape)."""
    return call("collapse_sum_to", [data], shape=ints(shape, "shape"))


def tile(data: ExprLike, reps: int | Sequence[int]) -> Call:
    """``data`` repeated ``reps`` times along each axis."""
    return call("tile", [data], reps=ints(reps, "reps"))


def repeat(data: ExprLike, repeats: int, axis: int) -> Call:
    """Each element of ``data`` repeated ``repeats`` times along ``axis``."""
    return call("repeat", [data], repeats=repeats, axis=axis)


def reverse(data: ExprLike, axis: int) -> Call:
    """``data`` reversed along ``axis``."""
    return call("reverse", [data], axis=axis)


def one_hot(
    indices: ExprLike,
    on_value: ExprLike | float | int,
    off_value: ExprLike | float | int,
    depth: int,
    axis: int,
    dtype: str,
) -> Call:
    """A ``depth``-long one-hot encoding of ``indices`` inserted at ``axis``
    (``on_value``/``off_value``: 0-d tensors, or numbers made constants of
    ``dtype``)."""
    return call(
        "one_hot",
        [indices, operand(on_value, dtype=dtype), operand(off_value, dtype=dtype)],
        depth=int(depth),
        axis=axis,
        dtype=dtype,
    )


def layout_transform(data: ExprLike, src_layout: str, dst_layout: str) -> Call:
    """``data`` converted from layout ``src_layout`` to ``dst_layout``
    (e.g. ``NCHW`` → ``NCHW8c``)."""
    return call(
        "layout_transform", [data], src_layout=src_layout, dst_layout=dst_layout
    )
