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

:meth:`~QnnBuilder.requantize` of an integer accumulator by a constant multiplier
bounds the float32 value at compile time (``|v| <= 2**31 * max|ratio|``) and leaves
out the steps that cannot change a bit within that bound (:func:`requantize_plan`):
the NaN test (a finite multiplier makes none), the clamp (below ``2**40``), the
rounding's ``where`` (below ``2**23``; below ``2**22`` ties to even are ``(v +
1.5 * 2**23) - 1.5 * 2**23``, both exact) and int64 (when the sum with the zero
point fits int32). Within ``2**22`` the rounded integer is also read straight off
the bits of ``v + 1.5 * 2**23`` (:data:`MAGIC_BITS` plus it: the sum lies in
``[2**23, 2**24]``, where the float's low bits count whole units), so no
float-to-int conversion (with its saturation tests) is emitted at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import Array, RelayOp, get_float
from xrelay.dialects.relay.elementwise import (
    AbsOp,
    AddOp,
    BiasAddOp,
    CastOp,
    ClipOp,
    DivideOp,
    FloorOp,
    GreaterEqualOp,
    LessOp,
    MultiplyOp,
    NotEqualOp,
    ReinterpretOp,
    SignOp,
    SubtractOp,
    TruncOp,
    WhereOp,
)
from xrelay.dialects.relay.nn import Conv2DOp, DenseOp
from xrelay.dialects.relay.qnn_numerics import FLOAT_BOUND
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.dialects.relay.transform import ReshapeOp

TWO_23 = 2.0**23
"""From this magnitude on, every float32 is an integer."""

MAGIC = 1.5 * 2.0**23
"""``(v + MAGIC) - MAGIC`` is ``v`` rounded half to even, exactly, for ``|v| <
2**22``: the sum lies in ``[2**23, 2**24)``, where float32 steps by one."""

MAGIC_BITS = 0x4B400000
"""The bits of float32 :data:`MAGIC`: for ``|v| <= 2**22`` the bits of ``v + MAGIC``
read as int32 are ``MAGIC_BITS + round_half_even(v)`` (one exponent, ``2**23``,
across ``[2**23, 2**24)``; ``2**24``'s bits are ``MAGIC_BITS + 2**22`` too)."""


@dataclass(frozen=True)
class RequantizePlan:
    """Which steps of :meth:`QnnBuilder.saturate_round` a requantize needs, from a
    bound of ``|float32(acc) * ratio|`` known at compile time."""

    nan: bool = True
    """NaN can occur (the multiplier is not known finite)."""
    clamp: bool = True
    """The value can reach ``2**40``."""
    rounding: str = "general"
    """``"magic"`` (``|v| < 2**22``), ``"shift"`` (``|v| < 2**23``: no ``where``)
    or ``"general"``."""
    wide: bool = True
    """The sum with the zero point needs int64."""
    bound: float = FLOAT_BOUND
    """The clamp's bound (NaN becomes its negative)."""


GENERAL = RequantizePlan()


def requantize_plan(
    acc_dtype: str,
    ratio: Array | None,
    zero_point: Array | None,
    acc_bound: int | None = None,
) -> RequantizePlan:
    """The steps a requantize of an ``acc_dtype`` accumulator (at most
    ``acc_bound`` in magnitude when known, :meth:`QnnBuilder.int_bound`) by the
    constant ``ratio`` (``None``: not a constant) to the constant ``zero_point``
    needs (ties-to-even rounding; see the module docstring)."""
    if ratio is None or np.dtype(acc_dtype).kind not in "iu":
        return GENERAL
    r = np.abs(np.asarray(ratio, np.float32)).astype(np.float64)
    if r.size == 0 or not np.all(np.isfinite(r)):
        return GENERAL
    info = np.iinfo(np.dtype(acc_dtype))
    extent = max(abs(int(info.min)), int(info.max))
    if acc_bound is not None:
        extent = min(extent, acc_bound)
    return bounded_plan(extent * float(r.max()), zero_point)


def bounded_plan(bound: float, zero_point: Array | None) -> RequantizePlan:
    """The steps of a :meth:`QnnBuilder.saturate_round` of finite float32 values
    whose magnitude is at most ``bound`` (computed exactly, in float64) before the
    float32 roundings of the products and sums that make them (a relative
    ``2**-20`` covers a few), with the constant ``zero_point`` (``None``: not a
    constant)."""
    bound *= 1 + 2.0**-20  # float32(acc) and the product round up by less
    rounding = "magic" if bound < 2.0**22 else "shift" if bound < TWO_23 else "general"
    wide = True
    if zero_point is not None:
        zp = np.abs(np.asarray(zero_point).astype(np.int64))
        wide = bound + 1 + float(zp.max(initial=0)) >= 2.0**31 - 1
    return RequantizePlan(False, bound >= FLOAT_BOUND, rounding, wide)


QUANTIZE_BOUND = 2.0**22
"""The clamp of :func:`quantize_plan`: within it ties to even are the two-op
rounding of :data:`MAGIC`."""


def quantize_plan(
    dtype: str, zero_point_range: tuple[int, int] | None
) -> RequantizePlan:
    """The steps of a quantize of float32 values into ``dtype`` whose zero point is
    known to lie in ``zero_point_range`` (``None``: unknown): for 8- and 16-bit
    results and a zero point within ``2**21``, clamping the value to ``2**22``
    saturates exactly as clamping to ``2**40`` does (``2**22 + zp`` lies beyond
    the type's range either way), so the rounding is the two-op :data:`MAGIC` one
    and the sum with the zero point fits int32 (AVX2 has no vector float-to-int64
    conversion)."""
    if zero_point_range is None or np.dtype(dtype).itemsize > 2:
        return GENERAL
    lo, hi = zero_point_range
    if max(abs(lo), abs(hi)) > 2**21:
        return GENERAL
    return RequantizePlan(True, True, "magic", False, QUANTIZE_BOUND)


CONSTANT_DEPTH = 4
"""How many ops deep :meth:`QnnBuilder.constant_of` looks for constants."""
CONSTANT_ELEMENTS = 1 << 16
"""The most elements of a constant expression :meth:`QnnBuilder.constant_of`
computes (scales and zero points, not weights)."""


BOUND_FOLD_ELEMENTS = 1 << 12
BOUND_FOLD_DEPTH = 12
"""How many elements and ops deep :meth:`QnnBuilder.int_bound` computes a constant
expression (a bias: ``qnn.requantize`` of an int32 constant, a dozen ops)."""


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

    def const(self, value: float | int | Array, dtype: str) -> SSAValue:
        return self.const_array(np.asarray(value, dtype=dtype))

    def const_array(self, array: Array) -> SSAValue:
        op = ConstantOp.from_numpy(np.array(array, copy=True, order="C"))
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.result

    @staticmethod
    def dtype_of(value: SSAValue) -> str:
        return dtypes.dtype_name(cast(TensorType[Attribute], value.type).element_type)

    @staticmethod
    def shape_of(value: SSAValue) -> tuple[int, ...]:
        return tuple(cast(TensorType[Attribute], value.type).get_shape())

    @staticmethod
    def constant_of(value: SSAValue, depth: int = CONSTANT_DEPTH) -> Array | None:
        """The array of ``value`` when a ``relay.constant`` defines it, or a small
        expression of constants (at most ``depth`` ops deep, at most
        :data:`CONSTANT_ELEMENTS` elements: an importer's ``input_scale *
        weight_scale``, which FoldConstant folds only later), computed by the ops'
        numpy semantics."""
        owner = value.owner
        if isinstance(owner, ConstantOp):
            return owner.numpy()
        if (
            depth == 0
            or not isinstance(owner, RelayOp)
            or owner.regions
            or len(owner.results) != 1
            or not isinstance(value.type, TensorType)
            or np.prod(value.type.get_shape()) > CONSTANT_ELEMENTS
        ):
            return None
        args: list[Array] = []
        for operand in owner.operands:
            arg = QnnBuilder.constant_of(operand, depth - 1)
            if arg is None:
                return None
            args.append(arg)
        with np.errstate(all="ignore"):
            out = owner.compute(*args)
        return out if isinstance(out, np.ndarray) else None

    def folded(self, op: RelayOp) -> SSAValue | None:
        """``op``'s result as a constant when every operand is a constant (or a
        small constant expression: :meth:`constant_of`) and the result has at most
        :data:`CONSTANT_ELEMENTS` elements: the value of its numpy semantics, the
        bits its canonical form would compute once FoldConstant folded it (the
        requantize of a quantized model's int32 bias), without emitting that form
        first. ``None`` otherwise."""
        if len(op.results) != 1:
            return None
        ty = op.results[0].type
        if (
            not isinstance(ty, TensorType)
            or np.prod(ty.get_shape()) > CONSTANT_ELEMENTS
        ):
            return None
        args: list[Array] = []
        for operand in op.operands:
            arg = self.constant_of(operand)
            if arg is None:
                return None
            args.append(arg)
        with np.errstate(all="ignore"):
            (value,) = op.evaluate(*args)
        return self.const_array(np.asarray(value))

    def int_range(self, value: SSAValue) -> tuple[int, int] | None:
        """Bounds of the integer ``value``: a constant's extremes, or the range of
        the integer type a ``cast`` (through reshapes) converts from; ``None`` when
        not known."""
        owner = value.owner
        while isinstance(owner, ReshapeOp):
            owner = owner.operands[0].owner
        if isinstance(owner, ConstantOp):
            array = owner.numpy()
            if array.size == 0 or array.dtype.kind not in "iu":
                return None
            return int(array.min()), int(array.max())
        if isinstance(owner, CastOp):
            source = np.dtype(self.dtype_of(owner.operands[0]))
            if source.kind in "iu" and source.itemsize < 8:
                info = np.iinfo(source)
                return int(info.min), int(info.max)
        return None

    def centered_bound(self, x: SSAValue, zero_point: SSAValue) -> int | None:
        """The largest ``|x - zero_point|`` for an integer ``x`` (any value of its
        dtype) and a constant ``zero_point``; ``None`` otherwise."""
        dtype = np.dtype(self.dtype_of(x))
        zp = self.constant_of(zero_point)
        if dtype.kind not in "iu" or zp is None or zp.size == 0:
            return None
        info = np.iinfo(dtype)
        z = np.asarray(zp).astype(np.int64)
        return int(max(np.abs(info.min - z).max(), np.abs(info.max - z).max()))

    def int_bound(self, value: SSAValue, depth: int = 8) -> int | None:
        """An upper bound of ``|value|`` for an integer tensor, from what computes
        it (``depth`` ops deep): a constant's largest magnitude (a small constant
        expression computed), a ``cast`` or ``reshape`` that keeps the values,
        ``add`` / ``subtract`` / ``bias_add`` (the sum of the bounds; no unsigned
        difference), ``clip`` (its limits), and ``nn.conv2d`` / ``nn.dense`` (the
        data's bound times the largest sum of ``|weight|`` over one output
        channel's reduction for a constant weight, the weight's bound times the
        reduction length otherwise); ``None`` when not known or beyond the dtype's
        range (the value may have wrapped)."""
        dtype = np.dtype(self.dtype_of(value))
        if dtype.kind not in "iu":
            return None
        info = np.iinfo(dtype)
        limit = max(abs(int(info.min)), int(info.max))
        owner = value.owner
        array = None
        if isinstance(owner, ConstantOp):
            array = owner.numpy()
        elif int(np.prod(self.shape_of(value))) <= BOUND_FOLD_ELEMENTS:
            # a small constant expression (a bias requantized to the sums' scale)
            array = self.constant_of(value, BOUND_FOLD_DEPTH)
        if array is not None:
            return int(np.abs(array.astype(np.int64)).max(initial=0))
        if depth == 0 or not isinstance(owner, Operation):
            return None
        bound: int | None = None
        if isinstance(owner, CastOp | ReshapeOp):
            source = owner.operands[0]
            src = np.dtype(self.dtype_of(source))
            if src.kind in "iu":
                s_info = np.iinfo(src)
                inner = self.int_bound(source, depth - 1)
                fits = info.min <= s_info.min and s_info.max <= info.max
                if inner is None:
                    inner = max(abs(int(s_info.min)), int(s_info.max))
                # a narrowing cast keeps values its type holds: a signed type
                # holds every value within the bound, an unsigned one no negative
                signed = int(info.min) < 0
                bound = inner if fits or (signed and inner <= int(info.max)) else None
        elif isinstance(owner, SubtractOp) and dtype.kind == "u":
            bound = None  # a negative difference wraps to a large value
        elif isinstance(owner, AddOp | SubtractOp | BiasAddOp):
            a = self.int_bound(owner.operands[0], depth - 1)
            b = self.int_bound(owner.operands[1], depth - 1)
            bound = None if a is None or b is None else a + b
        elif isinstance(owner, ClipOp):
            lo, hi = get_float(owner.a_min), get_float(owner.a_max)
            if math.isfinite(lo) and math.isfinite(hi):
                bound = math.ceil(max(abs(lo), abs(hi)))
        elif isinstance(owner, Conv2DOp | DenseOp):
            bound = self._product_bound(owner, depth)
        return bound if bound is not None and bound <= limit else None

    def _product_bound(self, op: Operation, depth: int) -> int | None:
        """:meth:`int_bound` of a ``nn.conv2d`` (``OIHW``-like kernel layout) or
        ``nn.dense`` (weight ``[N, K]``) of integer operands."""
        data, weight = op.operands[0], op.operands[1]
        x = self.int_bound(data, depth - 1)
        if x is None:
            return None
        w = self.constant_of(weight)
        shape = self.shape_of(weight)
        if isinstance(op, Conv2DOp):
            out_axis = op.kernel_layout_str().index("O")
        else:
            out_axis = 0
        if w is not None and w.ndim == len(shape) and w.dtype.kind in "iu":
            per_out = np.moveaxis(np.abs(w.astype(np.int64)), out_axis, 0)
            sums = per_out.reshape(per_out.shape[0], -1).sum(axis=1)
            return x * int(sums.max(initial=0))
        wb = self.int_bound(weight, depth - 1)
        if wb is None or not shape:
            return None
        return x * wb * (int(np.prod(shape)) // max(1, shape[out_axis]))

    def ratio_of(self, numerator: SSAValue, denominator: SSAValue) -> Array | None:
        """``numerator / denominator`` in float32 when both are constants."""
        a, b = self.constant_of(numerator), self.constant_of(denominator)
        if a is None or b is None:
            return None
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(a, np.float32) / np.asarray(b, np.float32)

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
        """``a / b``; folded into a constant when both are float32 constants (the
        multiplier of a requantize, whose bound then simplifies it)."""
        x, y = self.constant_of(a), self.constant_of(b)
        if x is not None and y is not None and x.dtype == y.dtype == np.float32:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                return self.const(np.divide(x, y), "float32")
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
        if size == 1 and not shape:
            return param
        newshape = [1] * rank
        if size > 1:
            newshape[axis % rank] = size
        else:
            newshape = []
        array = self.constant_of(param)
        if array is not None:  # a constant parameter stays a constant
            return self.const_array(array.reshape(newshape))
        return self.emit(ReshapeOp, [param], {"newshape": newshape})

    def scalar(self, param: SSAValue) -> SSAValue:
        return self.along(param, 0, 0)

    def centered(self, x: SSAValue, zero_point: SSAValue) -> SSAValue:
        """``int32(x) - zero_point`` (int32)."""
        return self.subtract(self.cast(x, "int32"), self.cast(zero_point, "int32"))

    def centered16(self, x: SSAValue, zero_point: SSAValue) -> SSAValue | None:
        """``int16(x) - int16(zero_point)`` for an 8-bit ``x`` and a constant
        per-tensor ``zero_point`` inside ``x``'s range (the difference then fits
        int16: ``[-255, 255]``); a constant ``x`` is folded. ``None`` otherwise."""
        dtype = self.dtype_of(x)
        zp = self.constant_of(zero_point)
        if dtype in ("int8", "uint8") and zp is None:
            return self.centered16_at_run_time(x, zero_point)
        if dtype not in ("int8", "uint8") or zp is None or zp.size != 1:
            return None
        info = np.iinfo(np.dtype(dtype))
        z = int(zp.reshape(-1)[0])
        if not info.min <= z <= info.max:
            return None
        array = self.constant_of(x)
        if array is not None:
            return self.const_array(array.astype(np.int16) - np.int16(z))
        return self.subtract(self.cast(x, "int16"), self.const(z, "int16"))

    def centered16_at_run_time(
        self, x: SSAValue, zero_point: SSAValue
    ) -> SSAValue | None:
        """``int16(x) - int16(zero_point)`` for an 8-bit ``x`` and a per-tensor
        ``zero_point`` known only at run time whose range (:meth:`int_range`: the
        8-bit value dynamic quantization casts to int32) keeps the difference
        within ``[-32767, 32767]`` (a pair of products of such values cannot
        saturate ``pmaddwd``); ``None`` otherwise."""
        bounds = self.int_range(zero_point)
        if bounds is None or int(np.prod(self.shape_of(zero_point))) != 1:
            return None
        info = np.iinfo(np.dtype(self.dtype_of(x)))
        lo, hi = int(info.min) - bounds[1], int(info.max) - bounds[0]
        if lo < -32767 or hi > 32767:
            return None
        zp = self.cast(self.scalar(zero_point), "int16")
        return self.subtract(self.cast(x, "int16"), zp)

    def legalize_product(self, op: RelayOp, operands: Sequence[int]) -> SSAValue | None:
        """``op`` (a QNN product) rebuilt on its operands ``operands[k]`` (8-bit)
        centered into int16 by their zero points ``operands[k] + 2`` (now zero),
        when every one can be (:meth:`centered16`); ``None`` otherwise."""
        new = list(op.operands)
        for k in operands:
            value = self.centered16(op.operands[k], op.operands[k + 2])
            if value is None:
                return None
            new[k] = value
            new[k + 2] = self.const(0, "int32")
        clone = op.clone()
        clone.operands = new
        Rewriter.insert_op(clone, InsertPoint.before(self.anchor))
        return clone.results[0]

    def product_operand(self, x: SSAValue, zero_point: SSAValue) -> SSAValue:
        """An operand of the integer convolution / products: ``x`` itself when it is
        int16 with a constant zero ``zero_point`` (the legalized form: the relay op
        multiplies int16 operands into int32 sums, ``out_dtype``), else
        ``int32(x) - zero_point``."""
        zp = self.constant_of(zero_point)
        if self.dtype_of(x) == "int16" and zp is not None and not np.any(zp):
            return x
        return self.centered(x, zero_point)

    def round(
        self, v: SSAValue, rounding: str, plan: RequantizePlan = GENERAL
    ) -> SSAValue:
        """``v`` (float32) rounded to integers by ``rounding`` (module docstring)."""
        if rounding == "None" and plan.rounding == "magic":
            magic = self.const(MAGIC, "float32")
            return self.subtract(self.add(v, magic), magic)
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
        if plan.rounding == "shift":
            return rounded
        small = self.emit(
            LessOp, [self.emit(AbsOp, [v]), self.const(TWO_23, "float32")]
        )
        return self.where(small, rounded, v)

    def magic_round(self, v: SSAValue, zero_point: SSAValue, wide: str) -> SSAValue:
        """``round_half_even(v) + zero_point`` in ``wide`` for float32 ``|v| <=
        2**22``: the bits of ``v + MAGIC`` less :data:`MAGIC_BITS` (the two
        constants one when the zero point is an int32 constant)."""
        bits = self.emit(
            ReinterpretOp,
            [self.add(v, self.const(MAGIC, "float32"))],
            {"dtype": "int32"},
        )
        zp = self.constant_of(zero_point)
        if wide == "int32" and zp is not None and zp.dtype.kind in "iu":
            offset = np.asarray(zp).astype(np.int64) - MAGIC_BITS
            if offset.min(initial=0) >= -(2**31):
                return self.add(bits, self.const_array(offset.astype(np.int32)))
        r = self.cast(self.subtract(bits, self.const(MAGIC_BITS, "int32")), wide)
        return self.add(r, self.cast(zero_point, wide))

    def saturate_round(
        self,
        v: SSAValue,
        zero_point: SSAValue,
        dtype: str,
        rounding: str = "None",
        plan: RequantizePlan = GENERAL,
    ) -> SSAValue:
        """``saturate(round(v) + zero_point)`` in ``dtype`` (module docstring); the
        steps ``plan`` rules out are left out."""
        if plan.nan:
            is_nan = self.emit(NotEqualOp, [v, v])
            v = self.where(is_nan, self.const(-plan.bound, "float32"), v)
        if plan.clamp:
            v = self.clip(v, -plan.bound, plan.bound)
        wide = "int64" if plan.wide else "int32"
        if rounding == "None" and plan.rounding == "magic":
            total = self.magic_round(v, zero_point, wide)
        else:
            r = self.cast(self.round(v, rounding, plan), wide)
            total = self.add(r, self.cast(zero_point, wide))
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
        """``saturate(round(float32(acc) * ratio) + zero_point)``; with ``ratio`` and
        ``zero_point`` constants, only the steps :func:`requantize_plan` keeps."""
        plan = GENERAL
        if rounding == "None":
            plan = requantize_plan(
                self.dtype_of(acc),
                self.constant_of(ratio),
                self.constant_of(zero_point),
                self.int_bound(acc),
            )
        v = self.multiply(self.cast(acc, "float32"), ratio)
        return self.saturate_round(v, zero_point, dtype, rounding, plan)


def properties_of(op: RelayOp, target: type[RelayOp]) -> dict[str, Any]:
    """``op``'s attributes that ``target`` has (the QNN op's ``nn`` twin)."""
    names = target.get_irdl_definition().properties
    return {k: v for k, v in op.properties.items() if k in names}
