"""The ``Attention`` converter (opsets 23-25): scaled dot-product attention composed
from ``nn.batch_matmul``, ``nn.softmax`` and elementwise ops, as the ONNX reference
computes it.

* 3-D inputs ``[batch, seq, heads * head_size]`` are split into heads with
  ``q_num_heads`` / ``kv_num_heads``; 4-D inputs are ``[batch, heads, seq, head]``.
* ``past_key`` / ``past_value`` are concatenated before ``K`` / ``V`` on the
  sequence axis and returned as ``present_key`` / ``present_value``.
* Grouped-query attention repeats each KV head ``q_num_heads / kv_num_heads`` times.
* The additive bias is the mask (bool: ``0`` / ``-inf``; float: as given; padded with
  ``False`` / ``-inf`` up to the key length), the causal frontier (query ``i`` sees
  key ``j`` iff ``j <= i + offset``), the sliding window (opset 25) and the padding of
  ``nonpad_kv_seqlen`` (opset 24). ``offset`` is the past length, or
  ``nonpad_kv_seqlen - q_len`` per batch. Static parts fold to constants.
* Rows whose bias is all ``-inf`` give zero probabilities (not NaN).
* ``qk_matmul_output``: the scaled (and soft-capped) ``Q K^T`` (modes 0, 1), plus
  the bias (2), or the probabilities after softmax (3).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import dtypes
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter, numpy_dtype_of


def _split_heads(node: Node, x: SSAValue, heads: int, what: str) -> SSAValue:
    """``[b, s, heads * d]`` -> ``[b, heads, s, d]``."""
    b, s, hidden = node.shape(x)
    if heads <= 0 or hidden % heads:
        raise ConversionError(
            f"{what} has hidden size {hidden}, not a multiple of {heads} heads"
        )
    x = node.reshape(x, [b, s, heads, hidden // heads])
    return node.op("transpose", [x], axes=[0, 2, 1, 3])


def _bmm(node: Node, a: SSAValue, b: SSAValue, transpose_b: bool) -> SSAValue:
    """``a @ b`` (``b^T`` with ``transpose_b``) over the two leading dims of 4-D
    operands with equal leading dims."""
    sa, sb = node.shape(a), node.shape(b)
    lead = list(sa[:2])
    n = math.prod(lead)
    out = node.op(
        "nn.batch_matmul",
        [node.reshape(a, [n, *sa[2:]]), node.reshape(b, [n, *sb[2:]])],
        transpose_b=transpose_b,
    )
    return node.reshape(out, [*lead, *node.shape(out)[1:]])


def _select(node: Node, allowed: SSAValue, like: SSAValue) -> SSAValue:
    """``0`` where ``allowed``, ``-inf`` elsewhere, in the dtype of ``like``."""
    return node.op(
        "where", [allowed, node.scalar(0.0, like), node.scalar(-np.inf, like)]
    )


def _sum(node: Node, parts: list[SSAValue]) -> SSAValue | None:
    """The sum of ``parts`` (``None`` for none)."""
    if not parts:
        return None
    acc = parts[0]
    for v in parts[1:]:
        acc = node.op("add", [acc, v])
    return acc


def _mask_bias(node: Node, like: SSAValue, kv_len: int) -> SSAValue:
    """``attn_mask`` as an additive bias, padded to ``kv_len`` keys."""
    mask = node.input(3, "attn_mask")
    shape = node.shape(mask)
    if not shape:
        raise ConversionError("attn_mask must have rank >= 1")
    is_bool = node.dtype(mask) == np.bool_
    if not is_bool and node.dtype(mask) != node.dtype(like):
        mask = node.op("cast", [mask], dtype=str(node.dtype(like)))
    pad = kv_len - shape[-1]
    if pad < 0:
        raise ConversionError(
            f"attn_mask has {shape[-1]} keys, more than the {kv_len} of K"
        )
    if pad:
        fill = np.full(
            (*shape[:-1], pad),
            False if is_bool else -np.inf,
            dtype=np.bool_ if is_bool else node.dtype(like),
        )
        mask = node.op("concatenate", [mask, node.const(fill)], axis=len(shape) - 1)
    return _select(node, mask, like) if is_bool else mask


@converter("Attention")
def attention(node: Node) -> Outputs:
    q, k, v = node.input(0, "Q"), node.input(1, "K"), node.input(2, "V")
    rank = node.rank(q)
    if rank not in (3, 4) or node.rank(k) != rank or node.rank(v) != rank:
        raise ConversionError(
            f"Q, K and V must all be 3-D or all 4-D, got ranks {rank}, "
            f"{node.rank(k)}, {node.rank(v)}"
        )
    dtype = node.dtype(q)
    if (
        not dtypes.is_float_dtype(dtype)
        or node.dtype(k) != dtype
        or node.dtype(v) != dtype
    ):
        raise ConversionError(
            f"Q, K and V must have one floating-point dtype, got {dtype}, "
            f"{node.dtype(k)}, {node.dtype(v)}"
        )
    mode = node.attr_int("qk_matmul_output_mode", 0)
    if mode not in (0, 1, 2, 3):
        raise ConversionError(f"qk_matmul_output_mode {mode} is not one of 0-3")
    if rank == 3:
        q = _split_heads(node, q, node.attr_int("q_num_heads", 0), "Q")
        kv_heads = node.attr_int("kv_num_heads", 0)
        k = _split_heads(node, k, kv_heads, "K")
        v = _split_heads(node, v, kv_heads, "V")
    b, hq, sq, d = node.shape(q)
    bk, hk, _, dk = node.shape(k)
    bv, hv, _, dv = node.shape(v)
    if bk != b or bv != b or hv != hk or dk != d:
        raise ConversionError(
            f"incompatible shapes: Q {list(node.shape(q))}, K {list(node.shape(k))}, "
            f"V {list(node.shape(v))} (as [batch, heads, seq, head_size])"
        )
    if node.has_input(4) != node.has_input(5):
        raise ConversionError("past_key and past_value must be given together")
    past_len = 0
    if node.has_input(4):
        pk, pv = node.input(4, "past_key"), node.input(5, "past_value")
        past_len = node.shape(pk)[2] if node.rank(pk) == 4 else -1
        if node.rank(pk) != 4 or node.rank(pv) != 4:
            raise ConversionError("past_key and past_value must be 4-D")
        k = node.op("concatenate", [pk, k], axis=2)
        v = node.op("concatenate", [pv, v], axis=2)
    present_k, present_v = k, v
    skv = node.shape(k)[2]
    if node.shape(v)[2] != skv:
        raise ConversionError(
            f"K has {skv} positions but V has {node.shape(v)[2]} (with the past)"
        )
    nonpad = node.optional_input(6)
    if nonpad is not None:
        if node.has_input(4):
            raise ConversionError("nonpad_kv_seqlen cannot be used with past_key")
        if node.shape(nonpad) != (b,):
            raise ConversionError(
                f"nonpad_kv_seqlen must have shape [{b}], got {list(node.shape(nonpad))}"
            )
        nonpad = node.op("cast", [nonpad], dtype="int64")

    # The additive bias.
    like = q
    parts = [_mask_bias(node, like, skv)] if node.has_input(3) else []
    if nonpad is not None:
        offset = node.reshape(
            node.op("subtract", [nonpad, node.const(np.int64(sq))]), [b, 1, 1, 1]
        )
    else:
        offset = node.const(np.int64(past_len))
    rel = np.arange(sq).reshape(sq, 1) - np.arange(skv).reshape(1, skv)
    diff = node.op("add", [node.const(rel.astype(np.int64)), offset])  # i + off - j
    zero = node.const(np.int64(0))
    if node.attr_int("is_causal", 0):
        causal = _select(node, node.op("greater_equal", [diff, zero]), like)
        parts.append(causal)
    left = node.attr_int("left_window_size", -1)
    right = node.attr_int("right_window_size", -1)
    if left < -1 or right < -1:
        raise ConversionError("window sizes must be -1 or nonnegative")
    for size, lower in ((left, False), (right, True)):
        if size < 0:
            continue
        if lower:  # -diff <= right
            allowed = node.op("greater_equal", [diff, node.const(np.int64(-size))])
        else:
            allowed = node.op("less_equal", [diff, node.const(np.int64(size))])
        parts.append(_select(node, allowed, like))
    if nonpad is not None:
        keys = node.const(np.arange(skv, dtype=np.int64))
        valid = node.op("less", [keys, node.reshape(nonpad, [b, 1, 1, 1])])
        parts.append(_select(node, valid, like))
    bias = _sum(node, parts)

    # Scores.
    if hq != hk:
        if hk <= 0 or hq % hk:
            raise ConversionError(
                f"{hq} query heads are not a multiple of {hk} key/value heads"
            )
        k = node.op("repeat", [k], repeats=hq // hk, axis=1)
        v = node.op("repeat", [v], repeats=hq // hk, axis=1)
    scale = node.attr_float("scale") if node.has_attr("scale") else 1 / np.sqrt(d)
    root = node.const(dtype.type(np.sqrt(scale)))
    scores = _bmm(
        node,
        node.op("multiply", [q, root]),
        node.op("multiply", [k, root]),
        transpose_b=True,
    )
    softcap = node.attr_float("softcap", 0.0)
    if softcap > 0:
        cap = node.scalar(softcap, scores)
        scores = node.op("tanh", [node.op("divide", [scores, cap])])
        scores = node.op("multiply", [scores, cap])
    qk_out = scores
    # Rows whose bias is all -inf attend nothing: their probabilities are zeros. Their
    # bias is replaced by zeros before the softmax so that it stays finite.
    empty: SSAValue | None = None
    safe_bias = bias
    if bias is not None:
        row_max = node.op("max", [bias], axis=[node.rank(bias) - 1], keepdims=True)
        empty = node.op("equal", [row_max, node.scalar(-np.inf, row_max)])
        known = node.b.value(empty)
        if known is not None and not known.any():
            empty = None
        else:
            safe_bias = node.op("where", [empty, node.scalar(0.0, bias), bias])
    if mode == 2 and bias is not None:
        qk_out = node.op("add", [scores, bias])
    logits = scores if safe_bias is None else node.op("add", [scores, safe_bias])
    if node.has_attr("softmax_precision"):
        precision = numpy_dtype_of(
            node.attr_int("softmax_precision"), "softmax_precision"
        )
        if not dtypes.is_float_dtype(precision):
            raise ConversionError(f"softmax_precision {precision} is not a float type")
        if precision != dtype:
            logits = node.op("cast", [logits], dtype=str(precision))
    probs = node.op("nn.softmax", [logits], axis=node.rank(logits) - 1)
    if empty is not None:
        probs = node.op("where", [empty, node.scalar(0.0, probs), probs])
    if node.dtype(probs) != dtype:
        probs = node.op("cast", [probs], dtype=str(dtype))
    if mode == 3:
        qk_out = probs
    y = _bmm(node, probs, v, transpose_b=False)
    if rank == 3:
        y = node.op("transpose", [y], axes=[0, 2, 1, 3])
        y = node.reshape(y, [b, sq, hq * dv])
    return [y, present_k, present_v, qk_out]
