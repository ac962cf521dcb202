"""LinearAttention unrolled into relay ops (linear_attention.py) and
CausalConvWithState (causal_conv.py), opset 27, against the ONNX reference evaluator
through the interpreter and the LLVM path: every update rule, grouped-query heads,
per-head and per-key-dim decay, past states, float16, odd sizes."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper

import xrelay
from xrelay.frontend import OnnxImportError, from_onnx

from .conftest import compare, make_model, reference, run_onnx_case

Gen = np.random.Generator
F32, F16 = np.float32, np.float16
OPSET = 27


def _check(
    node: onnx.NodeProto, inputs: dict[str, Any], rtol: float, atol: float
) -> None:
    run_onnx_case(node, inputs, opset=OPSET, rtol=rtol, atol=atol)
    want = reference(make_model(node, inputs, opset=OPSET), inputs)
    model = make_model(node, inputs, opset=OPSET, output_values=want)
    mod, params = from_onnx(model)
    got = xrelay.build(mod, params=params)(*inputs.values())
    for k, (g, e) in enumerate(zip(got, want, strict=True)):
        compare(np.asarray(g), e, rtol, atol, f"compiled output #{k}: ")


def _attention_inputs(
    rng: Gen,
    b: int,
    t: int,
    hq: int,
    hkv: int,
    dk: int,
    dv: int,
    rule: str,
    decay_last: int,
    beta_last: int,
    past: bool,
) -> dict[str, Any]:
    inputs: dict[str, Any] = {
        "q": rng.standard_normal((b, t, hq * dk)).astype(F32),
        "k": (rng.standard_normal((b, t, hkv * dk)) / np.sqrt(dk)).astype(F32),
        "v": rng.standard_normal((b, t, hkv * dv)).astype(F32),
    }
    if past:
        inputs["s"] = (rng.standard_normal((b, hkv, dk, dv)) * 0.3).astype(F32)
    if rule in ("gated", "gated_delta"):
        inputs["g"] = -rng.random((b, t, decay_last)).astype(F32)
    if rule in ("delta", "gated_delta"):
        inputs["beta"] = rng.random((b, t, beta_last)).astype(F32)
    return inputs


def _attention_node(inputs: dict[str, Any], **attrs: Any) -> onnx.NodeProto:
    names = ["q", "k", "v", "s", "g", "beta"]
    listed = [n if n in inputs else "" for n in names]
    while listed[-1] == "":
        listed.pop()
    return helper.make_node("LinearAttention", listed, ["y", "state"], **attrs)


@pytest.mark.parametrize(
    ("rule", "hq", "hkv", "decay_last", "beta_last", "past"),
    [
        ("linear", 2, 2, 0, 0, False),
        ("gated", 3, 3, 3, 0, True),  # a per-head decay
        ("gated", 2, 1, 5, 0, False),  # per key dim, two query heads per kv head
        ("delta", 4, 2, 0, 2, True),
        ("gated_delta", 6, 2, 10, 1, True),  # one beta for every head
        ("gated_delta", 3, 1, 1, 1, False),
    ],
)
def test_linear_attention_rules(
    rng: Gen, rule: str, hq: int, hkv: int, decay_last: int, beta_last: int, past: bool
) -> None:
    dk = 5 if decay_last in (0, hkv) else decay_last // hkv
    inputs = _attention_inputs(
        rng, 2, 7, hq, hkv, dk, 3, rule, decay_last, beta_last, past
    )
    node = _attention_node(inputs, q_num_heads=hq, kv_num_heads=hkv, update_rule=rule)
    _check(node, inputs, 1e-4, 1e-5)


def test_linear_attention_one_step_scale_float16(rng: Gen) -> None:
    inputs = _attention_inputs(rng, 1, 1, 2, 2, 4, 4, "gated_delta", 2, 2, True)
    inputs = {k: v.astype(F16) for k, v in inputs.items()}
    node = _attention_node(inputs, q_num_heads=2, kv_num_heads=2, scale=0.75)
    _check(node, inputs, 2e-3, 2e-3)


def test_linear_attention_errors(rng: Gen) -> None:
    inputs = _attention_inputs(rng, 1, 2, 3, 2, 4, 4, "linear", 0, 0, False)
    node = _attention_node(inputs, q_num_heads=3, kv_num_heads=2, update_rule="linear")
    outs = [np.zeros((1, 2, 12), F32), np.zeros((1, 2, 4, 4), F32)]
    model = make_model(node, inputs, opset=OPSET, output_values=outs)
    with pytest.raises(OnnxImportError, match="q_num_heads 3 must be a positive"):
        from_onnx(model)
    inputs = _attention_inputs(rng, 1, 2, 2, 2, 4, 4, "linear", 0, 0, False)
    node = _attention_node(inputs, q_num_heads=2, kv_num_heads=2)  # gated_delta
    outs = [np.zeros((1, 2, 8), F32), np.zeros((1, 2, 4, 4), F32)]
    model = make_model(node, inputs, opset=OPSET, output_values=outs)
    with pytest.raises(OnnxImportError, match="'gated_delta' needs decay input"):
        from_onnx(model)


# ---------------------------------------------------------------------------------------
# CausalConvWithState
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "k", "bias", "past", "activation"),
    [
        (9, 4, False, False, "none"),
        (2, 5, True, False, "silu"),  # shorter than the state
        (1, 3, True, True, "swish"),  # one decode step
        (6, 1, True, False, "none"),  # no state at all
        (7, 3, False, True, "silu"),
    ],
)
@pytest.mark.parametrize("dtype", [F32, F16])
def test_causal_conv_with_state(
    rng: Gen,
    length: int,
    k: int,
    bias: bool,
    past: bool,
    activation: str,
    dtype: Any,
) -> None:
    b, c = 2, 3
    inputs: dict[str, Any] = {
        "x": rng.standard_normal((b, c, length)).astype(dtype),
        "w": rng.standard_normal((c, 1, k)).astype(dtype),
    }
    names = ["x", "w", "", ""]
    if bias:
        inputs["bias"] = rng.standard_normal(c).astype(dtype)
        names[2] = "bias"
    if past:
        inputs["past"] = rng.standard_normal((b, c, k - 1)).astype(dtype)
        names[3] = "past"
    while names[-1] == "":
        names.pop()
    node = helper.make_node(
        "CausalConvWithState", names, ["y", "state"], activation=activation
    )
    tol = 1e-5 if dtype == F32 else 2e-3
    _check(node, inputs, tol, tol)


def test_causal_conv_with_state_errors(rng: Gen) -> None:
    inputs = {
        "x": rng.standard_normal((1, 3, 4)).astype(F32),
        "w": rng.standard_normal((2, 1, 3)).astype(F32),
    }
    node = helper.make_node("CausalConvWithState", ["x", "w"], ["y", "state"])
    outs = [np.zeros((1, 3, 4), F32), np.zeros((1, 3, 2), F32)]
    model = make_model(node, inputs, opset=OPSET, output_values=outs)
    with pytest.raises(OnnxImportError, match=r"weight must have shape \[3, 1, k\]"):
        from_onnx(model)
