"""MobileNet (TVM's ``relay.testing.mobilenet``): Howard et al.'s depthwise
separable network (v1), width multiplier 1."""

from __future__ import annotations

from typing import Any

from xrelay.frontend.relay.expr import var
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.op import nn
from xrelay.frontend.relay.testing.init import create_workload
from xrelay.frontend.relay.testing.layers import conv_bn_relu, dense_add_bias, params_of

# (output channels, stride) of each depthwise separable block
_BLOCKS = [
    *[(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)],
    *[(512, 1)] * 5,
    *[(1024, 2), (1024, 1)],
]


def get_net(
    batch_size: int = 1,
    num_classes: int = 1000,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    dtype: str = "float32",
    layout: str = "NCHW",
) -> Function:
    if layout != "NCHW":
        raise ValueError(f"mobilenet: layout {layout!r} (the workloads are NCHW)")
    data = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    y = conv_bn_relu(
        data,
        "conv_block_1",
        image_shape[0],
        32,
        kernel=3,
        strides=2,
        padding=1,
        dtype=dtype,
    )
    cin = 32
    for k, (cout, stride) in enumerate(_BLOCKS):
        name = f"separable_conv_block_{k + 1}"
        y = conv_bn_relu(
            y,
            f"{name}_depthwise",
            cin,
            cin,
            kernel=3,
            strides=stride,
            padding=1,
            groups=cin,
            dtype=dtype,
        )
        y = conv_bn_relu(y, f"{name}_pointwise", cin, cout, kernel=1, dtype=dtype)
        cin = cout
    y = nn.batch_flatten(nn.global_avg_pool2d(y))
    y = nn.softmax(dense_add_bias(y, "fc", cin, num_classes, dtype))
    return Function(params_of(data, y), y)


def get_workload(
    batch_size: int = 1,
    num_classes: int = 1000,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    dtype: str = "float32",
    layout: str = "NCHW",
) -> tuple[Any, dict[str, Any]]:
    return create_workload(get_net(batch_size, num_classes, image_shape, dtype, layout))
