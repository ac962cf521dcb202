"""Two fixes to xDSL 0.74's MLIR parser, installed for every parser in the process
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
"""

from __future__ import annotations

import functools
import re
from typing import Any

import xdsl.parser.attribute_parser as attribute_parser
from xdsl.utils.mlir_lexer import MLIRLexer

STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


_base: Any = getattr(attribute_parser, "base")  # noqa: B009 - not re-exported


@functools.cache
def _cached_base(irdl: Any) -> Any:
    return _base(irdl)


def install() -> None:
    """Use :data:`STRING_LITERAL` in xDSL's lexer and the memoized ``base`` in its
    attribute parser (idempotent)."""
    MLIRLexer._unescaped_characters_regex = STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
    setattr(attribute_parser, "base", _cached_base)  # noqa: B010 - not re-exported


install()
