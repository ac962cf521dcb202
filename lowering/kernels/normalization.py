"""Normalisations.

* ``batch_norm`` (inference form) is pointwise: the per-channel statistics are
  operands; its second and third results are copies of the moving statistics.
* ``layer_norm``, ``instance_norm``, ``group_norm`` and ``l2_normalize`` compute
  statistics per slice (:class:`~xrelay.lowering.kernels.nn.SliceLoops`): a mean pass
  and a variance pass (``f64`` accumulators, rounded to the data's dtype like the
  reference's float32 statistics), then a write pass. ``group_norm`` sees the channel
  axis split in ``(group, channel in group)``.
* ``lrn`` is pointwise: a loop over the channel window of each element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import SSAValue

from xrelay.dialects.relay import normalization as norm
from xrelay.dialects.relay.base import get_bool, get_float, get_int
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.kernels import OpContext, materialize, pointwise
from xrelay.lowering.kernels.nn import SliceLoops
from xrelay.lowering.kernels.reduce import F64


def _fadd(kb: KernelBuilder) -> Callable[[SSAValue, SSAValue], SSAValue]:
    """The merge of partial sums (:meth:`SliceLoops.fold`)."""
    return kb.add


@pointwise(norm.BatchNormOp)
def _batch_norm(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, norm.BatchNormOp)
    if r > 0:  # moving_mean / moving_var, unchanged
        return cx.operand(2 + r).at(idx)
    kb = cx.kb
    dt = cx.out_dtype()
    axis = get_int(op.axis) % len(idx)
    c = [idx[axis]]
    x = cx.operand(0).at(idx)
    mean, var = cx.operand(3).at(c), cx.operand(4).at(c)
    denom = kb.math("sqrt", kb.add(var, kb.const(get_float(op.epsilon), dt)))
    y = kb.div(kb.sub(x, mean), denom, dt)
    if get_bool(op.scale):
        y = kb.mul(y, cx.operand(1).at(c))
    if get_bool(op.center):
        y = kb.add(y, cx.operand(2).at(c))
    return y


def _normalize(
    cx: OpContext,
    out: Buffer,
    view_shape: Sequence[int],
    reduced: Sequence[int],
    to_real: Callable[[list[Index]], list[Index]],
    channel_axis: int | None,
) -> None:
    """``(x - mean) / sqrt(var + eps)`` per slice of ``view_shape`` along
    ``reduced`` (``to_real`` maps a view index to a data index), then
    ``* gamma + beta`` at the data index's ``channel_axis``."""
    op = cx.op
    kb = cx.kb
    x = cx.operand(0)
    dt = x.dtype
    loops = SliceLoops(kb, view_shape, reduced)
    count = kb.const(loops.count, F64)
    eps = kb.const(get_float(op.properties["epsilon"]), dt)
    with loops.slices() as base:

        def add(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
            return [kb.add(c[0], kb.cast(x.at(to_real(i)), dt, F64))]

        total = loops.fold(base, [kb.zero(F64)], add, _fadd(kb))[0]
        mean = kb.cast(kb.div(total, count, F64), F64, dt)

        def add_sq(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
            d = kb.sub(x.at(to_real(i)), mean)
            return [kb.add(c[0], kb.cast(kb.mul(d, d), dt, F64))]

        sq = loops.fold(base, [kb.zero(F64)], add_sq, _fadd(kb))[0]
        var = kb.cast(kb.div(sq, count, F64), F64, dt)
        denom = kb.math("sqrt", kb.add(var, eps))
        with loops.each(base) as i:
            real = to_real(i)
            y = kb.div(kb.sub(x.at(real), mean), denom, dt)
            if channel_axis is not None:
                ch = [real[channel_axis]]
                if get_bool(op.properties["scale"]):
                    y = kb.mul(y, cx.operand(1).at(ch))
                if get_bool(op.properties["center"]):
                    y = kb.add(y, cx.operand(2).at(ch))
            kb.store(y, out, real)


@materialize(norm.LayerNormOp, norm.InstanceNormOp)
def _layer_or_instance_norm(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, norm.AffineNormOp)
    shape = cx.operand(0).shape
    axis = op.norm_axis(len(shape))
    if isinstance(op, norm.LayerNormOp):
        reduced = [axis]
    else:
        reduced = [k for k in range(1, len(shape)) if k != axis]
    _normalize(cx, outs[0], shape, reduced, lambda i: i, axis)


@materialize(norm.GroupNormOp)
def _group_norm(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, norm.GroupNormOp)
    kb = cx.kb
    shape = cx.operand(0).shape
    axis = op.norm_axis(len(shape))
    groups = get_int(op.num_groups)
    per = shape[axis] // groups
    view = [*shape[:axis], groups, per, *shape[axis + 1 :]]
    reduced = list(range(axis + 1, len(view)))

    def to_real(i: list[Index]) -> list[Index]:
        ch = kb.iadd(kb.imul(i[axis], per), i[axis + 1])
        return [*i[:axis], ch, *i[axis + 2 :]]

    _normalize(cx, outs[0], view, reduced, to_real, axis)


@materialize(norm.L2NormalizeOp)
def _l2_normalize(cx: OpContext, outs: list[Buffer]) -> None:
    op = cx.op
    assert isinstance(op, norm.L2NormalizeOp)
    kb = cx.kb
    x = cx.operand(0)
    dt = x.dtype
    loops = SliceLoops(kb, x.shape, op.axes(len(x.shape)))
    eps = kb.const(get_float(op.eps), dt)
    with loops.slices() as base:

        def add_sq(i: list[Index], c: list[SSAValue]) -> list[SSAValue]:
            v = x.at(i)
            return [kb.add(c[0], kb.cast(kb.mul(v, v), dt, F64))]

        sq = kb.cast(loops.fold(base, [kb.zero(F64)], add_sq, _fadd(kb))[0], F64, dt)
        denom = kb.math("sqrt", kb.max(sq, eps, dt))
        with loops.each(base) as i:
            kb.store(kb.div(x.at(i), denom, dt), outs[0], i)


@pointwise(norm.LRNOp, cheap=False)
def _lrn(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    op = cx.op
    assert isinstance(op, norm.LRNOp)
    kb = cx.kb
    x = cx.operand(0)
    dt = x.dtype
    size, axis = get_int(op.size), get_int(op.axis) % len(idx)
    before = (size - 1) // 2
    channels = x.shape[axis]
    lo = kb.imax(0, kb.isub(idx[axis], before))
    hi = kb.imin(channels, kb.iadd(kb.isub(idx[axis], before), size))

    def add_sq(k: Index, c: list[SSAValue]) -> list[SSAValue]:
        at = list(idx)
        at[axis] = k
        v = x.at(at)
        return [kb.add(c[0], kb.cast(kb.mul(v, v), dt, F64))]

    total = kb.cast(kb.fold_loop(lo, hi, [kb.zero(F64)], add_sq)[0], F64, dt)
    scale = kb.div(kb.const(get_float(op.alpha), dt), kb.const(size, dt), dt)
    base = kb.add(kb.const(get_float(op.bias), dt), kb.mul(scale, total))
    return kb.div(
        x.at(idx), kb.math("powf", base, kb.const(get_float(op.beta), dt)), dt
    )
