"""A multilayer perceptron (TVM's ``relay.testing.mlp``): flatten, dense 128, ReLU,
dense 64, ReLU, dense to the classes, softmax."""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay.frontend.relay.expr import var
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.op import nn
from xrelay.frontend.relay.testing.init import create_workload
from xrelay.frontend.relay.testing.layers import dense_add_bias, params_of


def get_net(
    batch_size: int,
    num_classes: int = 10,
    image_shape: tuple[int, ...] = (1, 28, 28),
    dtype: str = "float32",
) -> Function:
    data = var("data", shape=(batch_size, *image_shape), dtype=dtype)
    flat = int(np.prod(image_shape))
    y = nn.batch_flatten(data)
    y = nn.relu(dense_add_bias(y, "fc1", flat, 128, dtype))
    y = nn.relu(dense_add_bias(y, "fc2", 128, 64, dtype))
    y = nn.softmax(dense_add_bias(y, "fc3", 64, num_classes, dtype))
    return Function(params_of(data, y), y)


def get_workload(
    batch_size: int,
    num_classes: int = 10,
    image_shape: tuple[int, ...] = (1, 28, 28),
    dtype: str = "float32",
) -> tuple[Any, dict[str, Any]]:
    return create_workload(get_net(batch_size, num_classes, image_shape, dtype))
