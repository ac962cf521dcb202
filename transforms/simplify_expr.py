"""SimplifyExpr: algebraic and shape clean-ups as rewrite patterns applied to a fixed
point (mirrors Relay's ``SimplifyExpr``: function pass, opt_level 0, requires
InferType).

The rewrites (see :mod:`xrelay.transforms._simplify_patterns`, in Relay's order):

* ``zeros_like`` / ``ones_like`` / ``full_like`` / ``reshape_like`` /
  ``collapse_sum_like`` / ``broadcast_to_like`` with a static result type become the
  shape-explicit ops, ``cast_like`` becomes ``cast``;
* ``x + x`` → ``x * 2``; ``x / sqrt(y)`` → ``x * rsqrt(y)``;
* ``x + 0``, ``x - 0``, ``x * 1``, ``x / 1`` (constants or ``zeros``/``ones`` ops) → ``x``
  when that does not change the result type;
* consecutive reshapes (``reshape``, ``contrib_reverse_reshape``) → one; consecutive
  transposes / layout transforms → one or none; identity transposes, layout
  transforms and reshapes are dropped;
* a cast to the same dtype is dropped; ``cast(cast(x))`` → one cast when the first one
  widens;
* a ``full``/``ones``/``zeros`` operand of a broadcasting binary op → a 0-d constant;
* ``(x + c1) * c2`` → ``x * c2 + c1 * c2``; ``(x * c1) * c2`` and ``(x + c1) + c2`` merge
  their constants (folded right away);
* ``clip → cast → … → cast`` chains whose casts keep the clipped values drop the
  casts; a clip covering its dtype's range is dropped, ``clip(clip(x))`` merges;
* ``a*x*x + b*x*y + c*y*y`` → ``a * (x + p*y) * (x + q*y)`` (Relay's
  SimplifyBinomial), so ``x*x + 2*x*y + y*y`` → ``(x + y) * (x + y)``;
* ``argmax`` / ``argmin`` / ``argsort`` of ``qnn.dequantize(x)`` → the op on ``x`` when
  dequantizing is strictly increasing (positive constant scales, 8- or 16-bit data,
  per-channel parameters on a kept axis; Relay's SimplifyDQArgFunc, which checks
  none of it).
"""

from __future__ import annotations

from dataclasses import dataclass

from xrelay.pass_manager import PassInfo, PatternPass, register_pass
from xrelay.transforms._simplify_patterns import simplify_expr_patterns


@register_pass("SimplifyExpr")
@dataclass(frozen=True, eq=False, repr=False)
class SimplifyExpr(PatternPass):
    """Simplify expressions with Relay's SimplifyExpr rewrites (reshape/transpose
    chains, identity arithmetic, casts, clips, ``*_like`` ops) to a fixed point."""

    def __post_init__(self) -> None:
        super().__init__(
            simplify_expr_patterns(),
            PassInfo(0, "SimplifyExpr", ["InferType"]),
            types_checked=True,
        )
