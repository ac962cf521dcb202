"""The fits behind the coefficients of :mod:`xrelay.lowering.llvm.math_polynomial`.

``python -m xrelay.tools.fit_math_polynomial`` prints them. Each is a rational
function ``P(t) / Q(t)`` (``Q = 1`` for a polynomial) approximating ``g`` on sample
points, with ``Q(0) = 1``, fitted to the minimax relative error (optionally
weighted) in ``float64``:

* weighted linear least squares on ``P - g Q``, divided by ``g`` and by the previous
  iteration's ``Q`` (Loeb's linearisation), the weights multiplied by each point's
  error after every iteration (Lawson's algorithm: they concentrate on the extrema,
  which levels the error towards the minimax);
* the coefficients rounded to ``f32`` one at a time, highest degree first, the
  others refitted after each, so that the rounding of one is made up by the rest.

The accuracy in ``f32`` (the evaluation's rounding comes on top of the fit's error)
is checked by ``tests/lowering/test_math_polynomial.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Fit:
    error: float
    """The largest (weighted) relative error of the fit on its sample points."""
    p: tuple[float, ...]
    """``P``'s coefficients, highest degree first (the order of ``_Emit.poly``)."""
    q: tuple[float, ...]
    """``Q``'s, highest degree first, ending with 1."""


def _lawson(
    g: F64, t: F64, m: int, n: int, fixed: dict[int, float], weight: F64, iters: int
) -> tuple[float, F64]:
    """Coefficients of ``P`` (degree ``m``) then ``Q`` (degree ``n``, ``Q(0) = 1``
    left out), lowest degree first; ``fixed``: those already rounded, by index."""
    scale = float(np.max(np.abs(t)))
    s = t / scale  # a better conditioned basis; undone at the end
    powers = np.concatenate([scale ** np.arange(m + 1), scale ** np.arange(1, n + 1)])
    vp = np.vander(s, m + 1, increasing=True)
    vq = np.vander(s, n + 1, increasing=True)
    basis = np.hstack([vp, -g[:, None] * vq[:, 1:]])
    free = [i for i in range(m + 1 + n) if i not in fixed]
    lawson = np.full(t.shape, 1.0 / t.size)
    q_prev = np.ones_like(t)
    best: tuple[float, F64] | None = None
    for _ in range(iters):
        denom = np.abs(g * q_prev) / weight
        a, b = basis / denom[:, None], g / denom
        for i, v in fixed.items():
            b = b - a[:, i] * (v * powers[i])
        root = np.sqrt(lawson)
        sol = np.linalg.lstsq(a[:, free] * root[:, None], b * root, rcond=None)[0]
        coef = np.zeros(m + 1 + n)
        coef[free] = sol
        for i, v in fixed.items():
            coef[i] = v * powers[i]
        q_prev = vq @ np.concatenate([[1.0], coef[m + 1 :]])
        err = ((vp @ coef[: m + 1]) / q_prev / g - 1) * weight
        worst = float(np.max(np.abs(err)))
        if best is None or worst < best[0]:
            best = (worst, coef.copy())
        lawson = lawson * np.abs(err)
        lawson = np.maximum(lawson / lawson.sum(), 1e-300)
    assert best is not None
    return best[0], best[1] / powers


def fit(
    g: F64, t: F64, m: int, n: int, weight: F64 | None = None, iters: int = 60
) -> Fit:
    """``P / Q`` in ``t`` (degrees ``m`` / ``n``) approximating ``g``, its
    coefficients rounded to ``f32`` one at a time."""
    w = np.ones_like(t) if weight is None else weight
    fixed: dict[int, float] = {}
    for i in reversed(range(m + 1 + n)):
        coef = _lawson(g, t, m, n, fixed, w, iters)[1]
        fixed[i] = float(np.float32(coef[i]))
    error, coef = _lawson(g, t, m, n, fixed, w, 1)
    p = tuple(float(v) for v in coef[: m + 1][::-1])
    q = (*(float(v) for v in coef[m + 1 :][::-1]), 1.0)
    return Fit(error, p, q)


def _odd_nodes(clamp: float, k: int = 6000) -> F64:
    """Points of ``(0, clamp]``: Chebyshev-like (dense at both ends) and uniform."""
    x = clamp * (1 - np.cos(np.linspace(0, np.pi / 2, k)))
    x = np.unique(np.concatenate([x, np.linspace(1e-4, clamp, k)]))
    return x[x > 0]


def odd_rational(fn: str, clamp: float, m: int, n: int) -> Fit:
    """``fn(x) / x`` as ``P(x^2) / Q(x^2)`` on ``(0, clamp]``: ``tanh`` and ``erf``."""
    x = _odd_nodes(clamp)
    if fn == "erf":
        y = np.array([math.erf(v) for v in x])
    else:
        y = np.tanh(x)
    return fit(y / x, x * x, m, n)


def exp_polynomial(coeffs: int = 5) -> Fit:
    """``(e^r - 1 - r) / r^2`` on ``|r| <= ln2/2``, weighted to the relative error of
    ``e^r = 1 + r + r^2 P(r)``."""
    half = math.log(2) / 2
    r = np.linspace(-half, half, 40001)
    r = r[np.abs(r) > 1e-4]
    g = (np.exp(r) - 1 - r) / r**2
    return fit(g, r, coeffs - 1, 0, np.abs(r**2 * g / np.exp(r)), iters=80)


def log_polynomial(coeffs: int = 7) -> Fit:
    """``(log(1 + m) - m + m^2/2) / m^3`` on ``[sqrt(1/2) - 1, sqrt(2) - 1]``,
    weighted to the relative error of ``log(1 + m)``."""
    m = np.linspace(math.sqrt(0.5) - 1, math.sqrt(2) - 1, 40001)
    m = m[np.abs(m) > 1e-3]
    g = (np.log1p(m) - m + m * m / 2) / m**3
    return fit(g, m, coeffs - 1, 0, np.abs(m**3 * g / np.log1p(m)), iters=80)


def fits() -> dict[str, Fit]:
    """The fits of :mod:`~xrelay.lowering.llvm.math_polynomial`'s coefficients."""
    return {
        "exp": exp_polynomial(),
        "log": log_polynomial(),
        "tanh": odd_rational("tanh", 9.0, 4, 4),
        "erf": odd_rational("erf", 3.95, 5, 5),
    }


def main() -> None:
    for name, f in fits().items():
        print(f"{name}: fit error {f.error:.3g}")
        print(f"  P = {f.p}")
        if len(f.q) > 1:
            print(f"  Q = {f.q}")


if __name__ == "__main__":
    main()
