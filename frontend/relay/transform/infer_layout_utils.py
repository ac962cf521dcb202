"""``relay.transform.infer_layout_utils`` (TVM's module of the same name): what an
``FInferCorrectLayout`` hook returns."""

from __future__ import annotations

from xrelay.frontend.relay.op.hooks import InferCorrectLayoutOutput

__all__ = ["InferCorrectLayoutOutput"]
