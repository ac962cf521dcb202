"""Converter of ONNX ``Scan`` with a static sequence length: the body graph is
converted once per step, inline (as the RNN converters unroll their cells), the
state variables threaded from step to step.

Opset 9 and later: each scan input is split along its ``scan_input_axes`` entry (read
backwards where ``scan_input_directions`` is 1); each scan output stacks the step
values along its ``scan_output_axes`` entry (in reverse order where
``scan_output_directions`` is 1). Opset 8: every input has a batch dim first and is
scanned along dim 1 (``directions`` per scan input); the body is unrolled per batch
entry. Its ``sequence_lens`` must be absent or known at import time and equal to the
sequence length everywhere (padding is not supported).
"""

from __future__ import annotations

from collections.abc import Sequence

import onnx
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.control_flow import (
    bind_outer_weights,
    convert_subgraph,
    subgraph_scope,
)
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

MAX_STEPS = 4096
"""Longest sequence unrolled (each step is a copy of the body)."""


def _flags(node: Node, name: str, count: int, default: int = 0) -> list[int]:
    values = node.attr_ints(name, [default] * count)
    if len(values) != count:
        raise ConversionError(f"'{name}' has {len(values)} values for {count}")
    return values


def _steps(node: Node, x: SSAValue, axis: int, reverse: bool) -> list[SSAValue]:
    """``x`` cut along ``axis`` into its slices, without that axis (last first when
    ``reverse``)."""
    shape = node.shape(x)
    length = shape[axis]
    rest = [*shape[:axis], *shape[axis + 1 :]]
    if length == 1:
        parts = [x]
    else:
        parts = node.ops("split", [x], indices_or_sections=length, axis=axis)
    steps = [node.reshape(p, rest) for p in parts]
    return steps[::-1] if reverse else steps


def _unroll(
    node: Node,
    body: onnx.GraphProto,
    states: Sequence[SSAValue],
    steps: Sequence[Sequence[SSAValue]],
    length: int,
) -> tuple[list[SSAValue], list[list[SSAValue]]]:
    """Run ``body`` ``length`` times: the final states and, per scan output, its
    value at each step."""
    n = len(states)
    names = [i.name for i in body.input]
    if len(names) != n + len(steps):
        raise ConversionError(
            f"the body takes {len(names)} inputs for {n} state variables and "
            f"{len(steps)} scan inputs"
        )
    k = len(body.output) - n
    if k < 0:
        raise ConversionError(
            f"the body returns {len(body.output)} values for {n} state variables"
        )
    current = list(states)
    outputs: list[list[SSAValue]] = [[] for _ in range(k)]
    for t in range(length):
        scope = subgraph_scope(node.graph, body)
        for name, value in zip(names, [*current, *(s[t] for s in steps)], strict=True):
            scope.env[name] = value
        values = convert_subgraph(body, scope)
        for i, (old, new) in enumerate(zip(current, values[:n], strict=True)):
            if node.shape(old) != node.shape(new) or node.dtype(old) != node.dtype(new):
                raise ConversionError(
                    f"state variable #{i} changes type in the body "
                    f"({node.dtype(old)}{list(node.shape(old))} -> "
                    f"{node.dtype(new)}{list(node.shape(new))})"
                )
        current = values[:n]
        for j, v in enumerate(values[n:]):
            outputs[j].append(v)
    return current, outputs


def _length(node: Node, scans: Sequence[SSAValue], axes: Sequence[int]) -> int:
    lengths = {node.shape(x)[a] for x, a in zip(scans, axes, strict=True)}
    if len(lengths) != 1:
        raise ConversionError(
            f"the scan inputs have different sequence lengths {sorted(lengths)}"
        )
    length = lengths.pop()
    if length == 0:
        raise ConversionError("a scan over an empty sequence is not supported")
    if length > MAX_STEPS:
        raise ConversionError(
            f"a sequence of {length} steps is longer than the {MAX_STEPS} unrolled"
        )
    return length


def _body(node: Node) -> onnx.GraphProto:
    body = node.attrs.get("body")
    if not isinstance(body, onnx.GraphProto):
        raise ConversionError("the attribute 'body' must be a graph")
    return body


@converter("Scan")
def scan(node: Node) -> Outputs:
    if node.opset < 9:
        return _scan8(node)
    body = _body(node)
    m = node.attr_int("num_scan_inputs")
    values = [node.input(i) for i in range(node.num_inputs)]
    n = len(values) - m
    if m < 1 or n < 0:
        raise ConversionError(f"num_scan_inputs {m} for {len(values)} inputs")
    states, scans = values[:n], values[n:]
    axes = [
        node.axis(a, node.rank(x), "scan_input_axes entry")
        for a, x in zip(_flags(node, "scan_input_axes", m), scans, strict=True)
    ]
    dirs = _flags(node, "scan_input_directions", m)
    length = _length(node, scans, axes)
    bind_outer_weights(node.graph, body)
    steps = [
        _steps(node, x, a, bool(d)) for x, a, d in zip(scans, axes, dirs, strict=True)
    ]
    finals, outputs = _unroll(node, body, states, steps, length)
    k = len(outputs)
    out_axes = _flags(node, "scan_output_axes", k)
    out_dirs = _flags(node, "scan_output_directions", k)
    stacked: list[SSAValue] = []
    for vals, axis, reverse in zip(outputs, out_axes, out_dirs, strict=True):
        rank = node.rank(vals[0]) + 1
        axis = node.axis(axis, rank, "scan_output_axes entry")
        stacked.append(node.op("stack", vals[::-1] if reverse else vals, axis=axis))
    return [*finals, *stacked]


def _scan8(node: Node) -> Outputs:
    """Opset 8: batched inputs, scanned along dim 1, one unrolled body per batch
    entry."""
    body = _body(node)
    m = node.attr_int("num_scan_inputs")
    values = [node.input(i) for i in range(1, node.num_inputs)]
    n = len(values) - m
    if m < 1 or n < 0:
        raise ConversionError(f"num_scan_inputs {m} for {len(values)} inputs")
    if any(node.rank(v) < 1 for v in values) or any(
        node.rank(x) < 2 for x in values[n:]
    ):
        raise ConversionError("opset-8 Scan inputs need a batch dim (and a time dim)")
    batches = {node.shape(v)[0] for v in values}
    if len(batches) != 1:
        raise ConversionError(f"the inputs have different batch sizes {batches}")
    batch = batches.pop()
    if batch == 0:
        raise ConversionError("an opset-8 Scan over an empty batch is not supported")
    length = _length(node, values[n:], [1] * m)
    lens = node.static_ints(0, "sequence_lens")
    if lens is not None and any(v != length for v in lens):
        raise ConversionError(
            f"sequence_lens {lens} differ from the sequence length {length}: "
            "padded sequences are not supported"
        )
    dirs = _flags(node, "directions", m)
    bind_outer_weights(node.graph, body)
    per_batch = [_steps(node, v, 0, False) for v in values]
    finals: list[list[SSAValue]] = []
    outputs: list[list[SSAValue]] = []
    for b in range(batch):
        states = [v[b] for v in per_batch[:n]]
        steps = [
            _steps(node, x[b], 0, bool(d))
            for x, d in zip(per_batch[n:], dirs, strict=True)
        ]
        final, outs = _unroll(node, body, states, steps, length)
        finals.append(final)
        outputs.append([node.op("stack", vals, axis=0) for vals in outs])
    result = [node.op("stack", list(col), axis=0) for col in zip(*finals, strict=True)]
    result += [
        node.op("stack", list(col), axis=0) for col in zip(*outputs, strict=True)
    ]
    return result
