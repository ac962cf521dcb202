"""RemoveUnusedFunctions: delete the functions that cannot be reached from the entry
functions (mirrors Relay's ``RemoveUnusedFunctions``, a module pass at opt_level 1;
``entry_functions`` defaults to ``("main",)``).

A function is reached when an entry function refers to it (a ``func.call``, or any
symbol reference in an op's attributes), directly or through other reached
functions. An entry name that is not in the module is an error, as in Relay.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xrelay.pass_manager import ModulePass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.analysis import ALL
from xrelay.pass_manager.options import normalise, option

DEFAULT_ENTRIES = ("main",)


class MissingEntryError(DiagnosticException):
    """An entry function is not in the module."""


def _references(func: FuncOp) -> set[str]:
    names: set[str] = set()
    for op in func.walk():
        if op is func:
            continue
        for attr in (*op.properties.values(), *op.attributes.values()):
            if isinstance(attr, SymbolRefAttr):
                names.add(attr.root_reference.data)
    return names


def reachable_functions(module: ModuleOp, entries: Sequence[str]) -> set[str]:
    """The names of the functions reachable from ``entries``."""
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    missing = [name for name in entries if name not in funcs]
    if missing:
        known = ", ".join(f"@{name}" for name in funcs) or "none"
        raise MissingEntryError(
            f"RemoveUnusedFunctions: the entry function @{missing[0]} is not in the "
            f"module (functions: {known})"
        )
    seen: set[str] = set()
    stack = list(entries)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(n for n in _references(funcs[name]) if n in funcs)
    return seen


def remove_unused_functions(module: ModuleOp, entries: Sequence[str]) -> list[str]:
    """Delete the unreachable functions of ``module`` in place; returns their
    names."""
    keep = reachable_functions(module, entries)
    removed: list[str] = []
    for op in list(module.ops):
        if isinstance(op, FuncOp) and op.sym_name.data not in keep:
            removed.append(op.sym_name.data)
            Rewriter.erase_op(op)
    return removed


@register_pass("RemoveUnusedFunctions")
@dataclass(frozen=True, eq=False, repr=False)
class RemoveUnusedFunctions(ModulePass):
    """Delete the functions not reachable from ``entry_functions`` (default
    ``("main",)``) through calls (Relay's RemoveUnusedFunctions: module pass,
    opt_level 1). A name, a list or ``None`` (the default) is normalised to a
    tuple."""

    entry_functions: Sequence[str] | str | None = option(
        DEFAULT_ENTRIES,
        "the functions kept with everything they call",
        parse_as=tuple[str, ...],
    )

    def __post_init__(self) -> None:
        entries = self.entry_functions
        if isinstance(entries, str):
            entries = [entries]
        normalise(
            self,
            "entry_functions",
            tuple(DEFAULT_ENTRIES if entries is None else entries),
        )
        super().__init__(self._run, PassInfo(1, "RemoveUnusedFunctions"))

    PRESERVES = ALL  # invalidates the analyses itself, when it removed a function

    def _run(self, mod: Any, ctx: PassContext) -> Any:
        module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
        entries = cast(tuple[str, ...], self.entry_functions)  # (__post_init__)
        if remove_unused_functions(module, entries):
            ctx.analyses.invalidate()
        return mod
