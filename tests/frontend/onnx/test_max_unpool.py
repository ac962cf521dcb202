"""MaxUnpool against the ONNX reference evaluator: 2-D and 3-D, strides, pads,
duplicates and negative indices, output_shape; an index outside
the output fails the compiled run instead of writing outside; import errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

import xrelay
from xrelay.frontend import OnnxImportError, from_onnx
from xrelay.status import IndexOutOfRangeError

RunOnnx = Callable[..., Any]
F32 = np.float32
I64 = np.int64


@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "pads", "unpooled"),
    [
        ((2, 3, 3, 4), [2, 2], [2, 2], [0, 0, 0, 0], (2, 3, 6, 8)),
        ((1, 2, 4, 5), [3, 2], [2, 1], [1, 0, 1, 1], (1, 2, 7, 5)),
        ((1, 2, 2, 3, 2), [2, 2, 3], [2, 2, 3], [0, 0, 0, 0, 0, 0], (1, 2, 4, 6, 6)),
    ],
)
def test_max_unpool(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    kernel: list[int],
    strides: list[int],
    pads: list[int],
    unpooled: tuple[int, ...],
) -> None:
    x = rng.standard_normal(shape).astype(F32)
    # distinct flat positions in the unpooled output, as a MaxPool would give
    picked = rng.permutation(int(np.prod(unpooled)))[: x.size]
    idx = picked.reshape(shape).astype(I64)
    attrs = {"kernel_shape": kernel, "strides": strides, "pads": pads}
    node = helper.make_node("MaxUnpool", ["x", "i"], ["y"], **attrs)
    run_onnx(node, {"x": x, "i": idx}, opset=11)


def test_max_unpool_duplicates_negative_and_output_shape(run_onnx: RunOnnx) -> None:
    x = np.array([[[[1, 2], [3, 4]]]], F32)
    idx = np.array([[[[0, 0], [-1, 5]]]], I64)  # 0 twice (the last wins), -1 = 15
    node = helper.make_node(
        "MaxUnpool", ["x", "i", "shape"], ["y"], kernel_shape=[2, 2], strides=[2, 2]
    )
    run_onnx(node, {"x": x, "i": idx}, {"shape": np.array([1, 1, 5, 6], I64)}, opset=11)


def test_max_unpool_index_out_of_range_fails_the_run(
    build_model: Callable[..., Any],
) -> None:
    x = np.ones((1, 1, 2, 2), F32)
    good = np.array([[[[0, 3], [8, 15]]]], I64)
    node = helper.make_node(
        "MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2]
    )
    out = np.zeros((1, 1, 4, 4), F32)
    mod, params = from_onnx(build_model(node, {"x": x, "i": good}, output_values=[out]))
    lib = xrelay.build(mod, params=params)
    (y,) = lib(x, good)
    assert y.reshape(-1)[[0, 3, 8, 15]].tolist() == [1, 1, 1, 1]
    with pytest.raises(IndexOutOfRangeError, match="relay.scatter_nd: index 16"):
        lib(x, np.array([[[[0, 16], [8, 15]]]], I64))


@pytest.mark.parametrize(
    ("attrs", "shape", "message"),
    [
        ({"kernel_shape": [2]}, None, "kernel_shape has 1 values"),
        ({"kernel_shape": [2, 2], "strides": [2]}, None, "strides and pads must have"),
        ({"kernel_shape": [2, 2]}, [1, 1, 2, 2], "must have rank 4 and be at least"),
    ],
)
def test_max_unpool_errors(
    import_run: RunOnnx,
    attrs: dict[str, Any],
    shape: list[int] | None,
    message: str,
) -> None:
    x = np.zeros((1, 1, 2, 2), F32)
    idx = np.zeros((1, 1, 2, 2), I64)
    names = ["x", "i"] + (["shape"] if shape is not None else [])
    inits = {} if shape is None else {"shape": np.array(shape, I64)}
    node = helper.make_node("MaxUnpool", names, ["y"], **attrs)
    with pytest.raises(OnnxImportError, match=message):
        import_run(node, {"x": x, "i": idx}, inits, opset=11, expected=[x])
