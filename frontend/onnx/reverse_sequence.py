"""The converter of ``ReverseSequence``: along ``time_axis``, batch entry ``b``'s first
``sequence_lens[b]`` steps in reverse order, the rest as they are.

Relay's ``gather`` along the time axis with indices computed from the lengths:
``t' = L[b] - 1 - t`` where ``t < L[b]``, else ``t``, with ``L`` the lengths clamped
into ``[0, max_time]``. The lengths may be run-time data: every index stays inside the
time axis by construction (a length beyond the axis reverses the whole axis, one at or
below 0 leaves the entry as it is), where the reference evaluator and onnxruntime
refuse such lengths.
"""

from __future__ import annotations

import numpy as np

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("ReverseSequence")
def reverse_sequence(node: Node) -> Outputs:
    x = node.input(0)
    shape = node.shape(x)
    if len(shape) < 2:
        raise ConversionError(
            f"input must have rank 2 or more, got shape {list(shape)}"
        )
    time_axis = node.attr_int("time_axis", 0)
    batch_axis = node.attr_int("batch_axis", 1)
    if sorted((time_axis, batch_axis)) != [0, 1]:
        raise ConversionError(
            f"time_axis and batch_axis must be 0 and 1 in some order, got "
            f"{time_axis} and {batch_axis}"
        )
    lens = node.input(1, "sequence_lens")
    if node.shape(lens) != (shape[batch_axis],):
        raise ConversionError(
            f"sequence_lens must have shape [{shape[batch_axis]}] (the batch), got "
            f"{list(node.shape(lens))}"
        )
    steps = shape[time_axis]
    lens = node.op("cast", [lens], dtype="int64")
    lens = node.op("maximum", [lens, node.const(np.array(0, np.int64))])
    lens = node.op("minimum", [lens, node.const(np.array(steps, np.int64))])
    # lengths along the batch axis, steps along the time axis: a [T, B] or [B, T] grid
    grid = [1, 1]
    grid[batch_axis] = shape[batch_axis]
    lens = node.reshape(lens, grid)
    ts = [1, 1]
    ts[time_axis] = steps
    t = node.const(np.arange(steps, dtype=np.int64).reshape(ts))
    one = node.const(np.array(1, np.int64))
    reversed_t = node.op("subtract", [node.op("subtract", [lens, one]), t])
    index = node.op("where", [node.op("less", [t, lens]), reversed_t, t])
    # the same index for every trailing element
    full = [shape[0], shape[1], *([1] * (len(shape) - 2))]
    index = node.reshape(index, full)
    index = node.op("broadcast_to", [index], shape=list(shape))
    return node.op("gather", [x, index], axis=time_axis)
