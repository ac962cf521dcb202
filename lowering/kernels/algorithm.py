"""Kernels of ``cumsum``/``cumprod`` (a running value along the axis, one slice per
iteration of the shared-out nest), ``topk`` (each element's rank in its slice by
counting the elements ordered before it; the top ``k`` ranks are stored: the ranks of
a slice are a permutation, so each output is written once and never outside its
buffer) and ``einsum`` (pointwise: a sum of products over the contracted labels).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import SSAValue

from xrelay.dialects.relay import algorithm
from xrelay.dialects.relay.base import get_bool, get_int, get_str
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, materialize, pointwise
from xrelay.lowering.scalar_types import DType, is_float

I64 = np.dtype(np.int64)


@materialize(algorithm.CumsumOp, algorithm.CumprodOp)
def _scan(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, algorithm.CumsumOp | algorithm.CumprodOp)
    kb, out = cx.kb, outs[0]
    x = cx.operand(0)
    dt = out.dtype
    product = isinstance(op, algorithm.CumprodOp)
    exclusive = get_bool(op.exclusive)
    if op.axis is None:
        axis = 0

        def src(i: list[Index]) -> list[Index]:
            return kb.unflatten(i[0], x.shape)
    else:
        axis = get_int(op.axis) % len(x.shape)

        def src(i: list[Index]) -> list[Index]:
            return i

    outer = [1 if a == axis else d for a, d in enumerate(out.shape)]
    with kb.parallel(outer) as base:

        def step(i: Index, carried: list[SSAValue]) -> list[SSAValue]:
            at = list(base)
            at[axis] = i
            v = kb.cast(x.at(src(at)), x.dtype, dt)
            acc = kb.mul(carried[0], v) if product else kb.add(carried[0], v)
            kb.store(carried[0] if exclusive else acc, out, at)
            return [acc]

        kb.fold_loop(0, out.shape[axis], [kb.const(int(product), dt)], step)


def _isnan(kb: KernelBuilder, a: SSAValue) -> SSAValue:
    return kb.result(arith.CmpfOp(a, a, "uno"))


def _before(
    kb: KernelBuilder,
    a: SSAValue,
    ia: Index,
    b: SSAValue,
    ib: Index,
    dt: DType,
    ascending: bool,
) -> SSAValue:
    """Whether element ``a`` (at ``ia``) comes before ``b`` (at ``ib``): NaN above
    every number, ties in index order."""
    first = kb.cmp("lt" if ascending else "gt", a, b, dt)
    equal = kb.cmp("eq", a, b, dt)
    if is_float(dt):
        na, nb = _isnan(kb, a), _isnan(kb, b)
        # descending: a NaN before every number; ascending: every number before NaN
        lead, trail = (nb, na) if ascending else (na, nb)
        first = kb.logical_or(first, kb.logical_and(lead, kb.logical_not(trail)))
        equal = kb.logical_or(equal, kb.logical_and(na, nb))
    earlier = kb.icmp("slt", ia, ib)
    return kb.logical_or(first, kb.logical_and(equal, earlier))


def _rank_sort(
    cx: OpContext,
    axis: int,
    k: int,
    ascending: bool,
    values: Buffer | None,
    indices: Buffer | None,
) -> None:
    """Each element of operand 0 goes to its rank along ``axis`` (the number of
    elements before it in sort order) when that is below ``k``: its value to
    ``values``, its position to ``indices``."""
    kb = cx.kb
    x = cx.operand(0)
    dt = x.dtype
    one = kb.index(1)
    with kb.parallel(x.shape) as idx:
        v = x.at(idx)
        i = idx[axis]

        def count(j: Index, c: list[SSAValue]) -> list[SSAValue]:
            at = list(idx)
            at[axis] = j
            ahead = _before(kb, x.at(at), j, v, i, dt, ascending)
            return [kb.select(ahead, kb.index(kb.iadd(c[0], one)), c[0])]

        rank = kb.fold_loop(0, x.shape[axis], [kb.index(0)], count)[0]

        def write() -> Sequence[SSAValue]:
            dst = list(idx)
            dst[axis] = rank
            if values is not None:
                kb.store(v, values, dst)
            if indices is not None:
                pos = kb.cast(kb.int_of_index(i), I64, indices.dtype)
                kb.store(pos, indices, dst)
            return []

        kb.if_(kb.icmp("slt", rank, k), write)


@materialize(algorithm.TopKOp)
def _topk(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, algorithm.TopKOp)
    axis, k = op.params(cx.operand(0).shape)
    ret = get_str(op.ret_type)
    values = outs[0] if ret in ("both", "values") else None
    indices = outs[-1] if ret in ("both", "indices") else None
    _rank_sort(cx, axis, k, get_bool(op.is_ascend), values, indices)


@materialize(algorithm.ArgsortOp)
def _argsort(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, algorithm.ArgsortOp)
    shape = cx.operand(0).shape
    axis = op.sort_axis(shape)
    _rank_sort(cx, axis, shape[axis], get_bool(op.is_ascend), None, outs[0])


@pointwise(algorithm.EinsumOp, cheap=False)
def _einsum(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, algorithm.EinsumOp)
    kb = cx.kb
    plan = op.plan([s.shape for s in cx.operands])
    dt = cx.out_dtype()
    summed = plan.summed
    fixed = dict(zip(plan.output, idx, strict=True))

    def body(inner: list[Index], c: list[SSAValue]) -> list[SSAValue]:
        env = {**fixed, **dict(zip(summed, inner, strict=True))}
        product: SSAValue | None = None
        for src, labels in zip(cx.operands, plan.inputs, strict=True):
            at: list[Index] = [
                0 if d == 1 else env[label]
                for label, d in zip(labels, src.shape, strict=True)
            ]
            v = src.at(at)
            product = v if product is None else kb.mul(product, v)
        assert product is not None
        return [kb.add(c[0], product)]

    extents = [plan.sizes[label] for label in summed]
    return kb.fold_nest(extents, [kb.zero(dt)], body)[0]
