"""DefuseOps as a TVM user tests it (Relay's ``test_pass_defuse_ops.py``, v0.18):
``DefuseOps(FuseOps(f))`` is ``f`` again.

Covered: test_defuse_simple (one group), test_inception_like (several groups around
concatenates), test_defuse_complex (conv2d, bias, relu chains and a tuple).
Out of scope: none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run(expr: Any, *passes: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=2):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def check_round_trip(fn: Any) -> None:
    fused = run(fn, transform.FuseOps(fuse_opt_level=2))
    assert "Primitive=1" in fused.astext(fmt="relay")
    defused = transform.DefuseOps()(fused)
    assert_structural_equal(defused, run(fn))


def test_defuse_simple():
    x = relay.var("x", shape=(10, 20))
    y = relay.squeeze(relay.exp(relay.add(x, relay.const(1, "float32"))))
    check_round_trip(relay.Function([x], y))


def test_inception_like():
    def conv(data: Any, w: Any) -> Any:
        return relay.nn.relu(
            relay.nn.conv2d(data, w, kernel_size=(3, 3), padding=(1, 1), channels=8)
        )

    x = relay.var("x", shape=(1, 8, 8, 8))
    w1, w2 = relay.var("w1", shape=(8, 8, 3, 3)), relay.var("w2", shape=(8, 8, 3, 3))
    y = relay.concatenate((conv(x, w1), conv(x, w2)), axis=1)
    w3 = relay.var("w3", shape=(8, 16, 3, 3))
    z = relay.concatenate((conv(y, w3), conv(y, w3)), axis=1)
    check_round_trip(relay.Function([x, w1, w2, w3], z))


def test_defuse_complex():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.const(np.ones((4, 4, 1, 1), "float32"))
    b = relay.var("b", shape=(4,))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, kernel_size=(1, 1)), b))
    z = relay.Tuple([relay.sum(y, axis=[1]), relay.nn.max_pool2d(y, pool_size=(2, 2))])
    check_round_trip(relay.Function([x, b], z))
