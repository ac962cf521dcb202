"""Pass instruments (TVM's ``tvm.ir.instrument``): hooks a PassContext calls around
every pass it runs.

An instrument may define any of ``enter_pass_ctx()``, ``exit_pass_ctx()``,
``should_run(mod, info) -> bool``, ``run_before_pass(mod, info)`` and
``run_after_pass(mod, info)``; only the methods a class overrides are called.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from time import perf_counter
from typing import IO, Any

from xrelay.pass_manager.info import PassInfo

_log = logging.getLogger("xrelay.pass_manager")

HOOKS = (
    "enter_pass_ctx",
    "exit_pass_ctx",
    "should_run",
    "run_before_pass",
    "run_after_pass",
)


class PassInstrument:
    """Base class of instruments: every hook is a no-op."""

    def enter_pass_ctx(self) -> None:
        """Called when a PassContext holding this instrument is entered."""

    def exit_pass_ctx(self) -> None:
        """Called when that PassContext is exited."""

    def should_run(self, mod: Any, info: PassInfo) -> bool:
        """Return False to skip the pass (not asked for the context's required passes)."""
        return True

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        """Called right before a pass runs, with its input module."""

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        """Called right after a pass returned, with its output module."""

    def overridden(self, hook: str) -> Callable[..., Any] | None:
        """The bound hook if this instrument's class overrides it."""
        if getattr(type(self), hook) is getattr(PassInstrument, hook):
            return None
        return getattr(self, hook)


def pass_instrument(pi_cls: type | None = None) -> Any:
    """Make a class an instrument: ``@pass_instrument`` or ``@pass_instrument()``.

    The result subclasses both the class and :class:`PassInstrument`, keeps the class's
    name, doc and module, and calls only the hooks the class defines.
    """

    def create(cls: type) -> type:
        if not isinstance(cls, type):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError("pi_cls must be a class")
        wrapped = type(cls.__name__, (cls, PassInstrument), {})
        wrapped.__doc__ = cls.__doc__
        wrapped.__module__ = cls.__module__
        wrapped.__qualname__ = cls.__qualname__
        return wrapped

    if pi_cls is None:
        return create
    return create(pi_cls)


# ---------------------------------------------------------------------------------------
# Pass timing
# ---------------------------------------------------------------------------------------


class _Profile:
    """One profiled pass call of a rendered tree."""

    __slots__ = ("children", "duration", "name")

    def __init__(self, name: str, duration: float, children: list[_Profile]):
        self.name = name
        self.duration = duration
        self.children = children


class _TimingState(threading.local):
    """The passes timed on this thread, as flat lists (no object per pass: timing
    must cost well under a microsecond per pass); ``render`` builds the tree."""

    def __init__(self) -> None:
        self.open: list[float] = []
        """Start times of the passes running now (innermost last)."""
        self.names: list[str] = []
        """Finished passes, in the order they finished (children before parents),
        with their nesting depth, start and end times."""
        self.depths: list[int] = []
        self.starts: list[float] = []
        self.ends: list[float] = []

    def clear(self) -> None:
        for lst in (self.open, self.names, self.depths, self.starts, self.ends):
            lst.clear()

    def tree(self) -> list[_Profile]:
        """The finished passes as trees (roots in order)."""
        waiting: dict[int, list[_Profile]] = {}  # finished children by depth
        for name, depth, start, end in zip(
            self.names, self.depths, self.starts, self.ends, strict=True
        ):
            node = _Profile(name, end - start, waiting.pop(depth + 1, []))
            waiting.setdefault(depth, []).append(node)
        return waiting.get(0, [])


_timing = _TimingState()


class PassTimingInstrument(PassInstrument):
    """Times every pass into a per-thread tree; ``render()`` prints it like TVM:
    one line per pass call, a tab per nesting level,
    ``name: <total>us [<self>us] (<% of all top-level>; <% of parent>)``."""

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        _timing.open.append(perf_counter())

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        end = perf_counter()
        t = _timing
        opened = t.open
        t.starts.append(opened.pop())
        t.ends.append(end)
        t.depths.append(len(opened))
        t.names.append(info.name)

    def exit_pass_ctx(self) -> None:
        # TVM clears only the tree, so a pass that raised leaves its node on the stack
        # and every later render() on the thread fails; xrelay clears both.
        _timing.clear()

    @staticmethod
    def render() -> str:
        """The timing tree of this thread, shared by every timing instrument on it
        ("" and a logged warning when nothing was profiled). Raises while a profiled
        pass has not finished: inside a pass, or after a pass raised (until the
        context is exited, which clears the tree)."""
        if _timing.open:
            raise RuntimeError("cannot print pass profile while still in a pass!")
        roots = _timing.tree()
        if not roots:
            _log.warning("no passes have been profiled, did you enable pass profiling?")
            return ""
        total = sum(r.duration for r in roots)
        lines: list[str] = []

        def emit(node: _Profile, depth: int, parent_total: float) -> None:
            own = node.duration - sum(c.duration for c in node.children)
            lines.append(
                "\t"
                * depth
                + f"{node.name}: {node.duration * 1e6:.0f}us [{own * 1e6:.0f}us] "
                f"({_pct(node.duration, total)}%; {_pct(node.duration, parent_total)}%)"
            )
            for child in node.children:
                emit(child, depth + 1, node.duration)

        for root in roots:
            emit(root, 0, total)
        return "\n".join(lines) + "\n"


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.2f}" if whole > 0 else "0.00"


# ---------------------------------------------------------------------------------------
# IR printing
# ---------------------------------------------------------------------------------------


def module_text(mod: Any, show_meta_data: bool = False) -> str:
    """MLIR text of a module (large constants elided unless ``show_meta_data``)."""
    from xrelay.dialects.relay import printing

    with printing.elide_constants(
        None if show_meta_data else printing.DEFAULT_ELIDE_LIMIT
    ):
        return str(getattr(mod, "module", mod))


class _Printer(PassInstrument):
    def __init__(self, file: IO[str] | None = None, show_meta_data: bool = False):
        self.file = file
        self.show_meta_data = show_meta_data

    def emit(self, header: str, mod: Any) -> None:
        out = self.file if self.file is not None else sys.stdout
        out.write(f"{header}\n{module_text(mod, self.show_meta_data)}\n\n")


class PrintBeforeAll(_Printer):
    """Print the module before every pass (``Before Running Pass: <info>``)."""

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        self.emit(f"Before Running Pass: {info}", mod)


class PrintAfterAll(_Printer):
    """Print the module after every pass (``After Running Pass: <info>``)."""

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        self.emit(f"After Running Pass: {info}", mod)


class PassPrintingInstrument(_Printer):
    """Print the module before the passes named in ``print_before`` and after those in
    ``print_after`` (TVM's ``PassPrintingInstrument``)."""

    def __init__(
        self,
        print_before: Iterable[str] = (),
        print_after: Iterable[str] = (),
        file: IO[str] | None = None,
        show_meta_data: bool = False,
    ):
        super().__init__(file, show_meta_data)
        self.print_before = set(print_before)
        self.print_after = set(print_after)

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        if info.name in self.print_before:
            self.emit(f"Print IR before: {info.name}", mod)

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        if info.name in self.print_after:
            self.emit(f"Print IR after: {info.name}", mod)


def PrintBefore(
    names: Iterable[str], file: IO[str] | None = None
) -> PassPrintingInstrument:
    """Print the module before each pass named in ``names``."""
    return PassPrintingInstrument(print_before=names, file=file)


def PrintAfter(
    names: Iterable[str], file: IO[str] | None = None
) -> PassPrintingInstrument:
    """Print the module after each pass named in ``names``."""
    return PassPrintingInstrument(print_after=names, file=file)


class DumpIR(PassInstrument):
    """Write the module after every pass to ``<dump_dir>/NNN_<pass name>.mlir``,
    numbered in completion order (so a Sequential comes after its children), as
    TVM's ``DumpIR`` (which writes TVMScript ``.py`` files). The folder is created
    if needed; ``refresh`` first removes the ``.mlir`` files in it."""

    def __init__(self, dump_dir: str | Path, refresh: bool = False):
        self.dump_dir = Path(dump_dir)
        self.counter = 0
        if refresh and self.dump_dir.is_dir():
            for old in self.dump_dir.glob("*.mlir"):
                old.unlink()

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        self.dump_dir.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_]", "_", info.name)
        path = self.dump_dir / f"{self.counter:03d}_{safe}.mlir"
        path.write_text(module_text(mod, show_meta_data=True) + "\n")
        self.counter += 1


class TraceInstrument(PassInstrument):
    """The old ``PassContext(trace=fn)`` callback: ``fn(mod, info, is_before)`` around
    every leaf pass (not around Sequentials)."""

    def __init__(self, trace: Callable[[Any, PassInfo, bool], Any]):
        self.trace = trace

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        if info.kind != "sequential":
            self.trace(mod, info, True)

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        if info.kind != "sequential":
            self.trace(mod, info, False)
