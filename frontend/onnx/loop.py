"""Converter of ONNX ``Loop`` with a static trip count: the body graph is converted
once per step, inline (as ``Scan`` is, see scan.py), the loop-carried values
threaded from step to step.

The trip count ``M`` and the initial condition must be known at import time (an
initializer, a Constant or computed from them); each step binds ``iteration_num``
to a constant, and the body's ``cond`` output must fold to a constant after every
step but the last one the trip count allows: the unrolling stops where it is false.
A condition that depends on data is a dynamic trip count, which static shapes
cannot express. Scan outputs are stacked along a new axis 0.
"""

from __future__ import annotations

import numpy as np
import onnx
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.control_flow import (
    bind_outer_weights,
    convert_subgraph,
    subgraph_scope,
)
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Builder, Node, Outputs, converter

MAX_STEPS = 4096
"""Most steps unrolled (each step is a copy of the body)."""


def _input_shape(body: onnx.GraphProto, i: int) -> tuple[int, ...]:
    """The declared shape of the body's input ``i`` when it has one (``()`` for a
    scalar or an undeclared shape); ``iteration_num`` and ``cond`` may be ``[1]``."""
    tt = body.input[i].type.tensor_type
    if tt.HasField("shape") and len(tt.shape.dim) == 1:
        return (1,)
    return ()


def _condition(node: Node, value: SSAValue, step: int) -> bool:
    known = Builder.value(value)
    if known is None:
        raise ConversionError(
            f"the body's condition after step {step} depends on data: a Loop with a "
            "dynamic trip count is not supported (static shapes)"
        )
    if known.size != 1:
        raise ConversionError(f"the body's condition has {known.size} elements, not 1")
    return bool(known.reshape(()))


@converter("Loop")
def loop(node: Node) -> Outputs:
    body = node.attrs.get("body")
    if not isinstance(body, onnx.GraphProto):
        raise ConversionError("the attribute 'body' must be a graph")
    trips: int | None = None
    if node.has_input(0):
        m = node.static(0, "trip count M")
        if m.size != 1:
            raise ConversionError(f"the trip count M has {m.size} elements, not 1")
        trips = max(int(m.reshape(())), 0)
    cond = True
    if node.has_input(1):
        c = node.static(1, "condition")
        if c.size != 1:
            raise ConversionError(f"the condition has {c.size} elements, not 1")
        cond = bool(c.reshape(()))
    if trips is None and not node.has_input(1):
        raise ConversionError("a Loop without a trip count and a condition never ends")
    carried = [node.input(i) for i in range(2, node.num_inputs)]
    n = len(carried)
    names = [i.name for i in body.input]
    if len(names) != n + 2:
        raise ConversionError(
            f"the body takes {len(names)} inputs for {n} loop-carried values "
            "(it needs the iteration number and the condition first)"
        )
    k = len(body.output) - 1 - n
    if k < 0:
        raise ConversionError(
            f"the body returns {len(body.output)} values for the condition and "
            f"{n} loop-carried values"
        )
    bind_outer_weights(node.graph, body)
    it_shape, cond_shape = _input_shape(body, 0), _input_shape(body, 1)
    current = list(carried)
    scans: list[list[SSAValue]] = [[] for _ in range(k)]
    step = 0
    while cond and (trips is None or step < trips):
        if step == MAX_STEPS:
            raise ConversionError(
                f"the Loop runs more than the {MAX_STEPS} steps unrolled"
            )
        scope = subgraph_scope(node.graph, body)
        scope.env[names[0]] = node.const(np.full(it_shape, step, np.int64))
        scope.env[names[1]] = node.const(np.full(cond_shape, cond, np.bool_))
        for name, value in zip(names[2:], current, strict=True):
            scope.env[name] = value
        values = convert_subgraph(body, scope)
        for i, (old, new) in enumerate(zip(current, values[1 : n + 1], strict=True)):
            if node.dtype(old) != node.dtype(new):
                raise ConversionError(
                    f"loop-carried value #{i} changes type in the body "
                    f"({node.dtype(old)} -> {node.dtype(new)})"
                )
        current = values[1 : n + 1]
        for j, v in enumerate(values[n + 1 :]):
            if scans[j] and node.shape(scans[j][0]) != node.shape(v):
                raise ConversionError(
                    f"scan output #{j} changes shape from step to step "
                    f"({list(node.shape(scans[j][0]))} -> {list(node.shape(v))})"
                )
            scans[j].append(v)
        step += 1
        if trips is None or step < trips:
            cond = _condition(node, values[0], step - 1)
    if k and step == 0:
        raise ConversionError(
            "a Loop that runs no step has empty scan outputs, which are not supported"
        )
    return [*current, *(node.op("stack", vals, axis=0) for vals in scans)]
