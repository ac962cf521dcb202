"""MaxPool / AveragePool with auto_pad SAME_LOWER / SAME_UPPER and strides > 1
follow the ONNX specification: out = ceil(in / stride), total padding
max(0, (out - 1) * stride + (k - 1) * dilation + 1 - in), the odd unit at the
beginning for SAME_LOWER (at the end for SAME_UPPER) -- as onnxruntime and ONNX's
shape inference do. The reference evaluator's strided pooling path does not (it
splits SAME_LOWER like SAME_UPPER, floors SAME_LOWER's output size and lets the
total go negative), so these tests compare with the reference evaluator given the
explicit pads the specification implies, and check that its unstrided path agrees."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

RunOnnx = Callable[..., Any]
F32 = np.float32


def _spec_pads(
    sizes: list[int], kernel: list[int], strides: list[int], auto_pad: str
) -> list[int]:
    begin, end = [], []
    for size, k, s in zip(sizes, kernel, strides, strict=True):
        out = -(-size // s)
        total = max(0, (out - 1) * s + k - size)
        lo = total - total // 2 if auto_pad == "SAME_LOWER" else total // 2
        begin.append(lo)
        end.append(total - lo)
    return begin + end


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("auto_pad", ["SAME_LOWER", "SAME_UPPER"])
@pytest.mark.parametrize(
    ("kernel", "strides"),
    [([3, 3], [2, 1]), ([2, 2], [2, 2]), ([3, 2], [2, 2]), ([1, 1], [2, 2])],
)
def test_same_padding_with_strides_follows_the_spec(
    import_run: RunOnnx,
    onnx_reference: RunOnnx,
    rng: np.random.Generator,
    op: str,
    auto_pad: str,
    kernel: list[int],
    strides: list[int],
) -> None:
    x = rng.standard_normal((1, 2, 6, 7)).astype(F32)
    pads = _spec_pads([6, 7], kernel, strides, auto_pad)
    explicit = helper.make_node(
        op, ["x"], ["y"], kernel_shape=kernel, strides=strides, pads=pads
    )
    (want,) = onnx_reference(explicit, {"x": x}, opset=13)
    assert want.shape[2:] == (-(-6 // strides[0]), -(-7 // strides[1]))
    node = helper.make_node(
        op, ["x"], ["y"], kernel_shape=kernel, strides=strides, auto_pad=auto_pad
    )
    (got,) = import_run(node, {"x": x}, opset=13, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_the_six_by_seven_case(import_run: RunOnnx) -> None:
    """6x7, kernel 3x3, strides (2, 1), SAME_LOWER: one row of padding at the top
    (none at the bottom), one column each side; so output row 0 pools input rows
    -1..1 and row 2 rows 3..5."""
    x = np.arange(42, dtype=F32).reshape(1, 1, 6, 7)
    node = helper.make_node(
        "MaxPool",
        ["x"],
        ["y"],
        kernel_shape=[3, 3],
        strides=[2, 1],
        auto_pad="SAME_LOWER",
    )
    padded = np.pad(x[0, 0], [(1, 0), (1, 1)], constant_values=-np.inf)
    want = np.array(
        [[padded[r : r + 3, c : c + 3].max() for c in range(7)] for r in (0, 2, 4)],
        F32,
    )[None, None]
    (got,) = import_run(node, {"x": x}, opset=13, expected=[want])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("auto_pad", ["SAME_LOWER", "SAME_UPPER"])
def test_the_reference_unstrided_path_agrees(
    run_onnx: RunOnnx, rng: np.random.Generator, auto_pad: str
) -> None:
    # with strides 1 the reference evaluator takes its other (specification) path
    x = rng.standard_normal((1, 2, 6, 7)).astype(F32)
    node = helper.make_node(
        "MaxPool", ["x"], ["y"], kernel_shape=[2, 3], auto_pad=auto_pad
    )
    run_onnx(node, {"x": x}, opset=13)
