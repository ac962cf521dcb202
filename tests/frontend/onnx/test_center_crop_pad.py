"""CenterCropPad (opset 18) against the ONNX reference evaluator: crops and pads by
odd and even differences, axes subsets (negative too), int data; import errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]


@pytest.mark.parametrize(
    ("shape", "target", "axes"),
    [
        ((5, 6, 3), [3, 9, 3], None),
        ((5, 6, 3), [4, 7, 3], None),
        ((5, 6, 3), [2, 1], [0, 1]),
        ((5, 6, 3), [8, 0], [-1, 0]),
        ((4, 7), [7, 2], [1, 0]),
        ((4, 7), [4, 7], None),
    ],
)
def test_center_crop_pad(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    target: list[int],
    axes: list[int] | None,
) -> None:
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = {} if axes is None else {"axes": axes}
    node = helper.make_node("CenterCropPad", ["x", "shape"], ["y"], **attrs)
    run_onnx(node, {"x": x}, {"shape": np.array(target, np.int64)}, opset=18)


def test_center_crop_pad_int(run_onnx: RunOnnx) -> None:
    x = np.arange(30, dtype=np.int32).reshape(5, 6)
    node = helper.make_node("CenterCropPad", ["x", "shape"], ["y"])
    run_onnx(node, {"x": x}, {"shape": np.array([2, 9], np.int64)}, opset=18)


@pytest.mark.parametrize(
    ("target", "axes", "message"),
    [
        ([2], None, "shape has 1 values for 2 axes"),
        ([2, 2], [1, -1], "axes has duplicates"),
        ([2, -1], None, "shape must be non-negative"),
    ],
)
def test_center_crop_pad_errors(
    import_run: RunOnnx, target: list[int], axes: list[int] | None, message: str
) -> None:
    x = np.zeros((4, 5), np.float32)
    attrs = {} if axes is None else {"axes": axes}
    node = helper.make_node("CenterCropPad", ["x", "shape"], ["y"], **attrs)
    with pytest.raises(OnnxImportError, match=message):
        import_run(
            node,
            {"x": x},
            {"shape": np.array(target, np.int64)},
            opset=18,
            expected=[x],
        )
