"""Helpers for the ONNX frontend tests: build small ONNX models with ``onnx.helper``,
run them with ``onnx.reference.ReferenceEvaluator`` (and onnxruntime when it is
installed), import them with ``from_onnx`` and run the result through the reference
interpreter."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from xrelay.frontend import from_onnx
from xrelay.runtime.interpreter import interpret

HAVE_ORT = importlib.util.find_spec("onnxruntime") is not None


def value_info(name: str, array: np.ndarray[Any, Any] | None) -> onnx.ValueInfoProto:
    if array is None:  # type unknown until the reference runs
        return helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None)
    elem = helper.np_dtype_to_tensor_dtype(array.dtype)
    return helper.make_tensor_value_info(name, elem, list(array.shape))


def make_model(
    nodes: onnx.NodeProto | Sequence[onnx.NodeProto],
    inputs: dict[str, np.ndarray[Any, Any]],
    initializers: dict[str, np.ndarray[Any, Any]] | None = None,
    outputs: Sequence[str] | None = None,
    opset: int = 17,
    output_values: Sequence[np.ndarray[Any, Any]] | None = None,
) -> onnx.ModelProto:
    """A model of ``nodes``: graph inputs ``inputs`` (their arrays give shapes and
    dtypes), weights ``initializers``, outputs ``outputs`` (default: the last node's
    outputs)."""
    nodes = [nodes] if isinstance(nodes, onnx.NodeProto) else list(nodes)
    outs = list(outputs) if outputs is not None else [o for o in nodes[-1].output if o]
    out_infos = [
        value_info(name, None if output_values is None else output_values[k])
        for k, name in enumerate(outs)
    ]
    graph = helper.make_graph(
        nodes,
        "test",
        [value_info(k, v) for k, v in inputs.items()],
        out_infos,
        [numpy_helper.from_array(v, k) for k, v in (initializers or {}).items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 10)
    return model


def reference(
    model: onnx.ModelProto, feeds: dict[str, Any]
) -> list[np.ndarray[Any, Any]]:
    return [np.asarray(r) for r in ReferenceEvaluator(model).run(None, feeds)]


def compare(
    got: np.ndarray[Any, Any],
    want: np.ndarray[Any, Any],
    rtol: float,
    atol: float,
    what: str = "",
) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}shape {got.shape} != expected {want.shape}"
    assert got.dtype == want.dtype, f"{what}dtype {got.dtype} != expected {want.dtype}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


RunOnnx = Callable[..., list[np.ndarray[Any, Any]]]


def run_onnx_case(
    nodes: onnx.NodeProto | Sequence[onnx.NodeProto],
    inputs: dict[str, np.ndarray[Any, Any]],
    initializers: dict[str, np.ndarray[Any, Any]] | None = None,
    outputs: Sequence[str] | None = None,
    opset: int = 17,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    freeze_params: bool = True,
    ort_differs: str | None = None,
) -> list[np.ndarray[Any, Any]]:
    """Import the model, run it through the interpreter and compare every output with
    the ONNX reference evaluator (and onnxruntime when installed and able to run the
    model, unless ``ort_differs`` says why onnxruntime cannot serve as a reference for
    this case).
    Returns the interpreter's outputs."""
    draft = make_model(nodes, inputs, initializers, outputs, opset)
    expected = reference(draft, inputs)
    model = make_model(nodes, inputs, initializers, outputs, opset, expected)
    mod, params = from_onnx(model, freeze_params=freeze_params)
    args = [*inputs.values(), *params.values()]
    result = interpret(mod, *args)
    got = list(result) if isinstance(result, tuple) else [result]
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        compare(g, e, rtol, atol, f"output #{k}: ")
    if HAVE_ORT and ort_differs is None:  # onnxruntime is optional
        import onnxruntime  # pyright: ignore[reportMissingImports]

        try:
            session = onnxruntime.InferenceSession(
                model.SerializeToString(), providers=["CPUExecutionProvider"]
            )
            theirs = session.run(None, inputs)
        except Exception:  # a case onnxruntime does not implement
            return got  # (an op, type or attribute it lacks) says nothing of xrelay's
        for k, (g, e) in enumerate(zip(got, theirs, strict=True)):
            compare(g, np.asarray(e), rtol, atol, f"onnxruntime output #{k}: ")
    return got


@pytest.fixture
def run_onnx() -> RunOnnx:
    """``run_onnx(nodes, inputs, initializers=None, outputs=None, opset=17, ...)``:
    see :func:`run_onnx_case`."""
    return run_onnx_case


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def import_run_case(
    nodes: onnx.NodeProto | Sequence[onnx.NodeProto],
    inputs: dict[str, np.ndarray[Any, Any]],
    initializers: dict[str, np.ndarray[Any, Any]] | None = None,
    outputs: Sequence[str] | None = None,
    opset: int = 17,
    expected: Sequence[np.ndarray[Any, Any]] | None = None,
) -> list[np.ndarray[Any, Any]]:
    """Import the model and run it through the interpreter (no comparison);
    ``expected`` gives the declared output types."""
    model = make_model(nodes, inputs, initializers, outputs, opset, expected)
    mod, _ = from_onnx(model)
    result = interpret(mod, *inputs.values())
    return list(result) if isinstance(result, tuple) else [result]


def reference_case(
    nodes: onnx.NodeProto | Sequence[onnx.NodeProto],
    inputs: dict[str, np.ndarray[Any, Any]],
    initializers: dict[str, np.ndarray[Any, Any]] | None = None,
    outputs: Sequence[str] | None = None,
    opset: int = 17,
) -> list[np.ndarray[Any, Any]]:
    """The ONNX reference evaluator's outputs for the model."""
    return reference(make_model(nodes, inputs, initializers, outputs, opset), inputs)


@pytest.fixture
def import_run() -> RunOnnx:
    """``import_run(nodes, inputs, initializers=None, outputs=None, opset=17,
    expected=None)``: the interpreter's outputs for the imported model (for ops where the reference
    evaluator is wrong and the test computes the expected values itself)."""
    return import_run_case


@pytest.fixture
def onnx_reference() -> RunOnnx:
    """``onnx_reference(nodes, inputs, ...)``: the reference evaluator's outputs."""
    return reference_case


@pytest.fixture
def build_model() -> Callable[..., onnx.ModelProto]:
    """``build_model(nodes, inputs, initializers=None, outputs=None, opset=17,
    output_values=None)``: see :func:`make_model`."""
    return make_model
