"""Converters of ONNX ``BitwiseAnd``, ``BitwiseOr``, ``BitwiseXor``, ``BitwiseNot`` and
``BitShift`` (the relay bitwise ops)."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

_BINARY = {
    "BitwiseAnd": "bitwise_and",
    "BitwiseOr": "bitwise_or",
    "BitwiseXor": "bitwise_xor",
}


@converter(*_BINARY)
def bitwise(node: Node) -> Outputs:
    return node.op(_BINARY[node.op_type], [node.input(0), node.input(1)])


@converter("BitwiseNot")
def bitwise_not(node: Node) -> Outputs:
    return node.op("bitwise_not", [node.input(0)])


@converter("BitShift")
def bit_shift(node: Node) -> Outputs:
    """``X << Y`` or ``X >> Y`` (unsigned types in ONNX)."""
    direction = node.attr_str("direction")
    if direction not in ("LEFT", "RIGHT"):
        raise ConversionError(f"direction must be LEFT or RIGHT, got '{direction}'")
    name = "left_shift" if direction == "LEFT" else "right_shift"
    return node.op(name, [node.input(0), node.input(1)])
