"""Three fixes to xDSL 0.74's MLIR parser, installed for every parser in the process
(the tools, and ``xdsl-opt`` once the xrelay plugin is loaded).

**A string-literal rule that cannot backtrack.**

xDSL 0.74 matches a string literal with ``"(?:[^"\\\\\\n\\v\\f]+|\\\\...)*"``: a ``+``
inside a ``*``. When the closing quote is missing, ``re`` tries every way of cutting
the rest of the line into runs before failing: 24 characters took 6 s, 28 over a
minute. :data:`STRING_LITERAL` matches the same strings one character at a time with
a possessive ``*+`` (Python 3.11), so a missing quote fails in linear time and the
lexer reports "End of file reached before closing string literal" at once.

**The dense-literal type check, computed once.** Every ``dense<...>`` literal
checked its type against ``base(RankedStructure[...])``, a constraint xDSL rebuilds
from the generic type on each call: about 9 ms per constant, most of the parse time
of a program with many constants. :func:`install` memoizes ``base`` in the attribute
parser's namespace (its argument is a type, the result an immutable constraint).

**Dense literals that cannot be stored are parse errors.** xDSL packs a
``dense<...>`` literal's values into bytes after parsing them, and a value out of
its type's range (``dense<1000> : tensor<2xi8>``, a 400-digit integer) or an
element type it has no byte format for (``i128``, ``f80``) escaped as a bare
``ValueError`` / ``NotImplementedError``: "internal error" in the tools, no
location. :func:`parse_dense_literal` turns them into a ``ParseError`` spanning
the literal.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import xdsl.parser.attribute_parser as attribute_parser
from xdsl.parser.attribute_parser import AttrParser
from xdsl.utils.mlir_lexer import MLIRLexer

STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


_base: Any = getattr(attribute_parser, "base")  # noqa: B009 - not re-exported


@functools.cache
def _cached_base(irdl: Any) -> Any:
    return _base(irdl)


_parse_dense: Any = AttrParser.parse_dense_int_or_fp_elements_attr


def parse_dense_literal(self: AttrParser, type: Any) -> Any:
    """xDSL's dense-literal parser, a value its type cannot hold (or a type without
    a byte format) reported as a ``ParseError`` at the literal."""
    start = self.pos
    try:
        return _parse_dense(self, type)
    except (ValueError, NotImplementedError, OverflowError) as e:
        what = str(e).split("\n")[0].strip() or f"no byte format for {type_name(e)}"
        if len(what) > 200:
            what = what[:200] + "..."
        self.raise_error(
            f"dense literal cannot be stored: {what}", start, max(self.pos, start + 1)
        )


def type_name(e: BaseException) -> str:
    """The element type a ``NotImplementedError`` from xDSL's packing names (its
    traceback's ``self``), else "its element type"."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    owner = tb.tb_frame.f_locals.get("self") if tb is not None else None
    return str(owner) if owner is not None else "its element type"


def install() -> None:
    """Use :data:`STRING_LITERAL` in xDSL's lexer, the memoized ``base`` in its
    attribute parser and :func:`parse_dense_literal` (idempotent)."""
    MLIRLexer._unescaped_characters_regex = STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
    setattr(attribute_parser, "base", _cached_base)  # noqa: B010 - not re-exported
    AttrParser.parse_dense_int_or_fp_elements_attr = parse_dense_literal  # pyright: ignore[reportAttributeAccessIssue]


install()
