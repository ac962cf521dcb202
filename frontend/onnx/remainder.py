"""The converter of ``Mod``: ``fmod=0`` is the remainder with the divisor's sign
(relay ``floor_mod``, Python's ``%``), ``fmod=1`` the one with the dividend's (relay
``mod``, C's ``fmod``). Integer division by zero gives 0 and never traps."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("Mod")
def mod(node: Node) -> Outputs:
    a, b = node.input(0), node.input(1)
    if node.dtype(a) != node.dtype(b):
        raise ConversionError(
            f"A ({node.dtype(a)}) and B ({node.dtype(b)}) must have one dtype"
        )
    fmod = node.attr_int("fmod", 0)
    if fmod not in (0, 1):
        raise ConversionError(f"fmod must be 0 or 1, got {fmod}")
    return node.op("mod" if fmod else "floor_mod", [a, b])
