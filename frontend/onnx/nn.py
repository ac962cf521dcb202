"""Converters of neural-network ONNX ops: convolutions, Gemm / MatMul, softmax,
normalisations and pooling.

ONNX lists spatial pads as ``[x1_begin, x2_begin, ..., x1_end, x2_end, ...]``; relay's
2-D padding is ``(top, left, bottom, right)``, i.e. ``[h_begin, w_begin, h_end,
w_end]``: the same order for 2-D. 1-D convolutions and pools run as 2-D ones on a
height-1 image.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import OpResult, SSAValue

from xrelay.dialects.relay.base import get_ints
from xrelay.dialects.relay.transform import TransposeOp
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter
from xrelay.frontend.onnx.pool_indices import max_pool_indices
from xrelay.frontend.onnx.volumetric import conv3d, conv_transpose3d, pool3d_depth
from xrelay.lowering.tiling import DOT_MAX_ROWS

# ---------------------------------------------------------------------------------------
# Spatial attributes
# ---------------------------------------------------------------------------------------


def spatial_ints(node: Node, name: str, n: int, default: int) -> list[int]:
    """An attribute with one int per spatial dim (``strides``, ``dilations``)."""
    values = node.attr_ints(name, [default] * n)
    if len(values) != n:
        raise ConversionError(f"'{name}' has {len(values)} values for {n} spatial dims")
    if any(v < 1 for v in values):
        raise ConversionError(f"'{name}' must be positive, got {values}")
    return values


def resolve_pads(
    node: Node,
    in_sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> tuple[list[int], list[int]]:
    """Begin and end padding of each spatial dim, from ``pads`` or ``auto_pad``.

    ``SAME_UPPER`` / ``SAME_LOWER`` pad so that ``out = ceil(in / stride)``, the odd
    unit at the end (upper) or the beginning (lower); ``VALID`` pads nothing.
    """
    n = len(in_sizes)
    auto_pad = node.attr_str("auto_pad", "NOTSET")
    if auto_pad == "NOTSET":
        pads = node.attr_ints("pads", [0] * (2 * n))
        if len(pads) != 2 * n:
            raise ConversionError(f"'pads' has {len(pads)} values for {n} spatial dims")
        if any(p < 0 for p in pads):
            raise ConversionError(f"negative 'pads' {pads} are not supported")
        return pads[:n], pads[n:]
    if auto_pad == "VALID":
        return [0] * n, [0] * n
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        raise ConversionError(f"unknown auto_pad '{auto_pad}'")
    begin: list[int] = []
    end: list[int] = []
    for size, k, s, d in zip(in_sizes, kernel, strides, dilations, strict=True):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        lo = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        begin.append(lo)
        end.append(total - lo)
    return begin, end


def _as_2d(node: Node, x: SSAValue) -> SSAValue:
    """``[N, C, L]`` → ``[N, C, 1, L]``."""
    s = node.shape(x)
    return node.reshape(x, [*s[:2], 1, s[2]])


def _from_2d(node: Node, x: SSAValue) -> SSAValue:
    """``[N, C, 1, L]`` → ``[N, C, L]``."""
    s = node.shape(x)
    return node.reshape(x, [s[0], s[1], s[3]])


def _spatial_rank(node: Node, x: SSAValue, what: str, max_dims: int = 2) -> int:
    rank = node.rank(x)
    if not 3 <= rank <= max_dims + 2:
        kind = f"{rank - 2}-D" if rank > 2 else f"rank-{rank}"
        dims = " to ".join(f"{d}-D" for d in sorted({1, max_dims}))
        raise ConversionError(
            f"{kind} {what} is not supported (only {dims}: inputs of rank 3 to "
            f"{max_dims + 2})"
        )
    return rank - 2


def _check_kernel(node: Node, kernel: Sequence[int]) -> None:
    given = node.opt_attr_ints("kernel_shape")
    if given is not None and list(given) != list(kernel):
        raise ConversionError(
            f"kernel_shape {given} does not match the weight's kernel {list(kernel)}"
        )


# ---------------------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------------------


@converter("Conv")
def conv(node: Node) -> Outputs:
    """``nn.conv2d`` (grouped and depthwise too), then ``nn.bias_add``."""
    out = conv_values(node, node.input(0, "X"), node.input(1, "W"))
    if node.has_input(2):
        out = node.op("nn.bias_add", [out, node.input(2, "B")], axis=1)
    return out


def conv_values(
    node: Node,
    x: SSAValue,
    w: SSAValue,
    qnn: Sequence[SSAValue] | None = None,
) -> SSAValue:
    """The convolution of ``x`` with ``w`` under ``node``'s attributes (1-D to 3-D,
    ``pads`` / ``auto_pad``, strides, dilations, groups), without a bias. With
    ``qnn`` (zero points and scales), ``qnn.conv2d``'s int32 accumulation (1-D and
    2-D only)."""
    n = _spatial_rank(node, x, "convolution", 3)
    if qnn is not None and n == 3:
        raise ConversionError("3-D integer convolutions are not supported")
    ws = node.shape(w)
    if len(ws) != n + 2:
        raise ConversionError(f"the weight has rank {len(ws)}, the data rank {n + 2}")
    kernel = list(ws[2:])
    _check_kernel(node, kernel)
    strides = spatial_ints(node, "strides", n, 1)
    dilations = spatial_ints(node, "dilations", n, 1)
    begin, end = resolve_pads(node, node.shape(x)[2:], kernel, strides, dilations)
    if n == 3:
        return conv3d(
            node, x, w, strides, dilations, begin, end, node.attr_int("group", 1)
        )
    if n == 1:
        x, w = _as_2d(node, x), node.reshape(w, [ws[0], ws[1], 1, ws[2]])
        strides, dilations = [1, *strides], [1, *dilations]
        begin, end = [0, *begin], [0, *end]
    out = node.op(
        "nn.conv2d" if qnn is None else "qnn.conv2d",
        [x, w, *(qnn or [])],
        strides=strides,
        padding=[begin[0], begin[1], end[0], end[1]],
        dilation=dilations,
        groups=node.attr_int("group", 1),
    )
    if n == 1:
        out = _from_2d(node, out)
    return out


@converter("ConvTranspose")
def conv_transpose(node: Node) -> Outputs:
    """``nn.conv2d_transpose`` (weight ``[C, M/group, kH, kW]`` is relay's ``IOHW``).

    With ``output_shape`` (or ``auto_pad`` SAME, which asks for ``in * stride``) the
    pads come from the requested size; a negative pad (an output larger than the
    transposed convolution gives) becomes zero rows added with ``nn.pad``.
    """
    x, w = node.input(0, "X"), node.input(1, "W")
    n = _spatial_rank(node, x, "transposed convolution", 3)
    xs, ws = node.shape(x), node.shape(w)
    if len(ws) != n + 2:
        raise ConversionError(f"the weight has rank {len(ws)}, the data rank {n + 2}")
    kernel = list(ws[2:])
    _check_kernel(node, kernel)
    strides = spatial_ints(node, "strides", n, 1)
    dilations = spatial_ints(node, "dilations", n, 1)
    out_pad = node.attr_ints("output_padding", [0] * n)
    if len(out_pad) != n:
        raise ConversionError(f"output_padding has {len(out_pad)} values for {n} dims")
    auto_pad = node.attr_str("auto_pad", "NOTSET")
    output_shape = node.opt_attr_ints("output_shape")
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        if output_shape is None:
            target = [size * s for size, s in zip(xs[2:], strides, strict=True)]
        else:
            target = list(output_shape[-n:])
        begin, end = [], []
        for size, k, s, d, extra, out in zip(
            xs[2:], kernel, strides, dilations, out_pad, target, strict=True
        ):
            total = s * (size - 1) + extra + (k - 1) * d + 1 - out
            lo = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            begin.append(lo)
            end.append(total - lo)
    elif auto_pad == "VALID":
        begin, end = [0] * n, [0] * n
    elif auto_pad == "NOTSET":
        pads = node.attr_ints("pads", [0] * (2 * n))
        if len(pads) != 2 * n:
            raise ConversionError(f"'pads' has {len(pads)} values for {n} spatial dims")
        begin, end = pads[:n], pads[n:]
    else:
        raise ConversionError(f"unknown auto_pad '{auto_pad}'")
    if n == 3:
        out = conv_transpose3d(
            node,
            x,
            w,
            strides,
            dilations,
            out_pad,
            begin,
            end,
            node.attr_int("group", 1),
        )
        if node.has_input(2):
            out = node.op("nn.bias_add", [out, node.input(2, "B")], axis=1)
        return out
    if n == 1:
        x, w = _as_2d(node, x), node.reshape(w, [ws[0], ws[1], 1, ws[2]])
        strides, dilations, out_pad = [1, *strides], [1, *dilations], [0, *out_pad]
        begin, end = [0, *begin], [0, *end]
    out = node.op(
        "nn.conv2d_transpose",
        [x, w],
        strides=strides,
        padding=[max(begin[0], 0), max(begin[1], 0), max(end[0], 0), max(end[1], 0)],
        dilation=dilations,
        groups=node.attr_int("group", 1),
        output_padding=out_pad,
    )
    if any(p < 0 for p in (*begin, *end)):
        widths = [0, 0, 0, 0]
        for k in range(2):
            widths += [max(-begin[k], 0), max(-end[k], 0)]
        out = node.op("nn.pad", [out, node.scalar(0, out)], pad_width=widths)
    if n == 1:
        out = _from_2d(node, out)
    if node.has_input(2):
        out = node.op("nn.bias_add", [out, node.input(2, "B")], axis=1)
    return out


# ---------------------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------------------


def _t(node: Node, x: SSAValue) -> SSAValue:
    """A matrix transposed (folded when it is a constant)."""
    return node.op("transpose", [x], axes=[1, 0])


@converter("Gemm")
def gemm(node: Node) -> Outputs:
    """``alpha * A' @ B' + beta * C`` as ``nn.dense`` (``B'`` is ``[N, K]``: B with
    ``transB``, else B transposed), scaled, plus ``C`` broadcast to ``[M, N]``."""
    a, b = node.input(0, "A"), node.input(1, "B")
    if node.rank(a) != 2 or node.rank(b) != 2:
        raise ConversionError(
            f"A and B must be matrices, got shapes {list(node.shape(a))} and "
            f"{list(node.shape(b))}"
        )
    if node.attr_int("transA", 0):
        a = _t(node, a)
    if not node.attr_int("transB", 0):
        b = _t(node, b)
    out = node.op("nn.dense", [a, b])
    alpha, beta = node.attr_float("alpha", 1.0), node.attr_float("beta", 1.0)
    if alpha != 1.0:
        out = node.op("multiply", [out, node.scalar(alpha, out)])
    if node.has_input(2) and beta != 0.0:
        c = node.input(2, "C")
        if beta != 1.0:
            c = node.op("multiply", [c, node.scalar(beta, c)])
        out = node.op("add", [out, c])
    return out


def _broadcast_dims(a: Sequence[int], b: Sequence[int]) -> list[int]:
    try:
        return list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise ConversionError(
            f"batch dims {list(a)} and {list(b)} do not broadcast"
        ) from None


@converter("MatMul")
def matmul(node: Node) -> Outputs:
    """numpy ``matmul``: a 1-D operand gets a unit dim (removed after); a matrix B
    gives ``nn.dense(A, B^T)``; otherwise the batch dims are broadcast and flattened
    into ``nn.batch_matmul``."""
    return matmul_values(node, node.input(0, "A"), node.input(1, "B"))


def _last_two_swapped(b: SSAValue) -> SSAValue | None:
    """``t`` when ``b`` is ``transpose(t)`` swapping only its last two axes (the
    keys of attention as PyTorch exports ``q @ k.transpose(-1, -2)``), else
    ``None``. A product of at most ``DOT_MAX_ROWS`` rows then reads ``t`` with
    ``transpose_b`` along its rows (a query row reads a KV cache's keys in place,
    on dot-product tiles) instead of a transposed copy written every run."""
    if not isinstance(b, OpResult) or not isinstance(b.op, TransposeOp):
        return None
    t = b.op.data
    ty = t.type
    rank = len(ty.get_shape()) if isinstance(ty, TensorType) else 0
    if rank < 3 or b.op.axes is None:
        return None
    perm = [a % rank for a in get_ints(b.op.axes)]
    return t if perm == [*range(rank - 2), rank - 1, rank - 2] else None


def matmul_values(
    node: Node, a: SSAValue, b: SSAValue, qnn: Sequence[SSAValue] | None = None
) -> SSAValue:
    """numpy's ``matmul`` of ``a`` and ``b`` (see :func:`matmul`). With ``qnn`` (zero
    points and scales), ``qnn.dense`` / ``qnn.batch_matmul``'s int32 products."""
    extra = list(qnn or [])
    prefix = "nn." if qnn is None else "qnn."
    sa, sb = node.shape(a), node.shape(b)
    if not sa or not sb:
        raise ConversionError("MatMul operands must have rank >= 1")
    vec_a, vec_b = len(sa) == 1, len(sb) == 1
    if vec_a:
        a, sa = node.reshape(a, [1, sa[0]]), (1, sa[0])
    if vec_b:
        b, sb = node.reshape(b, [sb[0], 1]), (sb[0], 1)
    if sa[-1] != sb[-2]:
        raise ConversionError(f"the inner dims differ: A {list(sa)} and B {list(sb)}")
    m, n = sa[-2], sb[-1]
    if len(sb) == 2:
        out = node.op(prefix + "dense", [a, _t(node, b), *extra])
        batch = list(sa[:-2])
    else:
        batch = _broadcast_dims(sa[:-2], sb[:-2])
        total = math.prod(batch)

        def flat(x: SSAValue, s: Sequence[int]) -> SSAValue:
            if math.prod(s[:-2]) == 1:  # batch_matmul broadcasts a batch of 1
                return node.reshape(x, [1, *s[-2:]])
            if list(s[:-2]) != batch:
                x = node.op("broadcast_to", [x], shape=[*batch, *s[-2:]])
            return node.reshape(x, [total, *s[-2:]])

        skinny = m <= DOT_MAX_ROWS and qnn is None
        swapped = _last_two_swapped(b) if skinny else None
        if swapped is not None:  # q @ k^T: read the keys as they are stored
            y, transpose_b = flat(swapped, node.shape(swapped)), True
        else:
            y, transpose_b = flat(b, sb), False
        out = node.op(
            prefix + "batch_matmul", [flat(a, sa), y, *extra], transpose_b=transpose_b
        )
        out = node.reshape(out, [*batch, m, n])
    final = [*batch, *([] if vec_a else [m]), *([] if vec_b else [n])]
    return node.reshape(out, final)


# ---------------------------------------------------------------------------------------
# Softmax
# ---------------------------------------------------------------------------------------


@converter("Softmax", "LogSoftmax")
def softmax(node: Node) -> Outputs:
    """Along ``axis`` (opset 13+, default -1); before opset 13 the input is seen as
    the matrix ``[prod(dims before axis), prod(dims from axis)]`` (default axis 1)."""
    name = "nn.softmax" if node.op_type == "Softmax" else "nn.log_softmax"
    x = node.input(0)
    rank = node.rank(x)
    if node.opset >= 13:
        return node.op(name, [x], axis=node.axis(node.attr_int("axis", -1), rank))
    shape = node.shape(x)
    axis = node.axis(node.attr_int("axis", 1), rank) if rank else 0
    flat = node.reshape(x, [math.prod(shape[:axis]), math.prod(shape[axis:])])
    return node.reshape(node.op(name, [flat], axis=1), shape)


# ---------------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------------


def _same_dtype(node: Node, v: SSAValue, like: SSAValue) -> SSAValue:
    if node.dtype(v) == node.dtype(like):
        return v
    return node.op("cast", [v], dtype=str(node.dtype(like)))


@converter("BatchNormalization")
def batch_norm(node: Node) -> Outputs:
    """Inference form: ``nn.batch_norm(...)[0]`` on axis 1."""
    if node.attr_int("training_mode", 0):
        raise ConversionError("training_mode=1 is not supported (inference only)")
    for i in range(1, node.num_outputs):
        if node.output_used(i):
            raise ConversionError(
                f"output #{i} (running statistics, training mode) is not supported"
            )
    x = node.input(0, "X")
    vectors = [_same_dtype(node, node.input(i), x) for i in range(1, 5)]
    results = node.ops(
        "nn.batch_norm", [x, *vectors], axis=1, epsilon=node.attr_float("epsilon", 1e-5)
    )
    return [results[0]]


def _vector(
    node: Node, v: SSAValue, norm_shape: Sequence[int], size: int
) -> SSAValue | None:
    """A scale/bias broadcast over the normalised dims, flattened to ``[size]``; None
    when it does not broadcast to them alone."""
    s = node.shape(v)
    if len(s) > len(norm_shape):
        return None
    try:
        np.broadcast_shapes(tuple(s), tuple(norm_shape))
    except ValueError:
        return None
    if tuple(s) != tuple(norm_shape):
        v = node.op("broadcast_to", [v], shape=list(norm_shape))
    return node.reshape(v, [size])


@converter("LayerNormalization")
def layer_norm(node: Node) -> Outputs:
    """Normalisation over the dims from ``axis`` on: ``nn.layer_norm`` on the last
    axis of the input with those dims flattened; optional outputs Mean and InvStdDev
    from ``mean`` / ``variance``."""
    x, scale = node.input(0, "X"), node.input(1, "Scale")
    bias = node.optional_input(2)
    xs = node.shape(x)
    rank = len(xs)
    axis = node.axis(node.attr_int("axis", -1), rank)
    eps = node.attr_float("epsilon", 1e-5)
    norm_shape = xs[axis:]
    size = math.prod(norm_shape)
    flat = node.reshape(x, [*xs[:axis], size])
    gamma = _vector(node, scale, norm_shape, size)
    beta = None if bias is None else _vector(node, bias, norm_shape, size)
    if gamma is not None and (bias is None or beta is not None):
        zeros = node.const(np.zeros(size, node.dtype(x)))
        y = node.op(
            "nn.layer_norm",
            [flat, gamma, beta if beta is not None else zeros],
            axis=-1,
            epsilon=eps,
            center=bias is not None,
        )
        y = node.reshape(y, xs)
    else:  # scale or bias broadcast over other dims too
        ones = node.const(np.ones(size, node.dtype(x)))
        zeros = node.const(np.zeros(size, node.dtype(x)))
        y = node.op(
            "nn.layer_norm",
            [flat, ones, zeros],
            axis=-1,
            epsilon=eps,
            center=False,
            scale=False,
        )
        y = node.op("multiply", [node.reshape(y, xs), scale])
        if bias is not None:
            y = node.op("add", [y, bias])
    outputs: list[SSAValue | None] = [y]
    if node.output_used(1) or node.output_used(2):
        axes = list(range(axis, rank))
        mean = node.op("mean", [x], axis=axes, keepdims=True)
        var = node.op("variance", [x, mean], axis=axes, keepdims=True)
        inv = node.op("rsqrt", [node.op("add", [var, node.scalar(eps, var)])])
        outputs += [mean, inv]
    return outputs


@converter("InstanceNormalization")
def instance_norm(node: Node) -> Outputs:
    x = node.input(0)
    scale, bias = (
        _same_dtype(node, node.input(1), x),
        _same_dtype(node, node.input(2), x),
    )
    return node.op(
        "nn.instance_norm",
        [x, scale, bias],
        axis=1,
        epsilon=node.attr_float("epsilon", 1e-5),
    )


# ---------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------


def _pool_out(
    size: int, begin: int, end: int, k: int, s: int, d: int, ceil: bool
) -> int:
    """ONNX's pooled length; with ``ceil_mode`` the last window must start inside the
    input or its begin padding."""
    span = size + begin + end - (k - 1) * d - 1
    if not ceil:
        return span // s + 1
    out = -(-span // s) + 1
    if (out - 1) * s >= size + begin:
        out -= 1
    return out


@converter("MaxPool", "AveragePool")
def pool(node: Node) -> Outputs:
    """``nn.max_pool2d`` / ``nn.avg_pool2d`` with ONNX's pads, ``ceil_mode``,
    ``dilations`` and ``count_include_pad``. Where relay's ceil mode gives one more
    window than ONNX (a last window starting in the end padding), the extra one is
    sliced off."""
    is_max = node.op_type == "MaxPool"
    x = node.input(0)
    source = x
    n = _spatial_rank(node, x, "pooling", 3)
    kernel = node.attr_ints("kernel_shape")
    if len(kernel) != n:
        raise ConversionError(f"kernel_shape has {len(kernel)} values for {n} dims")
    strides = spatial_ints(node, "strides", n, 1)
    dilations = spatial_ints(node, "dilations", n, 1)
    ceil = bool(node.attr_int("ceil_mode", 0))
    in_sizes = node.shape(x)[2:]
    begin, end = resolve_pads(node, in_sizes, kernel, strides, dilations)
    expected = [
        _pool_out(size, b, e, k, s, d, ceil)
        for size, b, e, k, s, d in zip(
            in_sizes, begin, end, kernel, strides, dilations, strict=True
        )
    ]
    full = (list(kernel), strides, dilations, begin, end, expected)
    shape3d = node.shape(x)
    if n == 1:
        x = _as_2d(node, x)
        kernel, strides, dilations = [1, *kernel], [1, *strides], [1, *dilations]
        begin, end, expected = [0, *begin], [0, *end], [1, *expected]
    elif n == 3:  # height and width here, the depth after (depth joins the channels)
        x = node.reshape(x, [shape3d[0], shape3d[1] * shape3d[2], *shape3d[3:]])
        kernel, strides, dilations = kernel[1:], strides[1:], dilations[1:]
        begin, end, expected = begin[1:], end[1:], expected[1:]
    attrs: dict[str, object] = {
        "pool_size": kernel,
        "strides": strides,
        "dilation": dilations,
        "padding": [begin[0], begin[1], end[0], end[1]],
        "ceil_mode": ceil,
    }
    if not is_max:
        attrs["count_include_pad"] = bool(node.attr_int("count_include_pad", 0))
    out = node.op("nn.max_pool2d" if is_max else "nn.avg_pool2d", [x], **attrs)
    got = list(node.shape(out)[2:])
    if got != expected:
        out = node.op("strided_slice", [out], begin=[0, 0], end=expected, axes=[2, 3])
    if n == 1:
        out = _from_2d(node, out)
    if n == 3:
        out = node.reshape(out, [*shape3d[:3], *node.shape(out)[2:]])
        k3, s3, d3, b3, e3, o3 = full
        out = pool3d_depth(
            node,
            out,
            is_max,
            shape3d[2],
            b3[0],
            e3[0],
            k3[0],
            s3[0],
            d3[0],
            o3[0],
            bool(node.attr_int("count_include_pad", 0)),
        )
    if is_max and node.output_used(1):
        k_, s_, d_, b_, _, o_ = full
        order = node.attr_int("storage_order", 0)
        return [out, max_pool_indices(node, source, k_, s_, d_, b_, o_, order)]
    return out


@converter("GlobalAveragePool", "GlobalMaxPool")
def global_pool(node: Node) -> Outputs:
    """Over all spatial dims: ``nn.global_{avg,max}_pool2d`` for 2-D, else a
    ``mean`` / ``max`` with kept dims."""
    x = node.input(0)
    rank = node.rank(x)
    avg = node.op_type == "GlobalAveragePool"
    if rank == 4:
        return node.op("nn.global_avg_pool2d" if avg else "nn.global_max_pool2d", [x])
    if rank < 3:
        raise ConversionError(f"the input must have rank >= 3, got {rank}")
    return node.op(
        "mean" if avg else "max", [x], axis=list(range(2, rank)), keepdims=True
    )
