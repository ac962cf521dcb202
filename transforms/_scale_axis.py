"""Shared machinery of BackwardFoldScaleAxis and ForwardFoldScaleAxis (Relay's
``fold_scale_axis.cc``).

Both directions reason about a value as ``(value, axes, scale)``: the real tensor is
``value`` multiplied by ``scale`` along ``axes`` (the channel axis). A *prepare* phase
propagates a :class:`Message` — the axes a consumer could absorb a scale on, and
whether the scale must be non-negative (it crosses a ``relu``) — and a *transform*
phase moves the scale into a conv/dense weight, where FoldConstant bakes it.

What each op does in either direction is decided here from the op's class and
attributes (conv/dense layouts and channel axes), not from a table of op names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.base import get_int, get_str
from xrelay.dialects.relay.elementwise import LeakyReluOp, ReluOp
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.nn import Conv2DOp, DenseOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.dialects.relay.transform import (
    BroadcastToOp,
    ExpandDimsOp,
    RepeatOp,
    ReshapeOp,
    SqueezeOp,
    TransposeOp,
)
from xrelay.pass_manager import PassContext
from xrelay.pass_manager.config import FOLD_MAX_ELEMENTS
from xrelay.transforms._simplify_patterns import Edit, defining, static_shape


@dataclass(frozen=True)
class Message:
    """A demand for a scale: on ``axes`` (sorted), non-negative if
    ``require_positive``."""

    axes: tuple[int, ...]
    require_positive: bool = False


def intersect(a: Message | None, b: Message | None) -> Message | None:
    """Both demands at once (Relay's ``Intersect``); ``None`` when none is left."""
    if a is None or b is None:
        return None
    axes = tuple(x for x in a.axes if x in b.axes)
    if not axes:
        return None
    return Message(axes, a.require_positive or b.require_positive)


ACTIVATIONS = (ReluOp, LeakyReluOp)
"""``relu`` / ``leaky_relu``: a scale passes through them if it is non-negative."""


# ---------------------------------------------------------------------------------------
# Broadcast matching and scale shapes
# ---------------------------------------------------------------------------------------


def match_broadcast_to_left_axes(
    lhs: Sequence[int], rhs: Sequence[int], axes: Sequence[int]
) -> bool:
    """Whether ``rhs`` broadcasts onto ``lhs`` only along ``axes``: right-aligned, the
    dims of ``rhs`` on ``axes`` equal ``lhs``'s and every other dim of ``rhs`` is 1
    (Relay's ``MatchBroadcastToLeftAxes``)."""
    if len(lhs) < len(rhs):
        return False
    base = len(lhs) - len(rhs)
    for i in range(len(lhs)):
        if i in axes:
            if i < base or rhs[i - base] != lhs[i]:
                return False
        elif i >= base and rhs[i - base] != 1:
            return False
    return True


def scale_for_axes(
    scale: SSAValue, lhs: Sequence[int], axes: Sequence[int], edit: Edit
) -> SSAValue | None:
    """``scale`` (a multiply operand broadcasting onto ``lhs`` along ``axes``) reshaped
    to just the scaled dims (``[C]``); a 0-d scale is spread to ``[C]``. ``None`` if it
    does not broadcast that way."""
    rhs = static_shape(scale)
    if rhs is None:
        return None
    if not rhs and axes:  # a scalar: [1, ...] then repeated (Relay's way)
        value = edit.op(ExpandDimsOp, [scale], axis=0, num_newaxis=len(axes))
        for i, a in enumerate(axes):
            if lhs[a] != 1:
                value = edit.op(RepeatOp, [value], repeats=lhs[a], axis=i)
        return value
    if not match_broadcast_to_left_axes(lhs, rhs, axes):
        return None
    base = len(lhs) - len(rhs)
    drop = [i - base for i in range(base, len(lhs)) if i not in axes]
    if not drop:
        return scale
    return edit.op(SqueezeOp, [scale], axis=drop)


def expand_to_axes(
    scale: SSAValue, rank: int, axes: Sequence[int], edit: Edit
) -> SSAValue:
    """A ``[C]`` scale made to broadcast along ``axes`` of a rank-``rank`` tensor
    (Relay's ``ReshapeOrExpandToMatchAxis``: ``[C, 1, 1]`` for axis 1 of rank 4)."""
    if len(axes) == 1:
        trailing = rank - axes[0] - 1
        if trailing <= 0:
            return scale
        return edit.op(ExpandDimsOp, [scale], axis=1, num_newaxis=trailing)
    shape = static_shape(scale)
    assert shape is not None
    dims = iter(shape)
    newshape = [next(dims) if i in axes else 1 for i in range(rank)]
    return edit.op(ReshapeOp, [scale], newshape=newshape)


_PEEL = (ExpandDimsOp, ReshapeOp, SqueezeOp, TransposeOp, RepeatOp, BroadcastToOp)


def is_non_negative_constant(value: SSAValue) -> bool:
    """A constant (seen through reshape-like ops) whose elements are all finite and
    ``>= 0`` (Relay's ``IsAllPositiveConstant``)."""
    op = defining(value)
    while isinstance(op, _PEEL):
        op = defining(op.operands[0])
    if not isinstance(op, ConstantOp):
        return False
    array = np.asarray(op.numpy())
    if array.dtype.kind not in "iuf":
        return False
    return bool(np.all(np.isfinite(array) & (array >= 0)))


def is_computed_from_constants(
    value: SSAValue, memo: dict[SSAValue, bool] | None = None
) -> bool:
    """Whether ``value`` depends on constants only (no block argument): FoldConstant
    bakes a weight multiplied by it, so folding it costs nothing per run. ``memo``
    keeps the answers for the values visited (a pass shares one, so that the many
    gates of a model cost one walk over the function)."""
    memo = {} if memo is None else memo
    stack = [value]
    while stack:
        v = stack[-1]
        if v in memo:
            stack.pop()
            continue
        op = defining(v)
        if op is None or op.regions:
            memo[v] = False
            stack.pop()
            continue
        pending = [o for o in op.operands if o not in memo]
        if pending:
            stack.extend(pending)
            continue
        memo[v] = all(memo[o] for o in op.operands)
        stack.pop()
    return memo[value]


def elements(value: SSAValue) -> int | None:
    """The number of elements of a statically shaped tensor value."""
    shape = static_shape(value)
    return None if shape is None else int(np.prod(shape, dtype=np.int64))


RELAYOUT_COST = 32
"""How many elements of elementwise work a folded weight element costs per run."""


def worth_folding(
    scale: SSAValue,
    folded: int | None,
    data: SSAValue,
    memo: dict[SSAValue, bool] | None = None,
) -> bool:
    """Whether a scale should move into the weights (a departure from Relay, which
    always moves it). A scale computed from constants is, when FoldConstant bakes
    the products: unless the weights (``folded`` elements) exceed
    ``relay.FoldConstant.max_elements`` (a language model's 50257 x 768 head
    scaled by its last LayerNorm's gamma would be multiplied on every run, and
    left unpacked). Any other scale -- an SE gate, the ``sigmoid`` of a SiLU on a 1x1
    activation -- makes every run multiply the weights (``folded`` elements: weights,
    biases and the other sides of adds; ``None`` when unknown) instead of ``data``,
    and re-lay them out once AlterOpLayout blocks the conv: fold only when that is
    fewer elements than ``data`` holds (``RELAYOUT_COST`` times: docs/decisions.md,
    SE gates and SiLU). ``memo``: for :func:`is_computed_from_constants`."""
    n = elements(data)
    if folded is not None and n is not None and folded * RELAYOUT_COST < n:
        return True
    if folded is not None and folded > fold_bound():
        return False
    return is_computed_from_constants(scale, memo)


def fold_bound() -> int:
    """The largest result FoldConstant folds (the context's
    ``relay.FoldConstant.max_elements``)."""
    return int(PassContext.current().get_config(FOLD_MAX_ELEMENTS.name))


# ---------------------------------------------------------------------------------------
# Convolutions and dense
# ---------------------------------------------------------------------------------------


def conv_layouts(op: Conv2DOp) -> tuple[str, str, str]:
    """Data, kernel and output layouts of a conv2d."""
    data = get_str(op.data_layout)
    out = get_str(op.out_layout) or data
    return data, get_str(op.kernel_layout), out


def conv_foldable(op: Conv2DOp) -> tuple[bool, bool]:
    """``(foldable, depthwise)``: only ``groups == 1`` or depthwise convs (weight
    ``[groups, 1, KH, KW]`` in OIHW terms) with static shapes take a scale."""
    groups = get_int(op.groups)
    wshape = static_shape(op.weight)
    if wshape is None or static_shape(op.data) is None:
        return False, False
    kernel = Layout.parse(get_str(op.kernel_layout))
    o, i = (
        wshape[kernel.index_of(c)]
        * (wshape[kernel.index_of(c.lower())] if kernel.contains(c.lower()) else 1)
        for c in "OI"
    )
    depthwise = groups > 1 and o == groups and i == 1
    return groups == 1 or depthwise, depthwise


def conv_channel_axes(op: Conv2DOp, layout: str) -> tuple[int, ...] | None:
    """The channel axes of a conv's data or output ``layout`` a scale can sit on:
    ``(C,)`` for a plain layout, ``(C, c)`` for a blocked one whose kernel is
    blocked on both ``O`` and ``I`` (Relay's rule); ``None`` for a mix."""
    kernel, data = Layout.parse(get_str(op.kernel_layout)), Layout.parse(layout)
    blocked = (kernel.contains("o"), kernel.contains("i"), data.contains("c"))
    if not any(blocked):
        return (data.index_of("C"),)
    if all(blocked):
        return (data.index_of("C"), data.index_of("c"))
    return None


def conv_weight_scale(
    op: Conv2DOp, scale: SSAValue, channel: str, edit: Edit
) -> SSAValue | None:
    """``scale`` (``[C]``, or ``[C/c, c]`` for a blocked layout) shaped to multiply
    the conv's weight along its ``channel`` axis (``"O"`` or ``"I"``; for a blocked
    kernel also the block axis ``o`` / ``i``, whose block may differ from the data's:
    both flatten to the channel index, so the scale is reshaped to the weight's dims
    there, Relay's ``ReshapeToMatchAxis``). ``None`` when the channel counts
    differ."""
    kernel = Layout.parse(get_str(op.kernel_layout))
    axes = [kernel.index_of(channel)]
    if kernel.contains(channel.lower()):
        axes.append(kernel.index_of(channel.lower()))
    wshape, sshape = static_shape(op.weight), static_shape(scale)
    if wshape is None or sshape is None:
        return None
    if int(np.prod([wshape[a] for a in axes])) != int(np.prod(sshape)):
        return None
    if len(axes) == 1:
        return expand_to_axes(scale, kernel.ndim, axes, edit)
    newshape = [wshape[a] if a in axes else 1 for a in range(kernel.ndim)]
    return edit.op(ReshapeOp, [scale], newshape=newshape)


def dense_channel_axis(value: SSAValue) -> int | None:
    """The last axis of a dense operand/result (its feature axis)."""
    shape = static_shape(value)
    return None if not shape else len(shape) - 1


def erase_dead(candidates: Sequence[Operation]) -> None:
    """Erase the ops among ``candidates`` that have become unused, repeatedly."""
    pending = [op for op in candidates]
    changed = True
    while changed:
        changed = False
        for op in list(pending):
            if op.parent is None:
                pending.remove(op)
                continue
            if all(not r.uses for r in op.results):
                pending.remove(op)
                Rewriter.erase_op(op)
                changed = True


__all__ = [
    "ACTIVATIONS",
    "Conv2DOp",
    "DenseOp",
    "Message",
    "conv_channel_axes",
    "conv_foldable",
    "conv_layouts",
    "conv_weight_scale",
    "dense_channel_axis",
    "elements",
    "erase_dead",
    "expand_to_axes",
    "intersect",
    "is_computed_from_constants",
    "is_non_negative_constant",
    "match_broadcast_to_left_axes",
    "scale_for_axes",
    "worth_folding",
]
