"""One-line diagnostics for the command-line tools.

Every error a user can cause ends as one line on stderr, ``file:line:col: error:
message`` when the error has a source location and ``<tool>: error: message``
otherwise, and a non-zero exit code; the Python traceback is shown only with
``--debug``. :func:`diagnose` turns an exception into that line and
:func:`exit_code` into the exit code: 2 for a bad command line (a
:class:`UsageError`: a flag's value, a pipeline, a config key, flags that exclude
each other), 1 for everything else (bad input files, failed passes, mismatches).
"""

from __future__ import annotations

import re
import sys
import warnings
from typing import Any

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
)

from xrelay.dialects.locations import location_of
from xrelay.dialects.relay.dtypes import DTypeError
from xrelay.errors import UserError
from xrelay.runtime.threads import ThreadCountError
from xrelay.settings import SettingError
from xrelay.status import IndexOutOfRangeError


class UsageError(UserError):
    """A bad command line, found after argparse: exit code 2, like argparse's own
    usage errors."""


def exit_code(e: BaseException) -> int:
    """The exit code for an error: 2 for a bad command line, else 1."""
    return 2 if isinstance(e, UsageError | ArgSpecParseError) else 1


class OpWarning(UserWarning):
    """A warning about one op: the tools print it at the op's location, and
    ``--verify-diagnostics`` checks it against ``expected-warning``."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


def first_line(text: str) -> str:
    """The first non-blank line of ``text``, stripped."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return text.strip()


def pass_notes(e: BaseException) -> str:
    """`` (in pass A)`` from the note the pass manager adds to an exception raised in
    a pass (several notes, innermost first, are joined); "" when there is none."""
    notes: list[str] = [
        n for n in getattr(e, "__notes__", ()) if n.startswith("in pass ")
    ]
    return f" ({', '.join(notes)})" if notes else ""


def failing_op(module: ModuleOp) -> Operation | None:
    """The innermost op of ``module`` whose own verifier fails (nested ops are
    verified before their parents, as ``Operation.verify`` does)."""
    for op in module.walk(region_first=True):
        try:
            op.verify(verify_nested_ops=False)
        except Exception:
            return op
    return None


def located(e: BaseException, module: ModuleOp | None) -> UserError:
    """A :class:`UserError` for an exception raised while processing ``module``,
    located at the op it names (``TypeInferenceError.op``) or, for a verifier
    failure, at the innermost op whose verifier fails."""
    from xrelay.pass_manager import PassVerificationError

    if isinstance(e, RecursionError) and module is not None:
        from xrelay.nesting import too_deep

        e = too_deep(e, "processing the IR", module)  # located at the deepest op
    location, message = diagnose(e)
    if location is None and module is not None:
        if isinstance(e, DiagnosticException | PassVerificationError):
            op = failing_op(module)
            location = location_of(_redefinition(op, message) or op)
    return UserError(message, location)


_REDEFINITION = re.compile(r'Redefinition of symbol "(.*)"')


def _redefinition(table: Operation | None, message: str) -> Operation | None:
    """For a symbol table's ``Redefinition of symbol "name"``: the second op of the
    table that defines ``name`` (the table itself, a module, has no location)."""
    match = _REDEFINITION.search(message)
    if table is None or match is None or not table.regions:
        return None
    seen = False
    for op in table.regions[0].ops:
        sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if isinstance(sym, StringAttr) and sym.data == match.group(1):
            if seen:
                return op
            seen = True
    return None


def arg_spec_message(e: ArgSpecParseError) -> str:
    lines = [line for line in str(e).splitlines() if line.strip()]
    column = ""
    for line in lines:
        if line.startswith("pass-pipeline:"):
            column = f"column {line.rsplit(':', 1)[-1]}: "
    return f"invalid pass pipeline: {column}{lines[-1].strip() if lines else ''}"


def diagnose(e: BaseException) -> tuple[str | None, str]:
    """``(location, message)`` for an exception; the location may be None."""
    from xrelay.pass_manager import (
        PassConfigError,
        PassContractError,
        PassVerificationError,
        UnknownPassError,
    )

    if isinstance(e, UserError):
        return e.location, e.message
    if isinstance(e, ParseError):
        return str(e.span.get_location()), first_line(e.msg)
    if isinstance(e, ArgSpecParseError):
        return None, arg_spec_message(e)
    if isinstance(
        e,
        DiagnosticException
        | PassVerificationError
        | PassContractError
        | PassConfigError
        | UnknownPassError,
    ):
        op: Any = getattr(e, "op", None)
        location = location_of(op) if isinstance(op, Operation) else None
        return location, first_line(str(e)) + pass_notes(e)
    if isinstance(e, MemoryError):
        return None, (
            "out of memory: the input asks for more than this machine has"
            f"{pass_notes(e)}"
        )
    if isinstance(e, RecursionError):
        return None, (
            "the input is nested or chained too deeply for this tool (Python's "
            f"recursion limit){pass_notes(e)}"
        )
    if isinstance(e, DTypeError | ThreadCountError | SettingError):  # bad settings
        return None, f"{first_line(str(e))}{pass_notes(e)}"
    if isinstance(e, IndexOutOfRangeError):  # bad data, found by a run
        return None, f"run failed: {first_line(str(e))}"
    if isinstance(e, OSError):
        what = f"'{e.filename}': " if e.filename else ""
        return None, f"cannot access {what}{e.strerror or e}"
    return None, (
        f"internal error: {type(e).__name__}: {first_line(str(e))}{pass_notes(e)} "
        "(run with --debug for the traceback)"
    )


def format_diagnostic(prog: str, e: BaseException) -> str:
    location, message = diagnose(e)
    return f"{location or prog}: error: {message}"


def report(prog: str, e: BaseException) -> None:
    """Print the one-line diagnostic for ``e`` on stderr."""
    print(format_diagnostic(prog, e), file=sys.stderr)


def warn(prog: str, message: str) -> None:
    print(f"{prog}: warning: {message}", file=sys.stderr)


def one_line_warnings(prog: str) -> None:
    """Show Python warnings (the compile cache's, a bad environment variable's) as
    ``<tool>: warning: message`` lines, without the source line Python adds."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        del category, filename, lineno, file, line
        text = first_line(str(message))
        op = getattr(message, "op", None)
        location = location_of(op) if isinstance(op, Operation) else None
        if location is not None:  # a warning about an op of the input
            print(f"{location}: warning: {text}", file=sys.stderr)
            return
        warn(prog, text.removeprefix("xrelay: "))

    warnings.showwarning = show
