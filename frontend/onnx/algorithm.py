"""Converters of ``CumSum``, ``CumProd``, ``TopK`` and ``Einsum`` (relay ``cumsum``,
``cumprod``, ``topk``, ``einsum``). The axis of the scans and ``K`` of ``TopK`` are
inputs that must be known at import time."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _one_int(node: Node, i: int, what: str) -> int:
    value = node.static(i, what).reshape(-1)
    if value.size != 1:
        raise ConversionError(f"{what} must hold one value, got {value.size}")
    return int(value[0])


@converter("CumSum")
def cumsum(node: Node) -> Outputs:
    """``cumsum`` along ``axis``; ``reverse`` runs it from the end (``reverse``
    before and after)."""
    return _scan(node, "cumsum")


@converter("CumProd")
def cumprod(node: Node) -> Outputs:
    """``cumprod``, as ``CumSum`` (opset 26)."""
    return _scan(node, "cumprod")


def _scan(node: Node, op: str) -> Outputs:
    x = node.input(0)
    axis = node.axis(_one_int(node, 1, "axis"), node.rank(x))
    reverse = bool(node.attr_int("reverse", 0))
    if reverse:
        x = node.op("reverse", [x], axis=axis)
    out = node.op(op, [x], axis=axis, exclusive=bool(node.attr_int("exclusive", 0)))
    return node.op("reverse", [out], axis=axis) if reverse else out


@converter("TopK")
def topk(node: Node) -> Outputs:
    """``topk`` with int64 indices; results are always sorted (``sorted=0`` lets
    any order through)."""
    x = node.input(0)
    shape = node.shape(x)
    axis = node.axis(node.attr_int("axis", -1), len(shape))
    k = _one_int(node, 1, "K") if node.opset >= 10 else node.attr_int("k")
    if not 0 <= k <= shape[axis]:
        raise ConversionError(f"K {k} is out of range for an axis of {shape[axis]}")
    if k == 0:
        raise ConversionError("K = 0 (empty outputs) is not supported")
    values, indices = node.ops(
        "topk",
        [x],
        k=k,
        axis=axis,
        ret_type="both",
        is_ascend=not node.attr_int("largest", 1),
        dtype="int64",
    )
    return [values, indices]


@converter("Einsum")
def einsum(node: Node) -> Outputs:
    """``einsum`` of every input with the ``equation`` attribute."""
    values = [node.input(i) for i in range(node.num_inputs)]
    return node.op("einsum", values, equation=node.attr_str("equation"))
