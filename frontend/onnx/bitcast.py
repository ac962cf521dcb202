"""``BitCast`` (opset 26): the bits of each element read as type ``to`` of the same
width, as ``relay.reinterpret``."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter, numpy_dtype_of


@converter("BitCast")
def bitcast(node: Node) -> Outputs:
    x = node.input(0, "input")
    dst = numpy_dtype_of(node.attr_int("to"), "the target type 'to'")
    src = node.dtype(x)
    if dst.itemsize != src.itemsize:
        raise ConversionError(
            f"BitCast needs types of one width: {src} has {src.itemsize * 8} bits, "
            f"{dst} {dst.itemsize * 8}"
        )
    if dst == src:
        return x
    return node.op("reinterpret", [x], dtype=str(dst))
