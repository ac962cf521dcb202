"""Inline ``exp``, ``log``, ``tanh`` and ``erf`` for ``f32`` by polynomials and rational
functions (MLIR's ``math-polynomial-approximation``, done while converting ``math``
to ``llvm``).

A call of libm (or of an LLVM intrinsic that becomes one) per element keeps LLVM's
loop vectoriser from vectorising the loop around it; these expansions are plain
``llvm`` arithmetic, bit operations and selects, so the loop runs on full vectors.
``f16`` goes through them in ``f32``; ``f64`` keeps libm.

Accuracy against the correctly rounded result, as measured over every ``f32`` value
(``tests/lowering/test_math_polynomial.py`` checks the bounds in brackets on random
bit patterns, a dense sweep and the edges: denormals, ±0, ±inf, NaN):

* ``exp``: range reduction ``x = n ln2 + r`` (``ln2`` in two parts), ``1 + r + r^2
  P(r)`` with ``P`` of degree 4 on ``|r| <= ln2/2`` and ``2^n`` applied in two
  steps (so that denormal results and those up to the overflow threshold are
  exact; on AVX-512 hosts one ``llvm.ldexp``, which LLVM makes one ``vscalefps``
  rounding the same product once): 1.05 ulp (2); ``-inf`` and underflow → 0, ``+inf`` and overflow → ``inf``.
* ``log``: ``x = (1 + m) 2^k`` with ``1 + m`` in ``[sqrt(1/2), sqrt(2))`` by integer
  arithmetic on the bits (denormals scaled by ``2^23`` first), ``m - m^2/2 + m^3
  P(m)`` with ``P`` of degree 6: 1.2 ulp (2); ``±0`` → ``-inf``, negatives → NaN,
  ``inf`` → ``inf``.
* ``tanh``: ``x P(x^2) / Q(x^2)`` (degree 4 / 4) with ``x`` clamped to ``[-9, 9]``
  (``tanh`` rounds to ±1 from 9.01 on): one branch, one division; ``-0`` → ``-0``,
  ``±inf`` → ±1: 5.9 ulp (6). The fit is within 0.6 ulp; the rest is the rounding
  of ``P`` and ``Q`` in ``f32`` (sums of terms of similar size, about 2.5 ulp each),
  which any single-division rational pays: the bound is the price of 15 operations
  instead of the 36 of the two-branch form it replaced (1.2 ulp). The result can
  be one ulp above 1 (``1 + 2^-23``) for some ``|x|`` in ``[8.2, 9)``.
* ``erf``: ``x P(x^2) / Q(x^2)`` (degree 5 / 5) with ``x`` clamped to ``[-3.9375,
  3.9375]`` (``erf`` rounds to ±1 from 3.92 on), the same form as ``tanh``: 5.6 ulp
  (6), 17 operations instead of about 50 (two branches, a rational function and an
  exp: 2.4 ulp); the fit is within 0.9 ulp. The result can be ``1 + 2^-23`` for
  some ``|x|`` in ``[3.78, 3.9375)``.
* ``sigmoid`` (built on ``exp`` by the elementwise kernels): 2.4 ulp (3).

The polynomials and rational functions were fitted for this module by
:mod:`xrelay.tools.fit_math_polynomial` (weighted least squares iterated towards the
minimax relative error in ``float64``, coefficients rounded to ``f32`` one at a time
with the others refitted), then checked in ``f32``.
NaN in gives NaN out for all four.
"""

from __future__ import annotations

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

    def ldexp(self, a: SSAValue, n: SSAValue) -> SSAValue:
        return intrinsic(self.b, "llvm.ldexp.f32.i32", [a, n], F32)

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

    def shl(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.ShlOp, a, b))

    def ashr(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._op(fast_ops.binary(llvm.AShrOp, a, b))

    def to_float(self, a: SSAValue) -> SSAValue:
        return self._op(llvm.SIToFPOp(a, F32))

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

    def clamp(self, x: SSAValue, lo: float, hi: float | None) -> SSAValue:
        """``x`` limited to ``[lo, hi]`` (``hi`` ``None``: from below only); NaN
        stays NaN (ordered compares)."""
        lo_v = self.f(lo)
        x = self.select(self.cmp("olt", x, lo_v), lo_v, x)
        if hi is None:
            return x
        hi_v = self.f(hi)
        return self.select(self.cmp("ogt", x, hi_v), hi_v, x)


_MAGIC = 12582912.0  # 1.5 * 2^23: adding it rounds a float below 2^22 to an integer
_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4
_LOG2E = 1.44269504088896341
# e^r - 1 - r ~ r^2 P(r) on |r| <= ln2/2 (degree 4, fitted for this module to the
# relative error of e^r: 3.9e-9 with these f32 coefficients)
_EXP_P = (
    0.0013814566191285849,
    0.008368699811398983,
    0.04166838899254799,
    0.1666652113199234,
    0.4999999403953552,
)


def _minus_abs(x: SSAValue) -> bool:
    """Whether ``x`` is ``-|y|`` (sigmoid's ``e^-|x|``): at most 0, or NaN."""
    neg = x.owner
    if not isinstance(neg, llvm.FNegOp):
        return False
    fabs = neg.arg.owner
    return isinstance(fabs, llvm.CallIntrinsicOp) and fabs.intrin.data.startswith(
        "llvm.fabs."
    )


def exp_f32(e: _Emit, x: SSAValue) -> SSAValue:
    # no upper clamp for -|y| (one operation less in sigmoid and SiLU)
    xc = e.clamp(x, -104.0, None if _minus_abs(x) else 89.0)
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


# log(1 + m) - m + m^2/2 ~ m^3 P(m) on [sqrt(1/2) - 1, sqrt(2) - 1] (degree 6, fitted
# for this module to the relative error of log(1 + m): 3.3e-8 with these f32
# coefficients)
_LOG_P = (
    0.0870012566447258,
    -0.1426706314086914,
    0.14914685487747192,
    -0.1657762974500656,
    0.1996307522058487,
    -0.2500133514404297,
    0.3333390951156616,
)
_SQRT_HALF_BITS = 0x3F3504F3  # sqrt(1/2) as f32 bits
_ONE_BITS = 0x3F800000


def log_f32(e: _Emit, x: SSAValue) -> SSAValue:
    # denormals (and +0, and the negatives, which end as NaN): times 2^23, whose
    # exponent comes off k with the bias
    tiny = e.cmp("olt", x, e.f(1.17549435e-38))
    xs = e.select(tiny, e.mul(x, e.f(8388608.0)), x)
    bias = e.select(tiny, e.i(127 + 23), e.i(127))
    # x = (1 + m) 2^k with 1 + m in [sqrt(1/2), sqrt(2)): adding 1 - sqrt(1/2) to the
    # bits carries the mantissas from sqrt(2) on into the exponent; the mantissa
    # bits put back over sqrt(1/2)'s give 1 + m (no compare, no select)
    ix = e.iadd(e.bits(xs), e.i(_ONE_BITS - _SQRT_HALF_BITS))
    kf = e.to_float(e.isub(e.ashr(ix, e.i(23)), bias))
    mant = e.iadd(e.iand(ix, e.i(0x007FFFFF)), e.i(_SQRT_HALF_BITS))
    m = e.sub(e.float_of_bits(mant), e.f(1.0))
    z = e.mul(m, m)
    y = e.mul(e.mul(e.poly(m, _LOG_P, z), m), z)
    y = e.fma(kf, e.f(_LN2_LO), y)
    y = e.fma(z, e.f(-0.5), y)
    y = e.add(m, y)
    y = e.fma(kf, e.f(_LN2_HI), y)
    # special values: NaN and x < 0 → NaN, 0 → -inf, inf → inf
    nan = e.f(float("nan"))
    y = e.select(e.cmp("oeq", x, e.f(float("inf"))), x, y)
    y = e.select(e.cmp("oeq", x, e.f(0.0)), e.f(float("-inf")), y)
    return e.select(e.cmp("ult", x, e.f(0.0)), nan, y)


def _odd_rational(
    e: _Emit, x: SSAValue, clamp: float, p: Sequence[float], q: Sequence[float]
) -> SSAValue:
    """``xc P(xc^2) / Q(xc^2)`` with ``xc`` = ``x`` clamped to ``[-clamp, clamp]``: one
    branch, one division; NaN passes the clamp (ordered compares), ``-0`` keeps its
    sign (``-0 * P / Q``), and a tiny ``x`` keeps its relative accuracy (``x P(0) /
    Q(0)``, the slope at 0)."""
    xc = e.clamp(x, -clamp, clamp)
    t = e.mul(xc, xc)
    t2 = e.mul(t, t)
    return e.div(e.mul(xc, e.poly(t, p, t2)), e.poly(t, q, t2))


# tanh(x) / x ~ P(x^2) / Q(x^2) on [0, 9] (degree 4 / 4, fitted for this module to the
# relative error: 3.6e-8 with these f32 coefficients); tanh rounds to ±1 beyond 9.01
_TANH_CLAMP = 9.0
_TANH_P = (
    1.33526452117394e-08,
    2.0607698388630524e-05,
    0.0034955046139657497,
    0.13380956649780273,
    1.0,
)
_TANH_Q = (
    7.77576190102991e-07,
    0.0003285497659817338,
    0.025876667350530624,
    0.4671427309513092,
    1.0,
)


def tanh_f32(e: _Emit, x: SSAValue) -> SSAValue:
    return _odd_rational(e, x, _TANH_CLAMP, _TANH_P, _TANH_Q)


# erf(x) / x ~ P(x^2) / Q(x^2) on [0, 3.95] (degree 5 / 5, fitted for this module to
# the relative error: 5.4e-8 with these f32 coefficients); erf rounds to ±1 beyond 3.92
_ERF_CLAMP = 3.9375
_ERF_P = (
    2.0255679373804014e-06,
    0.00028467096854001284,
    0.003808364039286971,
    0.052875980734825134,
    0.19155792891979218,
    1.1283791065216064,
)
_ERF_Q = (
    3.782740168389864e-05,
    0.0011707354569807649,
    0.015055506490170956,
    0.11456234008073807,
    0.5030964612960815,
    1.0,
)


def erf_f32(e: _Emit, x: SSAValue) -> SSAValue:
    return _odd_rational(e, x, _ERF_CLAMP, _ERF_P, _ERF_Q)


EXPANSIONS: dict[str, Callable[[_Emit, SSAValue], SSAValue]] = {
    "exp": exp_f32,
    "log": log_f32,
    "tanh": tanh_f32,
    "erf": erf_f32,
}


def expand(name: str, b: Builder, x: SSAValue) -> SSAValue:
    """The ``f32`` expansion of ``name`` at ``x``, built with ``b``."""
    return EXPANSIONS[name](_Emit(b, host_vector_unit().bytes >= 64), x)
