"""``relay.qnn.op``: builders of the QNN ops with TVM's signatures.

Scales and zero points are expressions (``relay.const(0.5, "float32")``, ``relay.const(
3, "int32")``); a Python number is accepted too and becomes a float32 scale or an int32
zero point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from xrelay.frontend.relay.expr import Call, Expr, Tuple, TupleWrapper, const
from xrelay.frontend.relay.op._make import (
    ExprLike,
    call,
    is_number,
    opt_pair,
    pad_tuple2d,
    pair,
)

IntOrPair = int | Sequence[int]
Param = ExprLike | float | int


def _scale(value: Param) -> Expr:
    if is_number(value):
        return const(float(cast(float, value)), "float32")
    return cast(Expr, value)


def _zero_point(value: Param) -> Expr:
    if is_number(value):
        return const(int(cast(int, value)), "int32")
    return cast(Expr, value)


def _fields(value: object) -> list[Any]:
    """The expressions of a list, a ``Tuple`` literal or a tuple-valued wrapper."""
    if isinstance(value, Tuple):
        return list(value.fields)
    if isinstance(value, TupleWrapper):
        return [value[i] for i in range(len(value))]
    return list(cast(Sequence[Any], value))


def quantize(
    data: ExprLike,
    output_scale: Param,
    output_zero_point: Param,
    axis: int = -1,
    out_dtype: str = "int8",
) -> Call:
    """``saturate(round_half_even(data / output_scale) + output_zero_point)``."""
    return call(
        "qnn.quantize",
        [data, _scale(output_scale), _zero_point(output_zero_point)],
        axis=axis,
        out_dtype=out_dtype,
    )


def dequantize(
    data: ExprLike,
    input_scale: Param,
    input_zero_point: Param,
    axis: int = -1,
    out_dtype: str = "float32",
) -> Call:
    """``float32(data - input_zero_point) * input_scale``."""
    return call(
        "qnn.dequantize",
        [data, _scale(input_scale), _zero_point(input_zero_point)],
        axis=axis,
        out_dtype=out_dtype,
    )


def requantize(
    data: ExprLike,
    input_scale: Param,
    input_zero_point: Param,
    output_scale: Param,
    output_zero_point: Param,
    axis: int = -1,
    rounding: str = "None",
    compute_dtype: str = "None",
    out_dtype: str = "int8",
) -> Call:
    """``data`` from the input quantization to the output one (float32 multiplier,
    ties to even by default). ``compute_dtype`` is TVM's and must be ``"None"`` or
    ``"float32"`` (xrelay always computes the multiplier in float32)."""
    if compute_dtype not in ("None", "float32"):
        raise ValueError(
            f"compute_dtype must be 'None' or 'float32' (xrelay requantizes in float32), "
            f"got {compute_dtype!r}"
        )
    return call(
        "qnn.requantize",
        [
            data,
            _scale(input_scale),
            _zero_point(input_zero_point),
            _scale(output_scale),
            _zero_point(output_zero_point),
        ],
        axis=axis,
        rounding=rounding,
        out_dtype=out_dtype,
    )


def conv2d(
    data: ExprLike,
    kernel: ExprLike,
    input_zero_point: Param,
    kernel_zero_point: Param,
    input_scale: Param,
    kernel_scale: Param,
    kernel_size: IntOrPair,
    channels: int | None,
    strides: IntOrPair = (1, 1),
    padding: IntOrPair = (0, 0),
    dilation: IntOrPair = (1, 1),
    groups: int = 1,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
    out_layout: str = "",
    out_dtype: str = "int32",
) -> Call:
    """Integer 2-D convolution of the zero-point-centred operands (int32 result)."""
    return call(
        "qnn.conv2d",
        [
            data,
            kernel,
            _zero_point(input_zero_point),
            _zero_point(kernel_zero_point),
            _scale(input_scale),
            _scale(kernel_scale),
        ],
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


def conv2d_transpose(
    data: ExprLike,
    weight: ExprLike,
    input_zero_point: Param,
    kernel_zero_point: Param,
    input_scale: Param,
    kernel_scale: Param,
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
    out_dtype: str = "int32",
) -> Call:
    """Integer transposed 2-D convolution of the zero-point-centred operands (int32
    result)."""
    return call(
        "qnn.conv2d_transpose",
        [
            data,
            weight,
            _zero_point(input_zero_point),
            _zero_point(kernel_zero_point),
            _scale(input_scale),
            _scale(kernel_scale),
        ],
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
    data: ExprLike,
    weight: ExprLike,
    input_zero_point: Param,
    kernel_zero_point: Param,
    input_scale: Param,
    kernel_scale: Param,
    units: int | None,
    out_dtype: str = "int32",
) -> Call:
    """Integer ``data @ weight.T`` of the zero-point-centred operands (int32)."""
    return call(
        "qnn.dense",
        [
            data,
            weight,
            _zero_point(input_zero_point),
            _zero_point(kernel_zero_point),
            _scale(input_scale),
            _scale(kernel_scale),
        ],
        units=units,
        out_dtype=out_dtype,
    )


def batch_matmul(
    x: ExprLike,
    y: ExprLike,
    x_zero_point: Param,
    y_zero_point: Param,
    x_scale: Param,
    y_scale: Param,
    out_dtype: str = "int32",
    transpose_a: bool = False,
    transpose_b: bool = True,
) -> Call:
    """Integer batched matrix product of the zero-point-centred operands (int32)."""
    return call(
        "qnn.batch_matmul",
        [
            x,
            y,
            _zero_point(x_zero_point),
            _zero_point(y_zero_point),
            _scale(x_scale),
            _scale(y_scale),
        ],
        out_dtype=out_dtype,
        transpose_a=transpose_a,
        transpose_b=transpose_b,
    )


def _binary(
    name: str,
    lhs: ExprLike,
    rhs: ExprLike,
    params: tuple[Param, Param, Param, Param, Param, Param],
    lhs_axis: int,
    rhs_axis: int,
) -> Call:
    ls, lz, rs, rz, os_, oz = params
    return call(
        name,
        [
            lhs,
            rhs,
            _scale(ls),
            _zero_point(lz),
            _scale(rs),
            _zero_point(rz),
            _scale(os_),
            _zero_point(oz),
        ],
        lhs_axis=lhs_axis,
        rhs_axis=rhs_axis,
    )


def add(
    lhs: ExprLike,
    rhs: ExprLike,
    lhs_scale: Param,
    lhs_zero_point: Param,
    rhs_scale: Param,
    rhs_zero_point: Param,
    output_scale: Param,
    output_zero_point: Param,
    lhs_axis: int = -1,
    rhs_axis: int = -1,
) -> Call:
    """Quantized ``lhs + rhs`` (one float32 rounding)."""
    params = (
        lhs_scale,
        lhs_zero_point,
        rhs_scale,
        rhs_zero_point,
        output_scale,
        output_zero_point,
    )
    return _binary("qnn.add", lhs, rhs, params, lhs_axis, rhs_axis)


def subtract(
    lhs: ExprLike,
    rhs: ExprLike,
    lhs_scale: Param,
    lhs_zero_point: Param,
    rhs_scale: Param,
    rhs_zero_point: Param,
    output_scale: Param,
    output_zero_point: Param,
    lhs_axis: int = -1,
    rhs_axis: int = -1,
) -> Call:
    """Quantized ``lhs - rhs`` (one float32 rounding)."""
    params = (
        lhs_scale,
        lhs_zero_point,
        rhs_scale,
        rhs_zero_point,
        output_scale,
        output_zero_point,
    )
    return _binary("qnn.subtract", lhs, rhs, params, lhs_axis, rhs_axis)


def mul(
    lhs: ExprLike,
    rhs: ExprLike,
    lhs_scale: Param,
    lhs_zero_point: Param,
    rhs_scale: Param,
    rhs_zero_point: Param,
    output_scale: Param,
    output_zero_point: Param,
    lhs_axis: int = -1,
    rhs_axis: int = -1,
) -> Call:
    """Quantized ``lhs * rhs`` (int32 product, requantized)."""
    params = (
        lhs_scale,
        lhs_zero_point,
        rhs_scale,
        rhs_zero_point,
        output_scale,
        output_zero_point,
    )
    return _binary("qnn.mul", lhs, rhs, params, lhs_axis, rhs_axis)


def concatenate(
    data: Sequence[ExprLike] | ExprLike,
    input_scales: Sequence[Param] | ExprLike,
    input_zero_points: Sequence[Param] | ExprLike,
    output_scale: Param,
    output_zero_point: Param,
    axis: int,
) -> Call:
    """The inputs requantized to the output parameters and joined along ``axis``."""
    inputs = _fields(data)
    scales = [_scale(s) for s in _fields(input_scales)]
    zero_points = [_zero_point(z) for z in _fields(input_zero_points)]
    if not inputs:
        raise ValueError("relay.qnn.concatenate requires data to be non-empty.")
    if len(scales) != len(inputs) or len(zero_points) != len(inputs):
        raise ValueError(
            f"qnn.concatenate: {len(inputs)} inputs but {len(scales)} scales and "
            f"{len(zero_points)} zero points"
        )
    return call(
        "qnn.concatenate",
        [
            *inputs,
            *scales,
            *zero_points,
            _scale(output_scale),
            _zero_point(output_zero_point),
        ],
        axis=axis,
    )


def avg_pool2d(
    data: ExprLike,
    input_scale: Param,
    input_zero_point: Param,
    output_scale: Param,
    output_zero_point: Param,
    pool_size: IntOrPair,
    strides: IntOrPair,
    padding: IntOrPair,
    dilation: IntOrPair = (1, 1),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    layout: str = "NCHW",
    out_layout: str = "",
) -> Call:
    """Quantized 2-D average pooling (float32 average, requantized)."""
    return call(
        "qnn.avg_pool2d",
        [
            data,
            _scale(input_scale),
            _zero_point(input_zero_point),
            _scale(output_scale),
            _zero_point(output_zero_point),
        ],
        pool_size=pair(pool_size, "pool_size"),
        strides=pair(strides, "strides"),
        padding=pad_tuple2d(padding),
        dilation=pair(dilation, "dilation"),
        ceil_mode=ceil_mode,
        count_include_pad=count_include_pad,
        layout=layout,
        out_layout=out_layout,
    )
