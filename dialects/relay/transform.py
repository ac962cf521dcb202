"""(being written)"""

from __future__ import annotations

from xrelay.dialects.relay.base import RelayOp

TRANSFORM_OPS: list[type[RelayOp]] = []
