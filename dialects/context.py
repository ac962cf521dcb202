"""The MLIR context every reader of xrelay's IR uses: the dialects xDSL's universe
knows (its plugins included) and the relay dialect, each loaded on first use."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from xdsl.context import Context
from xdsl.ir import Dialect


def _relay_dialect() -> Dialect:
    from xrelay.dialects.relay import Relay

    return Relay


@cache
def dialect_factories() -> tuple[tuple[str, Callable[..., Any]], ...]:
    """Every dialect by name, as zero-argument factories (relay last: it wins)."""
    from xdsl.universe import Universe

    factories = dict(Universe.get_multiverse().all_dialects)
    factories["relay"] = _relay_dialect
    return tuple(factories.items())


def mlir_context() -> Context:
    """A fresh context knowing every dialect (each loaded on first use)."""
    ctx = Context()
    for name, factory in dialect_factories():
        ctx.register_dialect(name, factory)
    return ctx
