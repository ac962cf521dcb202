"""``xrelay.ir`` (TVM's ``tvm.ir``): structural equality of relay programs, the
module, ``TempOpAttr``, ``register_op_attr`` and ``Span`` / ``SourceName`` (the
location of a call: set by AnnotateSpans, or given to ``relay.Call(span=...)``).

    from xrelay.ir import assert_structural_equal, TempOpAttr
"""

from __future__ import annotations

from xrelay.dialects.relay.op_attrs import TempOpAttr
from xrelay.frontend.relay.expr import Op, SourceName, Span
from xrelay.frontend.relay.module import IRModule
from xrelay.frontend.relay.op.hooks import register as register_op_attr
from xrelay.frontend.relay.structural_equal import (
    assert_structural_equal,
    structural_equal,
)
from xrelay.frontend.relay.structural_hash import structural_hash

__all__ = [
    "IRModule",
    "Op",
    "SourceName",
    "Span",
    "TempOpAttr",
    "assert_structural_equal",
    "register_op_attr",
    "structural_equal",
    "structural_hash",
]
