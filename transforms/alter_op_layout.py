"""AlterOpLayout: let each op pick the layout the target runs it fastest in (mirrors
Relay's ``AlterOpLayout``: function pass, opt_level 3, requires InferType).

Each op is asked for a replacement by its ``alter_layout(target, operand_types)``
hook, Relay's ``FTVMAlterOpLayout``. On CPU targets (the default, ``llvm``):

* ``nn.conv2d`` (``NCHW``/``OIHW``, ``groups == 1``, static shapes) becomes
  ``nn.contrib_conv2d_NCHWc`` with data ``NCHW{ic}c``, kernel ``OIHW{ic}i{oc}o`` and
  result ``NCHW{oc}c``;
* ``nn.dense`` (data of rank 2 or more, static shapes) becomes
  ``nn.contrib_dense_pack`` with the weight packed as ``NC{n}n``, keeping the data's
  leading dims; so does ``nn.matmul`` with a matrix ``B`` and no ``transpose_a``
  (``B`` packed from ``CN``, or from ``NC`` with ``transpose_b``);

block sizes from :mod:`xrelay.lowering.cpu_layout` (channels without a block
larger than 1 leave the op alone). Before that, each op is asked whether it splits
into ops the target's layouts suit (``split_for_layout``): a dense with a constant
weight whose units no block divides (a language model's 50257 outputs) becomes a
dense over the leading units that blocks hold (then packed) and one over the few
after them, concatenated. The ops between blocked convolutions follow the
blocked layout through their layout rules, and ``layout_transform``s are inserted where
layouts meet (on a weight constant, FoldConstant then folds the transform away); the
function's results go back to their original layouts (see
:mod:`xrelay.transforms._layout_rewrite`).

``target`` is a pass option (``alter-op-layout{target="llvm"}``); when it is not
given, the pass reads the current ``xrelay.target.Target`` (``with
Target("llvm -mcpu=...")``), as Relay does, else uses ``llvm``.

A hook registered for an op (``relay.op.register_alter_op_layout``, or
``TempOpAttr(op, "FTVMAlterOpLayout", fn)``) replaces the op class's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.dialects.relay import frontend_calls
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.layout_rules import Replacement
from xrelay.dialects.relay.op_attrs import ALTER_OP_LAYOUT, get_op_attr
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.options import option
from xrelay.target import current_target_text
from xrelay.transforms._layout_rewrite import LayoutRewriter


def alter_op_layout(func: FuncOp, target: str = "llvm") -> bool:
    """Alter the layouts of one function in place for ``target``; True if it
    changed."""

    def hook(op: RelayOp, types: Sequence[Attribute]) -> RelayOp | Replacement | None:
        user = get_op_attr(op.name, ALTER_OP_LAYOUT)
        if user is not None:
            run = frontend_calls.require(frontend_calls.RUN_ALTER_HOOK)
            return run(user, op, types)
        return op.alter_layout(target, types)

    split = split_for_layout(func, target)
    return LayoutRewriter(hook).rewrite(func) or split


def split_for_layout(func: FuncOp, target: str) -> bool:
    """Ask every op of ``func`` whether it splits into ops the target's layouts
    suit (``split_for_layout``: a dense whose units no block divides becomes a
    packable dense and a small one, concatenated); replace those that do. True if
    anything changed."""
    changed = False
    for op in list(func.walk()):
        split = getattr(op, "split_for_layout", None)
        if not isinstance(op, RelayOp) or split is None:
            continue
        if get_op_attr(op.name, ALTER_OP_LAYOUT) is not None:
            continue  # a registered hook decides the op's layout alone
        found = split(target)
        if found is None:
            continue
        ops, value = found
        Rewriter.insert_op(ops, InsertPoint.before(op))
        old = list(op.operands)
        op.results[0].replace_all_uses_with(value)
        Rewriter.erase_op(op)
        for operand in old:
            owner = operand.owner
            if isinstance(owner, ConstantOp) and not owner.result.uses:
                Rewriter.erase_op(owner)
        changed = True
    return changed


@register_pass("AlterOpLayout")
@dataclass(frozen=True, eq=False, repr=False)
class AlterOpLayout(FunctionPass):
    """Replace ops by the target's preferred layouts (CPU: blocked ``NCHW{c}c``
    convolutions, packed dense weights) and insert the layout transforms between
    (Relay's AlterOpLayout: function pass, opt_level 3, requires InferType)."""

    target: str = option("", "the target whose layouts to use (empty: current)")

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(3, "AlterOpLayout", ["InferType"]))

    def _run(self, func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not alter_op_layout(func, self.target or current_target_text("llvm")):
            ctx.analyses.preserve()  # nothing changed
        return func
