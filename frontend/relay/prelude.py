"""``relay.prelude`` (Relay's Prelude: lists, options, trees as algebraic data
types) is not part of xrelay; ``Prelude(mod)`` is a one-line error."""

from __future__ import annotations

from typing import Any

from xrelay.unsupported import PRELUDE, unsupported

Prelude: Any = unsupported("relay.prelude.Prelude", PRELUDE)


def __getattr__(name: str) -> Any:
    if name.startswith(("__", "_pytest")):
        raise AttributeError(name)
    return unsupported(f"relay.prelude.{name}", PRELUDE)
