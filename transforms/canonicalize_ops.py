"""CanonicalizeOps: lower ``nn.bias_add`` to a broadcasting ``add`` (mirrors Relay's
``CanonicalizeOps``, a function pass at opt_level 3 that requires InferType).

``nn.bias_add(x, b, axis)`` becomes ``add(x, expand_dims(b, axis=1,
num_newaxis=ndim - axis - 1))``: the 1-D bias gets trailing size-1 dims so that it
broadcasts along ``axis``; when ``axis`` is the last dim the bias is added as it is.
A ``bias_add`` whose data type is not known (unranked) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.dialects.builtin import TensorType
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelay.dialects.relay.base import get_int
from xrelay.dialects.relay.elementwise import AddOp, BiasAddOp
from xrelay.dialects.relay.transform import ExpandDimsOp
from xrelay.pass_manager import PassInfo, PatternPass, register_pass


class LowerBiasAdd(RewritePattern):
    """``nn.bias_add(x, b, axis)`` → ``add(x, expand_dims(b, axis=1,
    num_newaxis=ndim - axis - 1))``; a ``bias_add`` whose data type is unknown is
    left alone."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BiasAddOp, rewriter: PatternRewriter) -> None:
        ty = op.data.type
        if not isinstance(ty, TensorType):
            return
        ndim = len(cast(TensorType, ty).get_shape())
        axis = get_int(op.axis) % ndim
        bias = op.bias
        trailing = ndim - axis - 1
        if trailing > 0:
            expand = ExpandDimsOp.make([bias], {"axis": 1, "num_newaxis": trailing})
            rewriter.insert(expand)
            bias = expand.results[0]
        rewriter.replace(op, AddOp.make([op.data, bias]))


@register_pass("CanonicalizeOps")
@dataclass(frozen=True, eq=False, repr=False)
class CanonicalizeOps(PatternPass):
    """Lower ``nn.bias_add`` to ``expand_dims`` + ``add`` (Relay's CanonicalizeOps:
    function pass, opt_level 3, requires InferType): one walk of
    :class:`LowerBiasAdd` over each function."""

    def __post_init__(self) -> None:
        super().__init__(
            [LowerBiasAdd()],
            PassInfo(3, "CanonicalizeOps", ["InferType"]),
            roots=(BiasAddOp,),
            types_checked=True,
        )
