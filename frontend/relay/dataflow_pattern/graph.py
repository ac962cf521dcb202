"""The indexed dataflow graph of an expression (or of a pattern): nodes in
topological order (inputs before users), their inputs and outputs, and the
post-dominator tree that dominator patterns and partitioning ask."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from xrelay.frontend.relay.expr_functor import Node, node_inputs

T = TypeVar("T", bound=Hashable)


class GraphNode(Generic[T]):
    """One node: ``ref`` (the expression), its ``inputs`` and ``outputs`` (users),
    and its place in the post-dominator tree."""

    def __init__(self, ref: T, index: int):
        self.ref = ref
        self.index = index
        self.inputs: list[GraphNode[T]] = []
        self.outputs: list[GraphNode[T]] = []
        self.depth = 1
        self.dominator_parent: GraphNode[T] | None = None
        self.dominator_children: list[GraphNode[T]] = []

    def dominates(self, other: GraphNode[T]) -> bool:
        """Whether ``other`` is below this node in the post-dominator tree (every
        path from ``other`` to the graph's output goes through this node)."""
        stack: list[GraphNode[T]] = [self]
        seen: set[int] = set()
        while stack:
            for child in stack.pop().dominator_children:
                if child.index in seen:
                    continue
                if child is other:
                    return True
                seen.add(child.index)
                stack.append(child)
        return False


class IndexedGraph(Generic[T]):
    """The graph below ``root`` along ``inputs_of`` (each node once)."""

    def __init__(self, root: T, inputs_of: Callable[[T], list[T]]):
        self.node_map: dict[T, GraphNode[T]] = {}
        self.topological_order: list[GraphNode[T]] = []
        stack: list[tuple[T, bool]] = [(root, False)]
        while stack:
            ref, ready = stack.pop()
            if ref in self.node_map:
                continue
            kids = inputs_of(ref)
            if not ready:
                stack.append((ref, True))
                stack.extend(
                    (k, False) for k in reversed(kids) if k not in self.node_map
                )
                continue
            node = GraphNode(ref, len(self.topological_order))
            self.node_map[ref] = node
            self.topological_order.append(node)
            for kid in kids:
                child = self.node_map[kid]
                node.inputs.append(child)
                child.outputs.append(node)
        self._post_dominators()

    def node(self, ref: T) -> GraphNode[T]:
        return self.node_map[ref]

    def _post_dominators(self) -> None:
        for node in reversed(self.topological_order):
            parent = _common_ancestor(node.outputs)
            node.dominator_parent = parent
            node.depth = 1 if parent is None else parent.depth + 1
            if parent is not None:
                parent.dominator_children.append(node)


def _common_ancestor(nodes: list[GraphNode[T]]) -> GraphNode[T] | None:
    if not nodes:
        return None
    found: GraphNode[T] | None = nodes[0]
    for other in nodes[1:]:
        found = _pair_ancestor(found, other)
    return found


def _pair_ancestor(
    lhs: GraphNode[T] | None, rhs: GraphNode[T] | None
) -> GraphNode[T] | None:
    while lhs is not None and rhs is not None and lhs is not rhs:
        if lhs.depth < rhs.depth:
            rhs = rhs.dominator_parent
        elif lhs.depth > rhs.depth:
            lhs = lhs.dominator_parent
        else:
            lhs, rhs = lhs.dominator_parent, rhs.dominator_parent
    return lhs if lhs is rhs else None


def expr_graph(root: Node) -> IndexedGraph[Node]:
    """The graph of an expression: a call's inputs are its op and its arguments, a
    function's its parameters and body, ..."""
    return IndexedGraph(root, node_inputs)
