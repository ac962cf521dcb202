"""FastMath: replace ``exp``, ``tanh``, ``erf`` and ``nn.softmax`` by their fast
approximations ``fast_exp``, ``fast_tanh``, ``fast_erf`` and ``nn.fast_softmax``
(mirrors Relay's ``FastMath``, a function pass at opt_level 4 that requires
InferType).

The replacement keeps the operands, attributes (softmax's ``axis``) and result types.
In the reference semantics the fast ops are exact; the approximation is the
lowering's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.elementwise import (
    ErfOp,
    ExpOp,
    FastErfOp,
    FastExpOp,
    FastTanhOp,
    TanhOp,
)
from xrelay.dialects.relay.nn import FastSoftmaxOp, SoftmaxOp
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass

FAST_FORMS: tuple[tuple[type[RelayOp], type[RelayOp]], ...] = (
    (ExpOp, FastExpOp),
    (TanhOp, FastTanhOp),
    (ErfOp, FastErfOp),
    (SoftmaxOp, FastSoftmaxOp),
)
"""Each op with its fast form (Relay's FastMath list)."""


def fast_form(op: Operation) -> type[RelayOp] | None:
    for slow, fast in FAST_FORMS:
        if type(op) is slow:
            return fast
    return None


def fast_math(func: FuncOp) -> bool:
    """Replace the ops of one function that have a fast form; True if any was."""
    changed = False
    for op in list(func.body.walk()):
        fast = fast_form(op)
        if fast is None:
            continue
        new = fast.create(
            operands=list(op.operands),
            result_types=list(op.result_types),
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        Rewriter.replace_op(op, new)
        changed = True
    return changed


@register_pass("FastMath")
@dataclass(frozen=True, eq=False, repr=False)
class FastMath(FunctionPass):
    """Replace exp, tanh, erf and nn.softmax by their fast forms (Relay's FastMath:
    function pass, opt_level 4, requires InferType)."""

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(4, "FastMath", ["InferType"]))

    @staticmethod
    def _run(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not fast_math(func):
            ctx.analyses.preserve()  # nothing changed
        return func
