"""``slice_like``: numpy semantics against slicing written by hand, and the compiled
kernel against the semantics (one build for every case)."""

from __future__ import annotations

import numpy as np

import xrelay
from xrelay import relay
from xrelay.runtime.interpreter import interpret


def test_slice_like_keeps_the_leading_part_and_builds():
    x = relay.var("x", shape=(3, 5, 4))
    like2 = relay.var("like2", shape=(2, 2), dtype="int32")
    cases = [
        relay.slice_like(x, like2),  # all of like2's axes
        relay.slice_like(x, like2, axes=[1]),
        relay.slice_like(x, relay.var("like3", shape=(1, 5, 2)), axes=[-1, 0]),
    ]
    like3 = cases[2].args[1]
    mod = relay.IRModule.from_expr(
        relay.Function([x, like2, like3], relay.Tuple(cases))
    )
    a = np.arange(60, dtype="float32").reshape(3, 5, 4)
    b = np.zeros((2, 2), "int32")
    c = np.zeros((1, 5, 2), "float32")
    want = [a[:2, :2], a[:, :2], a[:1, :, :2]]
    got = interpret(mod, a, b, c)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    built = xrelay.build(mod)(a, b, c)
    for g, w in zip(built, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)
