"""The registered passes that are not Relay passes, as a TVM user reaches them.

``RelayOptimize`` is ``relay.build``'s pass prefix (``relay.optimize``): checked here
numerically on a small CNN at opt_level 3, built with the TVM-style constructors.
Out of scope (no Relay counterpart, tested in tests/lowering and tests/runtime):
``RelayToKernels``, ``PlanMemory``, ``LowerToLLVM``, ``RelayLowerToLLVM``: the
lowering from relay to LLVM IR.
"""

from __future__ import annotations

import numpy as np

from xrelay import relay
from xrelay.relay import transform
from xrelay.runtime import interpret


def test_relay_optimize_keeps_the_numbers():
    rng = np.random.default_rng(0)
    x = relay.var("x", shape=(1, 8, 8, 8))
    w = relay.const(rng.standard_normal((16, 8, 3, 3)).astype("float32"))
    b = relay.const(rng.standard_normal(16).astype("float32"))
    y = relay.nn.relu(
        relay.nn.bias_add(
            relay.nn.conv2d(x, w, padding=(1, 1), channels=16, kernel_size=(3, 3)), b
        )
    )
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.global_avg_pool2d(y)))
    with transform.PassContext(opt_level=3):
        opt = transform.RelayOptimize()(mod)
    assert "Primitive=1" in opt.astext(fmt="relay")
    data = rng.standard_normal((1, 8, 8, 8)).astype("float32")
    np.testing.assert_allclose(
        interpret(opt, data), interpret(mod, data), rtol=1e-4, atol=1e-5
    )


def test_lowering_passes_have_constructors():
    for name in ("RelayToKernels", "PlanMemory", "LowerToLLVM", "RelayLowerToLLVM"):
        assert getattr(transform, name)().info.name == name
