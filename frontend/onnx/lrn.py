"""The converter of ``LRN`` (relay ``nn.lrn`` across the channels, axis 1): ONNX's
``x / (bias + alpha / size * sum(x^2 over the window)) ** beta`` is Relay's formula,
with the same window (``(size - 1) // 2`` channels before, the rest after)."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("LRN")
def lrn(node: Node) -> Outputs:
    x = node.input(0)
    if node.rank(x) < 3:
        raise ConversionError(f"X must have rank >= 3 (N, C, ...), got {node.rank(x)}")
    size = node.attr_int("size")
    if size < 1:
        raise ConversionError(f"size must be >= 1, got {size}")
    return node.op(
        "nn.lrn",
        [x],
        size=size,
        axis=1,
        bias=node.attr_float("bias", 1.0),
        alpha=node.attr_float("alpha", 1e-4),
        beta=node.attr_float("beta", 0.75),
    )
