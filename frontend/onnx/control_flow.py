"""Converter of ONNX ``If``: ``relay.if`` whose regions hold the converted branch
subgraphs (they may read values of the enclosing graph). A condition known at
import time imports only the branch it takes, inline."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import onnx
from xdsl.ir import Block, Region, SSAValue

from xrelay.dialects.relay.structural import IfOp, YieldOp
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import (
    CONVERTERS,
    Graph,
    Initializer,
    Node,
    Outputs,
    converter,
    numpy_dtype_of,
)


def _outer_names(graph: onnx.GraphProto) -> Iterator[str]:
    """Names a subgraph (and the subgraphs inside it) reads."""
    for proto in graph.node:
        yield from (n for n in proto.input if n)
        for attr in proto.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from _outer_names(attr.g)


def convert_subgraph(graph: onnx.GraphProto, g: Graph) -> list[SSAValue]:
    """Convert the nodes of a subgraph (a branch, a loop body) with ``g`` (its env
    extended by the subgraph's own values, see :func:`subgraph_scope`); its
    outputs."""
    for init in graph.initializer:
        numpy_dtype_of(init.data_type, f"initializer '{init.name}'")
        g.env[init.name] = Initializer(init.name, onnx.numpy_helper.to_array(init), 0)
    for proto in graph.node:
        key = (
            proto.op_type
            if proto.domain in ("", "ai.onnx")
            else f"{proto.domain}.{proto.op_type}"
        )
        fn = CONVERTERS.get(key)
        if fn is None:
            raise ConversionError(f"the branch uses the unsupported operator {key}")
        for name in proto.input:
            if name and name not in g.env:
                raise ConversionError(
                    f"the branch reads '{name}', which is not defined"
                )
        result = fn(Node(proto, g))
        values = [result] if isinstance(result, SSAValue) else list(result)
        for i, name in enumerate(proto.output):
            if name and i < len(values) and values[i] is not None:
                g.env[name] = values[i]  # pyright: ignore[reportArgumentType]
    missing = [o.name for o in graph.output if o.name not in g.env]
    if missing:
        raise ConversionError(f"the branch does not compute its output '{missing[0]}'")
    return [g.runtime(o.name) for o in graph.output]


def bind_outer_weights(g: Graph, *graphs: onnx.GraphProto) -> None:
    """Make the enclosing weights ``graphs`` read values of the enclosing block now,
    so that every scope copied from ``g`` shares them (one constant or parameter)."""
    for graph in graphs:
        for name in set(_outer_names(graph)):
            if name in g.env:
                g.runtime(name)


def subgraph_scope(g: Graph, graph: onnx.GraphProto) -> Graph:
    """A scope for subgraph ``graph`` of ``g``: the enclosing values, and weights of
    its own; the values the subgraph reads or returns count as consumed (so that
    converters produce the optional outputs it uses)."""
    sub = Graph(g.builder, g.freeze_params, g.opset)
    sub.params = g.params
    sub.consumed = {*g.consumed, *_outer_names(graph), *(o.name for o in graph.output)}
    sub.env = {
        k: dataclasses.replace(v) if isinstance(v, Initializer) else v
        for k, v in g.env.items()
    }
    return sub


@converter("If")
def if_(node: Node) -> Outputs:
    then_graph = node.attrs.get("then_branch")
    else_graph = node.attrs.get("else_branch")
    if not isinstance(then_graph, onnx.GraphProto) or not isinstance(
        else_graph, onnx.GraphProto
    ):
        raise ConversionError("then_branch and else_branch must be graphs")
    g = node.graph
    known = g.static(node.inputs[0]) if node.has_input(0) else None
    if known is not None:
        if known.size != 1:
            raise ConversionError(
                f"the condition must have one element, got {known.size}"
            )
        taken = then_graph if bool(known.reshape(())) else else_graph
        return convert_subgraph(taken, subgraph_scope(g, taken))
    cond = node.input(0)
    if node.shape(cond) != ():
        cond = node.reshape(cond, [])
    # enclosing weights the branches use become values of the enclosing block first
    bind_outer_weights(g, then_graph, else_graph)
    builder = g.builder
    outer = builder.block
    regions: list[Region] = []
    yielded: list[list[SSAValue]] = []
    try:
        for branch in (then_graph, else_graph):
            builder.block = Block()
            values = convert_subgraph(branch, subgraph_scope(g, branch))
            builder.block.add_op(YieldOp.create(operands=values))
            regions.append(Region(builder.block))
            yielded.append(values)
    finally:
        builder.block = outer
    then_types = [v.type for v in yielded[0]]
    else_types = [v.type for v in yielded[1]]
    if then_types != else_types:
        raise ConversionError(
            "the branches give different types "
            f"({', '.join(map(str, then_types))} vs {', '.join(map(str, else_types))}): "
            "relay.if needs one static type per output"
        )
    op = IfOp(cond, then_types, regions[0], regions[1])
    outer.add_op(op)
    return list(op.results)
