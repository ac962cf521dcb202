"""Injective data-movement ops: one "output index → input index" emitter per op.

Each op maps an index of its result to the index of the operand element it copies
(reshapes through the row-major linear position, transposes by permutation, slices by
offset and stride, gathers by reading the index tensor first...). Ops that pick among
several operands (``concatenate``, ``stack``) or may read outside their operand
(``pad``) branch with ``scf.if`` so that no load is ever out of bounds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import nn, transform
from xrelay.dialects.relay.base import get_int, get_str
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.slice_like import SliceLikeOp
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import (
    OpContext,
    Source,
    broadcast_index,
    pointwise,
    with_write,
)
from xrelay.status import code_of

IndexMap = Callable[[OpContext, list[Index]], list[Index]]


def _gather(index_map: IndexMap) -> Callable[[OpContext, int, list[Index]], SSAValue]:
    """A pointwise lowering reading operand 0 at ``index_map(idx)``."""

    def value_at(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
        return cx.operand(0).at(index_map(cx, idx))

    return value_at


def reshape_groups(
    src: Sequence[int], dst: Sequence[int]
) -> list[tuple[range, range]] | None:
    """The dims of ``src`` and ``dst`` in matching runs: ``(src_dims, dst_dims)``
    pairs, in order, whose extents have the same product, each as short as
    possible (``[1, 116, 28, 28] -> [1, 2, 58, 28, 28]``: ``1 | 116 -> 2, 58 | 28 |
    28``). A reshape maps each run on its own, so the axes it does not merge or
    split pass through untouched. ``None`` when a shape has a zero extent."""
    if 0 in src or 0 in dst:
        return None
    groups: list[tuple[range, range]] = []
    i = j = 0
    while i < len(src) or j < len(dst):
        i0, j0 = i, j
        a = b = 1
        # take at least one dim of each side (a side may have run out: only 1s left)
        if i < len(src):
            a *= src[i]
            i += 1
        if j < len(dst):
            b *= dst[j]
            j += 1
        while a != b:
            if a < b and i < len(src):
                a *= src[i]
                i += 1
            elif b < a and j < len(dst):
                b *= dst[j]
                j += 1
            else:
                return None  # the products differ: not a reshape
        groups.append((range(i0, i), range(j0, j)))
    return groups


def _reshape_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    """The operand index of a reshape's output index, run by run
    (:func:`reshape_groups`): a dim that is in both shapes is copied, a split or a
    merge divides within its run only. Indices are in bounds, so non-negative:
    unsigned division (no sign fix-ups)."""
    kb = cx.kb
    src_shape, dst_shape = cx.operand(0).shape, cx.out_shape()
    groups = reshape_groups(src_shape, dst_shape)
    if groups is None:
        return kb.unflatten(kb.flat_index(idx, dst_shape), src_shape, unsigned=True)
    out: list[Index] = []
    for src_dims, dst_dims in groups:
        if len(src_dims) == 1 and len(dst_dims) == 1:
            out.append(idx[dst_dims[0]])
            continue
        flat = kb.flat_index(
            [idx[d] for d in dst_dims], [dst_shape[d] for d in dst_dims]
        )
        out += kb.unflatten(flat, [src_shape[d] for d in src_dims], unsigned=True)
    return out


for _cls in (
    transform.ReshapeOp,
    transform.ReshapeLikeOp,
    transform.ReverseReshapeOp,
    transform.ExpandDimsOp,
    transform.SqueezeOp,
    nn.BatchFlattenOp,
):
    pointwise(_cls)(_gather(_reshape_map))


def _transpose_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    op = cx.op
    assert isinstance(op, transform.TransposeOp)
    perm = op._perm(len(idx))  # pyright: ignore[reportPrivateUsage]
    src: list[Index] = [0] * len(idx)
    for k, a in enumerate(perm):
        src[a] = idx[k]
    return src


pointwise(transform.TransposeOp)(_gather(_transpose_map))


def _broadcast_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    return broadcast_index(idx, cx.operand(0).shape, len(idx))


pointwise(transform.BroadcastToOp, transform.BroadcastToLikeOp)(_gather(_broadcast_map))


def _tile_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    shape = cx.operand(0).shape
    lead = len(idx) - len(shape)
    return [cx.kb.imod(idx[lead + k], d) for k, d in enumerate(shape)]


pointwise(transform.TileOp)(_gather(_tile_map))


def _repeat_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    op = cx.op
    assert isinstance(op, transform.RepeatOp)
    axis = get_int(op.axis) % len(idx)
    out = list(idx)
    out[axis] = cx.kb.idiv(idx[axis], get_int(op.repeats))
    return out


pointwise(transform.RepeatOp)(_gather(_repeat_map))


def _reverse_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    op = cx.op
    assert isinstance(op, transform.ReverseOp)
    axis = get_int(op.axis) % len(idx)
    out = list(idx)
    out[axis] = cx.kb.isub(cx.out_shape()[axis] - 1, idx[axis])
    return out


pointwise(transform.ReverseOp)(_gather(_reverse_map))


def _strided_slice_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    op = cx.op
    assert isinstance(op, transform.StridedSliceOp)
    out = list(idx)
    for a, start, stride, _ in op._plan(cx.operand(0).shape):  # pyright: ignore[reportPrivateUsage]
        out[a] = cx.kb.iadd(start, cx.kb.imul(idx[a], stride))
    return out


pointwise(transform.StridedSliceOp)(_gather(_strided_slice_map))

# slice_like keeps a leading part: the data is read at the output index
pointwise(SliceLikeOp)(_gather(lambda cx, idx: list(idx)))


@pointwise(transform.SplitOp)
def _split(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, transform.SplitOp)
    shape = cx.operand(0).shape
    axis = get_int(op.axis) % len(shape)
    start, _ = op.pieces(shape[axis])[r]
    src = list(idx)
    src[axis] = cx.kb.iadd(idx[axis], start)
    return cx.operand(0).at(src)


def _layout_map(cx: OpContext, idx: list[Index]) -> list[Index]:
    op = cx.op
    assert isinstance(op, transform.LayoutTransformOp)
    kb = cx.kb
    src = Layout.parse(get_str(op.src_layout))
    dst = Layout.parse(get_str(op.dst_layout))
    # the logical (primal) position of each axis letter, from the output index
    logical: dict[str, Index] = {}
    for letter in dst.primal_letters:
        outer = idx[dst.index_of(letter)]
        factor = dst.factor_of(letter)
        if factor > 0:
            inner = idx[dst.index_of(letter.lower())]
            logical[letter] = kb.iadd(kb.imul(outer, factor), inner)
        else:
            logical[letter] = outer
    out: list[Index] = []
    for axis in src.axes:
        if axis.is_primal:
            factor = src.factor_of(axis.letter)
            v = logical[axis.letter]
            out.append(kb.idiv(v, factor) if factor > 0 else v)
        else:
            out.append(kb.imod(logical[axis.letter.upper()], axis.factor or 1))
    return out


pointwise(transform.LayoutTransformOp)(_gather(_layout_map))

MAX_UNROLLED_BLOCK = 64
"""Largest channel block :func:`_blocked_copy` unrolls (larger: the plain nest)."""


def _block_pair(src: Layout, dst: Layout) -> tuple[Layout, Layout, str] | None:
    """``(plain, blocked, letter)`` when one layout is the other with one axis split
    and its sub-axis appended last (``NCHW`` / ``NCHW16c``), else ``None``."""
    for plain, blocked in ((src, dst), (dst, src)):
        if blocked.ndim != plain.ndim + 1 or plain.primal != plain:
            continue
        last = blocked.axes[-1]
        if last.is_primal or not 0 < (last.factor or 0) <= MAX_UNROLLED_BLOCK:
            continue
        if Layout(blocked.axes[:-1]) == plain:
            return plain, blocked, last.letter.upper()
    return None


@with_write(transform.LayoutTransformOp)
def _blocked_copy(cx: OpContext, outs: list[Buffer]) -> bool:
    """``NCHW`` <-> ``NCHW{f}c`` (any plain layout and one axis split, its sub-axis
    last): a nest over the blocked tensor without its sub-axis, shared out between
    the threads, whose body moves the ``f`` elements of one block (unrolled). The
    innermost loop walks the plain side contiguously and the blocked side as ``f``
    interleaved streams, which LLVM vectorises as an interleaved access group (one
    vector per plain stream, shuffled into ``f``-wide blocks), instead of one gather
    per element."""
    op = cx.op
    assert isinstance(op, transform.LayoutTransformOp)
    src = Layout.parse(get_str(op.src_layout))
    dst = Layout.parse(get_str(op.dst_layout))
    pair = _block_pair(src, dst)
    if pair is None:
        return False
    plain, blocked, letter = pair
    kb, out = cx.kb, outs[0]
    axis = plain.index_of(letter)
    factor = blocked.factor_of(letter)
    blocked_shape = out.shape if dst is blocked else cx.operand(0).shape
    with kb.parallel(blocked_shape[:-1]) as idx:
        for j in range(factor):
            plain_idx = list(idx)
            plain_idx[axis] = kb.iadd(kb.imul(idx[axis], factor), j)
            blocked_idx = [*idx, j]
            if dst is blocked:
                kb.store(cx.operand(0).at(plain_idx), out, blocked_idx)
            else:
                kb.store(cx.operand(0).at(blocked_idx), out, plain_idx)
    return True


def _select_chain(
    kb: KernelBuilder,
    position: Index,
    bounds: Sequence[int],
    read: Callable[[int], SSAValue],
) -> SSAValue:
    """The value of ``read(k)`` for the piece ``k`` with ``bounds[k] <= position <
    bounds[k+1]``, through ``scf.if`` (only the chosen piece is read)."""
    if isinstance(position, int):
        for k in range(len(bounds) - 1):
            if bounds[k] <= position < bounds[k + 1]:
                return read(k)
        return read(len(bounds) - 2)

    def level(k: int) -> SSAValue:
        if k == len(bounds) - 2:
            return read(k)
        cond = kb.icmp("slt", position, bounds[k + 1])
        return kb.if_(cond, lambda: [read(k)], lambda: [level(k + 1)])[0]

    return level(0)


@pointwise(transform.ConcatenateOp)
def _concatenate(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, transform.ConcatenateOp)
    axis = get_int(op.axis) % len(idx)
    sources = [s for s in cx.operands if s.shape[axis] > 0]
    bounds = [0]
    for s in sources:
        bounds.append(bounds[-1] + s.shape[axis])

    def read(k: int) -> SSAValue:
        src = list(idx)
        src[axis] = cx.kb.isub(idx[axis], bounds[k])
        return sources[k].at(src)

    return _select_chain(cx.kb, idx[axis], bounds, read)


@pointwise(transform.StackOp)
def _stack(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, transform.StackOp)
    axis = get_int(op.axis)
    axis = axis + len(idx) if axis < 0 else axis
    rest = idx[:axis] + idx[axis + 1 :]
    bounds = list(range(len(cx.operands) + 1))
    return _select_chain(cx.kb, idx[axis], bounds, lambda k: cx.operands[k].at(rest))


def _index_value(cx: OpContext, src: Source, idx: Sequence[Index]) -> SSAValue:
    """An element of an integer tensor, as an ``index``."""
    return cx.kb.index_cast(src.at(idx), src.dtype)


def _wrap(cx: OpContext, v: SSAValue, size: int, mode: str) -> Index:
    """An index read from data, made a position in a dim of ``size`` by ``mode``:
    ``clip`` clamps, ``wrap`` takes it modulo ``size``, ``fast`` (and every other
    gather) is checked: ``-size <= v < size`` (negative from the end), anything
    else fails the run (:meth:`KernelBuilder.checked_index`). A dim of size 0 is
    rejected by the type relations whenever something is read from it."""
    kb = cx.kb
    if mode == "clip":
        return kb.imin(kb.imax(v, 0), max(size - 1, 0))
    if mode == "wrap":
        return kb.imod(v, size) if size else v
    return kb.checked_index(v, size, code_of(cx.op.name))


@pointwise(transform.TakeOp)
def _take(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, transform.TakeOp)
    kb = cx.kb
    data, indices = cx.operand(0), cx.operand(1)
    mode = get_str(op.mode)
    if op.axis is None:
        size = int(np.prod(data.shape, dtype=np.int64))
        flat = _wrap(cx, _index_value(cx, indices, idx), size, mode)
        return data.at(kb.unflatten(flat, data.shape, unsigned=True))
    axis, batch = op._params(len(data.shape), len(indices.shape))  # pyright: ignore[reportPrivateUsage]
    n_idx = len(indices.shape) - batch
    pre = idx[:axis]
    mid = idx[axis : axis + n_idx]
    post = idx[axis + n_idx :]
    v = _index_value(cx, indices, [*idx[:batch], *mid])
    return data.at([*pre, _wrap(cx, v, data.shape[axis], mode), *post])


@pointwise(transform.GatherOp)
def _gather_op(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, transform.GatherOp)
    data, indices = cx.operand(0), cx.operand(1)
    axis = get_int(op.axis) % len(idx)
    src = list(idx)
    src[axis] = _wrap(cx, _index_value(cx, indices, idx), data.shape[axis], "fast")
    return data.at(src)


@pointwise(transform.GatherNDOp)
def _gather_nd(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, transform.GatherNDOp)
    data, indices = cx.operand(0), cx.operand(1)
    m = indices.shape[0]
    batch = get_int(op.batch_dims)
    y_rank = len(indices.shape) - 1
    ys, rest = idx[:y_rank], idx[y_rank:]
    src: list[Index] = list(ys[:batch])
    for k in range(m):
        v = _index_value(cx, indices, [k, *ys])
        src.append(_wrap(cx, v, data.shape[batch + k], "fast"))
    return data.at([*src, *rest])


@pointwise(transform.ShapeOfOp)
def _shape_of(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    shape = cx.operand(0).shape
    dt = cx.out_dtype()
    bounds = list(range(len(shape) + 1))
    return _select_chain(cx.kb, idx[0], bounds, lambda k: cx.kb.const(shape[k], dt))


@pointwise(transform.NdarraySizeOp)
def _ndarray_size(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    return cx.kb.const(math.prod(cx.operand(0).shape), cx.out_dtype())


@pointwise(transform.OneHotOp)
def _one_hot(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, transform.OneHotOp)
    kb = cx.kb
    indices, on, off = cx.operands
    axis = op._axis(len(indices.shape))  # pyright: ignore[reportPrivateUsage]
    position = idx[axis]
    v = _index_value(cx, indices, idx[:axis] + idx[axis + 1 :])
    hit = kb.icmp("eq", v, position)
    dt = cx.out_dtype()
    on_v = kb.cast(on.at([]), on.dtype, dt)
    off_v = kb.cast(off.at([]), off.dtype, dt)
    return kb.select(hit, on_v, off_v)


@pointwise(nn.PadOp)
def _pad(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, nn.PadOp)
    kb = cx.kb
    data = cx.operand(0)
    widths = op.widths(len(idx))
    mode = get_str(op.pad_mode)
    src: list[Index] = []
    inside: SSAValue | None = None
    for i, (before, after), n in zip(idx, widths, data.shape, strict=True):
        j = kb.isub(i, before)
        if mode == "edge":
            j = kb.imin(kb.imax(j, 0), n - 1)
        elif mode == "reflect":
            j = kb.imax(j, kb.isub(0, j))  # |j| (reflect at the start)
            j = kb.imin(j, kb.isub(2 * (n - 1), j))  # reflect at the end
        elif before > 0 or after > 0:
            lo = kb.icmp("sge", j, 0)
            hi = kb.icmp("slt", j, n)
            ok = kb.logical_and(lo, hi)
            inside = ok if inside is None else kb.logical_and(inside, ok)
        src.append(j)
    if inside is None:
        return data.at(src)
    pad_value = cx.operand(1)
    return kb.if_(inside, lambda: [data.at(src)], lambda: [pad_value.at([])])[0]


@pointwise(nn.DropoutOp)
def _dropout(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    if r == 0:
        return cx.operand(0).at(idx)
    return cx.kb.const(1, cx.out_dtype(1))
