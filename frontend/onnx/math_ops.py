"""Converters of ONNX math ops Relay composes: ``Round`` (halves to even), ``Sign``,
``Mean``, ``Xor``, ``Hardmax``, ``LpNormalization``."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("Round")
def round_(node: Node) -> Outputs:
    return round_half_even(node, node.input(0))


def round_half_even(node: Node, x: SSAValue) -> SSAValue:
    """``x`` rounded to the nearest integer, halves to even (numpy's ``rint``, what
    ONNX's ``Round`` and the quantizers do); relay.round rounds halves away from zero:
    a tie (``|x - trunc(x)| == 0.5``) takes ``2 * round(x / 2)`` instead."""
    away = node.op("round", [x])
    frac = node.op("abs", [node.op("subtract", [x, node.op("trunc", [x])])])
    tie = node.op("equal", [frac, node.scalar(0.5, x)])
    half = node.op("round", [node.op("multiply", [x, node.scalar(0.5, x)])])
    even = node.op("multiply", [half, node.scalar(2.0, x)])
    return node.op("where", [tie, even, away])


@converter("Sign")
def sign(node: Node) -> Outputs:
    return node.op("sign", [node.input(0)])


@converter("Mean")
def mean(node: Node) -> Outputs:
    """The sum of the (broadcasting) inputs divided by their count."""
    values = [node.input(i) for i in range(node.num_inputs)]
    if not values:
        raise ConversionError("needs at least one input")
    out = values[0]
    for value in values[1:]:
        out = node.op("add", [out, value])
    if len(values) == 1:
        return out
    return node.op("divide", [out, node.scalar(len(values), out)])


@converter("Xor")
def xor(node: Node) -> Outputs:
    """Logical xor of bool tensors: ``a != b``."""
    return node.op("not_equal", [node.input(0), node.input(1)])


@converter("Hardmax")
def hardmax(node: Node) -> Outputs:
    """1 at the first maximum along ``axis``, 0 elsewhere. Before opset 13 the input
    is seen as 2-D ``[prod(dims[:axis]), prod(dims[axis:])]``."""
    x = node.input(0)
    shape = node.shape(x)
    rank = len(shape)
    if node.opset >= 13:
        axis = node.axis(node.attr_int("axis", -1), rank)
        flat = x
    else:
        axis = node.axis(node.attr_int("axis", 1), rank)
        outer = int(np.prod(shape[:axis], dtype=np.int64))
        flat = node.reshape(x, [outer, int(np.prod(shape[axis:], dtype=np.int64))])
        axis = 1
    fshape = node.shape(flat)
    first = node.op("argmax", [flat], axis=[axis], keepdims=True)
    positions = [1] * len(fshape)
    positions[axis] = fshape[axis]
    iota = node.const(np.arange(fshape[axis], dtype=np.int32).reshape(positions))
    hit = node.op("equal", [iota, first])
    out = node.op("cast", [hit], dtype=str(node.dtype(x)))
    return node.reshape(out, shape)


@converter("LpNormalization")
def lp_normalization(node: Node) -> Outputs:
    """``x / ||x||_p`` along ``axis`` (p 1 or 2); 0 where the norm is 0."""
    x = node.input(0)
    axis = node.axis(node.attr_int("axis", -1), node.rank(x))
    p = node.attr_int("p", 2)
    if p == 1:
        norm = node.op("sum", [node.op("abs", [x])], axis=[axis], keepdims=True)
    elif p == 2:
        squares = node.op("multiply", [x, x])
        norm = node.op("sqrt", [node.op("sum", [squares], axis=[axis], keepdims=True)])
    else:
        raise ConversionError(f"p must be 1 or 2, got {p}")
    zero = node.op("equal", [norm, node.scalar(0, x)])
    safe = node.op("where", [zero, node.scalar(1, x), norm])
    return node.op("where", [zero, node.scalar(0, x), node.op("divide", [x, safe])])


@converter("IsNaN")
def is_nan(node: Node) -> Outputs:
    """``x != x``."""
    x = node.input(0)
    return node.op("not_equal", [x, x])


@converter("IsInf")
def is_inf(node: Node) -> Outputs:
    """``x == +inf`` and/or ``x == -inf`` (``detect_positive``, ``detect_negative``)."""
    x = node.input(0)
    pos = node.op("equal", [x, node.scalar(np.inf, x)])
    neg = node.op("equal", [x, node.scalar(-np.inf, x)])
    want_pos = bool(node.attr_int("detect_positive", 1))
    want_neg = bool(node.attr_int("detect_negative", 1))
    if want_pos and want_neg:
        return node.op("logical_or", [pos, neg])
    if want_pos:
        return pos
    if want_neg:
        return neg
    return node.op("logical_and", [pos, neg])  # never true


@converter("Tan")
def tan(node: Node) -> Outputs:
    x = node.input(0)
    return node.op("divide", [node.op("sin", [x]), node.op("cos", [x])])


@converter("Sinh", "Cosh")
def sinh_cosh(node: Node) -> Outputs:
    """``(exp(x) -+ exp(-x)) / 2``."""
    x = node.input(0)
    up, down = node.op("exp", [x]), node.op("exp", [node.op("negative", [x])])
    both = node.op("subtract" if node.op_type == "Sinh" else "add", [up, down])
    return node.op("multiply", [both, node.scalar(0.5, x)])


@converter("MeanVarianceNormalization")
def mean_variance_normalization(node: Node) -> Outputs:
    """``(x - mean) / sqrt(variance)`` over ``axes`` (default ``[0, 2, 3]``)."""
    x = node.input(0)
    rank = node.rank(x)
    axes = sorted(
        {node.axis(a, rank, "axes entry") for a in node.attr_ints("axes", [0, 2, 3])}
    )
    mean = node.op("mean", [x], axis=axes, keepdims=True)
    var = node.op("variance", [x, mean], axis=axes, keepdims=True)
    centered = node.op("subtract", [x, mean])
    return node.op("divide", [centered, node.op("sqrt", [var])])


@converter("EyeLike")
def eye_like(node: Node) -> Outputs:
    """A 2-D constant with ones on diagonal ``k`` (the input's shape, its dtype or
    ``dtype``)."""
    shape = node.input_shape(0)
    if len(shape) != 2:
        raise ConversionError(f"the input must be 2-D, got rank {len(shape)}")
    if node.has_attr("dtype"):
        from xrelay.frontend.onnx.graph import numpy_dtype_of

        dtype = numpy_dtype_of(node.attr_int("dtype"), "dtype")
    else:
        dtype = node.dtype(node.input(0))
    return node.const(np.eye(shape[0], shape[1], k=node.attr_int("k", 0), dtype=dtype))
