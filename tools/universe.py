"""The ``xdsl.universe`` plugin: makes the relay dialect and every registered xrelay
pass available to stock ``xdsl-opt`` (and to every tool built on
``Universe.get_multiverse()``), under the passes' pipeline names."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target

from xrelay.tools.parser_fixes import install as install_parser_fixes

install_parser_fixes()  # no hang on a missing quote, no per-constant cost


def _relay_dialect() -> Dialect:
    from xrelay.dialects.relay import Relay

    return Relay


def all_dialects() -> dict[str, Callable[[], Dialect]]:
    """xrelay's dialects by name, as zero-argument factories."""
    return {"relay": _relay_dialect}


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """xrelay's registered passes by pipeline name, as factories of xDSL pass classes
    (the class fields are the pass options), those the ``xrelay.passes`` entry
    points and the plugins loaded so far register included (the xDSL pass classes
    of plugins are :func:`xrelay.tools.plugins.xdsl_passes`)."""
    from xrelay.pass_manager.registry import PassEntry, all_entries
    from xrelay.pass_manager.xdsl_interop import xdsl_pass_class
    from xrelay.tools import plugins

    plugins.load_entry_points()

    def factory(entry: PassEntry) -> Callable[[], type[ModulePass]]:
        return lambda: xdsl_pass_class(
            entry.pipeline_name, entry.factory, entry.options
        )

    return {e.pipeline_name: factory(e) for e in all_entries()}


def llvm_target() -> type[Target]:
    """xrelay's LLVM IR target (``-t xrelay-llvm`` in ``xdsl-opt``, ``-t llvm`` in
    ``xrelay-opt``)."""
    from xrelay.lowering.emit import XRelayLLVMTarget

    return XRelayLLVMTarget


def _xdsl_opt_llvm_target() -> type[Target]:
    from xrelay.lowering.emit import XRelayLLVMTargetForXDSLOpt

    return XRelayLLVMTargetForXDSLOpt


class _LazyUniverse(Universe):
    """Loads the pass list only when ``xdsl-opt`` asks for it."""

    def __init__(self) -> None:
        super().__init__(
            all_dialects=all_dialects(),
            all_targets={"xrelay-llvm": _xdsl_opt_llvm_target},
        )
        self._passes: dict[str, Callable[[], type[ModulePass]]] | None = None

    @property
    def all_passes(self) -> dict[str, Callable[[], type[ModulePass]]]:  # pyright: ignore[reportIncompatibleVariableOverride]
        if self._passes is None:
            self._passes = all_passes()
        return self._passes

    @all_passes.setter
    def all_passes(self, value: dict[str, Callable[[], type[ModulePass]]]) -> None:  # pyright: ignore[reportIncompatibleVariableOverride]
        self._passes = value or None


XRELAY_UNIVERSE = _LazyUniverse()
