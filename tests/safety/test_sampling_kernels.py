"""The data-driven sampling kernels never read outside their data: image.grid_sample
with grids full of NaN, infinities and huge values, and vision.roi_align with huge,
inverted, NaN and infinite regions, in every mode, built and run in a subprocess (a
segfault fails the test instead of killing pytest); the results must be the
interpreter's, and the huge regions must not make the run loop for long."""

from __future__ import annotations

from tests.safety.subprocess_util import assert_clean, run_python

SCRIPT = """
import itertools, time
import numpy as np, xrelay
from xrelay import relay
from xrelay.runtime.interpreter import interpret

rng = np.random.default_rng(3)
special = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 3.4e38, -3.4e38, 1e-30,
                    2.0, -2.0, 0.5], "float32")
count = 0
for method, padding, align in itertools.product(
        ["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"],
        [False, True]):
    x = rng.standard_normal((1, 3, 2, 1)).astype("float32")  # tiny: any stray read shows
    g = rng.choice(special, (1, 2, 6, 5)).astype("float32")
    xv = relay.var("x", shape=x.shape)
    gv = relay.var("g", shape=g.shape)
    mod = relay.IRModule.from_expr(relay.Function([xv, gv], relay.image.grid_sample(
        xv, gv, method=method, padding_mode=padding, align_corners=align)))
    got = xrelay.build(mod)(x, g)
    want = interpret(mod, x, g)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    count += 1

rows = np.array([
    [0, -3e38, -3e38, 3e38, 3e38], [0, 1e30, 1e30, -1e30, -1e30],
    [0, np.nan, np.nan, np.nan, np.nan], [0, -np.inf, 0, np.inf, 1],
    [0, 1e9, -1e9, 1e9 + 4, 1e9 + 8], [0, -7, -7, 20, 20]], "float32")
for mode, aligned, ratio in itertools.product(["avg", "max"], [False, True], [0, 3]):
    x = rng.standard_normal((1, 2, 3, 2)).astype("float32")
    xv = relay.var("x", shape=x.shape)
    rv = relay.var("r", shape=rows.shape)
    mod = relay.IRModule.from_expr(relay.Function([xv, rv], relay.vision.roi_align(
        xv, rv, (2, 2), 1.0, sample_ratio=ratio, mode=mode, aligned=aligned)))
    lib = xrelay.build(mod)
    start = time.perf_counter()
    got = lib(x, rows)
    assert time.perf_counter() - start < 5, "huge regions made the kernel loop"
    want = interpret(mod, x, rows)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    count += 1
print("checked", count)
"""


def test_sampling_kernels_stay_inside_their_data() -> None:
    outcome = run_python(SCRIPT, timeout=600)
    assert_clean(outcome)
    assert "checked 26" in outcome.stdout
