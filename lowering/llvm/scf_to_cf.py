"""``scf.for``/``scf.if``/``scf.index_switch`` → ``cf``, each op rewritten once.

The rewrites are xDSL's (``convert-scf-to-cf``: ``ForLowering``, ``IfLowering``,
``SwitchLowering``); only the driver differs. xDSL's greedy walker tries its three
patterns on every op of the module and walks the module once more to see that
nothing is left, which was about a fifth of the ``llvm dialect`` stage on ResNet-18.
A structured op's lowering never creates another one and only moves nested ops
into new blocks, so the structured ops are collected once, outermost first, and
each one is rewritten where it then is.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms.convert_scf_to_cf import (
    ForLowering,
    IfLowering,
    SwitchLowering,
)

from xrelay.lowering.errors import LoweringError

_PATTERNS: dict[type[Operation], RewritePattern] = {
    scf.ForOp: ForLowering(),
    scf.IfOp: IfLowering(),
    scf.IndexSwitchOp: SwitchLowering(),
}


def convert_scf_to_cf(module: ModuleOp) -> None:
    """Lower every ``scf.for``, ``scf.if`` and ``scf.index_switch`` of ``module`` to
    blocks and branches, in place."""
    todo = [op for op in module.walk() if type(op) in _PATTERNS]
    for op in todo:
        rewriter = PatternRewriter(op)
        _PATTERNS[type(op)].match_and_rewrite(op, rewriter)
        if not rewriter.has_done_action:
            raise LoweringError(f"{op.name}: cannot be lowered to cf", op)


__all__ = ["convert_scf_to_cf"]
