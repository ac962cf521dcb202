"""EliminateCommonSubexpr: merge ops that compute the same value (mirrors Relay's
``EliminateCommonSubexpr``, a function pass at opt_level 3 that requires InferType).

Two relay ops are merged when they have the same name, the same operands (the very
same SSA values), equal properties (defaults included) and attributes, and the same
result types. The walk is in program order, so once two ops are merged their users
have identical operands and are merged in turn: equality propagates bottom-up in one
run, as in Relay. ``relay.tuple_get_item`` and ``relay.tuple`` merge by the same rule
(Relay compares tuple arguments field by field).

Relay also treats two equal *scalar constants* as the same argument; here equal
``relay.constant`` ops (same type and bytes) are merged, which gives that and more.

Scoping follows SSA dominance: an op in a ``relay.if`` region may be replaced by an
equal op before the ``if`` (or earlier in the same region), never by one in another
region.

Never merged (Relay's rules): ops without operands other than constants
(``relay.zeros``), ops with ``STATEFUL = True``, ops with regions, terminators,
non-relay ops (``func.call``), and ops for which ``fskip(expr)`` returns True. The
regions of region ops other than ``relay.if`` (fused kernels) are left alone.

``fskip`` receives the op as Relay shows it (TVM's callback contract): a
``relay.Call`` with ``.op.name`` (``"nn.dropout"``), ``.args`` (relay expressions)
and ``.attrs``, or a ``relay.Constant`` (see :mod:`xrelay.frontend.relay.lift`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay import frontend_calls
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.structural import ConstantOp, IfOp, YieldOp
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.options import argument

SkipFn = Callable[[Any], bool]
"""``fskip(expr) -> bool`` on the op as a relay expression: True keeps it out."""


def op_key(op: RelayOp) -> Hashable:
    """What two ops must share to be merged: name, operands, properties (with their
    defaults), attributes and result types."""
    definition = op.get_irdl_definition()
    props = tuple((name, op.attr(name)) for name in sorted(definition.properties))
    extra = tuple(
        sorted(
            (name, value)
            for name, value in op.properties.items()
            if name not in definition.properties
        )
    )
    attrs = tuple(sorted(op.attributes.items()))
    return (
        op.name,
        tuple(op.operands),
        props,
        extra,
        attrs,
        tuple(op.result_types),
    )


def _mergeable(op: Operation) -> bool:
    if not isinstance(op, RelayOp) or op.regions or isinstance(op, YieldOp):
        return False
    if op.STATEFUL:
        return False
    return bool(op.operands) or isinstance(op, ConstantOp)


class _Eliminator:
    def __init__(self, fskip: SkipFn | None, func: FuncOp):
        self.fskip = fskip
        self.func = func
        self.lifter: Any = None
        self.scopes: list[dict[Hashable, Operation]] = []
        self.changed = False

    def skipped(self, op: Operation) -> bool:
        """``fskip`` on the op as a relay expression (lifted on first use)."""
        if self.fskip is None:
            return False
        if self.lifter is None:
            self.lifter = frontend_calls.require(frontend_calls.LIFTER)()
            self.lifter.params(self.func.body.block)
        return bool(self.fskip(self.lifter.op_expr(op)))

    def lookup(self, key: Hashable) -> Operation | None:
        for scope in reversed(self.scopes):
            found = scope.get(key)
            if found is not None:
                return found
        return None

    def run_block(self, block: Block) -> None:
        self.scopes.append({})
        try:
            for op in list(block.ops):
                self.visit(op)
        finally:
            self.scopes.pop()

    def visit(self, op: Operation) -> None:
        if isinstance(op, IfOp):
            for region in op.regions:
                for block in region.blocks:
                    self.run_block(block)
            return
        if not _mergeable(op) or self.skipped(op):
            return
        assert isinstance(op, RelayOp)
        try:
            key = op_key(op)
            hash(key)
        except TypeError:  # an unhashable attribute: leave the op alone
            return
        earlier = self.lookup(key)
        if earlier is None:
            self.scopes[-1][key] = op
            return
        for old, new in zip(op.results, earlier.results, strict=True):
            old.replace_all_uses_with(new)
        Rewriter.erase_op(op)
        self.changed = True


def eliminate_common_subexpr(func: FuncOp, fskip: SkipFn | None = None) -> bool:
    """Merge the common subexpressions of one function in place; True if any op
    was merged."""
    eliminator = _Eliminator(fskip, func)
    for block in func.body.blocks:
        eliminator.run_block(block)
    return eliminator.changed


@register_pass("EliminateCommonSubexpr")
@dataclass(frozen=True, eq=False, repr=False)
class EliminateCommonSubexpr(FunctionPass):
    """Merge relay ops with the same name, operands and attributes, and equal
    constants (Relay's EliminateCommonSubexpr: function pass, opt_level 3, requires
    InferType). ``fskip(expr)`` (a ``relay.Call``) returning True keeps the op out
    (a callable: no ``-p`` option)."""

    fskip: SkipFn | None = argument(None)

    def __post_init__(self) -> None:
        super().__init__(
            self._run, PassInfo(3, "EliminateCommonSubexpr", ["InferType"])
        )

    def _run(self, func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        # merged ops have equal result types: the types stay valid either way
        if eliminate_common_subexpr(func, self.fskip):
            ctx.analyses.preserve("types")
        else:
            ctx.analyses.preserve()
        return func
