"""RNN / GRU / LSTM unrolled into relay ops (rnn.py) and If as relay.if
(control_flow.py), against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from xrelay.frontend import OnnxImportError, from_onnx

RunOnnx = Callable[..., Any]
F32 = np.float32
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _weights(
    rng: np.random.Generator, kind: str, dirs: int, hidden: int, width: int
) -> dict[str, Any]:
    g = GATES[kind]
    return {
        "W": (rng.standard_normal((dirs, g * hidden, width)) * 0.5).astype(F32),
        "R": (rng.standard_normal((dirs, g * hidden, hidden)) * 0.5).astype(F32),
        "B": (rng.standard_normal((dirs, 2 * g * hidden)) * 0.3).astype(F32),
    }


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize(("bias", "initial"), [(True, True), (False, False)])
def test_recurrent(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    kind: str,
    direction: str,
    bias: bool,
    initial: bool,
) -> None:
    seq, batch, width, hidden = 3, 2, 5, 4
    dirs = 2 if direction == "bidirectional" else 1
    x = rng.standard_normal((seq, batch, width)).astype(F32)
    w = _weights(rng, kind, dirs, hidden, width)
    inputs = ["x", "W", "R", "B" if bias else ""]
    inits = {k: v for k, v in w.items() if k != "B" or bias}
    if initial:
        inputs += ["", "h0"]
        inits["h0"] = rng.standard_normal((dirs, batch, hidden)).astype(F32)
        if kind == "LSTM":
            inputs.append("c0")
            inits["c0"] = rng.standard_normal((dirs, batch, hidden)).astype(F32)
    outputs = ["y", "y_h", "y_c"] if kind == "LSTM" else ["y", "y_h"]
    node = helper.make_node(
        kind, inputs, outputs, hidden_size=hidden, direction=direction
    )
    run_onnx(node, {"x": x}, inits, rtol=1e-4, atol=1e-5)


def test_gru_linear_before_reset_layout1(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    batch, seq, width, hidden = 2, 4, 3, 5
    x = rng.standard_normal((batch, seq, width)).astype(F32)
    w = _weights(rng, "GRU", 1, hidden, width)
    h0 = rng.standard_normal((batch, 1, hidden)).astype(F32)
    node = helper.make_node(
        "GRU",
        ["x", "W", "R", "B", "", "h0"],
        ["y", "y_h"],
        hidden_size=hidden,
        linear_before_reset=1,
        layout=1,
    )
    run_onnx(
        node,
        {"x": x},
        {**w, "h0": h0},
        rtol=1e-4,
        atol=1e-5,
        ort_differs="onnxruntime's CPU GRU does not implement layout=1",
    )


def test_lstm_peepholes(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    seq, batch, width, hidden = 3, 2, 2, 3
    x = rng.standard_normal((seq, batch, width)).astype(F32)
    w = _weights(rng, "LSTM", 1, hidden, width)
    p = rng.standard_normal((1, 3 * hidden)).astype(F32)
    node = helper.make_node(
        "LSTM", ["x", "W", "R", "B", "", "", "", "P"], ["y"], hidden_size=hidden
    )
    run_onnx(node, {"x": x}, {**w, "P": p}, rtol=1e-4, atol=1e-5)


def test_lstm_clip_and_activations(
    import_run: RunOnnx, rng: np.random.Generator
) -> None:
    # numpy is the reference: the reference evaluator ignores clip and activations
    seq, batch, width, hidden = 3, 2, 2, 3
    x = rng.standard_normal((seq, batch, width)).astype(F32) * 3
    w = _weights(rng, "LSTM", 1, hidden, width)

    def hard_sigmoid(v: Any) -> Any:
        return np.clip(0.2 * v + 0.5, 0, 1)

    h = c = np.zeros((batch, hidden), F32)
    ys = []
    bias = w["B"][0, : 4 * hidden] + w["B"][0, 4 * hidden :]
    for t in range(seq):
        g = np.clip(x[t] @ w["W"][0].T + h @ w["R"][0].T + bias, -1.5, 1.5)
        i, o, f, cc = np.split(g, 4, axis=1)
        c = hard_sigmoid(f) * c + hard_sigmoid(i) * np.tanh(cc)
        h = hard_sigmoid(o) * np.maximum(c, 0)
        ys.append(h)
    want = np.stack(ys)[:, None].astype(F32)
    node = helper.make_node(
        "LSTM",
        ["x", "W", "R", "B"],
        ["y"],
        hidden_size=hidden,
        clip=1.5,
        activations=["HardSigmoid", "Tanh", "Relu"],
    )
    (got,) = import_run(node, {"x": x}, w, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_padded_sequence_lens_are_refused(build_model: Callable[..., Any]) -> None:
    x = np.zeros((3, 2, 4), F32)
    w = {
        k: np.zeros_like(v)
        for k, v in _weights(np.random.default_rng(0), "RNN", 1, 2, 4).items()
    }
    node = helper.make_node("RNN", ["x", "W", "R", "B", "lens"], ["y"], hidden_size=2)
    model = build_model(
        node,
        {"x": x},
        {**w, "lens": np.array([3, 1], np.int32)},
        output_values=[np.zeros((3, 1, 2, 2), F32)],
    )
    with pytest.raises(
        OnnxImportError, match="sequence_lens shorter than the sequence length"
    ):
        from_onnx(model)


def _branch(name: str, nodes: list[onnx.NodeProto], out: str) -> onnx.GraphProto:
    return helper.make_graph(
        nodes, name, [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, [2, 3])]
    )


def _if_nodes() -> list[onnx.NodeProto]:
    then_g = _branch("then", [helper.make_node("Add", ["x", "w"], ["t"])], "t")
    else_g = _branch("else", [helper.make_node("Mul", ["x", "x"], ["e"])], "e")
    return [
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    ]


@pytest.mark.parametrize("cond", [True, False])
def test_if_on_a_runtime_condition(
    run_onnx: RunOnnx, rng: np.random.Generator, cond: bool
) -> None:
    x = rng.standard_normal((2, 3)).astype(F32)
    w = rng.standard_normal((2, 3)).astype(F32)
    got = run_onnx(_if_nodes(), {"x": x, "c": np.array(cond)}, {"w": w})
    assert got[0].shape == (2, 3)


def test_if_imports_as_relay_if(build_model: Callable[..., Any]) -> None:
    x = np.zeros((2, 3), F32)
    model = build_model(
        _if_nodes(), {"x": x, "c": np.array(True)}, {"w": x}, output_values=[x]
    )
    text = str(from_onnx(model)[0])
    assert "relay.if" in text
    assert "relay.yield" in text


@pytest.mark.parametrize("cond", [True, False])
def test_if_on_a_constant_imports_the_taken_branch(
    run_onnx: RunOnnx,
    build_model: Callable[..., Any],
    rng: np.random.Generator,
    cond: bool,
) -> None:
    x = rng.standard_normal((2, 3)).astype(F32)
    w = rng.standard_normal((2, 3)).astype(F32)
    inits = {"w": w, "c": np.array(cond)}
    run_onnx(_if_nodes(), {"x": x}, inits)
    text = str(
        from_onnx(build_model(_if_nodes(), {"x": x}, inits, output_values=[x]))[0]
    )
    assert "relay.if" not in text
    assert ("relay.add" in text) == cond
