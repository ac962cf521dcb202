"""Random parameters for test workloads (TVM's ``relay.testing.init``)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _initial(name: str, shape: tuple[int, ...], dtype: str, rng: Any) -> Any:
    """Xavier-uniform for weights (fan in and out from the shape), zeros for
    biases, betas and means, ones for gammas and variances."""
    if name.endswith(("gamma", "moving_var", "_var")):
        return np.ones(shape, dtype)
    if name.endswith(("bias", "beta", "moving_mean", "_mean")) or len(shape) < 2:
        return np.zeros(shape, dtype)
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    bound = float(np.sqrt(6.0 / (fan_in + fan_out)))
    return rng.uniform(-bound, bound, size=shape).astype(dtype)


def create_workload(
    net: Any, initializer: Any = None, seed: int = 0
) -> tuple[Any, dict[str, Any]]:
    """``(mod, params)`` of ``net`` (a ``relay.Function`` or module): every parameter
    of ``main`` but the first (the data) gets an array: Xavier-random weights (see
    ``_initial``), or, when ``initializer`` is given, zeros that ``initializer(name,
    array)`` fills in place (TVM's contract: one that only rebinds its argument
    leaves zeros)."""
    from xrelay.frontend.relay.module import IRModule
    from xrelay.frontend.relay.transform import InferType
    from xrelay.runtime.ndarray import ndarray

    mod = net if isinstance(net, IRModule) else IRModule.from_expr(net)
    mod = InferType()(mod)
    rng = np.random.default_rng(seed)
    params: dict[str, Any] = {}
    for var in mod["main"].params[1:]:
        ty = getattr(var, "checked_type", None) or var.type_annotation
        shape = tuple(int(d) for d in ty.shape)
        if initializer is not None:
            value = np.zeros(shape, str(ty.dtype))
            initializer(var.name_hint, value)
        else:
            value = _initial(var.name_hint, shape, str(ty.dtype), rng)
        params[var.name_hint] = ndarray(value)
    return mod, params
