"""The op wrappers (``tvm.relay.op``): one Python function per relay op, with TVM's
signature and defaults. ``relay.nn`` is :mod:`xrelay.frontend.relay.op.nn`."""

from __future__ import annotations

from xrelay.frontend.relay.expr import Op
from xrelay.frontend.relay.op import annotation as annotation
from xrelay.frontend.relay.op import image as image
from xrelay.frontend.relay.op import nn as nn
from xrelay.frontend.relay.op import vision as vision
from xrelay.frontend.relay.op.algorithm import *  # noqa: F403
from xrelay.frontend.relay.op.bitwise import *  # noqa: F403
from xrelay.frontend.relay.op.indexing import *  # noqa: F403
from xrelay.frontend.relay.op.reduce import *  # noqa: F403
from xrelay.frontend.relay.op.tensor import *  # noqa: F403
from xrelay.frontend.relay.op.transform import *  # noqa: F403


def get(op_name: str) -> Op:
    """The operator named ``op_name`` (``"add"``, ``"nn.conv2d"``)."""
    return Op.get(op_name)


from xrelay.frontend.relay.op.hooks import (  # noqa: E402
    InferCorrectLayoutOutput as InferCorrectLayoutOutput,
)
from xrelay.frontend.relay.op.hooks import (  # noqa: E402
    register as register,
)
from xrelay.frontend.relay.op.hooks import (  # noqa: E402
    register_alter_op_layout as register_alter_op_layout,
)
from xrelay.frontend.relay.op.hooks import (  # noqa: E402
    register_convert_op_layout as register_convert_op_layout,
)
from xrelay.frontend.relay.op.hooks import (  # noqa: E402
    register_infer_correct_layout as register_infer_correct_layout,
)
from xrelay.frontend.relay.op.mixed_precision import (  # noqa: E402
    register_mixed_precision_conversion as register_mixed_precision_conversion,
)
