"""``xrelay.ir`` (TVM's ``tvm.ir``): structural equality of relay programs, the
module, and ``TempOpAttr``.

    from xrelay.ir import assert_structural_equal
"""

from __future__ import annotations

from xrelay.frontend.relay.module import IRModule as IRModule
from xrelay.frontend.relay.structural_equal import (
    assert_structural_equal as assert_structural_equal,
)
from xrelay.frontend.relay.structural_equal import (
    structural_equal as structural_equal,
)
