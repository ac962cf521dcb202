"""AnnotateSpans: give every op the location of its text in the printed program
(Relay's ``AnnotateSpans``, a module pass at opt_level 0).

Relay prints the module and parses the text back, so that every node's span points
into that text (source ``GeneratedSource``): later errors and dumps then name a place
in a program a user can read, even for IR that was built in Python or rewritten by
passes and never had a source. xrelay does the same with its own text form, MLIR
(what ``astext()`` and ``xrelay-opt`` print): the module is printed, the text parsed
by the tools' locating parser, and each op of the module takes the
``loc("GeneratedSource":line:col)`` of its counterpart (the position of its name),
replacing any location it had. Only locations change: the IR is otherwise the same
op for op, and every analysis stays valid.

``AnnotateSpans(source_name)`` names the source (default ``GeneratedSource``);
``generated_source(mod)`` gives the text the locations point into.
"""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from xrelay.pass_manager import ModulePass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.analysis import ALL
from xrelay.pass_manager.options import option

DEFAULT_SOURCE = "GeneratedSource"


class AnnotateSpansError(Exception):
    """The printed program does not read back as the same ops (an op whose printed
    form its parser does not accept)."""


def generated_source(module: ModuleOp) -> str:
    """The text AnnotateSpans' locations point into: the module as printed."""
    out = StringIO()
    Printer(stream=out).print_op(module)
    out.write("\n")
    return out.getvalue()


def annotate_spans(module: ModuleOp, source_name: str = DEFAULT_SOURCE) -> str:
    """Set every op's location (``module`` itself included) to its place in the
    printed program, in place; returns that program."""
    from xrelay.dialects.locations import parse_mlir
    from xrelay.pass_manager.xdsl_interop import xdsl_context

    text = generated_source(module)
    parsed = parse_mlir(xdsl_context(), text, source_name)
    ops = list(module.walk())
    twins = list(parsed.walk())
    if len(ops) != len(twins) or any(
        a.name != b.name for a, b in zip(ops, twins, strict=True)
    ):
        raise AnnotateSpansError(
            "AnnotateSpans: the printed program does not read back as the same ops"
        )
    for op, twin in zip(ops, twins, strict=True):
        op.location = twin.location
    return text


@register_pass("AnnotateSpans")
@dataclass(frozen=True, eq=False, repr=False)
class AnnotateSpans(ModulePass):
    """Locate every op in the printed program (Relay's AnnotateSpans: module pass,
    opt_level 0)."""

    PRESERVES = ALL  # only locations change

    source_name: str = option(
        DEFAULT_SOURCE, "the file name the new locations point into"
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "source_name", self.source_name or DEFAULT_SOURCE)
        super().__init__(self._run, PassInfo(0, "AnnotateSpans"))

    def _run(self, mod: Any, ctx: PassContext) -> Any:
        module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
        annotate_spans(module, self.source_name)
        return mod
