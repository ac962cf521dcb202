"""Graph input names are kept exactly (issue 12): ``data_0``/``data_1``/``data_2`` do
not collide, names with dots, slashes and colons survive, and the original name is
accepted by ``set_input``, ``lib(**named)``, ``params`` and the interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue

import xrelay
from xrelay.frontend import from_onnx
from xrelay.names import decode_name, encode_name
from xrelay.runtime.executor import ExecutorError
from xrelay.runtime.interpreter import interpret
from xrelay.tools.locations import parse_mlir
from xrelay.tools.models import mlir_context

NAMES = ["data_0", "data_1", "data_2", "conv1/x:0", "input.1", "9lives", "a$b_7_"]


def _model(names: list[str]) -> onnx.ModelProto:
    # out = d0 * d1 - d2 + (sum of the rest): every input has its own role
    nodes = [
        helper.make_node("Mul", [names[0], names[1]], ["t"]),
        helper.make_node("Sub", ["t", names[2]], ["u"]),
        helper.make_node("Sum", ["u", *names[3:]], ["out_0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "names",
        [
            helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [2, 3])
            for n in names
        ],
        [helper.make_tensor_value_info("out_0", onnx.TensorProto.FLOAT, [2, 3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _feeds(names: list[str]) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    return {n: rng.standard_normal((2, 3)).astype(np.float32) for n in names}


def _want(feeds: dict[str, Any]) -> Any:
    values = list(feeds.values())
    return values[0] * values[1] - values[2] + sum(values[3:])


@pytest.mark.parametrize(
    "name",
    [
        "data_0",
        "data_0_",
        "x",
        "x_",
        "_1",
        "a_1_2",
        "conv1/x:0",
        "input.1",
        "9x",
        "a$b",
        "$24",
        "naïve",
        "a b",
        "",
        "-z",
        "x.0",
        "y__3",
    ],
)
def test_encode_round_trip(name: str):
    hint = encode_name(name)
    # a valid hint that xDSL keeps as it is (no _<digits> tail to strip)
    assert SSAValue.extract_valid_name(hint) == hint
    assert decode_name(hint) == name


def test_encode_changes_only_what_cannot_be_spelled():
    assert encode_name("input.1") == "input.1"
    assert encode_name("conv1/x:0") == "conv1$2fx$3a0"
    assert encode_name("data_0") == "data_0_"
    assert encode_name("9x") == "$39x"
    assert len({encode_name(n) for n in NAMES}) == len(NAMES)


def test_import_keeps_every_input():
    mod, _ = from_onnx(_model(NAMES))
    args = mod["main"].body.block.args
    assert [decode_name(a.name_hint or "") for a in args] == NAMES
    text = str(mod)
    assert "%data_0_: tensor<2x3xf32>, %data_1_:" in text
    # the printed text reads back with the same names
    again = parse_mlir(mlir_context(), text, "names.mlir")
    func = next(op for op in again.ops if isinstance(op, FuncOp))
    hints = [a.name_hint for a in func.body.block.args]
    assert [decode_name(h or "") for h in hints] == NAMES


def test_interpreter_by_original_names():
    feeds = _feeds(NAMES)
    mod, _ = from_onnx(_model(NAMES))
    got = interpret(mod, *feeds.values())
    np.testing.assert_allclose(got, _want(feeds), rtol=1e-6)
    run = xrelay.relay.create_executor("debug", mod=mod).evaluate()
    np.testing.assert_allclose(run(**feeds).numpy(), _want(feeds), rtol=1e-6)


def test_compiled_model_by_original_names():
    feeds = _feeds(NAMES)
    mod, _ = from_onnx(_model(NAMES))
    lib = xrelay.build(mod, target="llvm")
    assert [t.name for t in lib.spec.inputs] == NAMES
    np.testing.assert_allclose(lib(**feeds), _want(feeds), rtol=1e-6)
    m = lib.create()
    for name, value in feeds.items():
        m.set_input(name, value)
    m.run()
    np.testing.assert_allclose(m.get_output(0), _want(feeds), rtol=1e-6)
    # the stripped name that used to stand for all three is no input at all
    with pytest.raises(ExecutorError, match="no input named 'data'"):
        m.set_input("data", feeds["data_0"])


def test_params_by_original_names():
    # weights that are parameters of main (freeze_params=False) keep their names too
    names = ["data_0", "data_1", "data_2"]
    model = _model(names)
    w = np.full((2, 3), 2.0, np.float32)
    model.graph.initializer.append(onnx.numpy_helper.from_array(w, "w/0:1"))
    model.graph.node.append(helper.make_node("Mul", ["out_0", "w/0:1"], ["out_1"]))
    model.graph.output[0].name = "out_1"
    mod, params = from_onnx(model, freeze_params=False)
    assert list(params) == ["w/0:1"]
    feeds = _feeds(names)
    lib = xrelay.build(mod, target="llvm", params=params)
    assert [t.name for t in lib.spec.inputs] == names
    np.testing.assert_allclose(lib(**feeds), 2 * _want(feeds), rtol=1e-6)
