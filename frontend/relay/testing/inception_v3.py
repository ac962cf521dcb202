"""Inception v3 (TVM's ``relay.testing.inception_v3``): Szegedy et al.'s network
for 299x299 images: a convolution stem, three 35x35 blocks, a grid reduction, four
17x17 blocks with factorised 7x1 / 1x7 convolutions, a second reduction, two 8x8
blocks with split 1x3 / 3x1 branches, global pooling and a classifier."""

from __future__ import annotations

from typing import Any

from xrelay.frontend.relay.expr import var
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.op import nn
from xrelay.frontend.relay.op.tensor import concatenate
from xrelay.frontend.relay.testing.init import create_workload
from xrelay.frontend.relay.testing.layers import batch_norm, dense_add_bias, params_of


class _Net:
    """Builds the layers, tracking the channel count of each tensor it makes."""

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype
        self.channels: dict[int, int] = {}

    def conv(
        self,
        data: Any,
        name: str,
        cout: int,
        kernel: tuple[int, int] = (1, 1),
        stride: int = 1,
        pad: tuple[int, int] = (0, 0),
    ) -> Any:
        cin = self.channels[id(data)]
        w = var(f"{name}_conv_weight", shape=(cout, cin, *kernel), dtype=self.dtype)
        y = nn.conv2d(
            data,
            w,
            strides=(stride, stride),
            padding=pad,
            channels=cout,
            kernel_size=kernel,
        )
        y = nn.relu(batch_norm(y, f"{name}_bn", cout, self.dtype))
        self.channels[id(y)] = cout
        return y

    def pool(self, data: Any, kind: str, stride: int, pad: int) -> Any:
        make = nn.max_pool2d if kind == "max" else nn.avg_pool2d
        y = make(data, pool_size=(3, 3), strides=(stride, stride), padding=(pad, pad))
        self.channels[id(y)] = self.channels[id(data)]
        return y

    def concat(self, parts: list[Any]) -> Any:
        y = concatenate(parts, axis=1)
        self.channels[id(y)] = sum(self.channels[id(p)] for p in parts)
        return y

    # -- blocks -------------------------------------------------------------------------

    def block_a(self, x: Any, name: str, pool_features: int) -> Any:
        b1 = self.conv(x, f"{name}_conv", 64)
        b5 = self.conv(x, f"{name}_tower_conv", 48)
        b5 = self.conv(b5, f"{name}_tower_conv_1", 64, (5, 5), pad=(2, 2))
        b3 = self.conv(x, f"{name}_tower_1_conv", 64)
        b3 = self.conv(b3, f"{name}_tower_1_conv_1", 96, (3, 3), pad=(1, 1))
        b3 = self.conv(b3, f"{name}_tower_1_conv_2", 96, (3, 3), pad=(1, 1))
        bp = self.pool(x, "avg", 1, 1)
        bp = self.conv(bp, f"{name}_tower_2_conv", pool_features)
        return self.concat([b1, b5, b3, bp])

    def reduce_b(self, x: Any, name: str) -> Any:
        b3 = self.conv(x, f"{name}_conv", 384, (3, 3), stride=2)
        bd = self.conv(x, f"{name}_tower_conv", 64)
        bd = self.conv(bd, f"{name}_tower_conv_1", 96, (3, 3), pad=(1, 1))
        bd = self.conv(bd, f"{name}_tower_conv_2", 96, (3, 3), stride=2)
        return self.concat([b3, bd, self.pool(x, "max", 2, 0)])

    def block_c(self, x: Any, name: str, c7: int) -> Any:
        b1 = self.conv(x, f"{name}_conv", 192)
        b7 = self.conv(x, f"{name}_tower_conv", c7)
        b7 = self.conv(b7, f"{name}_tower_conv_1", c7, (1, 7), pad=(0, 3))
        b7 = self.conv(b7, f"{name}_tower_conv_2", 192, (7, 1), pad=(3, 0))
        bd = self.conv(x, f"{name}_tower_1_conv", c7)
        bd = self.conv(bd, f"{name}_tower_1_conv_1", c7, (7, 1), pad=(3, 0))
        bd = self.conv(bd, f"{name}_tower_1_conv_2", c7, (1, 7), pad=(0, 3))
        bd = self.conv(bd, f"{name}_tower_1_conv_3", c7, (7, 1), pad=(3, 0))
        bd = self.conv(bd, f"{name}_tower_1_conv_4", 192, (1, 7), pad=(0, 3))
        bp = self.conv(self.pool(x, "avg", 1, 1), f"{name}_tower_2_conv", 192)
        return self.concat([b1, b7, bd, bp])

    def reduce_d(self, x: Any, name: str) -> Any:
        b3 = self.conv(x, f"{name}_tower_conv", 192)
        b3 = self.conv(b3, f"{name}_tower_conv_1", 320, (3, 3), stride=2)
        b7 = self.conv(x, f"{name}_tower_1_conv", 192)
        b7 = self.conv(b7, f"{name}_tower_1_conv_1", 192, (1, 7), pad=(0, 3))
        b7 = self.conv(b7, f"{name}_tower_1_conv_2", 192, (7, 1), pad=(3, 0))
        b7 = self.conv(b7, f"{name}_tower_1_conv_3", 192, (3, 3), stride=2)
        return self.concat([b3, b7, self.pool(x, "max", 2, 0)])

    def block_e(self, x: Any, name: str) -> Any:
        b1 = self.conv(x, f"{name}_conv", 320)
        b3 = self.conv(x, f"{name}_tower_conv", 384)
        b3 = self.concat(
            [
                self.conv(b3, f"{name}_tower_mixed_conv", 384, (1, 3), pad=(0, 1)),
                self.conv(b3, f"{name}_tower_mixed_conv_1", 384, (3, 1), pad=(1, 0)),
            ]
        )
        bd = self.conv(x, f"{name}_tower_1_conv", 448)
        bd = self.conv(bd, f"{name}_tower_1_conv_1", 384, (3, 3), pad=(1, 1))
        bd = self.concat(
            [
                self.conv(bd, f"{name}_tower_1_mixed_conv", 384, (1, 3), pad=(0, 1)),
                self.conv(bd, f"{name}_tower_1_mixed_conv_1", 384, (3, 1), pad=(1, 0)),
            ]
        )
        bp = self.conv(self.pool(x, "avg", 1, 1), f"{name}_tower_2_conv", 192)
        return self.concat([b1, b3, bd, bp])


def get_net(
    batch_size: int = 1,
    num_classes: int = 1000,
    image_shape: tuple[int, int, int] = (3, 299, 299),
    dtype: str = "float32",
) -> Function:
    data = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    net = _Net(dtype)
    net.channels[id(data)] = image_shape[0]
    y = net.conv(data, "conv", 32, (3, 3), stride=2)
    y = net.conv(y, "conv_1", 32, (3, 3))
    y = net.conv(y, "conv_2", 64, (3, 3), pad=(1, 1))
    y = net.pool(y, "max", 2, 0)
    y = net.conv(y, "conv_3", 80)
    y = net.conv(y, "conv_4", 192, (3, 3))
    y = net.pool(y, "max", 2, 0)
    for k, pool_features in enumerate((32, 64, 64)):
        y = net.block_a(y, f"mixed{'_' + str(k) if k else ''}", pool_features)
    y = net.reduce_b(y, "mixed_3")
    for k, c7 in enumerate((128, 160, 160, 192)):
        y = net.block_c(y, f"mixed_{k + 4}", c7)
    y = net.reduce_d(y, "mixed_8")
    y = net.block_e(y, "mixed_9")
    y = net.block_e(y, "mixed_10")
    cout = net.channels[id(y)]
    y = nn.batch_flatten(nn.global_avg_pool2d(y))
    y = nn.softmax(dense_add_bias(y, "fc1", cout, num_classes, dtype))
    return Function(params_of(data, y), y)


def get_workload(
    batch_size: int = 1,
    num_classes: int = 1000,
    image_shape: tuple[int, int, int] = (3, 299, 299),
    dtype: str = "float32",
) -> tuple[Any, dict[str, Any]]:
    """``(mod, params)`` of Inception v3 with random weights."""
    return create_workload(get_net(batch_size, num_classes, image_shape, dtype))
