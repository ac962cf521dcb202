"""FoldScaleAxis: fold per-channel scales into conv2d/dense weights in both directions
and bake them (mirrors Relay's ``FoldScaleAxis``: a Sequential of
BackwardFoldScaleAxis, ForwardFoldScaleAxis and FoldConstant, opt_level 0).

The Sequential gates its children as Relay's does: the two folding passes run at
opt_level 3 and above, FoldConstant at 2 and above (each after its required passes).
FoldConstant is looked up by name in the pass registry when the pass runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from xrelay.pass_manager import Pass, PassContext, Sequential, get_pass, register_pass
from xrelay.pass_manager.passes import ModuleKind
from xrelay.pass_manager.registry import UnknownPassError
from xrelay.transforms.backward_fold_scale_axis import BackwardFoldScaleAxis
from xrelay.transforms.forward_fold_scale_axis import ForwardFoldScaleAxis


@register_pass("FoldScaleAxis")
@dataclass(frozen=True, eq=False, repr=False)
class FoldScaleAxis(Sequential):
    """Fold per-channel multiplies before and after conv2d/dense into their weights,
    then fold the constants (Relay's FoldScaleAxis: Backward, Forward, FoldConstant)."""

    def __post_init__(self) -> None:
        super().__init__(_children(required=False), opt_level=0, name="FoldScaleAxis")

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        # the children are looked up again when the pass runs (see the module doc),
        # in a Sequential of this run: the pass itself is frozen
        run = Sequential(_children(required=True), opt_level=0, name="FoldScaleAxis")
        return run.apply(op, ctx, kind)


def _children(required: bool) -> list[Pass]:
    """The three passes; without FoldConstant in the registry the list is only the
    two folding passes unless ``required`` (then the registry's error is raised)."""
    passes: list[Pass] = [BackwardFoldScaleAxis(), ForwardFoldScaleAxis()]
    try:
        passes.append(get_pass("FoldConstant"))
    except UnknownPassError:
        if required:
            raise
    return passes
