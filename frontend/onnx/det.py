"""``Det`` (opset 11): the determinants of ``X [..., n, n]``, as ``relay.det``."""

from __future__ import annotations

from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("Det")
def det(node: Node) -> Outputs:
    return node.op("det", [node.input(0, "X")])
