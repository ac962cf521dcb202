"""The ``RotaryEmbedding`` converter (opset 23), composed from ``take``,
``strided_slice``, elementwise ops and ``concatenate``.

The first ``rotary_embedding_dim`` features of each head (all by default) are
rotated as complex pairs ``(x1, x2)`` -- the two halves, or the even and odd features
when ``interleaved`` -- by the angles whose cosines and sines the caches hold:
``(cos x1 - sin x2, sin x1 + cos x2)``. The caches are indexed by ``position_ids``
``[batch, seq]`` when given, else they are ``[batch, seq, rotary_dim / 2]``
already. 4-D input is ``[batch, heads, seq, head]``; 3-D input is
``[batch, seq, heads * head]`` with ``num_heads``.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _slice(node: Node, x: SSAValue, begin: int, end: int, stride: int = 1) -> SSAValue:
    """``x[..., begin:end:stride]`` on the last axis."""
    return node.op(
        "strided_slice",
        [x],
        begin=[begin],
        end=[end],
        strides=[stride],
        axes=[node.rank(x) - 1],
    )


def _cache(node: Node, i: int, what: str, b: int, s: int, half: int) -> SSAValue:
    """Cache ``i`` as ``[b, s, 1, half]``."""
    cache = node.input(i, what)
    if node.has_input(3):
        ids = node.input(3, "position_ids")
        if node.rank(cache) != 2:
            raise ConversionError(
                f"{what} must be 2-D with position_ids, got {list(node.shape(cache))}"
            )
        cache = node.op("take", [cache, ids], axis=0, mode="clip")
    if node.shape(cache) != (b, s, half):
        raise ConversionError(
            f"{what} gives {list(node.shape(cache))} per position, expected "
            f"[{b}, {s}, {half}] (the last dim is rotary_embedding_dim / 2)"
        )
    return node.reshape(cache, [b, s, 1, half])


@converter("RotaryEmbedding")
def rotary_embedding(node: Node) -> Outputs:
    x = node.input(0, "X")
    shape = node.shape(x)
    if len(shape) == 4:
        x = node.op("transpose", [x], axes=[0, 2, 1, 3])
    elif len(shape) == 3:
        heads = node.attr_int("num_heads", 0)
        if heads <= 0 or shape[2] % heads:
            raise ConversionError(
                f"3-D input needs num_heads dividing the hidden size {shape[2]}, "
                f"got {heads}"
            )
        x = node.reshape(x, [shape[0], shape[1], heads, shape[2] // heads])
    else:
        raise ConversionError(f"X must be 3-D or 4-D, got rank {len(shape)}")
    b, s, _, head = node.shape(x)
    dim = node.attr_int("rotary_embedding_dim", 0) or head
    if dim > head or dim % 2:
        raise ConversionError(
            f"rotary_embedding_dim {dim} must be even and at most the head size {head}"
        )
    half = dim // 2
    cos = _cache(node, 1, "cos_cache", b, s, half)
    sin = _cache(node, 2, "sin_cache", b, s, half)
    rot = _slice(node, x, 0, dim) if dim < head else x
    if node.attr_int("interleaved", 0):
        x1, x2 = _slice(node, rot, 0, dim, 2), _slice(node, rot, 1, dim, 2)
    else:
        x1, x2 = _slice(node, rot, 0, half), _slice(node, rot, half, dim)

    def mul(a: SSAValue, c: SSAValue) -> SSAValue:
        return node.op("multiply", [c, a])

    real = node.op("subtract", [mul(x1, cos), mul(x2, sin)])
    imag = node.op("add", [mul(x1, sin), mul(x2, cos)])
    if node.attr_int("interleaved", 0):
        pairs = [node.op("expand_dims", [t], axis=4) for t in (real, imag)]
        out = node.reshape(node.op("concatenate", pairs, axis=4), node.shape(rot))
    else:
        out = node.op("concatenate", [real, imag], axis=3)
    if dim < head:
        out = node.op("concatenate", [out, _slice(node, x, dim, head)], axis=3)
    if len(shape) == 3:
        return node.reshape(out, shape)
    return node.op("transpose", [out], axes=[0, 2, 1, 3])
