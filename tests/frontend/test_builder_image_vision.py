"""The builder's ``relay.image.grid_sample`` and ``relay.vision.roi_align`` (TVM's
names and defaults): the calls carry the attributes given, and the compiled model
agrees with the reference interpreter."""

from __future__ import annotations

import numpy as np

import xrelay
from xrelay import relay
from xrelay.runtime.interpreter import interpret


def test_grid_sample_and_roi_align_build_and_run():
    rng = np.random.default_rng(7)
    x = relay.var("x", shape=(2, 3, 5, 6))
    g = relay.var("g", shape=(2, 2, 4, 3))
    r = relay.var("r", shape=(3, 5))
    sampled = relay.image.grid_sample(
        x, g, method="bicubic", padding_mode="border", align_corners=False
    )
    pooled = relay.vision.roi_align(x, r, (2, 3), 0.5, sample_ratio=2, mode="max")
    mod = relay.IRModule.from_expr(
        relay.Function([x, g, r], relay.Tuple([sampled, pooled]))
    )
    text = mod.astext(fmt="relay")
    assert 'image.grid_sample(%x, %g, method="bicubic", padding_mode="border"' in text
    assert "vision.roi_align(%x, %r, pooled_size=[2, 3]" in text
    xs = rng.standard_normal((2, 3, 5, 6)).astype("float32")
    gs = rng.uniform(-1.3, 1.3, (2, 2, 4, 3)).astype("float32")
    rs = np.array([[0, 1, 1, 9, 7], [1, -2, 0, 4, 12], [1, 3, 3, 3.5, 3.5]], "float32")
    want = interpret(mod, xs, gs, rs)
    got = xrelay.build(mod)(xs, gs, rs)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert np.abs(want[0]).sum() > 0
    assert np.abs(want[1]).sum() > 0
