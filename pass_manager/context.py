"""``PassContext``: the configuration every pass runs under (TVM's
``tvm.transform.PassContext``).

A context holds ``opt_level`` (default: :mod:`.opt_levels`, TVM's 2), ``required_pass`` and ``disabled_pass``
(names), typed ``config`` options (registered in :mod:`.config`) and instruments.
``with ctx:`` makes it ``PassContext.current()`` on this thread; outside any ``with``,
``current()`` is the thread's own default context.

Instrument protocol (TVM's exact order and exception rules):

* entering calls every ``enter_pass_ctx`` in list order, then pushes the context; if
  one raises, the ones already entered are exited in reverse order, the instrument
  list is cleared, nothing is pushed and the exception propagates;
* exiting pops the context, then calls every ``exit_pass_ctx`` in list order; if one
  raises, the rest are skipped, the list is cleared and the exception propagates.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterable, Mapping
from contextlib import contextmanager
from types import MappingProxyType, TracebackType
from typing import Any

from xrelay.pass_manager.analysis import AnalysisManager
from xrelay.pass_manager.config import ConfigOption, list_configs, lookup_config
from xrelay.pass_manager.info import PassInfo
from xrelay.pass_manager.instrument import PassInstrument, TraceInstrument
from xrelay.pass_manager.opt_levels import default_opt_level


class PassContextError(RuntimeError):
    """A misuse of the context stack (exiting a context that is not on top)."""


class _Stack(threading.local):
    def __init__(self) -> None:
        self.contexts: list[PassContext] = []
        self.default: PassContext | None = None


_stack = _Stack()


def _check_instruments(insts: list[PassInstrument]) -> None:
    for inst in insts:
        if not isinstance(inst, PassInstrument):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"instruments must be PassInstrument objects, got {type(inst).__name__}"
            )


class PassContext:
    """The options and instruments passes run under."""

    __slots__ = (
        "_after",
        "_before",
        "_config",
        "_disabled",
        "_instruments",
        "_opt_level",
        "_required",
        "_should_run",
        "after_hooks",
        "analyses",
        "before_hooks",
        "immutable_module",
        "instrumented",
        "should_run_hooks",
        "verify_each",
    )

    def __init__(
        self,
        opt_level: int = default_opt_level("PassContext"),
        required_pass: Iterable[str] | None = None,
        disabled_pass: Iterable[str] | None = None,
        instruments: Iterable[PassInstrument] | None = None,
        config: Mapping[str, Any] | None = None,
        trace: Callable[[Any, PassInfo, bool], Any] | None = None,
    ):
        self._opt_level = int(opt_level)
        self._required: tuple[str, ...] = tuple(required_pass or ())
        self._disabled: tuple[str, ...] = tuple(disabled_pass or ())
        converted: dict[str, Any] = {}
        for key, value in (config or {}).items():
            converted[key] = lookup_config(key).convert(value)
        self._config: Mapping[str, Any] = MappingProxyType(converted)
        self.analyses = AnalysisManager(bool(self.get_config("xrelay.cache_analyses")))
        """Cached analyses of the module being optimised (:mod:`.analysis`)."""
        self.verify_each: bool = bool(self.get_config("xrelay.verify_each"))
        """Cached ``xrelay.verify_each`` (read on every pass)."""
        self.immutable_module: bool = bool(self.get_config("testing.immutable_module"))
        """Cached ``testing.immutable_module``."""
        insts = list(instruments or ())
        if trace is not None:
            insts.append(TraceInstrument(trace))
        _check_instruments(insts)
        self._set_instruments(insts)

    # -- read-only fields -------------------------------------------------------------

    @property
    def opt_level(self) -> int:
        return self._opt_level

    @property
    def required_pass(self) -> list[str]:
        return list(self._required)

    @property
    def disabled_pass(self) -> list[str]:
        return list(self._disabled)

    @property
    def config(self) -> Mapping[str, Any]:
        """The options set explicitly on this context (read-only)."""
        return self._config

    @property
    def instruments(self) -> list[PassInstrument]:
        return list(self._instruments)

    def get_config(self, key: str, default: Any = None) -> Any:
        """The value of a registered option: set here, else its registered default."""
        option: ConfigOption = lookup_config(key)
        if key in self._config:
            return self._config[key]
        return option.default if default is None else default

    @staticmethod
    def list_configs() -> dict[str, dict[str, str]]:
        """Every registered config option with its type name, default and doc."""
        return list_configs()

    # -- the thread-local stack -----------------------------------------------------

    @staticmethod
    def current() -> PassContext:
        """The innermost entered context on this thread, else the thread's default."""
        if _stack.contexts:
            return _stack.contexts[-1]
        if _stack.default is None:
            _stack.default = PassContext()
        return _stack.default

    @staticmethod
    def entered() -> bool:
        """Whether a context is entered on this thread (``current()`` is then not the
        thread's default)."""
        return bool(_stack.contexts)

    def __enter__(self) -> PassContext:
        self._enter_instruments(self._instruments)
        _stack.contexts.append(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not _stack.contexts:
            raise PassContextError("cannot exit a PassContext: no context is entered")
        if _stack.contexts[-1] is not self:
            raise PassContextError(
                "cannot exit a PassContext that is not the innermost one"
            )
        _stack.contexts.pop()
        self._exit_instruments()

    @contextmanager
    def with_opt_level(self, opt_level: int) -> Generator[PassContext, None, None]:
        """Within the block, a context like this one but at ``opt_level`` is current;
        it shares this context's instruments (they are not entered a second time)."""
        inner = PassContext(
            opt_level, self._required, self._disabled, config=dict(self._config)
        )
        inner.analyses = self.analyses
        inner._set_instruments(self._instruments)
        _stack.contexts.append(inner)
        try:
            yield inner
        finally:
            if _stack.contexts and _stack.contexts[-1] is inner:
                _stack.contexts.pop()

    @contextmanager
    def with_config(
        self, updates: Mapping[str, Any]
    ) -> Generator[PassContext, None, None]:
        """Within the block, a context like this one with ``updates`` added to its
        config is current; it shares this context's instruments and analyses."""
        inner = PassContext(
            self._opt_level,
            self._required,
            self._disabled,
            config={**self._config, **updates},
        )
        inner.analyses = self.analyses
        inner._set_instruments(self._instruments)
        _stack.contexts.append(inner)
        try:
            yield inner
        finally:
            if _stack.contexts and _stack.contexts[-1] is inner:
                _stack.contexts.pop()

    @contextmanager
    def with_instruments(
        self, first: Iterable[PassInstrument]
    ) -> Generator[PassContext, None, None]:
        """Within the block, a context like this one is current whose instruments are
        ``first`` followed by this context's (those are not entered a second time;
        ``first`` are neither entered nor exited)."""
        extra = list(first)
        _check_instruments(extra)
        inner = PassContext(
            self._opt_level, self._required, self._disabled, config=dict(self._config)
        )
        inner.analyses = self.analyses
        inner._set_instruments([*extra, *self._instruments])
        _stack.contexts.append(inner)
        try:
            yield inner
        finally:
            if _stack.contexts and _stack.contexts[-1] is inner:
                _stack.contexts.pop()

    def override_instruments(
        self, instruments: Iterable[PassInstrument] | None
    ) -> None:
        """Exit the current instruments (list order), then install and enter
        ``instruments``. ``None`` means none (as in TVM's Relay era). A failing exit
        or enter clears the list and propagates."""
        new = list(instruments or ())
        _check_instruments(new)
        self._exit_instruments()
        self._set_instruments(new)
        self._enter_instruments(new)

    def _enter_instruments(self, insts: list[PassInstrument]) -> None:
        entered: list[PassInstrument] = []
        try:
            for inst in insts:
                inst.enter_pass_ctx()
                entered.append(inst)
        except BaseException:
            for inst in reversed(entered):
                try:
                    inst.exit_pass_ctx()
                except Exception:  # the enter failure is the one reported
                    pass
            self._set_instruments([])
            raise

    def _exit_instruments(self) -> None:
        try:
            for inst in self._instruments:
                inst.exit_pass_ctx()
        except BaseException:
            self._set_instruments([])
            raise

    def _set_instruments(self, insts: list[PassInstrument]) -> None:
        self._instruments: list[PassInstrument] = insts
        self._should_run = [
            h for i in insts if (h := i.overridden("should_run")) is not None
        ]
        self._before = [
            h for i in insts if (h := i.overridden("run_before_pass")) is not None
        ]
        self._after = [
            h for i in insts if (h := i.overridden("run_after_pass")) is not None
        ]
        self.should_run_hooks: tuple[Callable[[Any, PassInfo], Any], ...] = tuple(
            self._should_run
        )
        """The overridden ``should_run`` hooks (read on every pass; the pass
        manager calls them through :meth:`instrument_should_run`)."""
        self.before_hooks: tuple[Callable[[Any, PassInfo], Any], ...] = tuple(
            self._before
        )
        """The overridden ``run_before_pass`` hooks, in instrument order."""
        self.after_hooks: tuple[Callable[[Any, PassInfo], Any], ...] = tuple(
            self._after
        )
        """The overridden ``run_after_pass`` hooks, in instrument order."""
        self.instrumented: bool = bool(self._should_run or self._before or self._after)
        """Whether any instrument has a pass hook (read on every pass)."""

    # -- what passes ask ------------------------------------------------------------

    def pass_enabled(self, info: PassInfo) -> bool:
        """Whether a Sequential runs a pass: disabled beats required beats opt_level."""
        if info.name in self._disabled:
            return False
        if info.name in self._required:
            return True
        return info.opt_level <= self._opt_level

    def instrument_should_run(self, mod: Any, info: PassInfo) -> bool:
        """AND of every instrument's ``should_run`` (all are asked; the context's
        required passes are not asked about)."""
        if not self._should_run or info.name in self._required:
            return True
        run = True
        for hook in self._should_run:
            answer = hook(mod, info)
            if not isinstance(answer, bool):
                raise TypeError(
                    f"should_run must return a bool, got {type(answer).__name__} "
                    f"for pass {info.name}"
                )
            run = run and answer
        return run

    def instrument_before(self, mod: Any, info: PassInfo) -> None:
        for hook in self._before:
            hook(mod, info)

    def instrument_after(self, mod: Any, info: PassInfo) -> None:
        for hook in self._after:
            hook(mod, info)

    def __repr__(self) -> str:
        return (
            f"PassContext(opt_level={self._opt_level}, required_pass={list(self._required)}, "
            f"disabled_pass={list(self._disabled)}, instruments={len(self._instruments)}, "
            f"config={dict(self._config)})"
        )
