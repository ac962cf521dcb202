"""``relay.testing.temp_op_attr`` (TVM's module of the same name): ``TempOpAttr``,
an op attribute set for a ``with`` block (see
:mod:`xrelay.dialects.relay.op_attrs`)."""

from __future__ import annotations

from xrelay.dialects.relay.op_attrs import TempOpAttr

__all__ = ["TempOpAttr"]
