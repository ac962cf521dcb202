"""examples/compile_onnx.py, TVM's ONNX tutorial with its imports changed, runs and
gives onnx's reference result; and the TVM runtime names it uses behave as TVM's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xrelay
from xrelay import relay

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "compile_onnx.py"


def test_the_tutorial_script_runs_and_matches_onnx(tmp_path: Path):
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import compile_onnx  # pyright: ignore[reportMissingImports]
    finally:
        sys.path.pop(0)
    model = tmp_path / "small.onnx"
    compile_onnx.small_model(str(model))  # pyright: ignore
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), str(model)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "output shape: (1, 10)" in proc.stdout
    got = np.load(tmp_path / "xrelay-example-output.npy")
    from onnx.reference import ReferenceEvaluator

    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype("float32")
    (want,) = ReferenceEvaluator(str(model)).run(None, {"input": x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _lib():
    x = relay.var("x", shape=(2, 3), dtype="float32")
    mod = relay.IRModule.from_expr(relay.nn.relu(x))
    with xrelay.transform.PassContext(opt_level=3):
        return relay.build(mod, target="llvm")


def test_factory_module_and_graph_executor():
    from xrelay.contrib import graph_executor

    lib = _lib()
    m = graph_executor.GraphModule(lib["default"](xrelay.cpu(0)))
    x = xrelay.nd.array(np.array([[-1, 2, -3], [4, -5, 6]], "float32"))
    m.set_input("x", x)
    m.run()
    out = m.get_output(0)
    np.testing.assert_array_equal(out.numpy(), [[0, 2, 0], [4, 0, 6]])
    buf = xrelay.nd.empty((2, 3), "float32")
    assert m.get_output(0, buf) is buf
    np.testing.assert_array_equal(buf.numpy(), out.numpy())
    assert m.get_num_outputs() == 1
    assert m.get_num_inputs() == 1
    assert lib.get_params() == {}
    assert lib.get_lib() is lib
    again = graph_executor.create(lib.get_graph_json(), lib, xrelay.cpu(0))
    again.run(x=x)
    np.testing.assert_array_equal(again.get_output(0).numpy(), out.numpy())
    result = m.benchmark(xrelay.cpu(0), repeat=2, number=3)
    assert len(result.results) == 2
    assert result.median > 0


def test_exported_library_through_the_factory(tmp_path: Path):
    from xrelay.contrib import graph_executor

    path = tmp_path / "m.so"
    _lib().export_library(path)
    loaded = xrelay.runtime.load_module(path)
    m = graph_executor.GraphModule(loaded["default"](xrelay.cpu()))
    m.set_input(0, np.ones((2, 3), "float32"))
    m.run()
    np.testing.assert_array_equal(m.get_output(0).numpy(), np.ones((2, 3)))


def test_devices_and_arrays():
    from xrelay.runtime.ndarray import DeviceError

    assert xrelay.cpu(0) == xrelay.device("cpu", 0) == xrelay.device("llvm")
    assert repr(xrelay.cpu(1)) == "cpu(1)"
    with pytest.raises(DeviceError, match="no device 'cuda'"):
        xrelay.device("cuda", 0)
    with pytest.raises(DeviceError, match="CPU only"):
        _lib()["default"]("cuda")
    with pytest.raises(KeyError, match="lib\\['default'\\]"):
        _lib()["debug_create"]
    a = xrelay.nd.array([[1, 2]])
    assert isinstance(a, np.ndarray)
    assert a.numpy().tolist() == [[1, 2]]
    b = xrelay.nd.empty((1, 2), "int64").copyfrom(a)
    assert b.asnumpy().tolist() == [[1, 2]]
    with pytest.raises(ValueError, match="shape"):
        b.copyfrom(np.zeros(3))


def test_tvm_transform_names():
    from xrelay.pass_manager import PassContext, Sequential

    assert xrelay.transform.PassContext is PassContext
    assert xrelay.transform.Sequential is Sequential
    assert xrelay.IRModule is relay.IRModule
    assert callable(xrelay.transform.optimize)


def test_relay_frontend_names(tmp_path: Path):
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, params = relay.frontend.from_onnx(model, {"x": (2, 4)})
    assert params == {}
    assert mod["main"].params[0].type_annotation.shape == (2, 4)
    with pytest.raises(ValueError, match="opset=13 differs from the model's opset 17"):
        relay.frontend.from_onnx(model, {"x": (2, 4)}, opset=13)
    with pytest.raises(NotImplementedError, match="ONNX models only"):
        relay.frontend.from_pytorch(None, [])
