"""Kernels of the index-driven ops: ``scatter_nd``, ``scatter_elements`` (a copy of
the data, then the updates applied in order by one thread) and ``trilu`` (pointwise).

Every index read from data is checked (:meth:`KernelBuilder.checked_index`: negative
counts from the end, anything outside ``[-dim, dim)`` fails the run with the op's code
from :mod:`xrelay.status`), as in the ops' reference semantics, so no index in the
data makes a kernel read or write outside a buffer. When an indexed dim has size 0,
every index is bad: the kernel reports it and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from xrelay.dialects.relay import indexing
from xrelay.dialects.relay.base import get_bool, get_int, get_str
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, Source, materialize, pointwise
from xrelay.lowering.scalar_types import DType
from xrelay.status import code_of


def index_value(kb: KernelBuilder, src: Source, idx: Sequence[Index]) -> Index:
    """An element of an integer tensor, as an ``index``."""
    return kb.index_cast(src.at(idx), src.dtype)


def checked(cx: OpContext, v: Index, size: int) -> Index:
    """``v`` (read from data) as a position in a dim of ``size``, checked."""
    return cx.kb.checked_index(cx.kb.index(v), size, code_of(cx.op.name))


def combine(kb: KernelBuilder, old: SSAValue, new: SSAValue, how: str, dt: DType):
    """An update ``new`` landing on ``old`` (``indexing.SCATTER_REDUCTIONS``)."""
    if how == "update":
        return new
    if how == "add":
        return kb.add(old, new)
    if how == "mul":
        return kb.mul(old, new)
    if how == "min":
        return kb.min(old, new, dt)
    return kb.max(old, new, dt)


def _copy(cx: OpContext, out: Buffer) -> None:
    with cx.kb.parallel(out.shape) as idx:
        cx.kb.store(cx.operand(0).at(idx), out, idx)


@materialize(indexing.ScatterNDOp)
def _scatter_nd(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, indexing.ScatterNDOp)
    kb, out = cx.kb, outs[0]
    data, indices, updates = cx.operands
    how = get_str(op.mode)
    _copy(cx, out)
    m = indices.shape[0]
    with kb.nest(indices.shape[1:]) as ys:
        pos = [
            checked(cx, index_value(kb, indices, [k, *ys]), data.shape[k])
            for k in range(m)
        ]
        if 0 in data.shape[:m]:
            return  # reported above; nothing to write
        with kb.nest(data.shape[m:]) as rest:
            dst = [*pos, *rest]
            new = updates.at([*ys, *rest])
            value = combine(kb, kb.load(out, dst), new, how, out.dtype)
            kb.store(value, out, dst)


@materialize(indexing.ScatterElementsOp)
def _scatter_elements(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, indexing.ScatterElementsOp)
    kb, out = cx.kb, outs[0]
    data, indices, updates = cx.operands
    how = get_str(op.reduction)
    axis = get_int(op.axis) % len(data.shape)
    _copy(cx, out)
    with kb.nest(indices.shape) as pos:
        dst = list(pos)
        dst[axis] = checked(cx, index_value(kb, indices, pos), data.shape[axis])
        if data.shape[axis] == 0:
            return  # reported above; nothing to write
        value = combine(kb, kb.load(out, dst), updates.at(pos), how, out.dtype)
        kb.store(value, out, dst)


@pointwise(indexing.TriluOp)
def _trilu(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, indexing.TriluOp)
    kb = cx.kb
    x, k = cx.operands
    diff = kb.isub(idx[-1], idx[-2])
    kv = index_value(kb, k, [])
    keep = kb.icmp("sge" if get_bool(op.upper) else "sle", diff, kv)
    return kb.select(keep, x.at(idx), kb.zero(x.dtype))
