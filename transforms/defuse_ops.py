"""DefuseOps: inline the fused kernels back into their callers (Relay's ``DefuseOps``,
opt_level 3, requires InferType).

Every ``func.call`` to a function marked ``relay.primitive`` (with a body) inside an
optimizable function is replaced by the callee's body, its parameters bound to the
call's operands (calls the inlined body makes to primitive functions are inlined
too). Primitive functions nothing calls any more are then removed from the module.

Each block where something was inlined is put back in Relay's post-DFS order (depth
first from the block's terminator, operands in order, the order the relay builder
emits ops in), because a fused group's ops need not have been contiguous before
FuseOps. So ``DefuseOps(FuseOps(m))`` is structurally equal to ``m`` for modules
built with the builder (or written in that order); for others it equals ``m`` up to
the order of independent ops.

Departures from Relay: parameters are bound by position (SSA block arguments), not by
name, so duplicate parameter names are no error; with ``relay.FuseOps.link_params``
a constant shared by several kernels comes back as one copy per kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay.structural import PRIMITIVE
from xrelay.pass_manager import Pass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.options import set_info
from xrelay.pass_manager.passes import optimizable_functions
from xrelay.transforms._fusion import block_terminator, post_dfs_order

MAX_INLINE_DEPTH = 64
"""Nesting limit for primitive functions calling primitive functions."""


class DefuseError(DiagnosticException):
    """A primitive function cannot be inlined (it calls itself, or its signature does
    not match a call); ``op`` is the call."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


@register_pass("DefuseOps")
@dataclass(frozen=True, eq=False, repr=False)
class DefuseOps(Pass):
    """Inline every call to a ``relay.primitive`` function and remove the primitive
    functions left unused (Relay's ``DefuseOps``, the inverse of FuseOps)."""

    def __post_init__(self) -> None:
        set_info(self, PassInfo(3, "DefuseOps", ["InferType"]))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        defuse_ops(op)
        return op


def defuse_ops(module: ModuleOp) -> None:
    """Inline the primitive functions of ``module`` into their callers, in place."""
    primitives = {
        f.sym_name.data: f
        for f in module.ops
        if isinstance(f, FuncOp) and PRIMITIVE in f.attributes and f.body.blocks
    }
    if not primitives:
        return
    for func in optimizable_functions(module):
        _defuse_block(func.body.block, primitives, func)
    while True:  # drop unused primitives (then those only they called)
        called: set[str] = {
            op.callee.string_value() for op in module.walk() if isinstance(op, CallOp)
        }
        unused = [name for name in primitives if name not in called]
        if not unused:
            break
        for name in unused:
            module.body.block.erase_op(primitives.pop(name))


def _defuse_block(block: Block, primitives: dict[str, FuncOp], caller: FuncOp) -> None:
    changed = False
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                _defuse_block(inner, primitives, caller)
        if isinstance(op, CallOp) and op.callee.string_value() in primitives:
            _inline(op, primitives, caller, ())
            changed = True
    if changed:
        reschedule(block)


def _inline(
    call: CallOp,
    primitives: dict[str, FuncOp],
    caller: FuncOp,
    active: tuple[str, ...],
) -> list[SSAValue]:
    """Replace ``call`` by a copy of its callee's body; returns the values that
    replaced the call's results."""
    name = call.callee.string_value()
    if name in active or len(active) >= MAX_INLINE_DEPTH:
        raise DefuseError(
            call,
            f"@{caller.sym_name.data}: cannot inline @{name}: primitive functions "
            f"call each other recursively ({' -> '.join((*active, name))})",
        )
    callee = primitives[name]
    body = callee.body.block
    if len(body.args) != len(call.operands) or len(
        callee.function_type.outputs.data
    ) != len(call.results):
        raise DefuseError(
            call,
            f"@{caller.sym_name.data}: the call to @{name} does not match its "
            f"signature ({len(call.operands)} arguments, {len(call.results)} results)",
        )
    block = call.parent
    assert block is not None
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, call.operands, strict=True))
    terminator = block_terminator(body)
    for op in body.ops:
        if op is terminator:
            continue
        clone = op.clone(value_mapper=mapping)
        block.insert_op_before(clone, call)
        if isinstance(clone, CallOp) and clone.callee.string_value() in primitives:
            inlined = _inline(clone, primitives, caller, (*active, name))
            mapping.update(zip(op.results, inlined, strict=True))
    returned = [] if terminator is None else list(terminator.operands)
    replacements: list[SSAValue] = []
    for res, value in zip(call.results, returned, strict=True):
        new = mapping.get(value, value)
        if not new.name_hint:
            new.name_hint = res.name_hint
        res.replace_all_uses_with(new)
        replacements.append(new)
    block.erase_op(call)
    return replacements


def reschedule(block: Block) -> None:
    """Put the block's ops in post-DFS order (the terminator stays last)."""
    order = post_dfs_order(block)
    if list(block.ops)[: len(order)] == order:
        return
    terminator = block_terminator(block)
    for op in order:
        block.detach_op(op)
        if terminator is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, terminator)
