"""``relay.op.op`` (TVM's ``tvm.relay.op.op``): operator lookup and the attribute
registrations of Python scripts.

    from xrelay.relay.op import op as reg

    @reg.register_infer_correct_layout("nn.relu", level=11)
    def relu_layout(attrs, new_in_layouts, old_in_layouts, old_in_types): ...
"""

from __future__ import annotations

from xrelay.frontend.relay.op.hooks import (
    register as register_op_attr,
)
from xrelay.frontend.relay.op.hooks import (
    register_alter_op_layout,
    register_convert_op_layout,
    register_infer_correct_layout,
)
from xrelay.frontend.relay.op.registry import (
    OpPattern,
    get,
    register,
    register_pattern,
    register_stateful,
)

__all__ = [
    "OpPattern",
    "get",
    "register",
    "register_alter_op_layout",
    "register_convert_op_layout",
    "register_infer_correct_layout",
    "register_op_attr",
    "register_pattern",
    "register_stateful",
]
