"""The version of the installed xrelay (what exported libraries are stamped with)."""

from __future__ import annotations

from functools import cache


@cache
def xrelay_version() -> str:
    """The installed distribution's version; ``"(source tree)"`` when xrelay runs
    from a checkout that is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("xrelay")
    except PackageNotFoundError:
        return "(source tree)"
