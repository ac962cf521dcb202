"""``relay.transform.mixed_precision`` (TVM's module of the same name): the
conversion categories an op answers and the hook that overrides an op's answer."""

from __future__ import annotations

from xrelay.frontend.relay.op.mixed_precision import (
    MIXED_PRECISION_ALWAYS,
    MIXED_PRECISION_FOLLOW,
    MIXED_PRECISION_NEVER,
    register_mixed_precision_conversion,
)

__all__ = [
    "MIXED_PRECISION_ALWAYS",
    "MIXED_PRECISION_FOLLOW",
    "MIXED_PRECISION_NEVER",
    "register_mixed_precision_conversion",
]
