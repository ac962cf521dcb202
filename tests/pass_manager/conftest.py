"""Fixtures of the pass-manager conformance suite.

``placeholders`` registers record-only stand-ins for the Relay passes that TVM's tests
use (FoldConstant, EliminateCommonSubexpr, AlterOpLayout, DeadCodeElimination,
SimplifyExpr, AnnotateSpans, ToANormalForm) under their TVM names, kinds, opt_levels
and required lists, by monkeypatching the registry tables: nothing leaks to other
tests and the real passes (if registered) are restored afterwards. The stand-ins are
used even when a real pass exists, so the event orders checked here do not depend on
what the passes do.

``recorder`` makes instruments that log every hook call as ``"<tag> <hook>"`` (with
the pass name for the pass hooks) and can raise from one hook.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from xdsl.dialects.builtin import ModuleOp

from xrelay import relay
from xrelay.pass_manager import (
    FunctionPass,
    ModulePass,
    PassContext,
    PassInfo,
    PassInstrument,
    registry,
)
from xrelay.pass_manager.passes import ModuleKind

# (TVM name, kind, opt_level, required): catalogue §1 / behaviours §2 table.
RELAY_STANDINS: tuple[tuple[str, str, int, tuple[str, ...]], ...] = (
    ("AnnotateSpans", "module", 0, ()),
    ("ToANormalForm", "module", 1, ()),
    ("DeadCodeElimination", "module", 1, ("InferType",)),
    ("FoldConstant", "function", 2, ()),
    ("SimplifyExpr", "function", 0, ("InferType",)),
    ("EliminateCommonSubexpr", "function", 3, ("InferType",)),
    ("AlterOpLayout", "function", 3, ("InferType",)),
)


def _make_standin(
    name: str, kind: str, opt_level: int, required: tuple[str, ...], ran: list[str]
) -> Callable[[], Any]:
    if kind == "module":

        class ModuleStandIn(ModulePass):
            def __init__(self) -> None:
                super().__init__(
                    lambda mod, ctx: mod, PassInfo(opt_level, name, required)
                )

            def apply(
                self, op: ModuleOp, ctx: PassContext, kind: ModuleKind
            ) -> ModuleOp:
                ran.append(name)
                return super().apply(op, ctx, kind)

        return ModuleStandIn

    class FunctionStandIn(FunctionPass):
        def __init__(self) -> None:
            super().__init__(
                lambda func, mod, ctx: func, PassInfo(opt_level, name, required)
            )

        def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
            ran.append(name)
            return super().apply(op, ctx, kind)  # runs InferType afterwards

    return FunctionStandIn


@pytest.fixture
def ran() -> list[str]:
    """Names of the stand-in passes whose body ran, in order."""
    return []


@pytest.fixture
def placeholders(monkeypatch: pytest.MonkeyPatch, ran: list[str]) -> list[str]:
    """Register the record-only Relay stand-ins (see the module docstring); returns
    the list they append their name to when they run."""
    registry.all_entries()  # load the real registry first so nothing re-registers later
    for name, kind, opt_level, required in RELAY_STANDINS:
        factory = _make_standin(name, kind, opt_level, required, ran)
        entry = registry.PassEntry(
            name,
            registry.pipeline_name_of(name),
            factory,
            f"stand-in for {name} (records that it ran)",
        )
        monkeypatch.setitem(registry._BY_NAME, entry.name, entry)
        monkeypatch.setitem(registry._BY_PIPELINE, entry.pipeline_name, entry)
    return ran


@pytest.fixture
def register_standin(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., list[Any]]:
    """``register_standin(name, pass_factory)``: register any factory under ``name``
    for one test; returns the list of passes it created (one per lookup)."""
    registry.all_entries()

    def register(name: str, make: Callable[[], Any]) -> list[Any]:
        made: list[Any] = []

        def factory() -> Any:
            p = make()
            made.append(p)
            return p

        entry = registry.PassEntry(
            name, registry.pipeline_name_of(name), factory, f"test pass {name}"
        )
        monkeypatch.setitem(registry._BY_NAME, entry.name, entry)
        monkeypatch.setitem(registry._BY_PIPELINE, entry.pipeline_name, entry)
        return made

    return register


class Recorder(PassInstrument):
    """Logs ``"<tag> <hook>"`` (``"<tag> <hook> <pass>"`` for pass hooks) into
    ``events``; ``fail`` names a hook that raises ``RuntimeError`` after logging;
    ``veto`` is a predicate on pass names for ``should_run`` (default: run all)."""

    def __init__(
        self,
        tag: str,
        events: list[str],
        fail: str | None = None,
        veto: Callable[[str], bool] | None = None,
        with_names: bool = False,
    ):
        self.tag = tag
        self.events = events
        self.fail = fail
        self.veto = veto
        self.with_names = with_names

    def _log(self, hook: str, info: PassInfo | None = None) -> None:
        suffix = f" {info.name}" if (info is not None and self.with_names) else ""
        self.events.append(f"{self.tag} {hook}{suffix}")
        if hook == self.fail:
            raise RuntimeError(f"{self.tag} fails in {hook}")

    def enter_pass_ctx(self) -> None:
        self._log("enter_pass_ctx")

    def exit_pass_ctx(self) -> None:
        self._log("exit_pass_ctx")

    def should_run(self, mod: Any, info: PassInfo) -> bool:
        self._log("should_run", info)
        return not (self.veto is not None and self.veto(info.name))

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        self._log("run_before_pass", info)

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        self._log("run_after_pass", info)


@pytest.fixture
def recorder() -> type[Recorder]:
    return Recorder


@pytest.fixture
def events() -> list[str]:
    return []


def _small_module() -> relay.IRModule:
    x = relay.var("x", shape=(5, 10))
    y = relay.var("y", shape=(5, 10))
    return relay.IRModule.from_expr(relay.Function([x, y], relay.add(x, y)))


@pytest.fixture
def small_mod() -> Callable[[], relay.IRModule]:
    """A factory of fresh one-function modules: ``main(x, y) = x + y``."""
    return _small_module
