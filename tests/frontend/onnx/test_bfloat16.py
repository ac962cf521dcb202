"""ONNX ``BFLOAT16`` tensors: graph inputs, initializers (frozen into constants or kept
as parameters) and ``Constant`` nodes import as relay ``bfloat16``; the interpreter
and the compiled model agree with onnx's reference."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import xrelay
from xrelay.frontend import from_onnx
from xrelay.runtime import interpret

BF16 = ml_dtypes.bfloat16


def _model(w: Any) -> Any:
    """``Cast(x -> bf16) * w + c`` (``w`` an initializer, ``c`` a Constant node),
    as bfloat16 and cast back to float32."""
    c = numpy_helper.from_array(np.array([0.5, -2.0, 1e-3], dtype=BF16), "c")
    nodes = [
        helper.make_node("Constant", [], ["c"], value=c),
        helper.make_node("Cast", ["x"], ["xb"], to=TensorProto.BFLOAT16),
        helper.make_node("Mul", ["xb", "w"], ["p"]),
        helper.make_node("Add", ["p", "c"], ["y"]),
        helper.make_node("Cast", ["y"], ["out"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes,
        "bf16",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [
            helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2, 3]),
            helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3]),
        ],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = min(model.ir_version, 10)
    return model


def _expected(x: Any, w: Any) -> Any:
    c = np.array([0.5, -2.0, 1e-3], dtype=BF16).astype(np.float32)
    p = (x.astype(BF16).astype(np.float32) * w.astype(np.float32)).astype(BF16)
    return (p.astype(np.float32) + c).astype(BF16)


@pytest.mark.parametrize("freeze", [True, False])
def test_bfloat16_initializer_constant_and_casts(freeze: bool):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    w = rng.standard_normal((3,)).astype(np.float32).astype(BF16)
    model = _model(w)
    mod, params = from_onnx(model, freeze_params=freeze)
    assert "bf16" in str(mod)
    want = _expected(x, w)
    y, out = interpret(mod, x, *params.values())
    assert y.dtype == np.dtype(BF16)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))
    np.testing.assert_array_equal(out, want.astype(np.float32))
    # onnx's reference agrees (it rounds after every op, as the interpreter does)
    from onnx.reference import ReferenceEvaluator

    ref_y, _ = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(
        np.asarray(ref_y).view(np.uint16), want.view(np.uint16)
    )
    if freeze:  # compiled: the fused chain rounds once, at the store
        lib = xrelay.build(mod)
        got_y, got_out = lib(x)
        exact = x.astype(BF16).astype(np.float32) * w.astype(np.float32) + np.array(
            [0.5, -2.0, 1e-3], dtype=BF16
        ).astype(np.float32)
        for g in (got_y.astype(np.float32), got_out):
            ulp = 2.0 ** (np.floor(np.log2(np.abs(exact))) - 7)
            assert (np.abs(g - exact) <= ulp).all()
