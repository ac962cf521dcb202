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

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

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
from xrelay.pass_manager import PassInfo, PatternPass, register_pass

FAST_FORMS: tuple[tuple[type[RelayOp], type[RelayOp]], ...] = (
    (ExpOp, FastExpOp),
    (TanhOp, FastTanhOp),
    (ErfOp, FastErfOp),
    (SoftmaxOp, FastSoftmaxOp),
)
"""Each op with its fast form (Relay's FastMath list)."""


class ToFastForm(RewritePattern):
    """Replace an op of ``slow`` (exactly that class) by ``fast`` with the same
    operands, properties, attributes and result types."""

    def __init__(self, slow: type[RelayOp], fast: type[RelayOp]) -> None:
        self.slow = slow
        self.fast = fast

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) is not self.slow:
            return
        rewriter.replace(
            op,
            self.fast.create(
                operands=list(op.operands),
                result_types=list(op.result_types),
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            ),
        )


@register_pass("FastMath")
@dataclass(frozen=True, eq=False, repr=False)
class FastMath(PatternPass):
    """Replace exp, tanh, erf and nn.softmax by their fast forms (Relay's FastMath:
    function pass, opt_level 4, requires InferType): one walk of a
    :class:`ToFastForm` per entry of :data:`FAST_FORMS` over each function."""

    def __post_init__(self) -> None:
        super().__init__(
            [ToFastForm(slow, fast) for slow, fast in FAST_FORMS],
            PassInfo(4, "FastMath", ["InferType"]),
            roots=tuple(slow for slow, _ in FAST_FORMS),
            types_checked=True,
        )
