"""Emitting the QNN arithmetic as existing relay ops, for each QNN op's
``canonicalize`` (what ``relay.qnn.transform.CanonicalizeOps`` asks the ops).

:class:`QnnBuilder` inserts relay ops before an anchor op. Its
:meth:`~QnnBuilder.saturate_round` emits the steps of
:func:`xrelay.dialects.relay.qnn_numerics.saturate_round` one for one, so a
canonicalized program computes exactly what the QNN op's ``compute`` does:

* NaN becomes ``-2**40`` (``where(x != x, ...)``), then ``clip`` to ``[-2**40, 2**40]``;
* rounding without a rounding op for ties to even: for ``|v| < 2**23``, ``(v + s) -
  s`` with ``s = sign(v) * 2**23`` rounds ``v`` to an integer in float32 arithmetic
  (ties to even, the IEEE default); larger floats are integers already. ``UPWARD``
  is ``floor(v) + (v - floor(v) >= 0.5)``, ``TONEAREST`` ``trunc(v) + sign(v) * (|v -
  trunc(v)| >= 0.5)`` (both exact: the differences are exact in float32);
* ``cast`` to int64, add the zero point, ``clip`` to the output type, ``cast``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.elementwise import (
    AbsOp,
    AddOp,
    CastOp,
    ClipOp,
    DivideOp,
    FloorOp,
    GreaterEqualOp,
    LessOp,
    MultiplyOp,
    NotEqualOp,
    SignOp,
    SubtractOp,
    TruncOp,
    WhereOp,
)
from xrelay.dialects.relay.qnn_numerics import FLOAT_BOUND
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.dialects.relay.transform import ReshapeOp

TWO_23 = 2.0**23
"""From this magnitude on, every float32 is an integer."""


class QnnBuilder:
    """Inserts relay ops before ``anchor`` (the QNN op being rewritten)."""

    def __init__(self, anchor: Operation):
        self.anchor = anchor

    def emit(
        self,
        cls: type[RelayOp],
        operands: Sequence[SSAValue],
        attrs: dict[str, object] | None = None,
    ) -> SSAValue:
        op = cls.make(list(operands), attrs or {})
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def const(self, value: float | int, dtype: str) -> SSAValue:
        op = ConstantOp.from_numpy(np.asarray(value, dtype=dtype))
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.result

    @staticmethod
    def dtype_of(value: SSAValue) -> str:
        return dtypes.dtype_name(cast(TensorType[Attribute], value.type).element_type)

    @staticmethod
    def shape_of(value: SSAValue) -> tuple[int, ...]:
        return tuple(cast(TensorType[Attribute], value.type).get_shape())

    def cast(self, value: SSAValue, dtype: str) -> SSAValue:
        if self.dtype_of(value) == dtype:
            return value
        return self.emit(CastOp, [value], {"dtype": dtype})

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(AddOp, [a, b])

    def subtract(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(SubtractOp, [a, b])

    def multiply(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(MultiplyOp, [a, b])

    def divide(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(DivideOp, [a, b])

    def where(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(WhereOp, [cond, a, b])

    def clip(self, value: SSAValue, lo: float, hi: float) -> SSAValue:
        return self.emit(ClipOp, [value], {"a_min": lo, "a_max": hi})

    def along(self, param: SSAValue, rank: int, axis: int) -> SSAValue:
        """A scale or zero point shaped to broadcast against a rank-``rank`` tensor
        (see :func:`xrelay.dialects.relay.qnn_numerics.along`)."""
        shape = self.shape_of(param)
        size = int(np.prod(shape)) if shape else 1
        if size == 1:
            return (
                param if not shape else self.emit(ReshapeOp, [param], {"newshape": []})
            )
        newshape = [1] * rank
        newshape[axis % rank] = size
        return self.emit(ReshapeOp, [param], {"newshape": newshape})

    def scalar(self, param: SSAValue) -> SSAValue:
        return self.along(param, 0, 0)

    def centered(self, x: SSAValue, zero_point: SSAValue) -> SSAValue:
        """``int32(x) - zero_point`` (int32)."""
        return self.subtract(self.cast(x, "int32"), self.cast(zero_point, "int32"))

    def round(self, v: SSAValue, rounding: str) -> SSAValue:
        """``v`` (float32) rounded to integers by ``rounding`` (module docstring)."""
        if rounding == "UPWARD":
            f = self.emit(FloorOp, [v])
            half = self.const(0.5, "float32")
            up = self.emit(GreaterEqualOp, [self.subtract(v, f), half])
            return self.where(up, self.add(f, self.const(1.0, "float32")), f)
        sign = self.emit(SignOp, [v])
        if rounding == "TONEAREST":
            t = self.emit(TruncOp, [v])
            frac = self.emit(AbsOp, [self.subtract(v, t)])
            up = self.emit(GreaterEqualOp, [frac, self.const(0.5, "float32")])
            return self.where(up, self.add(t, sign), t)
        shift = self.multiply(sign, self.const(TWO_23, "float32"))
        rounded = self.subtract(self.add(v, shift), shift)
        small = self.emit(
            LessOp, [self.emit(AbsOp, [v]), self.const(TWO_23, "float32")]
        )
        return self.where(small, rounded, v)

    def saturate_round(
        self, v: SSAValue, zero_point: SSAValue, dtype: str, rounding: str = "None"
    ) -> SSAValue:
        """``saturate(round(v) + zero_point)`` in ``dtype`` (module docstring)."""
        is_nan = self.emit(NotEqualOp, [v, v])
        v = self.where(is_nan, self.const(-FLOAT_BOUND, "float32"), v)
        v = self.clip(v, -FLOAT_BOUND, FLOAT_BOUND)
        r = self.cast(self.round(v, rounding), "int64")
        total = self.add(r, self.cast(zero_point, "int64"))
        info = np.iinfo(np.dtype(dtype))
        return self.cast(self.clip(total, float(info.min), float(info.max)), dtype)

    def requantize(
        self,
        acc: SSAValue,
        ratio: SSAValue,
        zero_point: SSAValue,
        dtype: str,
        rounding: str = "None",
    ) -> SSAValue:
        """``saturate(round(float32(acc) * ratio) + zero_point)``."""
        v = self.multiply(self.cast(acc, "float32"), ratio)
        return self.saturate_round(v, zero_point, dtype, rounding)


def properties_of(op: RelayOp, target: type[RelayOp]) -> dict[str, Any]:
    """``op``'s attributes that ``target`` has (the QNN op's ``nn`` twin)."""
    names = target.get_irdl_definition().properties
    return {k: v for k, v in op.properties.items() if k in names}
