"""A string-literal rule for xDSL's MLIR lexer that cannot backtrack.

xDSL 0.74 matches a string literal with ``"(?:[^"\\\\\\n\\v\\f]+|\\\\...)*"``: a ``+``
inside a ``*``. When the closing quote is missing, ``re`` tries every way of cutting
the rest of the line into runs before failing: 24 characters took 6 s, 28 over a
minute. :data:`STRING_LITERAL` matches the same strings one character at a time with
a possessive ``*+`` (Python 3.11), so a missing quote fails in linear time and the
lexer reports "End of file reached before closing string literal" at once.

:func:`install` sets it on ``MLIRLexer``, for every parser in the process (the tools,
and ``xdsl-opt`` once the xrelay plugin is loaded).
"""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


def install() -> None:
    """Use :data:`STRING_LITERAL` in xDSL's lexer (idempotent)."""
    MLIRLexer._unescaped_characters_regex = STRING_LITERAL  # pyright: ignore[reportPrivateUsage]


install()
