"""XrelayBackend, the onnx.backend backend (backend.py): prepare + run on the LLVM
path, inputs by position or name, and specialisation on inputs needed statically."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError, from_onnx
from xrelay.frontend.onnx.backend import XrelayBackend

F32 = np.float32


def test_prepare_and_run(build_model: Callable[..., Any]) -> None:
    a = np.arange(6, dtype=F32).reshape(2, 3)
    b = np.full((2, 3), 2.0, F32)
    nodes = [helper.make_node("Mul", ["a_0", "a_1"], ["y"])]
    rep = XrelayBackend.prepare(
        build_model(nodes, {"a_0": a, "a_1": b}, output_values=[a])
    )
    (got,) = rep.run([a, b])
    np.testing.assert_array_equal(got, a * b)
    (got,) = rep.run({"a_1": a, "a_0": b})
    np.testing.assert_array_equal(got, a * b)
    assert rep.specialized == []
    assert XrelayBackend.supports_device("CPU")
    assert not XrelayBackend.supports_device("CUDA")


def test_specialises_on_an_input_needed_statically(
    build_model: Callable[..., Any],
) -> None:
    x = np.arange(12, dtype=F32).reshape(3, 4)
    shape = np.array([4, 3], np.int64)
    model = build_model(
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
        {"x": x, "shape": shape},
        output_values=[x.reshape(4, 3)],
    )
    # the importer refuses it, naming the input
    with pytest.raises(OnnxImportError, match=r"\('shape'\) must be known") as info:
        from_onnx(model)
    assert info.value.static_input == "shape"
    rep = XrelayBackend.prepare(model)
    (got,) = rep.run([x, shape])
    np.testing.assert_array_equal(got, x.reshape(4, 3))
    assert rep.specialized == ["shape"]
    # another value compiles again (the declared output shape is not checked here)
    (got,) = rep.run([x, np.array([2, 6], np.int64)])
    np.testing.assert_array_equal(got, x.reshape(2, 6))


def test_other_import_errors_are_raised_by_prepare(
    build_model: Callable[..., Any],
) -> None:
    x = np.zeros((2, 2), F32)
    model = build_model(
        helper.make_node("Unique", ["x"], ["y"]),
        {"x": x},
        output_values=[np.zeros((1,), F32)],
    )
    with pytest.raises(OnnxImportError, match="unsupported ONNX operator: Unique"):
        XrelayBackend.prepare(model)
