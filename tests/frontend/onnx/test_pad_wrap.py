"""Pad in wrap mode (opset 19) against the ONNX reference evaluator: small pads, pads
longer than the axis, axes subsets; negative pads (the reference rejects them)
against numpy; int data."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

RunOnnx = Callable[..., Any]


@pytest.mark.parametrize(
    ("pads", "axes"),
    [
        ([1, 2, 0, 0, 1, 3], None),
        ([4, 0, 7, 2, 9, 1], None),  # longer than the axes (3, 4, 5)
        ([2, 6], [-1]),
        ([0, 3, 5, 0], [2, 0]),
    ],
)
def test_wrap_pad(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    pads: list[int],
    axes: list[int] | None,
) -> None:
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    names = ["x", "pads"] + (["", "axes"] if axes is not None else [])
    inits = {"pads": np.array(pads, np.int64)}
    if axes is not None:
        inits["axes"] = np.array(axes, np.int64)
    node = helper.make_node("Pad", names, ["y"], mode="wrap")
    run_onnx(node, {"x": x}, inits, opset=19)


def test_wrap_pad_negative_crops(import_run: RunOnnx) -> None:
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    pads = [2, -2, -1, 3]  # wrap 2 before axis 0 and crop 1 after; crop 2, wrap 3
    want = np.pad(x, [(2, 0), (0, 3)], mode="wrap")[:-1, 2:]
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap")
    (got,) = import_run(
        node, {"x": x}, {"pads": np.array(pads, np.int64)}, opset=19, expected=[want]
    )
    np.testing.assert_array_equal(got, want)
