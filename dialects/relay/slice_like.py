"""``slice_like``: the leading part of ``data`` shaped like ``shape_like`` (Relay's
``slice_like``).

``slice_like(data, shape_like, axes)`` keeps ``data[0:s_0, 0:s_1, ...]``: on each
axis in ``axes`` (all of ``shape_like``'s axes when ``axes`` is absent; negative
axes count from the end) the extent becomes ``shape_like``'s, which must not exceed
``data``'s; the other axes are kept whole. Only ``shape_like``'s shape is read, and
its dtype may differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    DYN,
    FORMAT,
    OpPattern,
    RelayOp,
    TypeRelationError,
    get_ints,
    normalize_axis,
    opt_ints_prop,
    ranked,
    tensor,
)
from xrelay.dialects.relay.layout_rules import InferredLayouts, MaybeLayout, new_axis_of


@irdl_op_definition
class SliceLikeOp(RelayOp):
    """``data`` cut to ``shape_like``'s extents on ``axes`` (module docstring)."""

    name = "relay.slice_like"
    data = operand_def(ANY_TENSOR)
    shape_like = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axes = opt_ints_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def sliced_axes(self, rank: int, like_rank: int) -> list[int]:
        """The checked axes of ``data`` that are cut."""
        if self.axes is None:
            if like_rank > rank:
                raise TypeRelationError(
                    f"shape_like has rank {like_rank}, more than data's {rank}"
                )
            return list(range(like_rank))
        out: list[int] = []
        for a in get_ints(self.axes):
            k = normalize_axis(a, rank)
            if k >= like_rank:
                raise TypeRelationError(
                    f"axis {a} is past shape_like's rank {like_rank}"
                )
            out.append(k)
        return out

    def out_shape(self, shape: Sequence[int], like: Sequence[int]) -> list[int]:
        out = list(shape)
        for k in self.sliced_axes(len(shape), len(like)):
            if DYN not in (shape[k], like[k]) and like[k] > shape[k]:
                raise TypeRelationError(
                    f"shape_like's extent {like[k]} on axis {k} exceeds data's "
                    f"{shape[k]}"
                )
            out[k] = like[k]
        return out

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        like = ranked(operand_types[1], "shape_like")
        shape = self.out_shape(x.get_shape(), like.get_shape())
        return [tensor(shape, x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        shape = self.out_shape(args[0].shape, args[1].shape)
        return args[0][tuple(slice(0, n) for n in shape)].copy()

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``SliceLikeInferCorrectLayout``: when both operands had a layout
        and now share one new layout, the op follows it and ``axes`` move (not onto
        a split axis); otherwise both keep their original layouts."""
        old0, old1 = old_layouts[0], old_layouts[1]
        if old0 is None or old1 is None or self.axes is None:
            return None
        keep = InferredLayouts((old0, old1), (old0,))
        if new_layouts is None:
            return keep
        new0, new1 = new_layouts[0], new_layouts[1]
        if new0 is None or new0 != new1 or new0 == old0 or old0 != old1:
            return keep
        ty = old_types[0]
        if not isinstance(ty, TensorType):
            return None
        rank = len(ty.get_shape())
        moved: list[int] = []
        for a in get_ints(self.axes):
            k = new_axis_of(old0, normalize_axis(a, rank), new0)
            if k is None:
                return keep
            moved.append(k)
        return InferredLayouts((new0, new0), (new0,), {"axes": moved})


SLICE_LIKE_OPS: list[type[RelayOp]] = [SliceLikeOp]

__all__ = ["SLICE_LIKE_OPS", "SliceLikeOp"]
