"""DCGAN's generator (TVM's ``relay.testing.dcgan``): Radford et al.'s stack of
transposed convolutions from a random code to an image."""

from __future__ import annotations

from typing import Any

from xrelay.frontend.relay.expr import var
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.op import nn
from xrelay.frontend.relay.op.tensor import tanh
from xrelay.frontend.relay.op.transform import reshape
from xrelay.frontend.relay.testing.init import create_workload
from xrelay.frontend.relay.testing.layers import batch_norm, params_of


def _deconv_bn_relu(data: Any, name: str, cin: int, cout: int, dtype: str) -> Any:
    """Double the map: a 4x4 transposed convolution, stride 2, padding 1."""
    weight = var(f"{name}_weight", shape=(cin, cout, 4, 4), dtype=dtype)
    y = nn.conv2d_transpose(
        data, weight, strides=(2, 2), padding=(1, 1), channels=cout, kernel_size=(4, 4)
    )
    return nn.relu(batch_norm(y, f"{name}_bn", cout, dtype))


def get_net(
    batch_size: int,
    random_len: int = 100,
    oshape: tuple[int, int, int] = (3, 64, 64),
    ngf: int = 128,
    layout: str = "NCHW",
    dtype: str = "float32",
) -> Function:
    if layout != "NCHW":
        raise ValueError(f"dcgan: layout {layout!r} (the workloads are NCHW)")
    if oshape[1] != oshape[2] or oshape[1] < 16 or oshape[1] & (oshape[1] - 1):
        raise ValueError(f"dcgan: output {oshape} (square, a power of two, >= 16)")
    code = var("data", shape=(batch_size, random_len), dtype=dtype)
    side, width = 4, ngf * 8
    weight = var("dense_weight", shape=(width * side * side, random_len), dtype=dtype)
    y = nn.relu(nn.dense(code, weight))
    y = reshape(y, (batch_size, width, side, side))
    y = nn.relu(batch_norm(y, "g1_bn", width, dtype))
    k = 2
    while side * 2 < oshape[1]:
        y = _deconv_bn_relu(y, f"g{k}", width, width // 2, dtype)
        side, width, k = side * 2, width // 2, k + 1
    weight = var(f"g{k}_weight", shape=(width, oshape[0], 4, 4), dtype=dtype)
    y = nn.conv2d_transpose(
        y,
        weight,
        strides=(2, 2),
        padding=(1, 1),
        channels=oshape[0],
        kernel_size=(4, 4),
    )
    y = tanh(y)
    return Function(params_of(code, y), y)


def get_workload(
    batch_size: int,
    oshape: tuple[int, int, int] = (3, 64, 64),
    ngf: int = 128,
    random_len: int = 100,
    layout: str = "NCHW",
    dtype: str = "float32",
) -> tuple[Any, dict[str, Any]]:
    return create_workload(get_net(batch_size, random_len, oshape, ngf, layout, dtype))
