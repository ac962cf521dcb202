"""``xrelay.relay`` is :mod:`xrelay.frontend.relay` (TVM's ``tvm.relay``): importing
this module makes the name refer to that package, so ``from xrelay.relay import
transform`` and ``import xrelay.relay as relay`` work like ``from xrelay import
relay``."""

from __future__ import annotations

import sys

from xrelay.frontend import relay as _relay

sys.modules[__name__] = _relay
