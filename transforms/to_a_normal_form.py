"""ToANormalForm: bind every value in the innermost scope that holds all its uses
(Relay's ``ToANormalForm``, a module pass at opt_level 1).

Relay's A-normal form names every intermediate value with a ``let`` and places each
binding in the scope that is the lowest common ancestor of its uses: a value used
only inside one branch of an ``if`` is bound inside that branch, so it is computed
only when the branch runs. xrelay's IR is SSA, which already names every value once
and fixes the order of evaluation (what the ``let`` chain does in Relay); what is
left of the conversion is the scoping. So this pass moves each pure op whose uses
all lie inside the same region of a ``relay.if`` (in one block of a function) into
that region, before the first op there that uses it, and repeats inside the region,
so that a chain of producers follows its consumer down. An op with a use outside the
region, an op with effects, and ops of functions marked ``relay.primitive`` (fused
kernels) or handed to an external compiler stay where they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from xrelay.dialects.relay.structural import IfOp
from xrelay.pass_manager import ModulePass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.passes import optimizable_functions
from xrelay.transforms.dead_code_elimination import Purity


def to_a_normal_form(module: ModuleOp) -> bool:
    """Scope the bindings of every optimizable function of ``module`` in place; True
    if an op moved."""
    purity = Purity(module)
    changed = False
    for func in optimizable_functions(module):
        for block in func.body.blocks:
            changed |= _scope_block(block, purity)
    return changed


def _scope_block(block: Block, purity: Purity) -> bool:
    """Sink the ops of ``block`` (last first, so producers follow their consumers)
    into the ``if`` regions that hold all their uses, then do the same inside every
    region of the block."""
    changed = False
    op = block.last_op
    while op is not None:
        prev = op.prev_op
        target = _scope_of_uses(op, block, purity)
        if target is not None:
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(target))
            changed = True
        op = prev
    for op in block.ops:
        for region in op.regions:
            for inner in region.blocks:
                changed |= _scope_block(inner, purity)
    return changed


def _scope_of_uses(op: Operation, block: Block, purity: Purity) -> Operation | None:
    """The op of an ``if`` region (below ``block``) before which ``op`` should be
    bound: the first op of that region's block that holds a use, when every use of
    ``op`` is inside that one region. None when ``op`` stays."""
    if op.has_trait(IsTerminator) or not purity.op_is_pure(op):
        return None
    users = [use.operation for res in op.results for use in res.uses]
    if not users:
        return None
    region: Region | None = None
    for user in users:
        ancestor = block.find_ancestor_op_in_block(user)
        if not isinstance(ancestor, IfOp) or ancestor is user:
            return None
        inner = next(r for r in ancestor.regions if r.is_ancestor(user))
        if region is None:
            region = inner
        elif inner is not region:
            return None
    assert region is not None
    inner_block = region.block
    tops = [inner_block.find_ancestor_op_in_block(user) for user in users]
    return min(
        (top for top in tops if top is not None), key=inner_block.get_operation_index
    )


@register_pass("ToANormalForm")
@dataclass(frozen=True, eq=False, repr=False)
class ToANormalForm(ModulePass):
    """Bind each pure value inside the ``if`` branch that holds all its uses
    (Relay's ToANormalForm: module pass, opt_level 1)."""

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(1, "ToANormalForm"))

    def _run(self, mod: Any, ctx: PassContext) -> Any:
        module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
        if not to_a_normal_form(module):
            ctx.analyses.preserve()  # nothing moved
        return mod
