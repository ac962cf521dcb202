"""Inline polynomial ``exp``, ``log``, ``tanh`` and ``erf`` for ``f32`` (MLIR's
``math-polynomial-approximation``, done while converting ``math`` to ``llvm``).

A call of libm (or of an LLVM intrinsic that becomes one) per element keeps LLVM's
loop vectoriser from vectorising the loop around it; these expansions are plain
``llvm`` arithmetic, bit operations and selects, so the loop runs on full vectors.
``f16`` goes through them in ``f32``; ``f64`` keeps libm.

Accuracy against the correctly rounded result, as measured over the whole ``f32``
range (``tests/lowering/test_math_polynomial.py`` checks the bounds in brackets on
random bit patterns, a dense sweep and the edges: denormals, ±0, ±inf, NaN):

* ``exp``: range reduction ``x = n ln2 + r`` (``ln2`` in two parts), a degree-6
  polynomial on ``|r| <= ln2/2`` (Cephes' coefficients) and ``2^n`` applied in two
  steps (so that denormal results and those up to the overflow threshold are
  exact; on AVX-512 hosts one ``llvm.ldexp``, which LLVM makes one ``vscalefps``
  rounding the same product once): 1.0 ulp (2); ``-inf`` and underflow → 0, ``+inf`` and overflow → ``inf``.
* ``log``: ``x = m 2^e`` with ``m`` in ``[sqrt(1/2), sqrt(2))`` (denormals scaled by
  ``2^23`` first), a degree-8 polynomial in ``m - 1`` (Cephes): 0.75 ulp (2);
  ``±0`` → ``-inf``, negatives → NaN, ``inf`` → ``inf``.
* ``tanh``: ``|x| < 0.625``: an odd polynomial (Cephes); else
  ``1 - 2 / (exp(2|x|) + 1)``; the sign of ``x`` (also of ``-0``): 1.2 ulp (3).
* ``erf``: ``|x| < 0.9``: its Taylor series to ``x^19``; else
  ``1 - exp(-x^2) P(|x|) / Q(|x|)`` with ``P / Q`` (degree 4 / 4, fitted for this
  module) approximating ``erfc(x) exp(x^2)`` on ``[0.9, 4]``, 1 beyond ``3.92``:
  2.4 ulp (3).
* ``sigmoid`` (built on ``exp`` by the elementwise kernels): 2.2 ulp (3).

NaN in gives NaN out for all four.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

from xdsl.builder import Builder
from xdsl.dialects import llvm
from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, IntegerType, i64
from xdsl.ir import SSAValue

from xrelay.lowering.llvm import fast_ops
from xrelay.lowering.llvm.common import intrinsic
from xrelay.lowering.tiling import host_vector_unit

F32 = Float32Type()
I32 = IntegerType(32)


class _Emit:
    """Scalar ``f32`` / ``i32`` arithmetic in the ``llvm`` dialect."""

    def __init__(self, b: Builder, scalef: bool = False):
        self.b = b
        self.scalef = scalef
        """Whether ``ldexp`` is one instruction (AVX-512's ``vscalefps``, which
        LLVM selects for the vectorised ``llvm.ldexp``; elsewhere it is a libm
        call)."""

    def f(self, value: float) -> SSAValue:
        return self._op(fast_ops.constant(FloatAttr(value, cast(Any, F32)), F32))

    def i(self, value: int) -> SSAValue:
        return self._op(fast_ops.constant(IntegerAttr(value, I32), I32))

    def _op(self, op: Any) -> SSAValue:
        return self.b.insert(op).results[0]

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.FAddOp, a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.FSubOp, a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.FMulOp, a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.FDivOp, a, b))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        return intrinsic(self.b, "llvm.fma.f32", [a, b, c], F32)

    def abs(self, a: SSAValue) -> SSAValue:
        return intrinsic(self.b, "llvm.fabs.f32", [a], F32)

    def ldexp(self, a: SSAValue, n: SSAValue) -> SSAValue:
        return intrinsic(self.b, "llvm.ldexp.f32.i32", [a, n], F32)

    def copysign(self, a: SSAValue, sign: SSAValue) -> SSAValue:
        return intrinsic(self.b, "llvm.copysign.f32", [a, sign], F32)

    def cmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        flag = llvm.FCmpPredicateFlag(pred).to_int()
        return self._op(llvm.FCmpOp(a, b, IntegerAttr(flag, i64)))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.select(cond, a, b))

    def bits(self, a: SSAValue) -> SSAValue:
        return self._op(llvm.BitcastOp(a, I32))

    def float_of_bits(self, a: SSAValue) -> SSAValue:
        return self._op(llvm.BitcastOp(a, F32))

    def iadd(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.AddOp, a, b))

    def isub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.SubOp, a, b))

    def iand(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.AndOp, a, b))

    def ior(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.OrOp, a, b))

    def shl(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.ShlOp, a, b))

    def ashr(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.AShrOp, a, b))

    def to_float(self, a: SSAValue) -> SSAValue:
        return self._op(llvm.SIToFPOp(a, F32))

    def horner(self, x: SSAValue, coeffs: Sequence[float]) -> SSAValue:
        """``coeffs[0] x^(n-1) + ... + coeffs[-1]`` by Horner's rule: for series
        whose terms cancel (erf's Taylor series), where Estrin's partial sums lose
        accuracy."""
        acc = self.f(coeffs[0])
        for c in coeffs[1:]:
            acc = self.fma(acc, x, self.f(c))
        return acc

    def poly(
        self, x: SSAValue, coeffs: Sequence[float], x2: SSAValue | None = None
    ) -> SSAValue:
        """``coeffs[0] x^(n-1) + ... + coeffs[-1]`` by Estrin's scheme: pairs
        ``c_2k + c_2k+1 x`` (independent FMAs), then pairs of those in ``x^2``, and
        so on. ``ceil(log2 n)`` dependent FMAs instead of Horner's ``n - 1``: these
        loops are bound by the latency of their longest chain (the out-of-order
        window holds only a few elements' chains), not by the number of operations.
        ``x2``: ``x * x`` when the caller has it."""
        terms: list[SSAValue] = [self.f(c) for c in reversed(coeffs)]
        power = x
        while len(terms) > 1:
            pairs = [
                self.fma(terms[k + 1], power, terms[k])
                for k in range(0, len(terms) - 1, 2)
            ]
            if len(terms) % 2:
                pairs.append(terms[-1])
            terms = pairs
            if len(terms) > 1:
                power = x2 if power is x and x2 is not None else self.mul(power, power)
        return terms[0]

    def clamp(self, x: SSAValue, lo: float, hi: float) -> SSAValue:
        """``x`` limited to ``[lo, hi]``; NaN stays NaN (ordered compares)."""
        lo_v, hi_v = self.f(lo), self.f(hi)
        x = self.select(self.cmp("olt", x, lo_v), lo_v, x)
        return self.select(self.cmp("ogt", x, hi_v), hi_v, x)

    def is_nan(self, x: SSAValue) -> SSAValue:
        return self.cmp("uno", x, x)


_MAGIC = 12582912.0  # 1.5 * 2^23: adding it rounds a float below 2^22 to an integer
_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4
_LOG2E = 1.44269504088896341
# e^r - 1 - r = r^2 * P(r) on |r| <= ln2/2 (Cephes expf)
_EXP_P = (
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)


def exp_f32(e: _Emit, x: SSAValue) -> SSAValue:
    xc = e.clamp(x, -104.0, 89.0)
    t = e.fma(xc, e.f(_LOG2E), e.f(_MAGIC))
    n = e.sub(t, e.f(_MAGIC))
    n_int = e.isub(e.bits(t), e.bits(e.f(_MAGIC)))
    r = e.fma(n, e.f(-_LN2_HI), xc)
    r = e.fma(n, e.f(-_LN2_LO), r)
    r2 = e.mul(r, r)
    y = e.add(e.fma(e.poly(r, _EXP_P, r2), r2, r), e.f(1.0))
    if e.scalef:
        # one correctly rounded y * 2^n (AVX-512's vscalefps), as the two steps below
        return e.ldexp(y, n_int)
    # 2^n = 2^(n/2) * 2^(n - n/2): each factor is a normal float for n in [-150, 129]
    half = e.ashr(n_int, e.i(1))
    rest = e.isub(n_int, half)
    bias, shift = e.i(127), e.i(23)
    s1 = e.float_of_bits(e.shl(e.iadd(half, bias), shift))
    s2 = e.float_of_bits(e.shl(e.iadd(rest, bias), shift))
    # a NaN passes the clamp (ordered compares) and every step: no select needed
    return e.mul(e.mul(y, s1), s2)


# log(1 + m) = m - m^2/2 + m^3 P(m) on [sqrt(1/2) - 1, sqrt(2) - 1] (Cephes logf)
_LOG_P = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)


def log_f32(e: _Emit, x: SSAValue) -> SSAValue:
    tiny = e.cmp("olt", x, e.f(1.17549435e-38))
    xs = e.select(tiny, e.mul(x, e.f(8388608.0)), x)  # denormals: times 2^23
    bits = e.bits(xs)
    # x = m * 2^k with m in [0.5, 1)
    k = e.isub(e.iand(e.ashr(bits, e.i(23)), e.i(0xFF)), e.i(126))
    k = e.select(tiny, e.isub(k, e.i(23)), k)
    m = e.float_of_bits(e.ior(e.iand(bits, e.i(0x007FFFFF)), e.i(0x3F000000)))
    kf = e.to_float(k)
    # m < sqrt(1/2): use 2m - 1 and k - 1, else m - 1
    low = e.cmp("olt", m, e.f(0.707106781186547524))
    kf = e.select(low, e.sub(kf, e.f(1.0)), kf)
    m = e.select(low, e.sub(e.add(m, m), e.f(1.0)), e.sub(m, e.f(1.0)))
    z = e.mul(m, m)
    y = e.mul(e.mul(e.poly(m, _LOG_P), m), z)
    y = e.fma(kf, e.f(_LN2_LO), y)
    y = e.fma(z, e.f(-0.5), y)
    y = e.add(m, y)
    y = e.fma(kf, e.f(_LN2_HI), y)
    # special values: NaN and x < 0 → NaN, 0 → -inf, inf → inf
    nan = e.f(float("nan"))
    y = e.select(e.cmp("oeq", x, e.f(float("inf"))), x, y)
    y = e.select(e.cmp("oeq", x, e.f(0.0)), e.f(float("-inf")), y)
    return e.select(e.cmp("ult", x, e.f(0.0)), nan, y)


# tanh(x) = x + x^3 P(x^2) on |x| < 0.625 (Cephes tanhf)
_TANH_P = (
    -5.70498872745e-3,
    2.06390887954e-2,
    -5.37397155531e-2,
    1.33314422036e-1,
    -3.33332819422e-1,
)


def tanh_f32(e: _Emit, x: SSAValue) -> SSAValue:
    a = e.abs(x)
    z = e.mul(x, x)
    small = e.fma(e.mul(e.poly(z, _TANH_P), z), x, x)
    ex = exp_f32(e, e.add(a, a))
    large = e.sub(e.f(1.0), e.div(e.f(2.0), e.add(ex, e.f(1.0))))
    # the sign of x comes last, for both branches
    y = e.select(e.cmp("olt", a, e.f(0.625)), small, large)
    return e.copysign(y, x)


# erf(x) = x P(x^2) on |x| < 0.9: the Taylor series to x^19 (the tail there is below
# 2e-9)
_ERF_TAYLOR = tuple(
    2.0 / 1.7724538509055160273 * (-1.0) ** n / (math.factorial(n) * (2 * n + 1))
    for n in range(9, -1, -1)
)
# erfc(x) exp(x^2) ~ P(x) / Q(x) on [0.9, 4] (degree 4 / 4, fitted to the relative
# error: below 3.1e-7 with these f32 coefficients)
_ERFC_P = (
    3.2411257961939555e-06,
    0.09087388962507248,
    0.45221272110939026,
    0.9835898280143738,
    0.9999280571937561,
)
_ERFC_Q = (
    0.16121885180473328,
    0.7997593879699707,
    1.8366338014602661,
    2.11142635345459,
    1.0,
)


def erf_f32(e: _Emit, x: SSAValue) -> SSAValue:
    a = e.abs(x)
    z = e.mul(x, x)
    small = e.mul(x, e.horner(z, _ERF_TAYLOR))
    ac = e.clamp(a, 0.9, 4.0)
    ratio = e.div(e.poly(ac, _ERFC_P), e.poly(ac, _ERFC_Q))
    expo = exp_f32(e, e.mul(e.mul(ac, ac), e.f(-1.0)))
    large = e.sub(e.f(1.0), e.mul(expo, ratio))
    large = e.select(e.cmp("ogt", a, e.f(3.92)), e.f(1.0), large)
    y = e.select(e.cmp("olt", a, e.f(0.9)), small, e.copysign(large, x))
    return e.select(e.is_nan(x), x, y)


EXPANSIONS: dict[str, Callable[[_Emit, SSAValue], SSAValue]] = {
    "exp": exp_f32,
    "log": log_f32,
    "tanh": tanh_f32,
    "erf": erf_f32,
}


def expand(name: str, b: Builder, x: SSAValue) -> SSAValue:
    """The ``f32`` expansion of ``name`` at ``x``, built with ``b``."""
    return EXPANSIONS[name](_Emit(b, host_vector_unit().bytes >= 64), x)
