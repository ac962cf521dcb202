"""The bundled example model of ``make run`` / ``xrelay-run --example``: a small CNN
built with the builder API (conv → bias → relu → pool → dense → softmax) with fixed
random weights and input."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp


def example_module(seed: int = 0) -> tuple[ModuleOp, list[Any]]:
    """The example as a type-inferred ``builtin.module`` and its input arrays."""
    from xrelay.frontend import relay
    from xrelay.pass_manager import get_pass

    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> Any:
        return relay.const((rng.standard_normal(shape) * 0.1).astype("float32"))

    x = relay.var("input", shape=(1, 3, 32, 32), dtype="float32")
    y = relay.nn.conv2d(
        x, weight(8, 3, 3, 3), padding=(1, 1), channels=8, kernel_size=(3, 3)
    )
    y = relay.nn.relu(relay.nn.bias_add(y, weight(8)))
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    y = relay.nn.conv2d(
        y, weight(16, 8, 3, 3), padding=(1, 1), channels=16, kernel_size=(3, 3)
    )
    y = relay.nn.relu(relay.nn.bias_add(y, weight(16)))
    y = relay.nn.global_avg_pool2d(y)
    y = relay.nn.batch_flatten(y)
    y = relay.nn.bias_add(relay.nn.dense(y, weight(10, 16)), weight(10))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.softmax(y)))
    mod = get_pass("InferType")(mod)
    image = rng.standard_normal((1, 3, 32, 32)).astype("float32")
    return mod.module, [image]
