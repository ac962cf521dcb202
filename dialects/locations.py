"""Source locations of parsed ops (the command-line tools, and passes that re-parse).

xDSL 0.74's parser sets ``op.location`` only from an explicit ``loc(...)``; every
other op is ``loc(unknown)``, so a verifier or pass error could not say where in the
input the offending op is. :class:`LocatingParser` attaches
``loc("file":line:col)`` (a ``FileLineColLoc``) to every op it parses without an
explicit location, pointing at the op's name as MLIR does. Diagnostics then name
``file:line:col`` (:func:`location_of`), and ``--print-debuginfo`` prints the
locations like ``mlir-opt --mlir-print-debuginfo``.
"""

from __future__ import annotations

import bisect
import difflib
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from xrelay.dialects.parser_fixes import install as install_parser_fixes
from xrelay.errors import UserError

install_parser_fixes()  # no hang on a missing quote, no per-constant cost


class LocatingParser(Parser):
    """An MLIR parser that gives every parsed op a ``FileLineColLoc``.

    ``line_offset`` is added to every line number: the offset of a chunk of a
    ``--split-input-file`` input in its file.
    """

    def __init__(
        self,
        ctx: Context,
        input: str | bytes,
        name: str = "<unknown>",
        line_offset: int = 0,
    ) -> None:
        super().__init__(ctx, input, name)
        self._line_offset = line_offset
        self._file = StringAttr(name)
        self._line_starts: list[int] | None = None
        self._name_spans: list[Span[Any]] = []
        self._types: dict[str, TypeAttribute] = {}

    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        results = super()._parse_op_result_list()
        # the current token is now the op's name (bare or string literal)
        self._name_spans.append(self._current_token.span)
        return results

    def parse_operation(self) -> Operation:
        depth = len(self._name_spans)
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # a constraint checked while the op is built (e.g. "Unexpected attribute
            # tuple<...>" for an operand type no constraint accepts): at the op's name
            if len(self._name_spans) <= depth:
                raise
            span = self._name_spans[depth]
            del self._name_spans[depth:]
            message = next((ln for ln in str(e).splitlines() if ln.strip()), str(e))
            raise ParseError(span, message.strip()) from e
        if len(self._name_spans) > depth:
            span = self._name_spans.pop()
            del self._name_spans[depth:]
            if not isinstance(op.location, FileLineColLoc):
                line, col = self._line_col(span.start)
                op.location = FileLineColLoc(self._file, IntAttr(line), IntAttr(col))
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """The op class of ``name``; an unknown name is an error suggesting the
        closest names of the ops known (``relay.nn.rleu``: ``relay.nn.relu``)."""
        try:
            return super()._get_op_by_name(name)
        except ParseError as e:
            close = difflib.get_close_matches(
                name, [op.name for op in self.ctx.loaded_ops], n=3, cutoff=0.75
            )
            if not close:
                raise
            hint = ", ".join(close)
            message = (e.msg.strip().splitlines() or [""])[0]
            raise ParseError(e.span, f"{message} (did you mean {hint}?)") from e

    def _parse_optional_builtin_type(self) -> TypeAttribute | None:
        """Builtin types, with ``tensor<...>`` spellings parsed once per input: a
        large program spells the same few tensor types tens of thousands of times,
        and xDSL's type parser costs about 0.1 ms each (a third of the parse)."""
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT or token.text != "tensor":
            return super()._parse_optional_builtin_type()
        text = self.lexer.input.content
        start = token.span.start
        end = _simple_type_end(text, start + len("tensor"))
        key = text[start:end] if end is not None else None
        cached = None if key is None else self._types.get(key)
        if cached is not None and end is not None:
            self._resume_from(end)
            return cached
        ty = super()._parse_optional_builtin_type()
        if key is not None and ty is not None and token.span.end <= self.pos:
            if text[end : self.pos].strip() == "":  # the parse ended where we did
                self._types[key] = ty
        return ty

    def _line_col(self, pos: int) -> tuple[int, int]:
        """1-based line and column of a position of the input."""
        if self._line_starts is None:
            text = self.lexer.input.content
            starts = [0]
            i = text.find("\n")
            while i != -1:
                starts.append(i + 1)
                i = text.find("\n", i + 1)
            self._line_starts = starts
        index = bisect.bisect_right(self._line_starts, pos) - 1
        return index + 1 + self._line_offset, pos - self._line_starts[index] + 1


_TYPE_STOP = frozenset('"#{}()[]\n')


def _simple_type_end(text: str, pos: int) -> int | None:
    """The end of ``<...>`` at ``pos`` (nested angle brackets matched) when it holds
    only plain characters (no strings, attributes or brackets), else ``None``."""
    if pos >= len(text) or text[pos] != "<":
        return None
    depth = 0
    limit = min(len(text), pos + 256)
    for i in range(pos, limit):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c in _TYPE_STOP:
            return None
    return None


def parse_mlir(
    ctx: Context,
    text: str | bytes,
    name: str,
    line_offset: int = 0,
    allow_implicit_module: bool = True,
) -> ModuleOp:
    """Parse MLIR text into a module whose ops carry ``file:line:col`` locations.
    Bytes that are not UTF-8 are a located :class:`~xrelay.errors.UserError`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            line = text.count(b"\n", 0, e.start) + 1 + line_offset
            col = e.start - (text.rfind(b"\n", 0, e.start) + 1) + 1
            raise UserError(
                f"the input is not UTF-8 text (byte 0x{text[e.start]:02x}: {e.reason})",
                f"{name}:{line}:{col}",
            ) from None
    if not text.strip():
        raise UserError("the input is empty (no module)", f"{name}:{1 + line_offset}:1")
    parser = LocatingParser(ctx, text, name, line_offset)
    try:
        return parser.parse_module(allow_implicit_module)
    except RecursionError:
        # where the parser was when the stack ran out: inside the deepest nesting
        raise ParseError(
            parser._current_token.span,  # pyright: ignore[reportPrivateUsage]
            "the input is nested too deeply to parse (Python's recursion limit)",
        ) from None


def location_of(op: Operation | None) -> str | None:
    """``file:line:col`` of ``op``, else of its nearest ancestor that has one."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return None
