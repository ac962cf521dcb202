"""``relay.qnn`` (TVM's ``tvm.relay.qnn``): the QNN op builders (``relay.qnn.op``) and
the QNN passes (``relay.qnn.transform``)."""

from __future__ import annotations

from xrelay.frontend.relay.qnn import op as op
from xrelay.frontend.relay.qnn import transform as transform
