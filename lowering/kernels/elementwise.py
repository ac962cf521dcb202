"""Elementwise and broadcast ops: one generic pointwise emitter, driven by a scalar
function per op.

Operands are read at the output index broadcast to their shape (numpy rules); the
scalar function combines the values with the numpy semantics of the op (see
:class:`~xrelay.lowering.builder.KernelBuilder` for the integer and NaN rules).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, IntegerType
from xdsl.ir import SSAValue

from xrelay.dialects.relay import elementwise as ew
from xrelay.dialects.relay.annotation import StopFusionOp
from xrelay.dialects.relay.base import get_float, get_int
from xrelay.lowering.builder import Index, KernelBuilder
from xrelay.lowering.kernels import (
    OpContext,
    broadcast_index,
    identity_reads,
    pointwise,
    scalars_at_run_time,
)
from xrelay.lowering.scalar_types import (
    DType,
    is_float,
    is_half,
    is_signed,
    memory_type,
)

BOOL: DType = np.dtype(np.bool_)

Scalar2 = Callable[[KernelBuilder, SSAValue, SSAValue, DType], SSAValue]
Scalar1 = Callable[[KernelBuilder, SSAValue, DType], SSAValue]


def read(cx: OpContext, k: int, idx: list[Index]) -> SSAValue:
    """Operand ``k`` at the output index ``idx`` (broadcast)."""
    src = cx.operand(k)
    return src.at(broadcast_index(idx, src.shape, len(idx)))


def _binary(fn: Scalar2) -> Callable[[OpContext, int, list[Index]], SSAValue]:
    def value_at(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
        return fn(cx.kb, read(cx, 0, idx), read(cx, 1, idx), cx.operand(0).dtype)

    return value_at


def _unary(fn: Scalar1) -> Callable[[OpContext, int, list[Index]], SSAValue]:
    def value_at(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
        return fn(cx.kb, read(cx, 0, idx), cx.operand(0).dtype)

    return value_at


def _int_power(kb: KernelBuilder, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """``a ** b`` for integers by repeated squaring over the bits of ``b`` (numpy
    wraps around on overflow; negative exponents are not defined for integers)."""
    bits = dt.itemsize * 8
    one = kb.const(1, dt)

    def step(_: Index, carried: list[SSAValue]) -> list[SSAValue]:
        acc, base, exp = carried
        odd = kb.cmp("ne", kb.result(arith.AndIOp(exp, one)), kb.zero(dt), dt)
        acc = kb.select(odd, kb.mul(acc, base), acc)
        base = kb.mul(base, base)
        exp = kb.result(arith.ShRUIOp(exp, one))
        return [acc, base, exp]

    return kb.fold_loop(0, bits, [one, a, b], step)[0]


def _small_integer_exponent(b: SSAValue) -> int | None:
    """The exponent when ``b`` is a constant -1, 1, 2, 3 or 4 (GELU's ``x ** 3``,
    variances' ``x ** 2``), else ``None``."""
    owner = b.owner
    if not isinstance(owner, arith.ConstantOp):
        return None
    value = owner.value
    if not isinstance(value, FloatAttr):
        return None
    exponent = float(cast(Any, value).value.data)
    if exponent in (-1.0, 1.0, 2.0, 3.0, 4.0):
        return int(exponent)
    return None


def _power(kb: KernelBuilder, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if is_float(dt):
        n = _small_integer_exponent(b)
        if n is not None and isinstance(a.type, Float32Type | Float64Type):
            # products instead of a libm call per element (which keeps the loop, and
            # a GEMM epilogue holding it, from vectorising): x ** 2 and 1 / x are
            # exact as powf's correctly rounded result; x ** 3 and x ** 4 round twice
            # (within 1.5 ulp); NaN, infinities and signed zeros as powf gives them
            if n == 1:
                return a
            if n == -1:
                return kb.div(kb.const(1.0, dt), a, dt)
            square = kb.mul(a, a)
            if n == 2:
                return square
            return kb.mul(square, a) if n == 3 else kb.mul(square, square)
        return kb.math("powf", a, b)
    if dt.kind == "b":
        return kb.logical_or(a, kb.logical_not(b))
    return _int_power(kb, a, b, dt)


BINARY: dict[type[ew.BinaryOp], Scalar2] = {
    ew.AddOp: lambda kb, a, b, dt: kb.add(a, b),
    ew.SubtractOp: lambda kb, a, b, dt: kb.sub(a, b),
    ew.MultiplyOp: lambda kb, a, b, dt: kb.mul(a, b),
    ew.DivideOp: lambda kb, a, b, dt: kb.div(a, b, dt),
    ew.PowerOp: _power,
    ew.MaximumOp: lambda kb, a, b, dt: kb.max(a, b, dt),
    ew.MinimumOp: lambda kb, a, b, dt: kb.min(a, b, dt),
    ew.FloorDivideOp: lambda kb, a, b, dt: kb.floor_div(a, b, dt),
    ew.FloorModOp: lambda kb, a, b, dt: kb.floor_rem(a, b, dt),
    ew.ModOp: lambda kb, a, b, dt: kb.trunc_rem(a, b, dt),
    ew.EqualOp: lambda kb, a, b, dt: kb.cmp("eq", a, b, dt),
    ew.NotEqualOp: lambda kb, a, b, dt: kb.cmp("ne", a, b, dt),
    ew.LessOp: lambda kb, a, b, dt: kb.cmp("lt", a, b, dt),
    ew.LessEqualOp: lambda kb, a, b, dt: kb.cmp("le", a, b, dt),
    ew.GreaterOp: lambda kb, a, b, dt: kb.cmp("gt", a, b, dt),
    ew.GreaterEqualOp: lambda kb, a, b, dt: kb.cmp("ge", a, b, dt),
    ew.LogicalAndOp: lambda kb, a, b, dt: kb.logical_and(a, b),
    ew.LogicalOrOp: lambda kb, a, b, dt: kb.logical_or(a, b),
}


def _sigmoid(kb: KernelBuilder, x: SSAValue, dt: DType) -> SSAValue:
    """``1 / (1 + e^-x)`` for ``x >= 0``, ``e^x / (1 + e^x)`` below: ``e^-|x|`` never
    overflows, and the result keeps its relative accuracy down to the denormals
    (the reference's ``0.5 * (tanh(x / 2) + 1)`` cancels to 0 for ``x < -17``)."""
    one = kb.const(1.0, dt)
    t = kb.math("exp", kb.neg(kb.math("absf", x), dt))
    # one division of the selected numerator: a shorter dependent chain than
    # ``t * (1 / (1 + t))`` (the loops are latency-bound), and one rounding less
    num = kb.select(kb.cmp("ge", x, kb.zero(dt), dt), one, t)
    return kb.div(num, kb.add(one, t), dt)


def _abs(kb: KernelBuilder, x: SSAValue, dt: DType) -> SSAValue:
    if is_float(dt):
        return kb.math("absf", x)
    if not is_signed(dt):
        return x
    return kb.select(kb.cmp("lt", x, kb.zero(dt), dt), kb.neg(x, dt), x)


def _sign(kb: KernelBuilder, x: SSAValue, dt: DType) -> SSAValue:
    if dt.kind == "b":
        return x
    zero = kb.zero(dt)
    pos = kb.select(
        kb.cmp("gt", x, zero, dt), kb.const(1, dt), x if is_float(dt) else zero
    )
    if not is_float(dt) and not is_signed(dt):
        return pos
    return kb.select(kb.cmp("lt", x, zero, dt), kb.const(-1, dt), pos)


def _float_only(name: str) -> Scalar1:
    """A ``math`` function on floats; the identity on integers (floor, round...)."""

    def fn(kb: KernelBuilder, x: SSAValue, dt: DType) -> SSAValue:
        return kb.math(name, x) if is_float(dt) else x

    return fn


def _relu(kb: KernelBuilder, x: SSAValue, dt: DType) -> SSAValue:
    if dt.kind == "b" or (not is_float(dt) and not is_signed(dt)):
        return x
    zero = kb.zero(dt)
    # x < 0 ? 0 : x keeps NaN, like numpy's maximum(x, 0)
    return kb.select(kb.cmp("lt", x, zero, dt), zero, x)


def _rsqrt(kb: KernelBuilder, x: SSAValue, dt: DType) -> SSAValue:
    return kb.div(kb.const(1.0, dt), kb.math("sqrt", x), dt)


UNARY: dict[type[ew.UnaryOp], Scalar1] = {
    ew.ExpOp: lambda kb, x, dt: kb.math("exp", x),
    ew.FastExpOp: lambda kb, x, dt: kb.math("exp", x),
    ew.LogOp: lambda kb, x, dt: kb.math("log", x),
    ew.SqrtOp: lambda kb, x, dt: kb.math("sqrt", x),
    ew.RsqrtOp: _rsqrt,
    ew.SigmoidOp: _sigmoid,
    ew.TanhOp: lambda kb, x, dt: kb.math("tanh", x),
    ew.FastTanhOp: lambda kb, x, dt: kb.math("tanh", x),
    ew.ErfOp: lambda kb, x, dt: kb.math("erf", x),
    ew.FastErfOp: lambda kb, x, dt: kb.math("erf", x),
    ew.SinOp: lambda kb, x, dt: kb.math("sin", x),
    ew.CosOp: lambda kb, x, dt: kb.math("cos", x),
    ew.AcosOp: lambda kb, x, dt: kb.math("acos", x),
    ew.AsinOp: lambda kb, x, dt: kb.math("asin", x),
    ew.AtanOp: lambda kb, x, dt: kb.math("atan", x),
    ew.AcoshOp: lambda kb, x, dt: kb.math("acosh", x),
    ew.AsinhOp: lambda kb, x, dt: kb.math("asinh", x),
    ew.AtanhOp: lambda kb, x, dt: kb.math("atanh", x),
    ew.NegativeOp: lambda kb, x, dt: (
        kb.logical_not(kb.logical_not(x)) if dt.kind == "b" else kb.neg(x, dt)
    ),
    ew.AbsOp: _abs,
    ew.SignOp: _sign,
    ew.FloorOp: _float_only("floor"),
    ew.CeilOp: _float_only("ceil"),
    ew.RoundOp: _float_only("round"),
    ew.TruncOp: _float_only("trunc"),
    ew.LogicalNotOp: lambda kb, x, dt: kb.logical_not(x),
    ew.CopyOp: lambda kb, x, dt: x,
    StopFusionOp: lambda kb, x, dt: x,
    ew.ReluOp: _relu,
}

for _cls, _fn in BINARY.items():
    pointwise(_cls)(_binary(_fn))
for _cls, _fn in UNARY.items():
    pointwise(_cls)(_unary(_fn))


@pointwise(ew.LeakyReluOp)
def _leaky_relu(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    assert isinstance(cx.op, ew.LeakyReluOp)
    kb, dt = cx.kb, cx.out_dtype()
    x = read(cx, 0, idx)
    alpha = kb.const(get_float(cx.op.alpha), dt)
    return kb.select(kb.cmp("gt", x, kb.zero(dt), dt), x, kb.mul(x, alpha))


@pointwise(ew.ClipOp)
def _clip(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    assert isinstance(cx.op, ew.ClipOp)
    kb, dt = cx.kb, cx.out_dtype()
    lo, hi = get_float(cx.op.a_min), get_float(cx.op.a_max)
    x = read(cx, 0, idx)
    if dt.kind == "b":
        return x
    if not is_float(dt):
        info = np.iinfo(dt)
        lo_i = math.ceil(max(lo, float(info.min)))
        hi_i = math.floor(min(hi, float(info.max)))
        return kb.min(kb.max(x, kb.const(lo_i, dt), dt), kb.const(hi_i, dt), dt)
    # select chains keep NaN, like numpy's clip
    lo_v, hi_v = kb.const(lo, dt), kb.const(hi, dt)
    t = kb.select(kb.cmp("lt", x, lo_v, dt), lo_v, x)
    return kb.select(kb.cmp("gt", t, hi_v, dt), hi_v, t)


@pointwise(ew.CastOp, ew.CastLikeOp)
def _cast(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    return cx.kb.cast(read(cx, 0, idx), cx.operand(0).dtype, cx.out_dtype())


@pointwise(ew.ReinterpretOp)
def _reinterpret(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    """Register value -> its memory bits (float16 rounded to ``f16``, bool as a
    byte) -> ``arith.bitcast`` -> the result's register value."""
    kb, src, dst = cx.kb, cx.operand(0).dtype, cx.out_dtype()
    value = read(cx, 0, idx)
    if src.kind == "b":
        value = kb.result(arith.ExtUIOp(value, IntegerType(8)))
    elif is_half(src):
        value = kb.narrow(value, src)
    if memory_type(src) != memory_type(dst):
        value = kb.result(arith.BitcastOp(value, memory_type(dst)))
    if dst.kind == "b":
        return kb.cmp("ne", value, kb.zero(np.dtype(np.uint8)), np.dtype(np.uint8))
    if is_half(dst):
        return kb.widen(value, dst)
    return value


@pointwise(ew.WhereOp)
def _where(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    cond = read(cx, 0, idx)
    if cx.operand(0).dtype.kind != "b":
        cond = cx.kb.cast(cond, cx.operand(0).dtype, BOOL)
    return cx.kb.select(cond, read(cx, 1, idx), read(cx, 2, idx))


def _channel(cx: OpContext, idx: list[Index]) -> SSAValue:
    """Operand 1 (a per-channel vector) at the channel of ``idx``."""
    axis = get_int(cx.op.properties["axis"]) % len(idx)
    return cx.operand(1).at([idx[axis]])


@pointwise(ew.PReluOp)
def _prelu(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb, dt = cx.kb, cx.out_dtype()
    x = cx.operand(0).at(idx)
    alpha = _channel(cx, idx)
    return kb.select(kb.cmp("gt", x, kb.zero(dt), dt), x, kb.mul(x, alpha))


@pointwise(ew.BiasAddOp)
def _bias_add(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    return cx.kb.add(cx.operand(0).at(idx), _channel(cx, idx))


identity_reads(ew.BinaryOp, ew.UnaryOp, ew.CastOp, ew.CastLikeOp, ew.WhereOp)
# one instruction per element whatever the operands' values (unlike power, whose
# small constant exponents become products)
scalars_at_run_time(
    ew.AddOp, ew.SubtractOp, ew.MultiplyOp, ew.MaximumOp, ew.MinimumOp, ew.WhereOp
)
identity_reads(ew.ReinterpretOp)
identity_reads(ew.PReluOp, ew.BiasAddOp, operands=(0,))


@pointwise(ew.ZerosOp, ew.ZerosLikeOp)
def _zeros(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    return cx.kb.const(0, cx.out_dtype())


@pointwise(ew.OnesOp, ew.OnesLikeOp)
def _ones(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    return cx.kb.const(1, cx.out_dtype())


@pointwise(ew.FullOp)
def _full(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    fill = cx.operand(0)
    return cx.kb.cast(fill.at([]), fill.dtype, cx.out_dtype())


@pointwise(ew.FullLikeOp)
def _full_like(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    fill = cx.operand(1)
    return cx.kb.cast(fill.at([]), fill.dtype, cx.out_dtype())
