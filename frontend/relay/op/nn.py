"""Neural-network ops (``tvm.relay.nn``), with TVM's Python normalisation of
attributes: an int for ``strides``/``dilation``/``kernel_size``/``pool_size`` means the
same value on both spatial axes, and ``padding`` of 1 or 2 ints becomes 4 (top, left,
bottom, right)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from xrelay.frontend.relay.expr import Call, Constant, Expr, TupleGetItem, TupleWrapper
from xrelay.frontend.relay.op._make import (
    ExprLike,
    call,
    operand,
    opt_ints,
    opt_pair,
    pad_tuple2d,
    pair,
)

IntOrPair = int | Sequence[int]

# -- activations ------------------------------------------------------------------------


def relu(data: ExprLike) -> Call:
    """``max(data, 0)``."""
    return call("nn.relu", [data])


def leaky_relu(data: ExprLike, alpha: float = 0.01) -> Call:
    """``data if data > 0 else alpha * data``."""
    return call("nn.leaky_relu", [data], alpha=float(alpha))


def prelu(data: ExprLike, alpha: ExprLike, axis: int = 1) -> Call:
    """Leaky ReLU with one slope per channel (``alpha`` of shape ``[C]`` on ``axis``)."""
    return call("nn.prelu", [data, alpha], axis=axis)


def bias_add(data: ExprLike, bias: ExprLike, axis: int = 1) -> Call:
    """``data + bias`` with the 1-d ``bias`` along ``axis``."""
    return call("nn.bias_add", [data, bias], axis=axis)


def softmax(data: ExprLike, axis: int = -1) -> Call:
    """Softmax along ``axis``."""
    return call("nn.softmax", [data], axis=axis)


def fast_softmax(data: ExprLike, axis: int = -1) -> Call:
    """Softmax along ``axis`` (approximated exp when lowered)."""
    return call("nn.fast_softmax", [data], axis=axis)


def log_softmax(data: ExprLike, axis: int = -1) -> Call:
    """``log(softmax(data))`` along ``axis``."""
    return call("nn.log_softmax", [data], axis=axis)


# -- convolution and dense --------------------------------------------------------------


def conv2d(
    data: ExprLike,
    weight: ExprLike,
    strides: IntOrPair = (1, 1),
    padding: IntOrPair = (0, 0),
    dilation: IntOrPair = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrPair | None = None,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """2-D convolution."""
    return call(
        "nn.conv2d",
        [data, weight],
        strides=pair(strides, "strides"),
        padding=pad_tuple2d(padding),
        dilation=pair(dilation, "dilation"),
        groups=groups,
        channels=channels,
        kernel_size=opt_pair(kernel_size, "kernel_size"),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
        out_dtype=out_dtype,
    )


def contrib_conv2d_nchwc(
    data: ExprLike,
    kernel: ExprLike,
    strides: IntOrPair = (1, 1),
    padding: IntOrPair = (0, 0),
    dilation: IntOrPair = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrPair | None = None,
    data_layout: str = "NCHW8c",
    kernel_layout: str = "OIHW8i8o",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """2-D convolution on channel-blocked layouts (``NCHW{c}c`` data,
    ``OIHW{i}i{o}o`` kernel): what AlterOpLayout makes of ``conv2d`` on CPUs."""
    return call(
        "nn.contrib_conv2d_NCHWc",
        [data, kernel],
        strides=pair(strides, "strides"),
        padding=pad_tuple2d(padding),
        dilation=pair(dilation, "dilation"),
        groups=groups,
        channels=channels,
        kernel_size=opt_pair(kernel_size, "kernel_size"),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
        out_dtype=out_dtype,
    )


def contrib_dense_pack(
    data: ExprLike,
    weight: ExprLike,
    weight_layout: str = "NC8n",
    units: int | None = None,
    out_dtype: str = "",
) -> Call:
    """Dense with a packed ``NC{n}n`` weight of shape ``[N/n, K, n]``: what
    AlterOpLayout makes of ``dense`` on CPUs."""
    return call(
        "nn.contrib_dense_pack",
        [data, weight],
        weight_layout=weight_layout,
        units=units,
        out_dtype=out_dtype,
    )


def conv2d_transpose(
    data: ExprLike,
    weight: ExprLike,
    strides: IntOrPair = (1, 1),
    padding: IntOrPair = (0, 0),
    dilation: IntOrPair = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrPair | None = None,
    data_layout: str = "NCHW",
    kernel_layout: str = "IOHW",
    out_layout: str = "",
    output_padding: IntOrPair = (0, 0),
    out_dtype: str = "",
) -> Call:
    """2-D transposed convolution (the gradient of conv2d with respect to its input)."""
    return call(
        "nn.conv2d_transpose",
        [data, weight],
        strides=pair(strides, "strides"),
        padding=pad_tuple2d(padding),
        dilation=pair(dilation, "dilation"),
        groups=groups,
        channels=channels,
        kernel_size=opt_pair(kernel_size, "kernel_size"),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
        output_padding=pair(output_padding, "output_padding"),
        out_dtype=out_dtype,
    )


def dense(
    data: ExprLike, weight: ExprLike, units: int | None = None, out_dtype: str = ""
) -> Call:
    """``data @ weight.T`` (``weight`` is ``[units, K]``)."""
    return call("nn.dense", [data, weight], units=units, out_dtype=out_dtype)


def matmul(
    tensor_a: ExprLike,
    tensor_b: ExprLike,
    units: int | None = None,
    out_dtype: str = "",
    transpose_a: bool = False,
    transpose_b: bool = False,
) -> Call:
    """``a @ b`` with optional transposes; like TVM, ``transpose_b`` alone is
    ``dense``."""
    if not transpose_a and transpose_b:
        return dense(tensor_a, tensor_b, units, out_dtype)
    return call(
        "nn.matmul",
        [tensor_a, tensor_b],
        units=units,
        out_dtype=out_dtype,
        transpose_a=transpose_a,
        transpose_b=transpose_b,
    )


def batch_matmul(
    tensor_a: ExprLike,
    tensor_b: ExprLike,
    out_dtype: str = "",
    transpose_a: bool = False,
    transpose_b: bool = True,
) -> Call:
    """Batched matrix product of rank-3 tensors (``b`` transposed by default)."""
    return call(
        "nn.batch_matmul",
        [tensor_a, tensor_b],
        out_dtype=out_dtype,
        transpose_a=transpose_a,
        transpose_b=transpose_b,
    )


# -- pooling ----------------------------------------------------------------------------


def max_pool2d(
    data: ExprLike,
    pool_size: IntOrPair = (1, 1),
    strides: IntOrPair = (1, 1),
    dilation: IntOrPair = (1, 1),
    padding: IntOrPair = (0, 0),
    layout: str = "NCHW",
    out_layout: str = "",
    ceil_mode: bool = False,
) -> Call:
    """2-D max pooling."""
    return call(
        "nn.max_pool2d",
        [data],
        pool_size=pair(pool_size, "pool_size"),
        strides=pair(strides, "strides"),
        dilation=pair(dilation, "dilation"),
        padding=pad_tuple2d(padding),
        layout=layout,
        out_layout=out_layout,
        ceil_mode=ceil_mode,
    )


def avg_pool2d(
    data: ExprLike,
    pool_size: IntOrPair = (1, 1),
    strides: IntOrPair = (1, 1),
    dilation: IntOrPair = (1, 1),
    padding: IntOrPair = (0, 0),
    layout: str = "NCHW",
    out_layout: str = "",
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> Call:
    """2-D average pooling."""
    return call(
        "nn.avg_pool2d",
        [data],
        pool_size=pair(pool_size, "pool_size"),
        strides=pair(strides, "strides"),
        dilation=pair(dilation, "dilation"),
        padding=pad_tuple2d(padding),
        layout=layout,
        out_layout=out_layout,
        ceil_mode=ceil_mode,
        count_include_pad=count_include_pad,
    )


def _scale_value(value: object, what: str) -> float:
    """A static upsampling scale: a number or a constant (TVM makes a constant scale
    static too)."""
    if isinstance(value, Constant):
        return float(value.data.reshape(-1)[0])
    if isinstance(value, Expr):
        raise TypeError(f"{what} must be static (a number or a constant)")
    return float(cast(float, value))


def upsampling(
    data: ExprLike,
    scale_h: float | Expr = 1,
    scale_w: float | Expr = 1,
    layout: str = "NCHW",
    method: str = "nearest_neighbor",
    align_corners: bool = False,
) -> Call:
    """``data`` scaled by ``scale_h`` x ``scale_w`` on its H and W axes
    (``nearest_neighbor`` or ``bilinear``)."""
    return call(
        "nn.upsampling",
        [data],
        scale_h=_scale_value(scale_h, "scale_h"),
        scale_w=_scale_value(scale_w, "scale_w"),
        layout=layout,
        method=method,
        align_corners=align_corners,
    )


def deformable_conv2d(
    data: ExprLike,
    offset: ExprLike,
    weight: ExprLike,
    strides: IntOrPair = (1, 1),
    padding: IntOrPair = (0, 0),
    dilation: IntOrPair = (1, 1),
    deformable_groups: int = 1,
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrPair | None = None,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """Deformable 2-D convolution: ``weight`` applied at the positions moved by
    ``offset`` (``[N, 2 * deformable_groups * KH * KW, OH, OW]`` in NCHW)."""
    return call(
        "nn.deformable_conv2d",
        [data, offset, weight],
        strides=pair(strides, "strides"),
        padding=pad_tuple2d(padding),
        dilation=pair(dilation, "dilation"),
        deformable_groups=deformable_groups,
        groups=groups,
        channels=channels,
        kernel_size=opt_pair(kernel_size, "kernel_size"),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
        out_dtype=out_dtype,
    )


def global_max_pool2d(
    data: ExprLike, layout: str = "NCHW", out_layout: str = ""
) -> Call:
    """Maximum over the whole spatial extent (H and W become 1)."""
    return call("nn.global_max_pool2d", [data], layout=layout, out_layout=out_layout)


def global_avg_pool2d(
    data: ExprLike, layout: str = "NCHW", out_layout: str = ""
) -> Call:
    """Mean over the whole spatial extent (H and W become 1)."""
    return call("nn.global_avg_pool2d", [data], layout=layout, out_layout=out_layout)


def adaptive_max_pool2d(
    data: ExprLike,
    output_size: IntOrPair | None = None,
    layout: str = "NCHW",
    out_layout: str = "",
) -> Call:
    """Max pooling to a fixed ``output_size`` (``None``: keep H and W)."""
    return call(
        "nn.adaptive_max_pool2d",
        [data],
        output_size=opt_pair(output_size, "output_size"),
        layout=layout,
        out_layout=out_layout,
    )


def adaptive_avg_pool2d(
    data: ExprLike,
    output_size: IntOrPair | None = None,
    layout: str = "NCHW",
    out_layout: str = "",
) -> Call:
    """Average pooling to a fixed ``output_size`` (``None``: keep H and W)."""
    return call(
        "nn.adaptive_avg_pool2d",
        [data],
        output_size=opt_pair(output_size, "output_size"),
        layout=layout,
        out_layout=out_layout,
    )


# -- normalisation ----------------------------------------------------------------------


def batch_norm(
    data: ExprLike,
    gamma: ExprLike,
    beta: ExprLike,
    moving_mean: ExprLike,
    moving_var: ExprLike,
    axis: int = 1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> TupleWrapper:
    """Batch normalisation with the given statistics; a 3-tuple (normalised data,
    mean, variance) — inference uses ``[0]``."""
    result = call(
        "nn.batch_norm",
        [data, gamma, beta, moving_mean, moving_var],
        axis=axis,
        epsilon=float(epsilon),
        center=center,
        scale=scale,
    )
    return TupleWrapper(result, 3)


def layer_norm(
    data: ExprLike,
    gamma: ExprLike,
    beta: ExprLike,
    axis: int = -1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> Call:
    """Normalisation over ``axis``, then ``* gamma + beta``."""
    return call(
        "nn.layer_norm",
        [data, gamma, beta],
        axis=axis,
        epsilon=float(epsilon),
        center=center,
        scale=scale,
    )


def group_norm(
    data: ExprLike,
    gamma: ExprLike,
    beta: ExprLike,
    num_groups: int,
    axis: int = 1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> Call:
    """Normalisation over groups of ``num_groups`` channels."""
    return call(
        "nn.group_norm",
        [data, gamma, beta],
        num_groups=num_groups,
        axis=axis,
        epsilon=float(epsilon),
        center=center,
        scale=scale,
    )


def instance_norm(
    data: ExprLike,
    gamma: ExprLike,
    beta: ExprLike,
    axis: int = 1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> Call:
    """Normalisation of each channel of each sample over its spatial axes."""
    return call(
        "nn.instance_norm",
        [data, gamma, beta],
        axis=axis,
        epsilon=float(epsilon),
        center=center,
        scale=scale,
    )


def l2_normalize(
    data: ExprLike, eps: float, axis: int | Sequence[int] | None = None
) -> Call:
    """``data / sqrt(max(sum(data**2, axis), eps))``."""
    return call("nn.l2_normalize", [data], eps=float(eps), axis=opt_ints(axis, "axis"))


def lrn(
    data: ExprLike,
    size: int = 5,
    axis: int = 1,
    bias: float = 2,
    alpha: float = 0.00001,
    beta: float = 0.75,
) -> Call:
    """Local response normalisation across ``size`` neighbouring channels."""
    return call(
        "nn.lrn",
        [data],
        size=size,
        axis=axis,
        bias=float(bias),
        alpha=float(alpha),
        beta=float(beta),
    )


# -- others -----------------------------------------------------------------------------


def dropout_raw(data: ExprLike, rate: float = 0.5) -> TupleWrapper:
    """Dropout as Relay defines it: a 2-tuple (output, mask)."""
    return TupleWrapper(call("nn.dropout", [data], rate=float(rate)), 2)


def dropout(data: ExprLike, rate: float = 0.5) -> TupleGetItem:
    """Dropout's output (the identity at inference)."""
    return dropout_raw(data, rate)[0]


def batch_flatten(data: ExprLike) -> Call:
    """``data`` reshaped to ``[N, prod(other dims)]``."""
    return call("nn.batch_flatten", [data])


def pad(
    data: ExprLike,
    pad_width: Sequence[Sequence[int]] | Constant,
    pad_value: ExprLike | float | int = 0,
    pad_mode: str = "constant",
) -> Call:
    """``data`` padded by ``pad_width`` (one ``(before, after)`` per axis) with
    ``pad_value`` (a number becomes a 0-d constant of ``data``'s dtype), or by edge /
    reflect values (``pad_mode``)."""
    if isinstance(pad_width, Constant):
        flat = [int(v) for v in pad_width.data.reshape(-1)]
    elif isinstance(pad_width, Expr):
        raise TypeError("pad_width must be static (ints); dynamic pad is not supported")
    else:
        flat = [int(v) for row in pad_width for v in cast(Sequence[Any], row)]
    return call(
        "nn.pad",
        [data, operand(pad_value, like=data)],
        pad_width=flat,
        pad_mode=pad_mode,
    )


__all__ = [
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "avg_pool2d",
    "batch_flatten",
    "batch_matmul",
    "batch_norm",
    "bias_add",
    "contrib_conv2d_nchwc",
    "contrib_dense_pack",
    "conv2d",
    "conv2d_transpose",
    "dense",
    "dropout",
    "dropout_raw",
    "fast_softmax",
    "global_avg_pool2d",
    "global_max_pool2d",
    "group_norm",
    "instance_norm",
    "l2_normalize",
    "layer_norm",
    "leaky_relu",
    "log_softmax",
    "lrn",
    "matmul",
    "max_pool2d",
    "pad",
    "prelu",
    "relu",
    "softmax",
    "upsampling",
]
