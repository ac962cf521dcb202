"""Relay constructs outside xrelay's scope, as names that exist and fail with one
line naming the construct when used: algebraic data types (``Constructor``,
``TypeData``, ``Match``, ``Clause``, the ``Pattern*`` classes, ``TypeCall``) and
references (``RefCreate``, ``RefRead``, ``RefWrite``, ``RefType``)."""

from __future__ import annotations

from typing import Any

from xrelay.unsupported import unsupported

_ADT = "Relay's algebraic data types"
_REF = "Relay's mutable references"

Constructor: Any = unsupported("relay.Constructor", _ADT)
TypeData: Any = unsupported("relay.TypeData", _ADT)
TypeCall: Any = unsupported("relay.TypeCall", _ADT)
Match: Any = unsupported("relay.Match", _ADT)
Clause: Any = unsupported("relay.Clause", _ADT)
PatternConstructor: Any = unsupported("relay.PatternConstructor", _ADT)
PatternVar: Any = unsupported("relay.PatternVar", _ADT)
PatternWildcard: Any = unsupported("relay.PatternWildcard", _ADT)
PatternTuple: Any = unsupported("relay.PatternTuple", _ADT)
RefCreate: Any = unsupported("relay.RefCreate", _REF)
RefRead: Any = unsupported("relay.RefRead", _REF)
RefWrite: Any = unsupported("relay.RefWrite", _REF)
RefType: Any = unsupported("relay.RefType", _REF)

__all__ = [
    "Clause",
    "Constructor",
    "Match",
    "PatternConstructor",
    "PatternTuple",
    "PatternVar",
    "PatternWildcard",
    "RefCreate",
    "RefRead",
    "RefType",
    "RefWrite",
    "TypeCall",
    "TypeData",
]
