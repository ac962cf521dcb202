"""Module attributes (TVM's ``IRModule.with_attr`` / ``get_attr`` / ``attrs``), kept
as attributes of the ``builtin.module`` so that passes carry them along.

Values: strings, bools, ints and floats as the builtin attributes of that kind; an
:class:`~xrelay.frontend.relay.backend.Executor` under ``"executor"`` as a dictionary
``{kind = "aot", link-params = true}`` (FuseOps reads ``link-params`` from it, as
Relay's does). Anything else is a one-line ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import (
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute

from xrelay.frontend.relay.backend import Executor

EXECUTOR_KIND = "kind"


def to_attribute(key: str, value: Any) -> Attribute:
    """The builtin attribute holding ``value`` (see the module docstring)."""
    if isinstance(value, Executor):
        entries: dict[str, Attribute] = {EXECUTOR_KIND: StringAttr(value.name)}
        for name, option in value.options.items():
            entries[name] = to_attribute(f"{key}.{name}", option)
        return DictionaryAttr(entries)
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(int(value), i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    raise TypeError(
        f"module attribute {key!r}: {type(value).__name__} values are not supported "
        "(strings, bools, ints, floats and relay.backend.Executor are)"
    )


def from_attribute(attr: Attribute) -> Any:
    """The Python value of a module attribute."""
    if isinstance(attr, DictionaryAttr) and EXECUTOR_KIND in attr.data:
        kind = attr.data[EXECUTOR_KIND]
        assert isinstance(kind, StringAttr)
        options = {
            k: from_attribute(v) for k, v in attr.data.items() if k != EXECUTOR_KIND
        }
        return Executor(kind.data, options)
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        width = getattr(attr.type, "width", None)
        return bool(value) if width is not None and width.data == 1 else value
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    return attr


def module_attrs(module: ModuleOp) -> dict[str, Any]:
    """Every attribute of ``module`` as Python values."""
    return {k: from_attribute(v) for k, v in module.attributes.items()}
