"""One small model of ops whose form changed between opsets 13 and 18 (axes and split
sizes as inputs or attributes, Split's num_outputs), written for each opset from 13 to
18, against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

RunOnnx = Callable[..., Any]


@pytest.mark.parametrize("opset", range(13, 19))
def test_model_in_each_opset(
    run_onnx: RunOnnx, rng: np.random.Generator, opset: int
) -> None:
    ints = {
        "axes0": np.array([0], np.int64),
        "axes2": np.array([2], np.int64),
        "lo": np.array(-0.5, np.float32),
        "hi": np.array(0.5, np.float32),
        "pads": np.array([0, 0, 1, 0, 0, 1], np.int64),
        "sizes": np.array([2, 2], np.int64),
    }
    nodes = [
        helper.make_node("Unsqueeze", ["x", "axes0"], ["u"]),  # [1, 3, 4, 4]
        helper.make_node("Clip", ["u", "lo", "hi"], ["c"]),
        helper.make_node("Squeeze", ["c", "axes0"], ["s"]),  # [3, 4, 4]
        helper.make_node("Pad", ["s", "pads"], ["p"], mode="edge"),  # [3, 4, 6]
    ]
    if opset >= 18:
        nodes += [
            helper.make_node("ReduceMean", ["p", "axes2"], ["r"], keepdims=1),
            helper.make_node("ReduceMax", ["p", "axes2"], ["m"], keepdims=0),
            helper.make_node("Split", ["p"], ["a", "b"], axis=1, num_outputs=2),
        ]
    else:
        nodes += [
            helper.make_node("ReduceMean", ["p"], ["r"], axes=[2], keepdims=1),
            helper.make_node("ReduceMax", ["p"], ["m"], axes=[2], keepdims=0),
            helper.make_node("Split", ["p", "sizes"], ["a", "b"], axis=1),
        ]
    nodes.append(helper.make_node("ReduceSum", ["a", "axes2"], ["t"], keepdims=0))
    x = rng.standard_normal((3, 4, 4)).astype(np.float32)
    run_onnx(nodes, {"x": x}, ints, outputs=["r", "m", "b", "t"], opset=opset)
