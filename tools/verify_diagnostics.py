"""``--verify-diagnostics`` as ``mlir-opt`` has it: the diagnostics a run produces
are checked against the ``expected-*`` directives written in the input.

A directive is a comment holding::

    expected-error {{text}}           an error on this line whose message contains text
    expected-warning @+1 {{text}}     on the next line (@-N: N lines above)
    expected-note @above {{text}}     on the line above (@below: the line below)
    expected-error @unknown {{text}}  an error without a location
    expected-error-re {{a {{[0-9]+}} b}}  text with {{regex}} blocks

Each produced diagnostic must match one directive of its severity and line (the
message contains the text, or matches it under ``-re``), and each directive must
be matched by one diagnostic; every mismatch is a one-line ``file:line: error:
...``. A file without any directive keeps ``xdsl-opt``'s behaviour (the
diagnostics are printed on stdout for FileCheck, exit code 0).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xrelay.tools.diagnostics import first_line, located
from xrelay.tools.locations import location_of

SEVERITIES = ("error", "warning", "note", "remark")

_DIRECTIVE = re.compile(
    r"expected-(?P<severity>error|warning|note|remark)(?P<re>-re)?[ \t]*"
    r"(?:@(?P<where>[+-][0-9]+|above|below|unknown))?[ \t]*\{\{(?P<text>.*)\}\}[ \t]*$"
)
_REGEX_BLOCK = re.compile(r"\{\{(.*?)\}\}")


class DirectiveError(ValueError):
    """An ``expected-*-re`` directive whose regex does not compile."""


@dataclass
class Expected:
    """One ``expected-*`` directive."""

    severity: str
    line: int | None
    """The line the diagnostic is expected on; ``None`` for ``@unknown``."""
    text: str
    pattern: re.Pattern[str] | None
    """The compiled text of an ``-re`` directive."""
    directive_line: int
    matched: bool = False

    def matches(self, severity: str, line: int | None, message: str) -> bool:
        if self.matched or severity != self.severity or line != self.line:
            return False
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


@dataclass(frozen=True)
class Produced:
    """A diagnostic the run produced."""

    severity: str
    location: str | None
    """``file:line:col`` (or ``file:line``), ``None`` when it has no location."""
    message: str


def _regex(text: str, where: str) -> re.Pattern[str]:
    """``text`` literal except for its ``{{regex}}`` blocks."""
    parts: list[str] = []
    pos = 0
    for block in _REGEX_BLOCK.finditer(text):
        parts.append(re.escape(text[pos : block.start()]))
        parts.append(f"(?:{block.group(1)})")
        pos = block.end()
    parts.append(re.escape(text[pos:]))
    try:
        return re.compile("".join(parts))
    except re.error as e:
        raise DirectiveError(
            f"{where}: invalid regex in expected directive: {e}"
        ) from e


def parse_directives(text: str, filename: str) -> list[Expected]:
    """Every ``expected-*`` directive of ``text`` (lines numbered from 1)."""
    out: list[Expected] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "expected-" not in line:
            continue
        match = _DIRECTIVE.search(line)
        if match is None:
            continue
        where = match.group("where")
        target: int | None
        if where is None:
            target = number
        elif where == "unknown":
            target = None
        elif where == "above":
            target = number - 1
        elif where == "below":
            target = number + 1
        else:
            target = number + int(where)
        body = match.group("text")
        pattern = _regex(body, f"{filename}:{number}") if match.group("re") else None
        out.append(Expected(match.group("severity"), target, body, pattern, number))
    return out


def _split_location(location: str | None, filename: str) -> int | str | None:
    """The line of a ``file:line[:col]`` location in ``filename``; ``None`` for no
    location; the location itself when it is in another file."""
    if location is None:
        return None
    for n_tail in (2, 1):
        head = location.rsplit(":", n_tail)
        if len(head) == n_tail + 1 and all(p.isdigit() for p in head[1:]):
            return int(head[1]) if head[0] == filename else location
    return location


def check(
    expected: Sequence[Expected], produced: Sequence[Produced], filename: str
) -> list[str]:
    """One line per mismatch, in the order of the lines they name: each produced
    diagnostic no directive expects, and each directive no diagnostic matched."""
    found: list[tuple[int, str]] = []
    never = 1 << 62  # diagnostics without a line in this file come last
    for diag in produced:
        where = _split_location(diag.location, filename)
        line = where if isinstance(where, int) or where is None else -1
        for exp in expected:
            if exp.matches(diag.severity, line, diag.message):
                exp.matched = True
                break
        else:
            found.append(
                (
                    line if isinstance(line, int) and line >= 0 else never,
                    f"{diag.location or filename}: error: unexpected {diag.severity}: "
                    f"{diag.message}",
                )
            )
    for exp in expected:
        if not exp.matched:
            at = " (@unknown)" if exp.line is None else ""
            found.append(
                (
                    exp.directive_line,
                    f"{filename}:{exp.directive_line}: error: expected {exp.severity} "
                    f'"{exp.text}" was not produced{at}',
                )
            )
    return [text for _, text in sorted(found, key=lambda item: item[0])]


def produced_by(e: BaseException, module: ModuleOp | None) -> list[Produced]:
    """The error an exception raised while processing ``module`` stands for (located
    as the one-line diagnostic is), then its notes: ``(op, text)`` pairs in a
    ``diagnostic_notes`` attribute of the exception or its cause, each at its op
    (at the error when the op has no location)."""
    error = located(e, module)
    out = [Produced("error", error.location, error.message)]
    for source in (e, e.__cause__):
        for op, text in getattr(source, "diagnostic_notes", ()):
            where = location_of(op) if isinstance(op, Operation) else None
            out.append(Produced("note", where or error.location, text))
    return out


def produced_warning(message: Warning | str) -> Produced | None:
    """A warning about an op (a warning with an ``op`` attribute), located there;
    ``None`` for other warnings."""
    op = getattr(message, "op", None)
    if not isinstance(op, Operation):
        return None
    return Produced("warning", location_of(op), first_line(str(message)))
