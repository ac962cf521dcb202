"""SimplifyExprPostAlterOp: the clean-ups of SimplifyExpr that matter after
AlterOpLayout (mirrors Relay's ``SimplifyExprPostAlterOp``: function pass,
opt_level 0, requires InferType).

Only these rewrites of :mod:`xrelay.transforms._simplify_patterns` run, in Relay's
order: identity arithmetic (``x + 0``, ``x * 1``, ...), reshape chains and no-op
reshapes, same-dtype casts, consecutive widening casts, ``clip → cast`` chains and
redundant clips.
"""

from __future__ import annotations

from dataclasses import dataclass

from xrelay.pass_manager import PassInfo, PatternPass, register_pass
from xrelay.transforms._simplify_patterns import post_alter_op_patterns


@register_pass("SimplifyExprPostAlterOp")
@dataclass(frozen=True, eq=False, repr=False)
class SimplifyExprPostAlterOp(PatternPass):
    """Simplify identity arithmetic, reshapes, casts and clips left by AlterOpLayout
    (the subset of SimplifyExpr Relay runs after it)."""

    def __post_init__(self) -> None:
        super().__init__(
            post_alter_op_patterns(),
            PassInfo(0, "SimplifyExprPostAlterOp", ["InferType"]),
            types_checked=True,
        )
