"""SimplifyInference: rewrite the inference forms of the normalisation ops and of
dropout into elementwise arithmetic and reductions (mirrors Relay's
``SimplifyInference``, a function pass at opt_level 0 that requires InferType).

The rewrites (Relay's ``simplify_inference.cc``); ``expand(v)`` reshapes a
per-channel vector with ``expand_dims`` so that it broadcasts along ``axis`` (nothing
to do when ``axis`` is the last dim):

* ``batch_norm`` result 0 ⇒ ``data * expand(s) + expand(t)`` with
  ``s = 1 / sqrt(moving_var + eps) [* gamma]`` and ``t = -moving_mean * s [+ beta]``.
  Only result 0 is rewritten; the op stays while its results 1 and 2 (the moving
  statistics) are used, and is erased otherwise;
* ``dropout`` result 0 ⇒ ``data`` (the op stays while its mask is used);
* ``layer_norm`` ⇒ ``(data - mean) / sqrt(variance + eps) [* expand(gamma)]
  [+ expand(beta)]`` with the statistics over ``axis`` (kept dims);
* ``group_norm``: the same after reshaping the channel axis into
  ``(num_groups, C / num_groups)`` and reducing over that and every later axis, then
  reshaping back (static shapes only; a dynamic one leaves the op alone);
* ``instance_norm``: the statistics over every axis but 0 and ``axis``;
* ``l2_normalize`` ⇒ ``data / sqrt(max(sum(data * data, axis, keepdims), eps))``.

The constants (``eps``, 1) have the data's dtype (Relay makes l2_normalize's ``eps``
``float32`` whatever the data; xrelay never promotes dtypes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import DYN, RelayOp, get_bool, get_float, get_int
from xrelay.dialects.relay.elementwise import (
    AddOp,
    DivideOp,
    MaximumOp,
    MultiplyOp,
    NegativeOp,
    SqrtOp,
    SubtractOp,
)
from xrelay.dialects.relay.nn import DropoutOp
from xrelay.dialects.relay.normalization import (
    AffineNormOp,
    BatchNormOp,
    GroupNormOp,
    InstanceNormOp,
    L2NormalizeOp,
    LayerNormOp,
)
from xrelay.dialects.relay.reduce import MeanOp, SumOp, VarianceOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.dialects.relay.transform import ExpandDimsOp, ReshapeOp
from xrelay.pass_manager import PassInfo, PatternPass, register_pass


class _Builder:
    """Makes typed relay ops before ``anchor`` with the pattern's rewriter."""

    def __init__(self, anchor: Operation, rewriter: PatternRewriter):
        self.anchor = anchor
        self.rewriter = rewriter

    def op(
        self,
        cls: type[RelayOp],
        operands: Sequence[SSAValue],
        **attrs: object,
    ) -> SSAValue:
        new = cls.make(operands, attrs)
        self.rewriter.insert(new, InsertPoint.before(self.anchor))
        return new.results[0]

    def scalar(self, value: float, like: TensorType) -> SSAValue:
        npd = dtypes.numpy_dtype(like.get_element_type())
        const = ConstantOp(np.array(value, dtype=npd))
        self.rewriter.insert(const, InsertPoint.before(self.anchor))
        return const.result

    def along(self, vec: SSAValue, ndim: int, axis: int) -> SSAValue:
        """A 1-D per-channel vector expanded to broadcast along ``axis`` of a
        rank-``ndim`` tensor (Relay's ``ExpandBiasToMatchAxis``)."""
        trailing = ndim - axis - 1
        if trailing <= 0:
            return vec
        return self.op(ExpandDimsOp, [vec], axis=1, num_newaxis=trailing)

    def normalise(
        self, data: SSAValue, axes: Sequence[int], eps: float, ty: TensorType
    ) -> SSAValue:
        """``(data - mean) / sqrt(variance + eps)`` over ``axes`` (kept dims)."""
        mean = self.op(MeanOp, [data], axis=list(axes), keepdims=True)
        var = self.op(VarianceOp, [data, mean], axis=list(axes), keepdims=True)
        denom = self.op(SqrtOp, [self.op(AddOp, [var, self.scalar(eps, ty)])])
        return self.op(DivideOp, [self.op(SubtractOp, [data, mean]), denom])


def _ranked(value: SSAValue) -> TensorType | None:
    ty = value.type
    return cast(TensorType, ty) if isinstance(ty, TensorType) else None


def _erase_if_unused(op: Operation, rewriter: PatternRewriter) -> None:
    if not any(res.uses for res in op.results):
        rewriter.erase(op)


class SimplifyBatchNorm(RewritePattern):
    """``batch_norm`` result 0 ⇒ ``data * expand(s) + expand(t)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        simplify_batch_norm(op, rewriter)


def simplify_batch_norm(op: BatchNormOp, rewriter: PatternRewriter) -> None:
    ty = _ranked(op.data)
    if ty is None or not op.result.uses:
        return
    b = _Builder(op, rewriter)
    ndim = len(ty.get_shape())
    axis = get_int(op.axis) % ndim
    var_eps = b.op(AddOp, [op.moving_var, b.scalar(get_float(op.epsilon), ty)])
    scale = b.op(DivideOp, [b.scalar(1.0, ty), b.op(SqrtOp, [var_eps])])
    if get_bool(op.scale):
        scale = b.op(MultiplyOp, [scale, op.gamma])
    shift = b.op(MultiplyOp, [b.op(NegativeOp, [op.moving_mean]), scale])
    if get_bool(op.center):
        shift = b.op(AddOp, [shift, op.beta])
    out = b.op(MultiplyOp, [op.data, b.along(scale, ndim, axis)])
    out = b.op(AddOp, [out, b.along(shift, ndim, axis)])
    rewriter.replace_all_uses_with(op.result, out)
    _erase_if_unused(op, rewriter)


class SimplifyDropout(RewritePattern):
    """``dropout`` result 0 ⇒ ``data``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DropoutOp, rewriter: PatternRewriter) -> None:
        if not op.output.uses:
            return
        rewriter.replace_all_uses_with(op.output, op.data)
        _erase_if_unused(op, rewriter)


def _affine(
    b: _Builder, out: SSAValue, op: AffineNormOp, ndim: int, axis: int
) -> SSAValue:
    if get_bool(op.scale):
        out = b.op(MultiplyOp, [out, b.along(op.gamma, ndim, axis)])
    if get_bool(op.center):
        out = b.op(AddOp, [out, b.along(op.beta, ndim, axis)])
    return out


class SimplifyAffineNorm(RewritePattern):
    """layer_norm, group_norm and instance_norm ⇒ their statistics and arithmetic."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AffineNormOp, rewriter: PatternRewriter) -> None:
        simplify_affine_norm(op, rewriter)


def simplify_affine_norm(op: AffineNormOp, rewriter: PatternRewriter) -> None:
    ty = _ranked(op.data)
    if ty is None:
        return
    shape = ty.get_shape()
    ndim = len(shape)
    axis = op.norm_axis(ndim)
    eps = get_float(op.epsilon)
    b = _Builder(op, rewriter)
    if isinstance(op, LayerNormOp):
        out = b.normalise(op.data, [axis], eps, ty)
    elif isinstance(op, InstanceNormOp):
        axes = [i for i in range(1, ndim) if i != axis]
        out = b.normalise(op.data, axes, eps, ty)
    elif isinstance(op, GroupNormOp):
        if DYN in shape:
            return
        groups = get_int(op.num_groups)
        split = [*shape[:axis], groups, shape[axis] // groups, *shape[axis + 1 :]]
        grouped = b.op(ReshapeOp, [op.data], newshape=split)
        axes = list(range(axis + 1, ndim + 1))
        out = b.normalise(grouped, axes, eps, ty)
        out = b.op(ReshapeOp, [out], newshape=list(shape))
    else:
        return
    out = _affine(b, out, op, ndim, axis)
    rewriter.replace_all_uses_with(op.result, out)
    rewriter.erase(op)


class SimplifyL2Normalize(RewritePattern):
    """``l2_normalize`` ⇒ ``data / sqrt(max(sum(data * data), eps))``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: L2NormalizeOp, rewriter: PatternRewriter) -> None:
        simplify_l2_normalize(op, rewriter)


def simplify_l2_normalize(op: L2NormalizeOp, rewriter: PatternRewriter) -> None:
    ty = _ranked(op.data)
    if ty is None:
        return
    b = _Builder(op, rewriter)
    axis = None if op.axis is None else list(op.axes(len(ty.get_shape())))
    square = b.op(MultiplyOp, [op.data, op.data])
    total = b.op(SumOp, [square], axis=axis, keepdims=True)
    total = b.op(MaximumOp, [total, b.scalar(get_float(op.eps), ty)])
    out = b.op(DivideOp, [op.data, b.op(SqrtOp, [total])])
    rewriter.replace_all_uses_with(op.result, out)
    rewriter.erase(op)


PATTERNS: tuple[RewritePattern, ...] = (
    SimplifyBatchNorm(),
    SimplifyDropout(),
    SimplifyAffineNorm(),
    SimplifyL2Normalize(),
)
ROOTS: tuple[type[Operation], ...] = (
    BatchNormOp,
    DropoutOp,
    LayerNormOp,
    GroupNormOp,
    InstanceNormOp,
    L2NormalizeOp,
)
"""The op classes the patterns rewrite (exactly; AffineNormOp's three)."""


@register_pass("SimplifyInference")
@dataclass(frozen=True, eq=False, repr=False)
class SimplifyInference(PatternPass):
    """Rewrite batch_norm, dropout, layer_norm, group_norm, instance_norm and
    l2_normalize into arithmetic and reductions (Relay's SimplifyInference: function
    pass, opt_level 0, requires InferType): one walk of :data:`PATTERNS` over each
    function."""

    def __post_init__(self) -> None:
        super().__init__(
            PATTERNS,
            PassInfo(0, "SimplifyInference", ["InferType"]),
            roots=ROOTS,
            types_checked=True,
        )
