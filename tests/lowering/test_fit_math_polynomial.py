"""The coefficients of :mod:`xrelay.lowering.llvm.math_polynomial` are the ones its
fitting script (:mod:`xrelay.tools.fit_math_polynomial`) gives, rounded to ``f32``."""

from __future__ import annotations

import numpy as np

from xrelay.lowering.llvm import math_polynomial as mp
from xrelay.tools.fit_math_polynomial import fits


def test_the_coefficients_are_the_fits():
    found = fits()
    expected = {
        "exp": (mp._EXP_P, (1.0,)),
        "log": (mp._LOG_P, (1.0,)),
        "tanh": (mp._TANH_P, mp._TANH_Q),
        "erf": (mp._ERF_P, mp._ERF_Q),
    }
    for name, (p, q) in expected.items():
        fit = found[name]
        # one f32 ulp of slack for a different LAPACK's last bits
        np.testing.assert_allclose(fit.p, p, rtol=1.2e-7, err_msg=name)
        np.testing.assert_allclose(fit.q, q, rtol=1.2e-7, err_msg=name)
        assert fit.error < 6e-8, name
