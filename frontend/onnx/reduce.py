"""Converters of ONNX reductions: ``ReduceMean``, ``ReduceSum``, ``ReduceMax``,
``ReduceMin``, ``ReduceProd``, ``ReduceL1``, ``ReduceL2``, ``ReduceSumSquare``,
``ReduceLogSumExp``, ``ArgMax``, ``ArgMin``.

The axes are an input from opset 18 (opset 13 for ``ReduceSum``) and an attribute
before. No axes reduce every axis, unless ``noop_with_empty_axes`` is set: then
nothing is reduced (the elementwise part of L1/L2/SumSquare still applies).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.graph import Node, Outputs, converter

_REDUCE = {
    "ReduceMean": "mean",
    "ReduceSum": "sum",
    "ReduceMax": "max",
    "ReduceMin": "min",
    "ReduceProd": "prod",
    "ReduceL1": "sum",
    "ReduceL2": "sum",
    "ReduceSumSquare": "sum",
    "ReduceLogSumExp": "logsumexp",
}


@converter(*_REDUCE)
def reduce(node: Node) -> Outputs:
    x = node.input(0)
    rank = node.rank(x)
    since = 13 if node.op_type == "ReduceSum" else 18
    if node.opset >= since:
        axes = node.static_ints(1, "axes")
        noop = bool(node.attr_int("noop_with_empty_axes", 0))
    else:
        axes = node.opt_attr_ints("axes")
        noop = False
    keepdims = bool(node.attr_int("keepdims", 1))
    if node.op_type == "ReduceL1":
        x = node.op("abs", [x])
    elif node.op_type in ("ReduceL2", "ReduceSumSquare"):
        x = node.op("multiply", [x, x])
    if not axes:
        if noop:
            out = x
            if node.op_type == "ReduceLogSumExp":
                out = node.op("log", [node.op("exp", [x])])
            elif node.op_type == "ReduceL2":
                out = node.op("sqrt", [x])
            return out
        norm = None
    else:
        norm = sorted({node.axis(a, rank, "axes entry") for a in axes})
    out: SSAValue = node.op(_REDUCE[node.op_type], [x], axis=norm, keepdims=keepdims)
    if node.op_type == "ReduceL2":
        out = node.op("sqrt", [out])
    return out


@converter("ArgMax", "ArgMin")
def arg_reduce(node: Node) -> Outputs:
    """Index of the extreme along ``axis`` as int64 (relay's is int32, cast)."""
    x = node.input(0)
    axis = node.axis(node.attr_int("axis", 0), node.rank(x))
    out = node.op(
        "argmax" if node.op_type == "ArgMax" else "argmin",
        [x],
        axis=[axis],
        keepdims=bool(node.attr_int("keepdims", 1)),
        select_last_index=bool(node.attr_int("select_last_index", 0)),
    )
    return node.op("cast", [out], dtype=str(np.dtype(np.int64)))
