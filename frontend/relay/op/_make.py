"""Shared helpers of the op wrappers: making a call and normalising attributes the
way TVM's Python wrappers do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    Expr,
    Op,
    ScalarLike,
    Tuple,
    TupleWrapper,
    const,
    to_expr,
)

ExprLike = Expr | TupleWrapper
"""An argument that must be an expression."""


def call(name: str, args: Sequence[object], **attrs: Any) -> Call:
    """A call of relay op ``name`` (Relay's name: ``"add"``, ``"nn.conv2d"``)."""
    return Call(Op.get(name), [to_expr(a) for a in args], attrs)


def is_number(value: object) -> bool:
    return isinstance(value, bool | int | float | np.number | np.bool_)


def operand(value: object, like: object = None, dtype: str | None = None) -> Expr:
    """An expression for ``value``: expressions pass; a Python number becomes a 0-d
    constant of ``dtype`` if given, else of the dtype of ``like`` (when ``like`` is an
    expression), else of TVM's default for the number."""
    if isinstance(value, Expr | TupleWrapper):
        return to_expr(value)
    if is_number(value):
        if dtype:
            return const(value, dtype)
        if isinstance(like, Expr | TupleWrapper):
            return ScalarLike(cast(Any, value), to_expr(like))
        return const(value)
    return to_expr(value)


def binary_operands(lhs: object, rhs: object) -> tuple[Expr, Expr]:
    """Both operands of a binary op; a number takes the other side's dtype."""
    return operand(lhs, like=rhs), operand(rhs, like=lhs)


def int_axis(axis: object) -> None:
    """Reject a non-integer axis (TVM supports only static integer axes here)."""
    if not isinstance(axis, int):
        raise ValueError("For now, we only support integer axis")


def ints(value: object, what: str) -> list[int]:
    """A list of ints from an int, a sequence of ints or a constant."""
    if isinstance(value, Constant):
        return [int(v) for v in value.data.reshape(-1)]
    if isinstance(value, Expr):
        raise TypeError(
            f"{what} must be static (ints); dynamic shapes are not supported"
        )
    if isinstance(value, int):
        return [int(value)]
    return [int(v) for v in cast(Sequence[Any], value)]


def opt_ints(value: object, what: str) -> list[int] | None:
    return None if value is None else ints(value, what)


def pair(value: object, what: str) -> list[int]:
    """An int (for both spatial dims) or a list of ints."""
    if isinstance(value, int):
        return [value, value]
    return ints(value, what)


def opt_pair(value: object, what: str) -> list[int] | None:
    return None if value is None else pair(value, what)


def pad_tuple2d(padding: object) -> list[int]:
    """Relay's 2-D padding as 4 ints (top, left, bottom, right): one int pads all
    sides, two ints pad (height, width) on both sides, four are taken as given."""
    if isinstance(padding, int):
        pad_h = pad_w = padding * 2
    else:
        pads = ints(padding, "padding")
        if len(pads) == 4:
            return pads
        if len(pads) == 1:
            pad_h = pad_w = pads[0] * 2
        elif len(pads) == 2:
            pad_h, pad_w = pads[0] * 2, pads[1] * 2
        else:
            raise ValueError(f"padding must have 1, 2 or 4 values, got {pads}")
    top, left = (pad_h + 1) // 2, (pad_w + 1) // 2
    return [top, left, pad_h - top, pad_w - left]


def tuple_arg(data: object, what: str) -> Expr:
    """The tuple argument of ``concatenate``/``stack``: a list of expressions becomes
    a ``Tuple``; a tuple-valued expression is used as is."""
    if isinstance(data, Expr | TupleWrapper):
        return to_expr(data)
    fields = list(cast(Sequence[Any], data))
    if not fields:
        raise ValueError(f"relay.{what} requires data to be non-empty.")
    return Tuple(fields)
