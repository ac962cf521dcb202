"""ResNet (TVM's ``relay.testing.resnet``): the residual networks of He et al.,
pre-activation form (batch norm and ReLU before each convolution), basic blocks for
18 and 34 layers, bottlenecks for 50, 101, 152, 200 and 269."""

from __future__ import annotations

from typing import Any

from xrelay.frontend.relay.expr import var
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.op import nn
from xrelay.frontend.relay.op.tensor import add
from xrelay.frontend.relay.testing.init import create_workload
from xrelay.frontend.relay.testing.layers import (
    batch_norm,
    conv2d,
    dense_add_bias,
    params_of,
)

_UNITS = {
    18: [2, 2, 2, 2],
    34: [3, 4, 6, 3],
    50: [3, 4, 6, 3],
    101: [3, 4, 23, 3],
    152: [3, 8, 36, 3],
    200: [3, 24, 36, 3],
    269: [3, 30, 48, 8],
}


def _unit(
    data: Any, name: str, cin: int, cout: int, stride: int, bottleneck: bool, dtype: str
) -> Any:
    act = nn.relu(batch_norm(data, f"{name}_bn1", cin, dtype))
    if bottleneck:
        mid = cout // 4
        y = conv2d(act, f"{name}_conv1", cin, mid, 1, dtype=dtype)
        y = nn.relu(batch_norm(y, f"{name}_bn2", mid, dtype))
        y = conv2d(y, f"{name}_conv2", mid, mid, 3, stride, 1, dtype=dtype)
        y = nn.relu(batch_norm(y, f"{name}_bn3", mid, dtype))
        y = conv2d(y, f"{name}_conv3", mid, cout, 1, dtype=dtype)
    else:
        y = conv2d(act, f"{name}_conv1", cin, cout, 3, stride, 1, dtype=dtype)
        y = nn.relu(batch_norm(y, f"{name}_bn2", cout, dtype))
        y = conv2d(y, f"{name}_conv2", cout, cout, 3, 1, 1, dtype=dtype)
    if cin == cout and stride == 1:
        shortcut = data
    else:
        shortcut = conv2d(act, f"{name}_sc", cin, cout, 1, stride, dtype=dtype)
    return add(y, shortcut)


def get_net(
    batch_size: int = 1,
    num_classes: int = 1000,
    num_layers: int = 18,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    layout: str = "NCHW",
    dtype: str = "float32",
) -> Function:
    if num_layers not in _UNITS:
        raise ValueError(
            f"resnet: no {num_layers}-layer network (one of {sorted(_UNITS)})"
        )
    if layout != "NCHW":
        raise ValueError(f"resnet: layout {layout!r} (the workloads are NCHW)")
    bottleneck = num_layers >= 50
    widths = [64, 256, 512, 1024, 2048] if bottleneck else [64, 64, 128, 256, 512]
    channels, height, _ = image_shape
    data = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    y = batch_norm(data, "bn_data", channels, dtype)
    if height <= 32:  # CIFAR-sized input: one 3x3 stem, no pooling
        y = conv2d(y, "conv0", channels, widths[0], 3, 1, 1, dtype=dtype)
    else:
        y = conv2d(y, "conv0", channels, widths[0], 7, 2, 3, dtype=dtype)
        y = nn.relu(batch_norm(y, "bn0", widths[0], dtype))
        y = nn.max_pool2d(y, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
    cin = widths[0]
    for stage, units in enumerate(_UNITS[num_layers]):
        cout = widths[stage + 1]
        for k in range(units):
            stride = 2 if k == 0 and stage > 0 else 1
            y = _unit(
                y, f"stage{stage + 1}_unit{k + 1}", cin, cout, stride, bottleneck, dtype
            )
            cin = cout
    y = nn.relu(batch_norm(y, "bn1", cin, dtype))
    y = nn.batch_flatten(nn.global_avg_pool2d(y))
    y = nn.softmax(dense_add_bias(y, "fc1", cin, num_classes, dtype))
    return Function(params_of(data, y), y)


def get_workload(
    batch_size: int = 1,
    num_classes: int = 1000,
    num_layers: int = 18,
    image_shape: tuple[int, int, int] = (3, 224, 224),
    layout: str = "NCHW",
    dtype: str = "float32",
    **kwargs: Any,
) -> tuple[Any, dict[str, Any]]:
    del kwargs
    return create_workload(
        get_net(batch_size, num_classes, num_layers, image_shape, layout, dtype)
    )
