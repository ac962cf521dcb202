"""Environment variables that tune a build, read where they are used and checked
as a whole by :func:`xrelay.runtime.environment.check_environment`:
``XRELAY_NUM_THREADS`` (:mod:`xrelay.runtime.threads`),
``XRELAY_COMPILE_JOBS`` (:mod:`xrelay.lowering.parallel`), ``XRELAY_TILE_ROWS``
(:mod:`xrelay.lowering.tiling`), ``XRELAY_SHARE_MIN_NS`` and ``XRELAY_OVERLAP_MAX_NS``
(:mod:`xrelay.lowering.work`).

A bad value is a :class:`SettingError` naming the variable: a configuration error,
never a reason for a tool to fall back to another executor (``xrelay-run`` checks
them all before it starts, so a cache hit does not hide one either).
"""

from __future__ import annotations

import os


class SettingError(ValueError):
    """An environment variable with a value xrelay cannot use."""


def positive_int(name: str, maximum: int | None = None) -> int | None:
    """``$name`` as a positive integer (at most ``maximum``); ``None`` when unset or
    blank."""
    return int_setting(name, 1, maximum)


def int_setting(name: str, minimum: int, maximum: int | None = None) -> int | None:
    """``$name`` as an integer from ``minimum`` to ``maximum``; ``None`` when unset
    or blank."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = minimum - 1
    if value < minimum or (maximum is not None and value > maximum):
        if maximum is not None:
            what = f"an integer from {minimum} to {maximum}"
        elif minimum == 1:
            what = "a positive integer"
        else:
            what = f"an integer of at least {minimum}"
        raise SettingError(f"{name} must be {what}, got {text!r}")
    return value


__all__ = ["SettingError", "positive_int"]
