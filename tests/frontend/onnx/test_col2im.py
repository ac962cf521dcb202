"""Col2Im (opset 18) against the ONNX reference evaluator: strides, dilations and
pads (asymmetric, overlapping blocks), 2-D and 3-D images; import errors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]
F32 = np.float32


def _count(image: int, block: int, stride: int, dil: int, pad: int) -> int:
    return (image + pad - dil * (block - 1) - 1) // stride + 1


@pytest.mark.parametrize(
    ("image", "block", "strides", "dilations", "pads"),
    [
        ([5, 5], [2, 3], [1, 1], [1, 1], [0, 0, 0, 0]),
        ([6, 7], [3, 2], [2, 1], [1, 2], [1, 0, 2, 1]),
        ([4, 9], [2, 2], [3, 2], [2, 1], [0, 2, 1, 0]),
        ([3, 4, 5], [2, 1, 3], [1, 2, 1], [1, 1, 2], [0, 1, 1, 1, 0, 2]),
    ],
)
def test_col2im(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    image: list[int],
    block: list[int],
    strides: list[int],
    dilations: list[int],
    pads: list[int],
) -> None:
    nd = len(image)
    counts = [
        _count(image[a], block[a], strides[a], dilations[a], pads[a] + pads[a + nd])
        for a in range(nd)
    ]
    x = rng.standard_normal((2, 3 * math.prod(block), math.prod(counts))).astype(F32)
    node = helper.make_node(
        "Col2Im",
        ["x", "image", "block"],
        ["y"],
        strides=strides,
        dilations=dilations,
        pads=pads,
    )
    inits = {"image": np.array(image, np.int64), "block": np.array(block, np.int64)}
    # onnxruntime's 3-D Col2Im differs from the reference evaluator (and from xrelay)
    differs = "n-D Col2Im beyond 2-D" if nd > 2 else None
    run_onnx(node, {"x": x}, inits, opset=18, ort_differs=differs)


@pytest.mark.parametrize(
    ("shape", "image", "block", "message"),
    [
        ((1, 5, 16), [5, 5], [2, 2], "not a multiple of the block size 4"),
        ((1, 4, 15), [5, 5], [2, 2], r"must be the block count \[4, 4\] \(16\)"),
        ((1, 4, 16), [5, 5], [2], "must have one length"),
        ((1, 4, 16), [5, 0], [2, 2], "must be positive"),
    ],
)
def test_col2im_errors(
    import_run: RunOnnx,
    shape: tuple[int, ...],
    image: list[int],
    block: list[int],
    message: str,
) -> None:
    x = np.zeros(shape, F32)
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"])
    inits = {"image": np.array(image, np.int64), "block": np.array(block, np.int64)}
    with pytest.raises(OnnxImportError, match=message):
        import_run(
            node, {"x": x}, inits, opset=18, expected=[np.zeros((1, 1, 5, 5), F32)]
        )
