"""Annotation ops: markers for passes that compute nothing (Relay's
``annotation.*``).

``relay.annotation.stop_fusion`` returns its operand unchanged and is opaque to
fusion, so FuseOps never puts its producer and its consumers in one kernel; FuseOps
then drops it (Relay's FuseMutator does the same). Left in a program that is not
fused, it is a view of its operand (no kernel).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.irdl import irdl_op_definition

from xrelay.dialects.relay.base import OpPattern, RelayOp
from xrelay.dialects.relay.elementwise import UnaryOp


class AnnotationOp(UnaryOp):
    """An op that returns its operand and only tells passes something: FuseOps
    removes it once the groups are made."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def fn(self, x: Any) -> Any:
        return np.asarray(x)


@irdl_op_definition
class StopFusionOp(AnnotationOp):
    """``data`` as it is; a fusion boundary (Relay's ``annotation.stop_fusion``)."""

    name = "relay.annotation.stop_fusion"


ANNOTATION_OPS: list[type[RelayOp]] = [StopFusionOp]

__all__ = ["ANNOTATION_OPS", "AnnotationOp", "StopFusionOp"]
