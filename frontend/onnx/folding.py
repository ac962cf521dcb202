"""Nodes without a converter whose inputs are all known at import time: evaluated
by the ONNX reference implementation (``onnx.reference``) and replaced by constants.
Transformer exports compute shapes and masks with such nodes (``Mod`` on shapes,
``GatherElements`` on constant buffers)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx

from xrelay.frontend.onnx.graph import Graph

Array = np.ndarray[Any, Any]


def fold_node(proto: onnx.NodeProto, g: Graph, opsets: dict[str, int]) -> bool:
    """Evaluate ``proto`` on its static inputs and bind its outputs to constants;
    ``False`` (nothing done) when an input is not static or evaluation fails."""
    feeds: dict[str, Array] = {}
    for name in proto.input:
        if not name:
            continue
        if name not in g.env:
            return False
        value = g.static(name)
        if value is None:
            return False
        feeds[name] = value
    try:
        from onnx.reference import ReferenceEvaluator

        outs = ReferenceEvaluator(proto, opsets=opsets).run(None, feeds)
    except Exception:  # not evaluable here: the op stays unsupported
        return False
    for name, out in zip(proto.output, outs, strict=False):
        if name and isinstance(out, np.ndarray | np.generic):
            g.env[name] = g.builder.const(np.asarray(out))
    return True
