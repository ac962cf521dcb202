"""``SwiGLU`` (opset 28): ``Swish_alpha(A) * B = A * sigmoid(alpha * A) * B``, with
``A`` and ``B`` of one shape and dtype (ONNX does not broadcast them)."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("SwiGLU")
def swiglu(node: Node) -> Outputs:
    a, b = node.input(0, "A"), node.input(1, "B")
    if node.shape(a) != node.shape(b) or node.dtype(a) != node.dtype(b):
        raise ConversionError(
            f"A and B must have one shape and dtype (no broadcasting), got "
            f"{node.dtype(a)}{list(node.shape(a))} and "
            f"{node.dtype(b)}{list(node.shape(b))}"
        )
    if node.dtype(a).kind != "f":
        raise ConversionError(f"A must be floating point, got {node.dtype(a)}")
    alpha = node.attr_float("alpha", 1.0)
    scaled = a if alpha == 1.0 else node.op("multiply", [a, node.scalar(alpha, a)])
    swish = node.op("multiply", [a, node.op("sigmoid", [scaled])])
    return node.op("multiply", [swish, b])
