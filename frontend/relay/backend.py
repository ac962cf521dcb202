"""``relay.backend`` (TVM's ``tvm.relay.backend``): the executor description a
module may carry as its ``executor`` attribute. xrelay runs every module with its
graph executor; ``aot`` is accepted as a description and runs the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_KINDS = ("graph", "aot")


class Executor:
    """``Executor("graph")`` / ``Executor("aot", {"link-params": True})``."""

    def __init__(self, name: str, options: Mapping[str, Any] | None = None) -> None:
        if name not in _KINDS:
            raise ValueError(f"unknown executor {name!r} (one of {', '.join(_KINDS)})")
        self.name = name
        self.options = dict(options or {})

    def __getitem__(self, key: str) -> Any:
        return self.options[key]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Executor):
            return NotImplemented
        return (self.name, self.options) == (other.name, other.options)

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Executor({self.name!r}, {self.options!r})"


__all__ = ["Executor"]
