"""Converters of ``GroupNormalization`` (opset 18's per-group and opset 21's
per-channel scale and bias) and ``RMSNormalization`` (opset 23), composed from
reductions and elementwise ops."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _as_dtype(node: Node, v: SSAValue, like: SSAValue) -> SSAValue:
    if node.dtype(v) == node.dtype(like):
        return v
    return node.op("cast", [v], dtype=str(node.dtype(like)))


@converter("GroupNormalization")
def group_norm(node: Node) -> Outputs:
    """``(x - mean) / sqrt(var + epsilon) * scale + bias``, mean and variance over
    each group of ``C / num_groups`` channels and all spatial positions."""
    x = node.input(0)
    shape = node.shape(x)
    if len(shape) < 2:
        raise ConversionError(f"the input must have rank >= 2, got {len(shape)}")
    n, c = shape[0], shape[1]
    groups = node.attr_int("num_groups")
    if groups < 1 or c % groups:
        raise ConversionError(f"C ({c}) is not a multiple of num_groups ({groups})")
    eps = node.attr_float("epsilon", 1e-5)
    grouped = node.reshape(x, [n, groups, _size(shape) // max(n * groups, 1)])
    mean = node.op("mean", [grouped], axis=[2], keepdims=True)
    var = node.op("variance", [grouped, mean], axis=[2], keepdims=True)
    den = node.op("sqrt", [node.op("add", [var, node.scalar(eps, x)])])
    normed = node.op("divide", [node.op("subtract", [grouped, mean]), den])
    normed = node.reshape(normed, shape)
    per_channel = [c] + [1] * (len(shape) - 2)
    scale, bias = node.input(1), node.input(2)
    out: SSAValue = normed
    for k, v in enumerate((scale, bias)):
        v = _as_dtype(node, v, x)
        size = _size(node.shape(v))
        if size == groups and groups != c:  # opset 18: one value per group
            v = node.op(
                "repeat", [node.reshape(v, [groups])], repeats=c // groups, axis=0
            )
        elif size != c:
            raise ConversionError(
                f"{'scale' if k == 0 else 'bias'} has {size} values for {c} channels "
                f"in {groups} groups"
            )
        v = node.reshape(v, per_channel)
        out = node.op("multiply" if k == 0 else "add", [out, v])
    return out


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for d in shape:
        size *= d
    return size


@converter("RMSNormalization")
def rms_norm(node: Node) -> Outputs:
    """``x / sqrt(mean(x**2 over axes [axis, rank)) + epsilon) * scale``."""
    x = node.input(0)
    rank = node.rank(x)
    axis = node.axis(node.attr_int("axis", -1), rank)
    eps = node.attr_float("epsilon", 1e-5)
    axes = list(range(axis, rank))
    ms = node.op("mean", [node.op("multiply", [x, x])], axis=axes, keepdims=True)
    rms = node.op("sqrt", [node.op("add", [ms, node.scalar(eps, x)])])
    out = node.op("divide", [x, rms])
    return node.op("multiply", [out, _as_dtype(node, node.input(1), x)])
