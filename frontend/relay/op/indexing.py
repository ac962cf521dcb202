"""Scatters and triangle masks (``tvm.relay.scatter_nd``, ``scatter_elements``,
``trilu``). A negative index read from data counts from the end; one outside
``[-dim, dim)`` makes ``run()`` (and the interpreter) raise ``IndexOutOfRangeError``."""

from __future__ import annotations

from xrelay.frontend.relay.expr import Call
from xrelay.frontend.relay.op._make import ExprLike, call, operand


def scatter_nd(
    data: ExprLike, indices: ExprLike, updates: ExprLike, mode: str = "update"
) -> Call:
    """``data`` with ``updates`` written (``mode="update"``) or combined (``"add"``,
    ``"mul"``, ``"min"``, ``"max"``) at the index tuples of ``indices`` (first
    axis)."""
    return call("scatter_nd", [data, indices, updates], mode=mode)


def scatter_elements(
    data: ExprLike,
    indices: ExprLike,
    updates: ExprLike,
    axis: int = 0,
    reduction: str = "update",
) -> Call:
    """``data`` with ``updates`` written or combined along ``axis`` at ``indices``
    (same shape as ``updates``)."""
    return call(
        "scatter_elements", [data, indices, updates], axis=axis, reduction=reduction
    )


def trilu(data: ExprLike, k: ExprLike | int, upper: bool = True) -> Call:
    """The upper (or lower) triangle of the last two dims of ``data`` from diagonal
    ``k`` (a 0-d integer tensor, or an int made an ``int64`` constant)."""
    return call("trilu", [data, operand(k, dtype="int64")], upper=upper)


__all__ = ["scatter_elements", "scatter_nd", "trilu"]
