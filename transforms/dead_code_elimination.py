"""DeadCodeElimination: erase pure ops whose results are never used, in every
function of the module (mirrors Relay's ``DeadCodeElimination``, a module pass at
opt_level 1 that requires InferType).

Relay's pass removes unused ``let`` bindings whose value is pure; in SSA every op
result is such a binding, so the pass erases every unused op that is pure, also
inside ``relay.if`` regions, walking each block backwards so that whole dead chains
go in one run. Terminators are never erased.

Purity follows Relay's analysis:

* relay ops are pure unless their class says ``STATEFUL = True``;
* an op with regions (``relay.if``) is pure when everything inside is;
* a ``func.call`` is pure when the callee is defined in the module and its body is
  pure (a recursive call is assumed pure while its own body is being analysed, as
  Relay does; calls nested deeper than 25 levels are assumed impure); calls to
  declarations (no body) are impure;
* any other op is pure when xDSL says it has no side effect.

Options (Relay's):

* ``ignore_impurity``: treat every op as pure (an unused impure call is erased too);
* ``inline_once``: Relay substitutes a pure binding used exactly once into its use.
  SSA values are already "inlined" at their single use, so the one observable
  effect left is *where* the op runs: a pure op whose only use is inside a
  ``relay.if`` region is moved into that region (into the innermost one), so that it
  is computed only on the branch that needs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator
from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.structural import IfOp
from xrelay.pass_manager import ModulePass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.options import option

MAX_CALL_DEPTH = 25
"""Relay's limit on the depth of calls the purity analysis follows."""


class Purity:
    """Purity of ops in one module, with the callee bodies analysed on demand."""

    def __init__(self, module: ModuleOp, ignore_impurity: bool = False):
        self.ignore_impurity = ignore_impurity
        self.functions = {
            op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)
        }
        self.function_purity: dict[str, bool] = {}
        self.depth = 0

    def op_is_pure(self, op: Operation) -> bool:
        if self.ignore_impurity:
            return True
        if isinstance(op, CallOp):
            return self.call_is_pure(op)
        if isinstance(op, RelayOp):
            if op.STATEFUL:
                return False
            return all(self.op_is_pure(inner) for inner in _nested_ops(op))
        if op.regions:
            return would_be_trivially_dead(op) and all(
                self.op_is_pure(inner) for inner in _nested_ops(op)
            )
        return op.has_trait(IsTerminator) or would_be_trivially_dead(op)

    def call_is_pure(self, op: CallOp) -> bool:
        name = op.callee.string_value()
        func = self.functions.get(name)
        if func is None or not func.body.blocks:
            return False  # an external function: assumed to have effects
        known = self.function_purity.get(name)
        if known is not None:
            return known
        if self.depth >= MAX_CALL_DEPTH:
            return False
        self.function_purity[name] = True  # optimistic while recursing (Relay's rule)
        self.depth += 1
        try:
            pure = all(self.op_is_pure(inner) for inner in func.body.walk())
        finally:
            self.depth -= 1
        self.function_purity[name] = pure
        return pure


def _nested_ops(op: Operation) -> list[Operation]:
    return [inner for region in op.regions for inner in region.walk()]


def _is_dead(op: Operation, purity: Purity) -> bool:
    if op.has_trait(IsTerminator) or any(res.uses for res in op.results):
        return False
    return purity.op_is_pure(op)


def eliminate_dead_code(block: Block, purity: Purity) -> bool:
    """Erase the dead ops of ``block`` and of the regions inside it; True if any
    op was erased."""
    changed = False
    op = block.last_op
    while op is not None:
        prev = op.prev_op
        if _is_dead(op, purity):
            Rewriter.erase_op(op)
            changed = True
        else:
            for region in op.regions:
                for inner in region.blocks:
                    changed |= eliminate_dead_code(inner, purity)
        op = prev
    return changed


def sink_into_regions(block: Block, purity: Purity) -> bool:
    """Move each pure, region-free op whose only use is inside a ``relay.if``
    region (below ``block``) into the innermost region holding that use, just before
    the user's ancestor there. True if anything moved."""
    changed = False
    op = block.last_op
    while op is not None:
        prev = op.prev_op
        for region in op.regions:
            for inner in region.blocks:
                changed |= sink_into_regions(inner, purity)
        target = _sink_target(op, block, purity)
        if target is not None:
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(target))
            changed = True
            # the op may now be sinkable further down, into a nested region
            target_block = target.parent_block()
            if target_block is not None:
                sink_into_regions(target_block, purity)
        op = prev
    return changed


def _sink_target(op: Operation, block: Block, purity: Purity) -> Operation | None:
    """The op (in a region below ``block``) before which ``op`` should move, if its
    single use is inside a ``relay.if`` region."""
    if op.regions or op.has_trait(IsTerminator) or not purity.op_is_pure(op):
        return None
    uses = [use for res in op.results for use in res.uses]
    if len(uses) != 1:
        return None
    user = uses[0].operation
    if user.parent_block() is block:
        return None
    # the ancestor of the user that sits directly in ``block``
    ancestor = block.find_ancestor_op_in_block(user)
    if not isinstance(ancestor, IfOp) or ancestor is user:
        return None
    # the ancestor of the user directly inside the region of the if
    for region in ancestor.regions:
        for inner in region.blocks:
            top = inner.find_ancestor_op_in_block(user)
            if top is not None:
                return top
    return None


def eliminate_in_function(
    func: FuncOp, purity: Purity, inline_once: bool = False
) -> bool:
    """Dead-code-eliminate one function (and sink single-use ops into ``if``
    regions when ``inline_once``); True if it changed."""
    changed = False
    for block in func.body.blocks:
        changed |= eliminate_dead_code(block, purity)
        if inline_once:
            changed |= sink_into_regions(block, purity)
    return changed


@register_pass("DeadCodeElimination")
@dataclass(frozen=True, eq=False, repr=False)
class DeadCodeElimination(ModulePass):
    """Erase unused pure ops in every function, also inside ``relay.if`` regions
    (Relay's DeadCodeElimination: module pass, opt_level 1, requires InferType).
    ``ignore_impurity`` treats every op as pure; ``inline_once`` moves a pure op
    used once inside an ``if`` branch into that branch."""

    inline_once: bool = option(False, "move a pure op used once into its if branch")
    ignore_impurity: bool = option(False, "treat every op as pure")

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(1, "DeadCodeElimination", ["InferType"]))

    def _run(self, mod: Any, ctx: PassContext) -> Any:
        module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
        purity = Purity(module, self.ignore_impurity)
        for op in list(module.ops):
            if isinstance(op, FuncOp) and op.body.blocks:
                eliminate_in_function(op, purity, self.inline_once)
        return mod
