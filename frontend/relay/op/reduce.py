"""Reductions (``tvm.relay.op.reduce``). ``axis`` is an int, a list of ints or
``None`` (all axes); ``exclude=True`` reduces every axis *not* listed; ``keepdims``
keeps reduced axes with size 1."""

from __future__ import annotations

from collections.abc import Sequence

from xrelay.frontend.relay.expr import Call, Expr
from xrelay.frontend.relay.op._make import ExprLike, call, opt_ints
from xrelay.frontend.relay.op.tensor import exp, log, sqrt, subtract
from xrelay.frontend.relay.op.transform import squeeze

Axis = int | Sequence[int] | None


def _reduce(
    name: str, data: ExprLike, axis: Axis, keepdims: bool, exclude: bool
) -> Call:
    return call(
        name, [data], axis=opt_ints(axis, "axis"), keepdims=keepdims, exclude=exclude
    )


def sum(
    data: ExprLike, axis: Axis = None, keepdims: bool = False, exclude: bool = False
) -> Call:
    """Sum over ``axis``."""
    return _reduce("sum", data, axis, keepdims, exclude)


def mean(
    data: ExprLike, axis: Axis = None, keepdims: bool = False, exclude: bool = False
) -> Call:
    """Mean over ``axis``."""
    return _reduce("mean", data, axis, keepdims, exclude)


def max(
    data: ExprLike, axis: Axis = None, keepdims: bool = False, exclude: bool = False
) -> Call:
    """Maximum over ``axis``."""
    return _reduce("max", data, axis, keepdims, exclude)


def min(
    data: ExprLike, axis: Axis = None, keepdims: bool = False, exclude: bool = False
) -> Call:
    """Minimum over ``axis``."""
    return _reduce("min", data, axis, keepdims, exclude)


def prod(
    data: ExprLike, axis: Axis = None, keepdims: bool = False, exclude: bool = False
) -> Call:
    """Product over ``axis``."""
    return _reduce("prod", data, axis, keepdims, exclude)


def all(
    data: ExprLike, axis: Axis = None, keepdims: bool = False, exclude: bool = False
) -> Call:
    """Logical ``and`` over ``axis`` of a bool tensor."""
    return _reduce("all", data, axis, keepdims, exclude)


def any(
    data: ExprLike, axis: Axis = None, keepdims: bool = False, exclude: bool = False
) -> Call:
    """Logical ``or`` over ``axis`` of a bool tensor."""
    return _reduce("any", data, axis, keepdims, exclude)


def argmax(
    data: ExprLike,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    select_last_index: bool = False,
) -> Call:
    """Index (int32) of the maximum over ``axis``; ties give the first index unless
    ``select_last_index``."""
    return call(
        "argmax",
        [data],
        axis=opt_ints(axis, "axis"),
        keepdims=keepdims,
        exclude=exclude,
        select_last_index=select_last_index,
    )


def argmin(
    data: ExprLike,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    select_last_index: bool = False,
) -> Call:
    """Index (int32) of the minimum over ``axis``."""
    return call(
        "argmin",
        [data],
        axis=opt_ints(axis, "axis"),
        keepdims=keepdims,
        exclude=exclude,
        select_last_index=select_last_index,
    )


def variance(
    data: ExprLike,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    unbiased: bool = False,
    with_mean: Expr | None = None,
) -> Call:
    """Variance over ``axis``: like TVM, the mean (``mean(data, axis, keepdims=True)``
    unless ``with_mean`` is given) is a second operand of the ``variance`` op."""
    m = mean(data, axis, True, exclude) if with_mean is None else with_mean
    return call(
        "variance",
        [data, m],
        axis=opt_ints(axis, "axis"),
        keepdims=keepdims,
        exclude=exclude,
        unbiased=unbiased,
    )


def std(
    data: ExprLike,
    axis: Axis = None,
    keepdims: bool = False,
    exclude: bool = False,
    unbiased: bool = False,
) -> Call:
    """Standard deviation over ``axis``: ``sqrt(variance(...))``."""
    return sqrt(variance(data, axis, keepdims, exclude, unbiased))


def logsumexp(data: ExprLike, axis: Axis = None, keepdims: bool = False) -> Expr:
    """``log(sum(exp(data)))`` over ``axis``, computed stably around the maximum
    (a composition of ``max``, ``exp``, ``sum``, ``log`` as in TVM)."""
    axes = opt_ints(axis, "axis")
    max_x = max(data, axes, True)
    sum_x = sum(exp(subtract(data, max_x)), axes, True)
    out: Expr = log(sum_x) + max_x
    if not keepdims:
        out = squeeze(out, axes)
    return out
