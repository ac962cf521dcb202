"""Converter of ``ReduceLogSum``: ``log(sum(x))`` over the axes (an input from opset
18, an attribute before; no axes reduce everything unless
``noop_with_empty_axes``)."""

from __future__ import annotations

from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("ReduceLogSum")
def reduce_log_sum(node: Node) -> Outputs:
    x = node.input(0)
    rank = node.rank(x)
    if node.opset >= 18:
        axes = node.static_ints(1, "axes")
        noop = bool(node.attr_int("noop_with_empty_axes", 0))
    else:
        axes = node.opt_attr_ints("axes")
        noop = False
    if not axes and noop:
        return node.op("log", [x])
    norm = (
        None if not axes else sorted({node.axis(a, rank, "axes entry") for a in axes})
    )
    keepdims = bool(node.attr_int("keepdims", 1))
    return node.op("log", [node.op("sum", [x], axis=norm, keepdims=keepdims)])
