"""The ``xdsl.universe`` plugin: makes the relay dialect and xrelay's passes available
to stock ``xdsl-opt`` (and to every tool built on ``Universe.get_multiverse()``)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def _relay_dialect() -> Dialect:
    from xrelay.dialects.relay import Relay

    return Relay


def all_dialects() -> dict[str, Callable[[], Dialect]]:
    """xrelay's dialects by name, as zero-argument factories."""
    return {"relay": _relay_dialect}


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """xrelay's passes by pipeline name, as zero-argument factories."""
    return {}


XRELAY_UNIVERSE = Universe(all_dialects=all_dialects(), all_passes=all_passes())
