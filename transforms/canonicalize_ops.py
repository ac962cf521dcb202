"""CanonicalizeOps: lower ``nn.bias_add`` to a broadcasting ``add`` (mirrors Relay's
``CanonicalizeOps``, a function pass at opt_level 3 that requires InferType).

``nn.bias_add(x, b, axis)`` becomes ``add(x, expand_dims(b, axis=1,
num_newaxis=ndim - axis - 1))``: the 1-D bias gets trailing size-1 dims so that it
broadcasts along ``axis``; when ``axis`` is the last dim the bias is added as it is.
A ``bias_add`` whose data type is not known (unranked) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.dialects.relay.base import get_int
from xrelay.dialects.relay.elementwise import AddOp, BiasAddOp
from xrelay.dialects.relay.transform import ExpandDimsOp
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass


def canonicalize_bias_add(op: BiasAddOp) -> bool:
    """Replace one ``nn.bias_add``; False if its data type is unknown."""
    ty = op.data.type
    if not isinstance(ty, TensorType):
        return False
    ndim = len(cast(TensorType, ty).get_shape())
    axis = get_int(op.axis) % ndim
    bias = op.bias
    trailing = ndim - axis - 1
    if trailing > 0:
        expand = ExpandDimsOp.make([bias], {"axis": 1, "num_newaxis": trailing})
        Rewriter.insert_op(expand, InsertPoint.before(op))
        bias = expand.results[0]
    add = AddOp.make([op.data, bias])
    Rewriter.replace_op(op, add)
    return True


def canonicalize_ops(func: FuncOp) -> bool:
    """Canonicalize the ops of one function in place; True if any changed."""
    changed = False
    for op in list(func.body.walk()):
        if isinstance(op, BiasAddOp):
            changed |= canonicalize_bias_add(op)
    return changed


@register_pass("CanonicalizeOps")
@dataclass(frozen=True, eq=False, repr=False)
class CanonicalizeOps(FunctionPass):
    """Lower ``nn.bias_add`` to ``expand_dims`` + ``add`` (Relay's CanonicalizeOps:
    function pass, opt_level 3, requires InferType)."""

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(3, "CanonicalizeOps", ["InferType"]))

    @staticmethod
    def _run(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not canonicalize_ops(func):
            ctx.analyses.preserve()  # nothing changed
        return func
