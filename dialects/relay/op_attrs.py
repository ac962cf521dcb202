"""Per-op attribute overrides registered from Python (TVM's ``Op.set_attr`` /
``tvm.ir.register_op_attr`` / ``TempOpAttr``), on top of the hooks the op classes
declare.

The layout passes look up three keys, by Relay op name (``"nn.conv2d"``):

* ``FTVMAlterOpLayout`` (AlterOpLayout), ``FTVMConvertOpLayout`` (ConvertLayout),
  ``FInferCorrectLayout`` (both): the value is a TVM-style Python function the pass
  calls instead of the op class's own ``alter_layout`` / ``convert_layout`` /
  ``infer_correct_layout``, through the adapters of
  :mod:`xrelay.frontend.relay.op.hooks` (which give it Relay expressions).

A registration with a higher ``level`` replaces one with a lower level (TVM's rule);
:class:`TempOpAttr` overrides (or, with ``None``, hides) a value inside a ``with``
block and restores the previous one on exit.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

ALTER_OP_LAYOUT = "FTVMAlterOpLayout"
CONVERT_OP_LAYOUT = "FTVMConvertOpLayout"
INFER_CORRECT_LAYOUT = "FInferCorrectLayout"

_TABLE: dict[tuple[str, str], tuple[int, Any]] = {}


class OpAttrError(ValueError):
    """A registration that TVM would refuse (a lower level over a higher one)."""


def _op_name(op_name: str) -> str:
    return op_name.removeprefix("relay.")


def register_op_attr(op_name: str, attr_key: str, value: Any, level: int = 10) -> None:
    """Set ``attr_key`` of op ``op_name``; a value registered at a higher level stays
    (TVM raises in that case too)."""
    key = (_op_name(op_name), attr_key)
    old = _TABLE.get(key)
    if old is not None and old[0] > level:
        raise OpAttrError(
            f"{attr_key} of {key[0]} is already registered at level {old[0]} > {level}"
        )
    _TABLE[key] = (level, value)


def get_op_attr(op_name: str, attr_key: str) -> Any:
    """The registered value, or ``None``."""
    found = _TABLE.get((_op_name(op_name), attr_key))
    return None if found is None else found[1]


def reset_op_attr(op_name: str, attr_key: str) -> None:
    """Remove a registered value (the op class's own hook applies again)."""
    _TABLE.pop((_op_name(op_name), attr_key), None)


class TempOpAttr:
    """``with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", fn):`` sets the attribute
    for the block (``None`` hides a registered one) and restores it after."""

    def __init__(self, op_name: str, attr_key: str, attr_value: Any) -> None:
        self.key = (_op_name(op_name), attr_key)
        self.value = attr_value
        self.saved: tuple[int, Any] | None = None

    def __enter__(self) -> TempOpAttr:
        self.saved = _TABLE.get(self.key)
        if self.value is None:
            _TABLE.pop(self.key, None)
        else:
            _TABLE[self.key] = (1 << 30, self.value)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.saved is None:
            _TABLE.pop(self.key, None)
        else:
            _TABLE[self.key] = self.saved
