"""Layers of the test workloads: each makes its parameters as typed variables named
``<name>_weight``, ``<name>_bias``, ``<name>_gamma``... (the names TVM's workloads
use, which :func:`xrelay.frontend.relay.testing.init.create_workload` fills)."""

from __future__ import annotations

from typing import Any

from xrelay.frontend.relay.expr import var
from xrelay.frontend.relay.op import nn


def conv2d(
    data: Any,
    name: str,
    in_channels: int,
    channels: int,
    kernel: int = 3,
    strides: int = 1,
    padding: int = 0,
    groups: int = 1,
    dtype: str = "float32",
) -> Any:
    weight = var(
        f"{name}_weight",
        shape=(channels, in_channels // groups, kernel, kernel),
        dtype=dtype,
    )
    return nn.conv2d(
        data,
        weight,
        strides=(strides, strides),
        padding=(padding, padding),
        groups=groups,
        channels=channels,
        kernel_size=(kernel, kernel),
    )


def batch_norm(data: Any, name: str, channels: int, dtype: str = "float32") -> Any:
    """Inference batch norm (epsilon 2e-5, TVM's workloads' value)."""
    p = [
        var(f"{name}_{k}", shape=(channels,), dtype=dtype)
        for k in ("gamma", "beta", "moving_mean", "moving_var")
    ]
    return nn.batch_norm(data, p[0], p[1], p[2], p[3], epsilon=2e-5)[0]


def conv_bn_relu(
    data: Any, name: str, in_channels: int, channels: int, **conv: Any
) -> Any:
    dtype = conv.get("dtype", "float32")
    y = conv2d(data, f"{name}_conv", in_channels, channels, **conv)
    return nn.relu(batch_norm(y, f"{name}_bn", channels, dtype))


def dense_add_bias(
    data: Any, name: str, in_units: int, units: int, dtype: str = "float32"
) -> Any:
    weight = var(f"{name}_weight", shape=(units, in_units), dtype=dtype)
    bias = var(f"{name}_bias", shape=(units,), dtype=dtype)
    return nn.bias_add(nn.dense(data, weight, units=units), bias, axis=-1)


def params_of(data: Any, body: Any) -> list[Any]:
    """The parameters of a network: its data first, then every other free
    variable of ``body`` in order of first use."""
    from xrelay.frontend.relay.analysis import free_vars

    return [data, *(v for v in free_vars(body) if v is not data)]


__all__ = ["batch_norm", "conv2d", "conv_bn_relu", "dense_add_bias", "params_of"]
