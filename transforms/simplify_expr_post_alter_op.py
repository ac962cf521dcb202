"""SimplifyExprPostAlterOp: the clean-ups of SimplifyExpr that matter after
AlterOpLayout (mirrors Relay's ``SimplifyExprPostAlterOp``: function pass,
opt_level 0, requires InferType).

Only these rewrites of :mod:`xrelay.transforms._simplify_patterns` run, in Relay's
order: identity arithmetic (``x + 0``, ``x * 1``, ...), reshape chains and no-op
reshapes, same-dtype casts, consecutive widening casts, ``clip → cast`` chains and
redundant clips.
"""

from __future__ import annotations

from xrelay.pass_manager import Pass, pattern_pass, register_pass
from xrelay.transforms._simplify_patterns import post_alter_op_patterns


@register_pass("SimplifyExprPostAlterOp")
def SimplifyExprPostAlterOp() -> Pass:
    """Simplify identity arithmetic, reshapes, casts and clips left by AlterOpLayout
    (the subset of SimplifyExpr Relay runs after it)."""
    return pattern_pass(
        "SimplifyExprPostAlterOp",
        post_alter_op_patterns(),
        opt_level=0,
        required=["InferType"],
    )
