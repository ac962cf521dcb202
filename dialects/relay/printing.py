"""Printing options of the relay dialect: eliding large constants.

Model weights can hold millions of values. By default every printer writes constants
in full (as exact hex bytes above 100 elements), so printed IR reads back unchanged.
:func:`elide_constants` scopes a limit: constants with more elements print as
``dense_resource<__elided__>``, which the parser rejects with a clear message.
``str(IRModule)`` and the print-IR instruments elide; ``astext()`` and ``xrelay-opt``
print in full unless asked otherwise.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar

ELIDED = "__elided__"
DEFAULT_ELIDE_LIMIT = 16
"""Constants with more elements than this are elided where elision is on."""

_limit: ContextVar[int | None] = ContextVar("xrelay_elide_limit", default=None)


def should_elide(num_elements: int) -> bool:
    limit = _limit.get()
    return limit is not None and num_elements > limit


@contextmanager
def elide_constants(
    limit: int | None = DEFAULT_ELIDE_LIMIT,
) -> Generator[None, None, None]:
    """Within the block, print constants with more than ``limit`` elements elided
    (``None``: print everything in full)."""
    token = _limit.set(limit)
    try:
        yield
    finally:
        _limit.reset(token)
