"""Converters of ONNX activations Relay composes from elementwise ops: ``Elu``,
``Selu``, ``Celu``, ``Softplus``, ``Softsign``, ``Mish``, ``ThresholdedRelu``,
``Shrink``."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _elu(node: Node, x: SSAValue, alpha: float) -> SSAValue:
    """``x if x > 0 else alpha * (exp(x) - 1)``, as Relay writes it:
    ``relu(x) - alpha * relu(1 - exp(x))``."""
    one_minus = node.op("subtract", [node.scalar(1.0, x), node.op("exp", [x])])
    neg = node.op("multiply", [node.scalar(alpha, x), node.op("nn.relu", [one_minus])])
    return node.op("subtract", [node.op("nn.relu", [x]), neg])


@converter("Elu")
def elu(node: Node) -> Outputs:
    return _elu(node, node.input(0), node.attr_float("alpha", 1.0))


@converter("Selu")
def selu(node: Node) -> Outputs:
    """``gamma * elu(x, alpha)``."""
    x = node.input(0)
    alpha = node.attr_float("alpha", 1.67326319217681884765625)
    gamma = node.attr_float("gamma", 1.05070102214813232421875)
    return node.op("multiply", [node.scalar(gamma, x), _elu(node, x, alpha)])


@converter("Celu")
def celu(node: Node) -> Outputs:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    x = node.input(0)
    alpha = node.attr_float("alpha", 1.0)
    scaled = node.op("divide", [x, node.scalar(alpha, x)])
    em1 = node.op("subtract", [node.op("exp", [scaled]), node.scalar(1.0, x)])
    neg = node.op(
        "minimum",
        [node.scalar(0.0, x), node.op("multiply", [node.scalar(alpha, x), em1])],
    )
    return node.op("add", [node.op("nn.relu", [x]), neg])


def _softplus(node: Node, x: SSAValue) -> SSAValue:
    """``log(1 + exp(x))`` without overflow: ``relu(x) + log(1 + exp(-|x|))``."""
    tail = node.op("exp", [node.op("negative", [node.op("abs", [x])])])
    log1p = node.op("log", [node.op("add", [node.scalar(1.0, x), tail])])
    return node.op("add", [node.op("nn.relu", [x]), log1p])


@converter("Softplus")
def softplus(node: Node) -> Outputs:
    return _softplus(node, node.input(0))


@converter("Mish")
def mish(node: Node) -> Outputs:
    """``x * tanh(softplus(x))``."""
    x = node.input(0)
    return node.op("multiply", [x, node.op("tanh", [_softplus(node, x)])])


@converter("Softsign")
def softsign(node: Node) -> Outputs:
    """``x / (1 + |x|)``."""
    x = node.input(0)
    den = node.op("add", [node.scalar(1.0, x), node.op("abs", [x])])
    return node.op("divide", [x, den])


@converter("ThresholdedRelu")
def thresholded_relu(node: Node) -> Outputs:
    """``x if x > alpha else 0``."""
    x = node.input(0)
    alpha = node.attr_float("alpha", 1.0)
    keep = node.op("greater", [x, node.scalar(alpha, x)])
    return node.op("where", [keep, x, node.scalar(0, x)])


@converter("Shrink")
def shrink(node: Node) -> Outputs:
    """``x + bias if x < -lambd``, ``x - bias if x > lambd``, else 0."""
    x = node.input(0)
    lambd = node.attr_float("lambd", 0.5)
    bias = node.attr_float("bias", 0.0)
    low = node.op("less", [x, node.scalar(-lambd, x)])
    high = node.op("greater", [x, node.scalar(lambd, x)])
    zero = node.scalar(0, x)
    upper = node.op(
        "where", [high, node.op("subtract", [x, node.scalar(bias, x)]), zero]
    )
    return node.op("where", [low, node.op("add", [x, node.scalar(bias, x)]), upper])


@converter("Swish")
def swish(node: Node) -> Outputs:
    """``x * sigmoid(alpha * x)``."""
    x = node.input(0)
    alpha = node.attr_float("alpha", 1.0)
    scaled = x if alpha == 1.0 else node.op("multiply", [x, node.scalar(alpha, x)])
    return node.op("multiply", [x, node.op("sigmoid", [scaled])])
