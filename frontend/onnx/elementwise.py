"""Converters of elementwise ONNX ops: arithmetic, comparisons and logic (numpy
broadcasting, as in relay), unary math, activations, Cast and Where."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import dtypes
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter, numpy_dtype_of

_BINARY = {
    "Add": "add",
    "Sub": "subtract",
    "Mul": "multiply",
    "Div": "divide",
    "Equal": "equal",
    "Less": "less",
    "Greater": "greater",
    "LessOrEqual": "less_equal",
    "GreaterOrEqual": "greater_equal",
    "And": "logical_and",
    "Or": "logical_or",
}


@converter(*_BINARY)
def binary(node: Node) -> Outputs:
    """Broadcasting binary ops (ONNX's multidirectional broadcasting is numpy's)."""
    return node.op(_BINARY[node.op_type], [node.input(0), node.input(1)])


@converter("Mod")
def mod(node: Node) -> Outputs:
    """``fmod=0``: the remainder with the divisor's sign (``floor_mod``); ``fmod=1``:
    with the dividend's sign (``mod``, C's ``fmod``). Integer ``x mod 0`` is 0."""
    fmod = node.attr_int("fmod", 0)
    if fmod not in (0, 1):
        raise ConversionError(f"fmod must be 0 or 1, got {fmod}")
    is_float = dtypes.is_float_dtype(node.dtype(node.input(0)))
    if is_float and fmod == 0:
        raise ConversionError("fmod=0 is only defined for integer inputs")
    return node.op("mod" if fmod else "floor_mod", [node.input(0), node.input(1)])


@converter("Pow")
def pow_(node: Node) -> Outputs:
    """``X ** Y``; the exponent may have another dtype than the base (it is cast)."""
    base, exponent = node.input(0), node.input(1)
    if node.dtype(exponent) != node.dtype(base):
        exponent = node.op("cast", [exponent], dtype=str(node.dtype(base)))
    return node.op("power", [base, exponent])


_VARIADIC = {"Max": "maximum", "Min": "minimum", "Sum": "add"}


@converter(*_VARIADIC)
def variadic(node: Node) -> Outputs:
    """``Max``, ``Min``, ``Sum`` of any number of broadcasting inputs."""
    values = [node.input(i) for i in range(node.num_inputs)]
    if not values:
        raise ConversionError("needs at least one input")
    out = values[0]
    for value in values[1:]:
        out = node.op(_VARIADIC[node.op_type], [out, value])
    return out


_UNARY = {
    "Sqrt": "sqrt",
    "Exp": "exp",
    "Log": "log",
    "Erf": "erf",
    "Tanh": "tanh",
    "Sigmoid": "sigmoid",
    "Relu": "nn.relu",
    "Neg": "negative",
    "Abs": "abs",
    "Floor": "floor",
    "Ceil": "ceil",
    "Sin": "sin",
    "Cos": "cos",
    "Acos": "acos",
    "Asin": "asin",
    "Atan": "atan",
    "Acosh": "acosh",
    "Asinh": "asinh",
    "Atanh": "atanh",
    "Not": "logical_not",
}


@converter(*_UNARY)
def unary(node: Node) -> Outputs:
    return node.op(_UNARY[node.op_type], [node.input(0)])


@converter("Reciprocal")
def reciprocal(node: Node) -> Outputs:
    """``1 / X``."""
    x = node.input(0)
    return node.op("divide", [node.scalar(1, x), x])


@converter("Identity")
def identity(node: Node) -> Outputs:
    return node.input(0)


@converter("LeakyRelu")
def leaky_relu(node: Node) -> Outputs:
    return node.op(
        "nn.leaky_relu", [node.input(0)], alpha=node.attr_float("alpha", 0.01)
    )


@converter("PRelu")
def prelu(node: Node) -> Outputs:
    """``X if X > 0 else slope * X`` with ``slope`` broadcasting to ``X``: a slope with
    one non-1 dim (per channel) is ``nn.prelu`` on that axis; any other slope is
    ``where(X > 0, X, X * slope)``."""
    x, slope = node.input(0), node.input(1)
    xs, ss = node.shape(x), node.shape(slope)
    if node.opset < 7 and len(ss) == 1 and len(xs) >= 2 and ss[0] == xs[1] != 1:
        # opset 6: a 1-D slope is one value per channel (axis 1), not numpy-aligned
        return node.op("nn.prelu", [x, slope], axis=1)
    if len(ss) <= len(xs):
        aligned = (1,) * (len(xs) - len(ss)) + ss
        big = [k for k, d in enumerate(aligned) if d != 1]
        if len(big) == 1 and aligned[big[0]] == xs[big[0]]:
            alpha = node.reshape(slope, [xs[big[0]]])
            return node.op("nn.prelu", [x, alpha], axis=big[0])
    positive = node.op("greater", [x, node.scalar(0, x)])
    return node.op("where", [positive, x, node.op("multiply", [x, slope])])


def _bound(node: Node, i: int, attr: str, x: SSAValue) -> SSAValue | float | None:
    """A Clip bound: a number when static, a value when computed at run time."""
    if node.opset < 11:
        return node.attr_float(attr) if node.has_attr(attr) else None
    if not node.has_input(i):
        return None
    value = node.graph.static(node.inputs[i])
    if value is None:
        return node.input(i)
    if value.size != 1:
        raise ConversionError(
            f"the {attr} bound must be a scalar, got shape {value.shape}"
        )
    return float(value.reshape(()))


@converter("Clip")
def clip(node: Node) -> Outputs:
    """``min(max(X, lo), hi)``: ``relay.clip`` for two static bounds (``lo <= hi``),
    else ``maximum`` / ``minimum`` with the bounds given (inputs from opset 11,
    attributes before)."""
    x = node.input(0)
    lo, hi = _bound(node, 1, "min", x), _bound(node, 2, "max", x)
    if isinstance(lo, float) and isinstance(hi, float) and lo <= hi:
        return node.op("clip", [x], a_min=lo, a_max=hi)
    out = x
    for bound, name in ((lo, "maximum"), (hi, "minimum")):
        if bound is None:
            continue
        value = bound if isinstance(bound, SSAValue) else node.scalar(bound, x)
        out = node.op(name, [out, value])
    return out


def _affine(node: Node, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    """``alpha * x + beta`` (with ``x``'s dtype)."""
    out = node.op("multiply", [x, node.scalar(alpha, x)])
    return node.op("add", [out, node.scalar(beta, x)])


@converter("HardSigmoid")
def hard_sigmoid(node: Node) -> Outputs:
    """``clip(alpha * X + beta, 0, 1)``."""
    x = node.input(0)
    alpha, beta = node.attr_float("alpha", 0.2), node.attr_float("beta", 0.5)
    return node.op("clip", [_affine(node, x, alpha, beta)], a_min=0.0, a_max=1.0)


@converter("HardSwish")
def hard_swish(node: Node) -> Outputs:
    """``X * clip(X / 6 + 0.5, 0, 1)``."""
    x = node.input(0)
    gate = node.op("clip", [_affine(node, x, 1 / 6, 0.5)], a_min=0.0, a_max=1.0)
    return node.op("multiply", [x, gate])


@converter("Gelu")
def gelu(node: Node) -> Outputs:
    """``0.5 * X * (1 + erf(X / sqrt(2)))``, or with ``approximate="tanh"``
    ``0.5 * X * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 * X ** 3)))`` (opset 20; accepted
    in any opset)."""
    x = node.input(0)
    approximate = node.attr_str("approximate", "none")
    if approximate == "none":
        inner = node.op(
            "erf", [node.op("multiply", [x, node.scalar(1 / math.sqrt(2), x)])]
        )
    elif approximate == "tanh":
        cube = node.op("multiply", [node.op("multiply", [x, x]), x])
        poly = node.op(
            "add", [x, node.op("multiply", [cube, node.scalar(0.044715, x)])]
        )
        scaled = node.op("multiply", [poly, node.scalar(math.sqrt(2 / math.pi), x)])
        inner = node.op("tanh", [scaled])
    else:
        raise ConversionError(f"approximate='{approximate}' is not one of none, tanh")
    one_plus = node.op("add", [inner, node.scalar(1, x)])
    half_x = node.op("multiply", [x, node.scalar(0.5, x)])
    return node.op("multiply", [half_x, one_plus])


@converter("Cast")
def cast(node: Node) -> Outputs:
    x = node.input(0)
    dtype = numpy_dtype_of(node.attr_int("to"), "the target type 'to'")
    if dtype == node.dtype(x):
        return x
    return node.op("cast", [x], dtype=str(dtype))


@converter("CastLike")
def cast_like(node: Node) -> Outputs:
    x, like = node.input(0), node.input(1)
    if node.dtype(x) == node.dtype(like):
        return x
    return node.op("cast", [x], dtype=str(node.dtype(like)))


@converter("Where")
def where(node: Node) -> Outputs:
    cond = node.input(0)
    if node.dtype(cond) != np.dtype(np.bool_):
        raise ConversionError(f"the condition must be bool, got {node.dtype(cond)}")
    return node.op("where", [cond, node.input(1), node.input(2)])
