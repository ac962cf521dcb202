"""The layout rules of the QNN ops (Relay's ``QnnConvInferCorrectLayout``,
``RequantizeInferCorrectLayout``, ``QnnBinaryBroadcastLayout`` and the QNN concatenate
and pooling rules).

A QNN op lays out its data operands as the float op it quantizes would; its scale
and zero-point operands are channel vectors (layout ``C``: a per-tensor parameter is
a scalar and is never transformed, a per-channel one is a 1-D vector that keeps its
order). Where a parameter is per-channel along an axis of the data, that axis must
follow the data's new layout (``axis`` moves with it) and must not be split; the rules
below give ``None`` (the op keeps its original layouts) otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from xrelay.dialects.relay.base import TypeRelationError, normalize_axis
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    MaybeLayout,
    is_split,
    new_axis_of,
)

CHANNEL = Layout.parse("C")
"""The layout of a scale or zero-point operand."""


def is_per_tensor(ty: Attribute) -> bool:
    """Whether a scale or zero point of type ``ty`` is per-tensor (0-d, or 1-D of one
    element)."""
    if not isinstance(ty, TensorType):
        return False
    shape = ty.get_shape()
    return len(shape) == 0 or (len(shape) == 1 and shape[0] == 1)


def with_params(
    inferred: InferredLayouts | None, n_params: int
) -> InferredLayouts | None:
    """``inferred`` (the rule of the data operands) with the layout ``C`` for
    ``n_params`` scale and zero-point operands after them."""
    if inferred is None:
        return None
    return InferredLayouts(
        (*inferred.inputs, *(CHANNEL,) * n_params), inferred.outputs, inferred.attrs
    )


def head(layouts: Sequence[MaybeLayout] | None, n: int) -> Sequence[MaybeLayout] | None:
    """The first ``n`` layouts (those of the data operands), or ``None``."""
    return None if layouts is None else layouts[:n]


def axis_following(
    new_layouts: Sequence[MaybeLayout] | None,
    old_layouts: Sequence[MaybeLayout],
    data_type: Attribute,
    axis: int,
    params: Sequence[Attribute],
    attr: str = "axis",
) -> InferredLayouts | None:
    """Relay's ``RequantizeInferCorrectLayout`` for a unary op with ``params`` along
    ``axis`` of its data: the data follows its producer and ``axis`` moves to where
    its letter went. A split axis is followed only when every parameter is
    per-tensor (``axis`` then names the primal part)."""
    if not isinstance(data_type, TensorType):
        return None
    rank = len(data_type.get_shape())
    old = old_layouts[0]
    if old is None or old.ndim != rank:
        return None
    vectors = (CHANNEL,) * len(params)
    if new_layouts is None or new_layouts[0] is None or new_layouts[0] == old:
        return InferredLayouts((old, *vectors), (old,))
    new = new_layouts[0]
    if rank == 0:
        return InferredLayouts((new, *vectors), (new,))
    try:
        k = normalize_axis(axis, rank)
    except TypeRelationError:
        return None
    letter = old.axes[k]
    if not letter.is_primal:
        return None
    if is_split(new, letter.letter) and not all(is_per_tensor(p) for p in params):
        return None
    moved = new.index_of(letter.letter)
    if moved < 0:
        return None
    return InferredLayouts((new, *vectors), (new,), {attr: moved})


def binary_axes(
    inferred: InferredLayouts | None,
    old_layouts: Sequence[MaybeLayout],
    types: Sequence[Attribute],
    axes: Sequence[int],
) -> InferredLayouts | None:
    """``inferred`` (Relay's broadcast rule of ``lhs`` and ``rhs``) with ``lhs_axis`` /
    ``rhs_axis`` moved where a side's parameters (operands ``2 + 2*side``, ``3 +
    2*side``) are per-channel; ``None`` when such an axis cannot follow."""
    if inferred is None:
        return None
    attrs = dict(inferred.attrs)
    for side, name in enumerate(("lhs_axis", "rhs_axis")):
        params = types[2 + 2 * side : 4 + 2 * side]
        if all(is_per_tensor(p) for p in params):
            continue
        old, new, ty = old_layouts[side], inferred.inputs[side], types[side]
        if old is None or old == new:
            continue
        if not isinstance(ty, TensorType):
            return None
        try:
            axis = normalize_axis(axes[side], len(ty.get_shape()))
        except TypeRelationError:
            return None
        moved = new_axis_of(old, axis, new)
        if moved is None:
            return None
        attrs[name] = moved
    return with_params(InferredLayouts(inferred.inputs, inferred.outputs, attrs), 6)
