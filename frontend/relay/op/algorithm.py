"""Scans, sorting, top-k and einsum (``tvm.relay.cumsum``, ``cumprod``,
``argsort``, ``topk``, ``einsum``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xrelay.frontend.relay.expr import Call, TupleWrapper
from xrelay.frontend.relay.op._make import ExprLike, call, tuple_arg


def cumsum(
    data: ExprLike,
    axis: int | None = None,
    dtype: str | None = None,
    exclusive: bool | None = None,
) -> Call:
    """The running sum of ``data`` along ``axis`` (``None``: of the flattened data)
    in ``dtype`` (``None``: the data's); ``exclusive`` leaves each element out of its
    own sum."""
    return call("cumsum", [data], axis=axis, dtype=dtype, exclusive=exclusive)


def cumprod(
    data: ExprLike,
    axis: int | None = None,
    dtype: str | None = None,
    exclusive: bool | None = None,
) -> Call:
    """The running product of ``data`` (as :func:`cumsum`)."""
    return call("cumprod", [data], axis=axis, dtype=dtype, exclusive=exclusive)


def topk(
    data: ExprLike,
    k: int = 1,
    axis: int = -1,
    ret_type: str = "both",
    is_ascend: bool = False,
    dtype: str = "int32",
) -> TupleWrapper | Call:
    """The ``k`` largest (or smallest, ``is_ascend``) elements along ``axis`` and
    their indices: a tuple (values, indices) for ``ret_type="both"``, else the one
    asked for."""
    if not isinstance(cast(object, k), int):
        raise TypeError("k must be a static int; dynamic k is not supported")
    result = call(
        "topk",
        [data],
        k=k,
        axis=axis,
        ret_type=ret_type,
        is_ascend=is_ascend,
        dtype=dtype,
    )
    return TupleWrapper(result, 2) if ret_type == "both" else result


def argsort(
    data: ExprLike, axis: int = -1, is_ascend: bool = True, dtype: str = "int32"
) -> Call:
    """The indices that sort ``data`` along ``axis`` (ascending unless
    ``is_ascend`` is false; equal values in index order)."""
    return call("argsort", [data], axis=axis, is_ascend=bool(is_ascend), dtype=dtype)


def einsum(data: Sequence[ExprLike] | ExprLike, equation: str) -> Call:
    """The contraction ``equation`` (numpy's einsum language) of the tensors in
    ``data``."""
    return call("einsum", [tuple_arg(data, "einsum")], equation=equation)


def det(data: ExprLike) -> Call:
    """The determinants of the matrices ``data [..., n, n]`` (numpy's
    ``linalg.det``)."""
    return call("det", [data])


__all__ = ["argsort", "cumprod", "cumsum", "det", "einsum", "topk"]
