"""Converter of ONNX ``LinearAttention`` (opset 27), the recurrent linear attention
of RetNet / GLA / DeltaNet / Gated DeltaNet, unrolled over the static sequence
length in ``float32`` (as the ONNX reference accumulates), per step ``t``::

    S = S * exp(decay_t)                                  (gated rules)
    v_t = beta_t * (v_t - S^T k_t)                        (delta rules)
    S = S + k_t v_t^T
    o_t = scale * q_t S                                   (query heads share their
                                                           key/value head's state)

with ``S`` of shape ``[batch, kv_heads, d_k, d_v]`` (``past_state`` or zeros). The
products are ``nn.batch_matmul``s over ``batch * kv_heads``; the query heads of one
key/value head are the rows of one product, which is the reference's interleaved
head repeat. ``output`` has the query's dtype, ``present_state`` the past state's
(the query's without one)."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

_RULES = ("linear", "gated", "delta", "gated_delta")
F32 = "float32"


def _steps(node: Node, x: SSAValue, heads: int, t: int) -> list[SSAValue]:
    """``[B, T, H * D]`` as ``float32`` ``[B, H, D]`` slices, one per step."""
    b, _, hd = node.shape(x)
    if hd % heads:
        raise ConversionError(f"the last dim {hd} is not a multiple of {heads} heads")
    x = node.op("cast", [x], dtype=F32) if node.dtype(x) != np.float32 else x
    x = node.reshape(x, [b, t, heads, hd // heads])
    if t == 1:
        return [node.reshape(x, [b, heads, hd // heads])]
    parts = node.ops("split", [x], indices_or_sections=t, axis=1)
    return [node.reshape(p, [b, heads, hd // heads]) for p in parts]


def _rank3(node: Node, v: SSAValue, what: str, b: int, t: int) -> None:
    shape = node.shape(v)
    if len(shape) != 3 or shape[:2] != (b, t):
        raise ConversionError(
            f"{what} must have shape [{b}, {t}, ...] (batch, sequence, ...), got "
            f"{list(shape)}"
        )


@converter("LinearAttention")
def linear_attention(node: Node) -> Outputs:
    query, key, value = node.input(0, "query"), node.input(1, "key"), node.input(2)
    past = node.optional_input(3)
    decay, beta = node.optional_input(4), node.optional_input(5)
    rule = node.attr_str("update_rule", "gated_delta")
    if rule not in _RULES:
        raise ConversionError(f"unknown update_rule '{rule}' (one of {_RULES})")
    hq, hkv = node.attr_int("q_num_heads"), node.attr_int("kv_num_heads")
    if hq <= 0 or hkv <= 0 or hq % hkv:
        raise ConversionError(
            f"q_num_heads {hq} must be a positive multiple of kv_num_heads {hkv}"
        )
    gated, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    if gated != (decay is not None):
        raise ConversionError(
            f"update_rule '{rule}' {'needs' if gated else 'takes no'} decay input"
        )
    if delta != (beta is not None):
        raise ConversionError(
            f"update_rule '{rule}' {'needs' if delta else 'takes no'} beta input"
        )
    qshape = node.shape(query)
    if len(qshape) != 3:
        raise ConversionError(f"query must have rank 3, got {list(qshape)}")
    b, t, _ = qshape
    if t == 0:
        raise ConversionError("an empty sequence is not supported")
    for v, what in ((key, "key"), (value, "value")):
        _rank3(node, v, what, b, t)
    dk, dv = qshape[2] // hq, node.shape(value)[2] // hkv
    group = hq // hkv
    qs = _steps(node, query, hq, t)
    ks = _steps(node, key, hkv, t)
    vs = _steps(node, value, hkv, t)
    if node.shape(ks[0])[2] != dk:
        raise ConversionError(
            f"key heads have {node.shape(ks[0])[2]} dims, query heads {dk}"
        )
    decays: list[SSAValue] = []
    if decay is not None:
        _rank3(node, decay, "decay", b, t)
        last = node.shape(decay)[2]
        if last not in (hkv, hkv * dk):
            raise ConversionError(
                f"decay's last dim {last} must be kv_num_heads ({hkv}) or "
                f"kv_num_heads * d_k ({hkv * dk})"
            )
        decays = [
            node.reshape(node.op("exp", [g]), [b, hkv, last // hkv, 1])
            for g in _steps(node, decay, hkv, t)
        ]
    betas: list[SSAValue] = []
    if beta is not None:
        _rank3(node, beta, "beta", b, t)
        last = node.shape(beta)[2]
        if last not in (hkv, 1):
            raise ConversionError(
                f"beta's last dim {last} must be kv_num_heads ({hkv}) or 1"
            )
        betas = _steps(node, beta, last, t)  # [B, hkv or 1, 1]

    state_shape = [b, hkv, dk, dv]
    if past is not None:
        if list(node.shape(past)) != state_shape:
            raise ConversionError(
                f"past_state has shape {list(node.shape(past))}, expected {state_shape}"
            )
        state_dtype = node.dtype(past)
        state = node.op("cast", [past], dtype=F32) if state_dtype != F32 else past
    else:
        state_dtype = node.dtype(query)
        state = node.const(np.zeros(state_shape, np.float32))
    scale = node.attr_float("scale", 0.0) or 1.0 / math.sqrt(dk)

    rows = b * hkv
    outs: list[SSAValue] = []
    for i in range(t):
        if decays:
            state = node.op("multiply", [state, decays[i]])
        flat = node.reshape(state, [rows, dk, dv])
        v_t = vs[i]
        if betas:
            k_row = node.reshape(ks[i], [rows, 1, dk])
            got = node.op("nn.batch_matmul", [k_row, flat], transpose_b=False)
            diff = node.op("subtract", [v_t, node.reshape(got, [b, hkv, dv])])
            v_t = node.op("multiply", [betas[i], diff])
        outer = node.op(
            "multiply",
            [node.reshape(ks[i], [b, hkv, dk, 1]), node.reshape(v_t, [b, hkv, 1, dv])],
        )
        state = node.op("add", [state, outer])
        q_rows = node.reshape(qs[i], [rows, group, dk])
        read = node.op(
            "nn.batch_matmul",
            [q_rows, node.reshape(state, [rows, dk, dv])],
            transpose_b=False,
        )
        outs.append(node.reshape(read, [b, hq * dv]))
    if t > 1:
        out = node.op("stack", outs, axis=1)
    else:
        out = node.reshape(outs[0], [b, 1, hq * dv])
    out = node.op("multiply", [out, node.const(np.float32(scale))])
    if node.dtype(query) != np.float32:
        out = node.op("cast", [out], dtype=str(node.dtype(query)))
    if state_dtype != np.float32:
        state = node.op("cast", [state], dtype=str(state_dtype))
    return [out, state]
