"""``from_onnx``'s interface: what it accepts, the signature of ``main``, frozen weights
versus ``params``, shape and dtype overrides, several outputs, and the memory cost of
the weights (one copy)."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp, TensorType

import xrelay.frontend
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import supported_ops
from xrelay.frontend.relay.module import IRModule
from xrelay.runtime.interpreter import interpret

F = TensorProto.FLOAT
MODELS_DIR = Path(
    os.environ.get(
        "XRELAY_SHARED_MODELS",
        Path(__file__).resolve().parents[4] / "shared" / "models",
    )
)


def vi(name: str, shape: list[Any], elem: int = F) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def mlp(rng: np.random.Generator) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    weights = {
        "w1": rng.standard_normal((8, 4)).astype(np.float32),
        "b1": rng.standard_normal(4).astype(np.float32),
        "w2": rng.standard_normal((4, 3)).astype(np.float32),
        "shape": np.array([-1, 3], np.int64),  # only used statically
    }
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        helper.make_node("Relu", ["hb"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["o"]),
        helper.make_node("Reshape", ["o", "shape"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [vi("x", [2, 8])],
        [vi("y", [2, 3])],
        [numpy_helper.from_array(v, k) for k, v in weights.items()],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]
    ), weights


def expected(x: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    return np.maximum(x @ w["w1"] + w["b1"], 0) @ w["w2"]


@pytest.fixture
def x(rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal((2, 8)).astype(np.float32)


def test_reachable_as_xrelay_frontend_from_onnx() -> None:
    from xrelay.frontend.onnx import from_onnx as direct

    assert xrelay.frontend.from_onnx is direct


@pytest.mark.parametrize("form", ["proto", "str", "path", "bytes"])
def test_accepts_models_paths_and_bytes(
    tmp_path: Path, rng: np.random.Generator, x: np.ndarray, form: str
) -> None:
    model, weights = mlp(rng)
    path = tmp_path / "mlp.onnx"
    onnx.save(model, path)
    arg: Any = {
        "proto": model,
        "str": str(path),
        "path": path,
        "bytes": model.SerializeToString(),
    }[form]
    mod, params = from_onnx(arg)
    assert isinstance(mod, IRModule)
    assert params == {}
    np.testing.assert_allclose(
        interpret(mod, x), expected(x, weights), rtol=1e-5, atol=1e-6
    )


def test_frozen_weights_are_constants(rng: np.random.Generator) -> None:
    model, _ = mlp(rng)
    mod, params = from_onnx(model)
    main = mod["main"]
    assert [a.name_hint for a in main.body.block.args] == ["x"]
    consts = [op for op in main.body.block.ops if isinstance(op, ConstantOp)]
    # MatMul weights are stored transposed for nn.dense (the transpose is folded)
    assert sorted(c.numpy().shape for c in consts) == [(3, 4), (4,), (4, 8)]
    assert params == {}


def test_params_are_extra_arguments(rng: np.random.Generator, x: np.ndarray) -> None:
    model, weights = mlp(rng)
    mod, params = from_onnx(model, freeze_params=False)
    main = mod["main"]
    # inputs first, then the weights used as tensors, in initializer order; "shape" is
    # only read at import time, so it is not a parameter
    assert list(params) == ["w1", "b1", "w2"]
    types = [a.type for a in main.body.block.args]
    assert [t.get_shape() for t in types if isinstance(t, TensorType)] == [
        (2, 8),
        (8, 4),
        (4,),
        (4, 3),
    ]
    assert not any(isinstance(op, ConstantOp) for op in main.body.block.ops)
    for name, value in params.items():
        np.testing.assert_array_equal(value, weights[name])
    got = interpret(mod, x, *params.values())
    np.testing.assert_allclose(got, expected(x, weights), rtol=1e-5, atol=1e-6)


def _owner_bytes(array: np.ndarray) -> object:
    base: object = array
    while isinstance(base, np.ndarray):
        base = base.base
    return base


def test_params_are_not_copied(rng: np.random.Generator) -> None:
    """Each param views the bytes read from the model: no array copy."""
    model, _ = mlp(rng)
    _, params = from_onnx(model, freeze_params=False)
    for value in params.values():
        assert isinstance(_owner_bytes(value), bytes)
        assert not value.flags.writeable


def test_frozen_constants_share_the_weight_bytes(rng: np.random.Generator) -> None:
    """A frozen weight's constant holds the very bytes read from the model (its
    array view shares them), not a second copy."""
    model, _ = mlp(rng)
    mod, _ = from_onnx(model)
    for op in mod["main"].body.block.ops:
        if isinstance(op, ConstantOp):
            raw = op.value.data.data
            assert isinstance(raw, bytes)
            assert _owner_bytes(op.numpy()) is raw


@pytest.mark.skipif(
    not (MODELS_DIR / "resnet18.onnx").exists(),
    reason=f"no resnet18.onnx in {MODELS_DIR}",
)
@pytest.mark.parametrize("freeze_params", [True, False])
def test_weights_cost_one_copy(freeze_params: bool) -> None:
    """Importing the 47 MB resnet18 allocates (Python side) about one copy of its
    weights (the protobuf model and the checker's C++ copy are not traced; bench/
    import.py reports the peak RSS, about 2x the file)."""
    path = MODELS_DIR / "resnet18.onnx"
    size = path.stat().st_size
    tracemalloc.start()
    try:
        mod, params = from_onnx(path, freeze_params=freeze_params)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert mod is not None
    assert (params == {}) == freeze_params
    assert peak < 1.3 * size, (
        f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB model"
    )


def test_shape_override_of_a_symbolic_batch(rng: np.random.Generator) -> None:
    w = rng.standard_normal((3, 2)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [vi("x", ["batch", 3])],
        [vi("y", ["batch", 2])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, _ = from_onnx(model, shape={"x": (5, 3)})
    x = rng.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(interpret(mod, x), x @ w, rtol=1e-5, atol=1e-6)
    arg_type = mod["main"].body.block.args[0].type
    assert isinstance(arg_type, TensorType)
    assert arg_type.get_shape() == (5, 3)


def test_dtype_dict_overrides_the_declared_dtype() -> None:
    graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"])], "g", [vi("x", [3])], [vi("y", [3])]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, _ = from_onnx(model, dtype="int32")  # a string only fills undeclared dtypes
    assert interpret(mod, np.array([1.5, 0, 2], np.float32)).dtype == np.float32
    mod, _ = from_onnx(model, dtype={"x": "float64"})
    got = interpret(mod, np.array([1.5, 0, 2]))
    assert got.dtype == np.float64
    assert got.tolist() == [-1.5, 0, -2]


def test_several_outputs_are_a_tuple(rng: np.random.Generator) -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Neg", ["x"], ["b"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [vi("x", [2, 3])],
        [vi("a", [2, 3]), vi("b", [2, 3]), vi("x_out", [2, 3])],
    )
    graph.node.append(helper.make_node("Identity", ["x"], ["x_out"]))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, _ = from_onnx(model)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    a, b, same = interpret(mod, x)
    np.testing.assert_array_equal(a, np.maximum(x, 0))
    np.testing.assert_array_equal(b, -x)
    np.testing.assert_array_equal(same, x)


def test_initializer_listed_as_input_is_not_a_parameter(
    rng: np.random.Generator,
) -> None:
    """Old exporters (IR < 4) list the weights among the graph inputs too."""
    w = rng.standard_normal(3).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [vi("x", [3]), vi("w", [3])],
        [vi("y", [3])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, _ = from_onnx(model)
    assert len(mod["main"].body.block.args) == 1
    x = rng.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(interpret(mod, x), x + w)


def test_weight_as_graph_output(rng: np.random.Generator) -> None:
    w = rng.standard_normal(3).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [vi("x", [3])],
        [vi("y", [3]), vi("w", [3])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, params = from_onnx(model, freeze_params=False)
    assert list(params) == ["w"]
    _, got_w = interpret(mod, np.zeros(3, np.float32), w)
    np.testing.assert_array_equal(got_w, w)


def test_ssa_names_follow_onnx_names(rng: np.random.Generator) -> None:
    model, _ = mlp(rng)
    text = str(from_onnx(model)[0])
    assert "%x: tensor<2x8xf32>" in text
    assert "%r = relay.nn.relu %hb" in text


ISSUE_OPS = """Conv ConvTranspose Gemm MatMul Add Sub Mul Div Pow Sqrt Reciprocal Exp Log Erf
Tanh Sigmoid Relu LeakyRelu PRelu Clip HardSigmoid HardSwish Gelu Softmax LogSoftmax
BatchNormalization LayerNormalization InstanceNormalization MaxPool AveragePool
GlobalAveragePool GlobalMaxPool Flatten Reshape Transpose Concat Split Slice Squeeze
Unsqueeze Gather Expand Tile Pad ReduceMean ReduceSum ReduceMax ReduceMin Cast Where Equal
Less Greater Not Identity Dropout Constant Shape ConstantOfShape Resize""".split()


def test_every_operator_of_the_issue_is_supported() -> None:
    missing = set(ISSUE_OPS) - set(supported_ops())
    assert not missing, missing


def test_imported_module_prints_and_parses_back(
    parse: Callable[[str], ModuleOp], rng: np.random.Generator, x: np.ndarray
) -> None:
    """The printed module (weights in full) reads back and computes the same."""
    model, weights = mlp(rng)
    mod, _ = from_onnx(model)
    again = parse(mod.astext())
    np.testing.assert_array_equal(interpret(again, x), interpret(mod, x))
    np.testing.assert_allclose(
        interpret(again, x), expected(x, weights), rtol=1e-5, atol=1e-6
    )


def test_weight_read_only_for_its_shape_is_no_parameter(
    rng: np.random.Generator,
) -> None:
    w = rng.standard_normal((2, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Shape", ["w"], ["s"]),
        helper.make_node("Reshape", ["x", "s"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "g", [vi("x", [6])], [vi("y", [2, 3])], [numpy_helper.from_array(w, "w")]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, params = from_onnx(model, freeze_params=False)
    assert params == {}
    assert len(mod["main"].body.block.args) == 1
    x = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(interpret(mod, x), x.reshape(2, 3))


def test_dead_nodes_and_their_weights_are_dropped(rng: np.random.Generator) -> None:
    w = rng.standard_normal(3).astype(np.float32)
    nodes = [
        helper.make_node("Add", ["x", "w"], ["dead"]),  # its output is never read
        helper.make_node("Relu", ["x"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "g", [vi("x", [3])], [vi("y", [3])], [numpy_helper.from_array(w, "w")]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    for freeze in (True, False):
        mod, params = from_onnx(model, freeze_params=freeze)
        assert params == {}
        assert [op.name for op in mod["main"].body.block.ops] == [
            "relay.nn.relu",
            "func.return",
        ]


def test_params_follow_the_order_of_main(rng: np.random.Generator) -> None:
    """Weights first used in another order than the initializers' still come back in
    the order of main's parameters (initializer order)."""
    a, b = (rng.standard_normal(3).astype(np.float32) for _ in range(2))
    nodes = [
        helper.make_node("Mul", ["x", "b"], ["t"]),  # b is used first
        helper.make_node("Add", ["t", "a"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [vi("x", [3])],
        [vi("y", [3])],
        [numpy_helper.from_array(a, "a"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, params = from_onnx(model, freeze_params=False)
    assert list(params) == ["a", "b"]
    assert [arg.name_hint for arg in mod["main"].body.block.args] == ["x", "a", "b"]
    x = rng.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(interpret(mod, x, *params.values()), x * b + a)


def test_constant_outputs_form_a_tuple() -> None:
    nodes = [
        helper.make_node("Constant", [], ["c"], value_ints=[1, 2]),
        helper.make_node("Shape", ["x"], ["s"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [vi("x", [2, 5])],
        [vi("c", [2], TensorProto.INT64), vi("s", [2], TensorProto.INT64)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod, _ = from_onnx(model)
    c, s = interpret(mod, np.zeros((2, 5), np.float32))
    assert c.tolist() == [1, 2]
    assert s.tolist() == [2, 5]
