"""Reductions: the value at an output index is a loop over the reduced axes carrying
an accumulator (``scf.for`` with ``iter_args``).

Floating-point sums accumulate in ``f64`` and are rounded once at the end: numpy sums
float32 pairwise, which a sequential float32 loop would not match on long axes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from xrelay.dialects.relay import reduce as red
from xrelay.dialects.relay import transform
from xrelay.dialects.relay.base import get_bool
from xrelay.lowering.builder import Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, broadcast_index, pointwise
from xrelay.lowering.scalar_types import DType, is_float
from xrelay.lowering.tiling import host_vector_unit

F64: DType = np.dtype(np.float64)
I64: DType = np.dtype(np.int64)


def acc_dtype(dt: DType) -> DType:
    """The accumulator of sums: ``f64`` for floats, the dtype itself otherwise."""
    return F64 if is_float(dt) else dt


def fold_lanes(
    kb: KernelBuilder,
    extents: Sequence[int],
    inits: Sequence[SSAValue],
    body: Callable[[list[Index], list[SSAValue]], Sequence[SSAValue]],
    combine: Callable[[SSAValue, SSAValue], SSAValue] | None = None,
) -> list[SSAValue]:
    """``kb.fold_nest(extents, inits, body)``; with ``combine`` (an associative and
    commutative merge of two partial results, e.g. a sum or a max, with ``inits``
    as its identities) the innermost axis is cut into as many interleaved partial
    folds as a host vector has ``f32`` lanes (16 on AVX-512, 8 on AVX2), merged
    pairwise at the end: independent chains that LLVM's SLP vectoriser keeps in
    vector registers, where a single chain of float adds stays scalar (its order
    is fixed). Rows shorter than two vectors keep the single chain."""
    lanes = max(4, host_vector_unit().bytes // 4)
    if combine is None or not extents or extents[-1] < 2 * lanes:
        return kb.fold_nest(extents, inits, body)
    width, n = len(inits), extents[-1]
    main = n // lanes * lanes

    def row(outer: list[Index], carried: list[SSAValue]) -> list[SSAValue]:
        def step(k: Index, c: list[SSAValue]) -> list[SSAValue]:
            out: list[SSAValue] = []
            for j in range(lanes):
                out += body([*outer, kb.iadd(k, j)], c[j * width : (j + 1) * width])
            return out

        c = kb.fold_loop(0, main, carried, step, step=lanes)
        tail = kb.fold_loop(main, n, c[:width], lambda k, t: list(body([*outer, k], t)))
        return [*tail, *c[width:]]

    parts = kb.fold_nest(extents[:-1], list(inits) * lanes, row)
    chunks = [parts[j * width : (j + 1) * width] for j in range(lanes)]
    while len(chunks) > 1:
        merged = [
            [combine(a, b) for a, b in zip(x, y, strict=True)]
            for x, y in zip(chunks[::2], chunks[1::2], strict=False)
        ]
        chunks = merged + ([chunks[-1]] if len(chunks) % 2 else [])
    return chunks[0]


class Reduction:
    """The loops of a reduction of ``shape`` over ``axes`` for one output index."""

    def __init__(
        self,
        kb: KernelBuilder,
        shape: Sequence[int],
        axes: Sequence[int],
        out_idx: Sequence[Index],
        keepdims: bool,
    ):
        self.kb = kb
        self.shape = tuple(shape)
        self.axes = tuple(axes)
        self.reduced_shape = [shape[a] for a in axes]
        kept = [k for k in range(len(shape)) if k not in axes]
        self.base: list[Index] = [0] * len(shape)
        if keepdims:
            for k in kept:
                self.base[k] = out_idx[k]
        else:
            for j, k in enumerate(kept):
                self.base[k] = out_idx[j]

    @property
    def count(self) -> int:
        return int(np.prod(self.reduced_shape, dtype=np.int64))

    def data_index(self, red_idx: Sequence[Index]) -> list[Index]:
        idx = list(self.base)
        for a, i in zip(self.axes, red_idx, strict=True):
            idx[a] = i
        return idx

    def fold(
        self,
        inits: Sequence[SSAValue],
        body: Callable[[list[Index], list[SSAValue]], Sequence[SSAValue]],
        combine: Callable[[SSAValue, SSAValue], SSAValue] | None = None,
    ) -> list[SSAValue]:
        """``body(data_index, carried) -> carried`` over the reduced elements
        (partial folds merged by ``combine`` when the last data axis is reduced:
        :func:`fold_lanes`). Reducing over no axis (a 0-d input) folds the one
        element."""
        if not self.axes:
            return list(body(self.data_index([]), list(inits)))
        if self.axes[-1] != len(self.shape) - 1:
            combine = None
        return fold_lanes(
            self.kb,
            self.reduced_shape,
            inits,
            lambda r, c: body(self.data_index(r), c),
            combine,
        )


def _reduction(cx: OpContext, idx: list[Index]) -> Reduction:
    op = cx.op
    assert isinstance(op, red.AxisReduceOp)
    shape = cx.operand(0).shape
    return Reduction(cx.kb, shape, op.axes(len(shape)), idx, op.keep())


def _sum(
    cx: OpContext, rd: Reduction, value: Callable[[list[Index]], SSAValue]
) -> SSAValue:
    """The sum of ``value`` over the reduction, in the accumulator dtype."""
    kb = cx.kb
    dt = cx.operand(0).dtype
    acc = acc_dtype(dt)

    def body(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
        return [kb.add(c[0], kb.cast(value(i), dt, acc))]

    return rd.fold([kb.zero(acc)], body, kb.add)[0]


@pointwise(red.SumOp, cheap=False)
def _sum_op(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    rd = _reduction(cx, idx)
    dt = cx.operand(0).dtype
    total = _sum(cx, rd, cx.operand(0).at)
    return cx.kb.cast(total, acc_dtype(dt), dt)


@pointwise(red.MeanOp, cheap=False)
def _mean(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb = cx.kb
    rd = _reduction(cx, idx)
    dt = cx.operand(0).dtype
    acc = acc_dtype(dt)
    total = _sum(cx, rd, cx.operand(0).at)
    if is_float(dt):
        total = kb.cast(total, acc, dt)
    return kb.div(total, kb.const(rd.count, dt), dt)


def _fold_op(
    combine: Callable[[KernelBuilder, SSAValue, SSAValue, DType], SSAValue],
    init: Callable[[KernelBuilder, DType], SSAValue],
    wide: bool = False,
) -> Callable[[OpContext, int, list[Index]], SSAValue]:
    def value_at(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
        kb = cx.kb
        rd = _reduction(cx, idx)
        dt = cx.operand(0).dtype
        acc = acc_dtype(dt) if wide else dt

        def body(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
            return [combine(kb, c[0], kb.cast(cx.operand(0).at(i), dt, acc), acc)]

        merge: Callable[[SSAValue, SSAValue], SSAValue] = lambda a, b: combine(  # noqa: E731
            kb, a, b, acc
        )
        return kb.cast(rd.fold([init(kb, acc)], body, merge)[0], acc, dt)

    return value_at


pointwise(red.MaxOp, cheap=False)(
    _fold_op(lambda kb, a, b, dt: kb.max(a, b, dt), lambda kb, dt: kb.lowest(dt))
)
pointwise(red.MinOp, cheap=False)(
    _fold_op(lambda kb, a, b, dt: kb.min(a, b, dt), lambda kb, dt: kb.highest(dt))
)
pointwise(red.ProdOp, cheap=False)(
    _fold_op(
        lambda kb, a, b, dt: kb.mul(a, b), lambda kb, dt: kb.const(1, dt), wide=True
    )
)
pointwise(red.AllOp, cheap=False)(
    _fold_op(lambda kb, a, b, dt: kb.logical_and(a, b), lambda kb, dt: kb.const(1, dt))
)
pointwise(red.AnyOp, cheap=False)(
    _fold_op(lambda kb, a, b, dt: kb.logical_or(a, b), lambda kb, dt: kb.const(0, dt))
)


def _is_nan(kb: KernelBuilder, v: SSAValue) -> SSAValue:
    return kb.result(arith.CmpfOp(v, v, "uno"))


@pointwise(red.ArgMaxOp, red.ArgMinOp, cheap=False)
def _arg_reduce(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, red.ArgReduceOp)
    kb = cx.kb
    rd = _reduction(cx, idx)
    dt = cx.operand(0).dtype
    last = get_bool(op.select_last_index)
    better = "gt" if isinstance(op, red.ArgMaxOp) else "lt"
    if last:
        better = better[0] + "e"

    def body(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
        best, best_pos = c
        v = cx.operand(0).at(i)
        pos = kb.index(
            kb.flat_index([i[a] for a in rd.axes], rd.reduced_shape) if rd.axes else 0
        )
        take = kb.cmp(better, v, best, dt)
        if is_float(dt):
            # numpy: the first NaN wins (the last with select_last_index)
            v_nan, best_nan = _is_nan(kb, v), _is_nan(kb, best)
            new_nan = kb.logical_and(v_nan, kb.logical_not(best_nan))
            if last:
                new_nan = v_nan
            take = kb.logical_or(
                kb.logical_and(take, kb.logical_not(best_nan)), new_nan
            )
        return [kb.select(take, v, best), kb.select(take, pos, best_pos)]

    first = cx.operand(0).at(rd.data_index([0] * len(rd.axes)))
    _, pos = rd.fold([first, kb.index(0)], body)
    return kb.result(arith.IndexCastOp(pos, IntegerType(32)))


def _variance(
    cx: OpContext,
    rd: Reduction,
    mean_at: Callable[[list[Index]], SSAValue],
    unbiased: bool,
) -> SSAValue:
    """``sum((x - mean)^2) / (n - unbiased)`` in the data's dtype."""
    kb = cx.kb
    dt = cx.operand(0).dtype
    acc = acc_dtype(dt)

    def body(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
        d = kb.sub(cx.operand(0).at(i), mean_at(i))
        return [kb.add(c[0], kb.cast(kb.mul(d, d), dt, acc))]

    total = rd.fold([kb.zero(acc)], body, kb.add)[0]
    count = rd.count - (1 if unbiased else 0)
    if is_float(dt):
        return kb.cast(kb.div(total, kb.const(count, acc), acc), acc, dt)
    return kb.div(total, kb.const(count, dt), dt)


@pointwise(red.VarianceOp, cheap=False)
def _variance_op(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, red.VarianceOp)
    rd = _reduction(cx, idx)
    mean = cx.operand(1)
    data_rank = len(cx.operand(0).shape)

    def mean_at(i: list[Index]) -> SSAValue:
        return mean.at(broadcast_index(i, mean.shape, data_rank))

    return _variance(cx, rd, mean_at, get_bool(op.unbiased))


@pointwise(red.StdOp, cheap=False)
def _std(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, red.StdOp)
    kb = cx.kb
    rd = _reduction(cx, idx)
    dt = cx.operand(0).dtype
    total = _sum(cx, rd, cx.operand(0).at)
    mean = kb.cast(kb.div(total, kb.const(rd.count, F64), F64), F64, dt)
    var = _variance(cx, rd, lambda i: mean, get_bool(op.unbiased))
    return kb.math("sqrt", var)


@pointwise(red.LogSumExpOp, cheap=False)
def _logsumexp(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb = cx.kb
    rd = _reduction(cx, idx)
    dt = cx.operand(0).dtype

    def max_body(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
        return [kb.max(c[0], cx.operand(0).at(i), dt)]

    m = rd.fold([kb.lowest(dt)], max_body, lambda a, b: kb.max(a, b, dt))[0]
    # an infinite maximum is replaced by 0 (numpy reference)
    finite = kb.cmp("lt", kb.math("absf", m), kb.const(float("inf"), dt), dt)
    m = kb.select(finite, m, kb.zero(dt))
    s = _sum(cx, rd, lambda i: kb.math("exp", kb.sub(cx.operand(0).at(i), m)))
    return kb.add(kb.math("log", kb.cast(s, F64, dt)), m)


@pointwise(transform.CollapseSumLikeOp, transform.CollapseSumToOp, cheap=False)
def _collapse_sum_like(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb = cx.kb
    data = cx.operand(0)
    target = cx.out_shape()
    lead = len(data.shape) - len(target)
    axes = list(range(lead)) + [
        lead + j for j, d in enumerate(target) if d == 1 and data.shape[lead + j] != 1
    ]
    rd = Reduction(kb, data.shape, axes, [0] * lead + list(idx), keepdims=True)
    dt = data.dtype
    return kb.cast(_sum(cx, rd, data.at), acc_dtype(dt), dt)
