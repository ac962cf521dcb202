"""Annotation ops (``tvm.relay.annotation`` / ``tvm.relay.op.annotation``)."""

from __future__ import annotations

from xrelay.frontend.relay.expr import Call
from xrelay.frontend.relay.op._make import ExprLike, call


def stop_fusion(data: ExprLike) -> Call:
    """``data`` as it is, with a fusion boundary: FuseOps never puts the producer of
    ``data`` and its consumers in one kernel (and then drops the annotation)."""
    return call("annotation.stop_fusion", [data])


__all__ = ["stop_fusion"]
