"""Attention (opsets 23-25) and RotaryEmbedding (opset 23) against the ONNX reference
evaluator, on shapes the backend node tests do not cover."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

from xrelay.frontend import OnnxImportError, from_onnx

RunOnnx = Callable[..., Any]
F32 = np.float32
NO_ORT = "opset 23+ operators"


def _qkv(
    rng: np.random.Generator,
    b: int,
    hq: int,
    hkv: int,
    sq: int,
    skv: int,
    d: int,
    dv: int,
    rank: int,
) -> dict[str, np.ndarray[Any, Any]]:
    def make(h: int, s: int, size: int) -> np.ndarray[Any, Any]:
        shape = (b, h, s, size) if rank == 4 else (b, s, h * size)
        return rng.standard_normal(shape).astype(F32)

    return {"q": make(hq, sq, d), "k": make(hkv, skv, d), "v": make(hkv, skv, dv)}


@pytest.mark.parametrize("rank", [3, 4])
@pytest.mark.parametrize(("hq", "hkv"), [(4, 2), (6, 1), (3, 3)])
@pytest.mark.parametrize("causal", [0, 1])
def test_attention_gqa_causal(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    rank: int,
    hq: int,
    hkv: int,
    causal: int,
) -> None:
    """Grouped-query attention with a cross-attention length (q 3, kv 5)."""
    inputs = _qkv(rng, 2, hq, hkv, 3, 5, 4, 6, rank)
    heads: dict[str, Any] = (
        {"q_num_heads": hq, "kv_num_heads": hkv} if rank == 3 else {}
    )
    node = helper.make_node(
        "Attention", ["q", "k", "v"], ["y"], is_causal=causal, **heads
    )
    run_onnx(node, inputs, opset=23, rtol=1e-5, atol=1e-5, ort_differs=NO_ORT)


@pytest.mark.parametrize(
    ("mask_shape", "causal"),
    # the reference needs a mask of rank >= 2 with is_causal
    [
        ((5,), 0),
        ((3, 5), 0),
        ((3, 5), 1),
        ((2, 1, 3, 5), 1),
        ((4, 3, 3), 0),
        ((4, 3, 3), 1),
    ],
)
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_attention_masks(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    mask_shape: tuple[int, ...],
    kind: str,
    causal: int,
) -> None:
    """Masks of every rank ((4, 3, 3): [heads, q, kv] with 3 of the 5 keys, padded),
    bool and float, with
    and without the causal frontier: some rows end fully masked (zero rows)."""
    inputs = _qkv(rng, 2, 4, 2, 3, 5, 4, 4, 4)
    if kind == "bool":
        mask: np.ndarray[Any, Any] = rng.random(mask_shape) > 0.4
        mask.reshape(-1)[0] = False
    else:
        mask = rng.standard_normal(mask_shape).astype(F32)
        mask[mask < -1.0] = -np.inf
    inputs["m"] = mask
    node = helper.make_node(
        "Attention", ["q", "k", "v", "m"], ["y"], is_causal=causal, scale=0.3
    )
    run_onnx(node, inputs, opset=23, rtol=1e-5, atol=1e-5, ort_differs=NO_ORT)


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_attention_past_present_qk_output(
    run_onnx: RunOnnx, rng: np.random.Generator, mode: int
) -> None:
    """A KV cache with GQA, a causal offset by the past length, softcap, and every
    ``qk_matmul_output_mode``."""
    inputs = _qkv(rng, 1, 4, 2, 2, 2, 4, 4, 3)
    inputs["pk"] = rng.standard_normal((1, 2, 3, 4)).astype(F32)
    inputs["pv"] = rng.standard_normal((1, 2, 3, 4)).astype(F32)
    node = helper.make_node(
        "Attention",
        ["q", "k", "v", "", "pk", "pv"],
        ["y", "present_k", "present_v", "qk"],
        q_num_heads=4,
        kv_num_heads=2,
        is_causal=1,
        softcap=2.0,
        qk_matmul_output_mode=mode,
    )
    run_onnx(node, inputs, opset=23, rtol=1e-5, atol=1e-5, ort_differs=NO_ORT)


@pytest.mark.parametrize(("left", "right"), [(1, 0), (2, 1), (-1, 1)])
def test_attention_nonpad_and_window(
    run_onnx: RunOnnx, rng: np.random.Generator, left: int, right: int
) -> None:
    """Opset 25: an external cache with per-batch valid lengths (a runtime input),
    causal, and a sliding window."""
    inputs = _qkv(rng, 3, 2, 2, 2, 6, 4, 4, 4)
    inputs["n"] = np.array([6, 3, 1], np.int64)
    node = helper.make_node(
        "Attention",
        ["q", "k", "v", "", "", "", "n"],
        ["y"],
        is_causal=1,
        left_window_size=left,
        right_window_size=right,
    )
    run_onnx(node, inputs, opset=25, rtol=1e-5, atol=1e-5, ort_differs=NO_ORT)


def _import(node: Any, inputs: dict[str, np.ndarray[Any, Any]], opset: int) -> None:
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(
                k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)
            )
            for k, v in inputs.items()
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    from_onnx(model)


def test_attention_errors(rng: np.random.Generator) -> None:
    inputs = _qkv(rng, 1, 3, 2, 2, 2, 4, 4, 4)
    with pytest.raises(OnnxImportError, match="3 query heads are not a multiple of 2"):
        _import(helper.make_node("Attention", ["q", "k", "v"], ["y"]), inputs, 23)
    inputs = _qkv(rng, 1, 3, 3, 2, 2, 4, 4, 3)
    with pytest.raises(OnnxImportError, match="not a multiple of 0 heads"):
        _import(helper.make_node("Attention", ["q", "k", "v"], ["y"]), inputs, 23)


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("rot_dim", [0, 4])
@pytest.mark.parametrize("ids", [True, False])
@pytest.mark.parametrize("rank", [3, 4])
def test_rotary_embedding(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    interleaved: int,
    rot_dim: int,
    ids: bool,
    rank: int,
) -> None:
    b, h, s, d = 2, 3, 5, 8
    half = (rot_dim or d) // 2
    shape = (b, h, s, d) if rank == 4 else (b, s, h * d)
    inputs: dict[str, np.ndarray[Any, Any]] = {
        "x": rng.standard_normal(shape).astype(F32)
    }
    if ids:
        angles = rng.standard_normal((7, half)).astype(F32)
        inputs["pos"] = rng.integers(0, 7, (b, s)).astype(np.int64)
    else:
        angles = rng.standard_normal((b, s, half)).astype(F32)
    inputs["cos"], inputs["sin"] = np.cos(angles), np.sin(angles)
    names = ["x", "cos", "sin"] + (["pos"] if ids else [])
    attrs: dict[str, Any] = {"interleaved": interleaved}
    if rot_dim:
        attrs["rotary_embedding_dim"] = rot_dim
    if rank == 3:
        attrs["num_heads"] = h
    node = helper.make_node("RotaryEmbedding", names, ["y"], **attrs)
    run_onnx(node, inputs, opset=23, rtol=1e-5, atol=1e-6, ort_differs=NO_ORT)


def test_rotary_embedding_errors(rng: np.random.Generator) -> None:
    x = rng.standard_normal((1, 4, 6)).astype(F32)
    cache = np.ones((1, 4, 3), F32)
    inputs = {"x": x, "cos": cache, "sin": cache}
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"])
    with pytest.raises(OnnxImportError, match="needs num_heads"):
        _import(node, inputs, 23)
    node = helper.make_node(
        "RotaryEmbedding",
        ["x", "cos", "sin"],
        ["y"],
        num_heads=1,
        rotary_embedding_dim=4,
    )
    with pytest.raises(OnnxImportError, match=r"expected \[1, 4, 2\]"):
        _import(node, inputs, 23)
