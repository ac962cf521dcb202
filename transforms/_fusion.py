"""Relay's fusion analysis on one block of SSA ops (shared by FuseOps and DefuseOps).

This is the analysis half of Relay's ``FuseOps`` (``IndexedForwardGraph``,
``DominatorTree::PostDom`` and ``GraphPartitioner``), re-expressed on a block of xDSL
ops instead of a Relay expression:

* **Nodes** are the block's ops (the terminator excluded), indexed in Relay's post-DFS
  order (:func:`post_dfs_order`: depth first from the terminator's operands, operands
  in order, each op after the ops it uses; ops the terminator does not reach follow in
  block order). Block arguments and values from enclosing blocks are inputs and have
  no node (Relay's function parameters, which are opaque and never fuse).
* **Patterns**: a relay op's ``PATTERN``; ``relay.tuple`` is ``TUPLE`` and
  ``relay.tuple_get_item`` ``INJECTIVE`` (``OPAQUE`` when its tuple has a non-tensor
  field); a ``relay.constant`` is ``ELEMWISE`` when it is a scalar of type i32, i64,
  f32, f64 or i1 and ``OPAQUE`` otherwise; ops with regions (``relay.if``),
  ``func.call`` and ops of other dialects are ``OPAQUE``.
* **Edges** go from a producer to each consumer, labelled with the consumer's pattern;
  ``BROADCAST`` becomes ``ELEMWISE`` for an operand whose shape equals the (single)
  result's shape. Tuple fields get ``INJECTIVE`` edges.
* **External references** (values nothing can fuse through): the terminator's
  operands, the operands of ops with regions and every value used inside their
  regions, tuple-typed fields of a tuple and the tuple of a projection whose tuple
  has non-tensor fields.

:func:`partition` then runs Relay's three-phase union-find over the post-dominator
tree and gives, for each node, the index of its group's root node.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import TensorType, TupleType, UnrankedTensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.traits import IsTerminator

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import OpPattern, RelayOp
from xrelay.dialects.relay.structural import ConstantOp, TupleGetItemOp, TupleOp
from xrelay.pass_manager.analysis import Analysis, AnalysisManager


class FusionError(RuntimeError):
    """The fusion analysis reached a state Relay's algorithm rules out (a bug)."""


# ---------------------------------------------------------------------------------------
# Scheduling: Relay's post-DFS order of a block
# ---------------------------------------------------------------------------------------


def block_terminator(block: Block) -> Operation | None:
    """The block's terminator, if its last op is one."""
    last = block.last_op
    if last is not None and last.has_trait(IsTerminator):
        return last
    return None


def _defining_op(value: SSAValue, block: Block) -> Operation | None:
    """The op of ``block`` that defines ``value`` (None for block arguments and values
    from other blocks)."""
    if isinstance(value, OpResult) and value.op.parent is block:
        return value.op
    return None


def captured_values(op: Operation) -> Iterator[SSAValue]:
    """The values used inside ``op``'s regions (in walk order), including values
    defined inside them."""
    for region in op.regions:
        for inner in region.walk():
            yield from inner.operands


def op_inputs(op: Operation, block: Block) -> list[Operation]:
    """The ops of ``block`` whose values ``op`` uses: its operands in order, then the
    values its regions use."""
    out: list[Operation] = []
    for value in op.operands:
        producer = _defining_op(value, block)
        if producer is not None:
            out.append(producer)
    for value in captured_values(op):
        producer = _defining_op(value, block)
        if producer is not None:
            out.append(producer)
    return out


def post_dfs_order(block: Block) -> list[Operation]:
    """The block's ops except its terminator, each after the ops it uses: depth first
    from the terminator's operands (operands in order), then the ops the terminator
    does not reach, in block order. This is the order in which Relay's graph creator
    visits an expression, and the order the relay builder emits ops in."""
    terminator = block_terminator(block)
    order: list[Operation] = []
    seen: set[Operation] = set()
    if terminator is not None:
        seen.add(terminator)

    def visit(root: Operation) -> None:
        if root in seen:
            return
        seen.add(root)
        stack: list[tuple[Operation, Iterator[Operation]]] = [
            (root, iter(op_inputs(root, block)))
        ]
        while stack:
            op, inputs = stack[-1]
            for producer in inputs:
                if producer not in seen:
                    seen.add(producer)
                    stack.append((producer, iter(op_inputs(producer, block))))
                    break
            else:
                stack.pop()
                order.append(op)

    if terminator is not None:
        for producer in op_inputs(terminator, block):
            visit(producer)
    for op in block.ops:
        visit(op)
    return order


# ---------------------------------------------------------------------------------------
# The indexed forward graph
# ---------------------------------------------------------------------------------------


@dataclass(eq=False)
class Node:
    """One op of the block in the dataflow graph."""

    op: Operation
    index: int
    pattern: OpPattern = OpPattern.OPAQUE
    extern_ref: bool = False
    """Used by something fusion cannot see through (a return, a region, ...)."""
    outputs: list[tuple[Node, OpPattern]] = field(
        default_factory=list["tuple[Node, OpPattern]"]
    )
    """Consumers, with the pattern of each edge."""


_SIMPLE_CONSTANT_TYPES = ("int32", "int64", "float32", "float64", "bool")


def _is_tensor(ty: Attribute) -> bool:
    return isinstance(ty, TensorType | UnrankedTensorType)


def constant_pattern(op: ConstantOp) -> OpPattern:
    """Relay's rule for constants: scalars of simple types are elementwise (they fuse
    into their consumer's kernel), other constants are opaque inputs."""
    ty = op.value.get_type()
    assert isinstance(ty, TensorType)
    scalar = len(ty.get_shape()) == 0
    return (
        OpPattern.ELEMWISE
        if scalar and dtypes.dtype_name(ty.get_element_type()) in _SIMPLE_CONSTANT_TYPES
        else OpPattern.OPAQUE
    )


def build_graph(block: Block) -> list[Node]:
    """The dataflow graph of ``block``, nodes in post-DFS order (module docstring)."""
    order = post_dfs_order(block)
    nodes = {op: Node(op, i) for i, op in enumerate(order)}

    def node_of(value: SSAValue) -> Node | None:
        producer = _defining_op(value, block)
        return None if producer is None else nodes.get(producer)

    def edge(value: SSAValue, consumer: Node, pattern: OpPattern) -> None:
        producer = node_of(value)
        if producer is not None:
            producer.outputs.append((consumer, pattern))

    def extern(value: SSAValue) -> None:
        producer = node_of(value)
        if producer is not None:
            producer.extern_ref = True

    for op in order:
        node = nodes[op]
        if op.regions:
            node.pattern = OpPattern.OPAQUE
            for value in (*op.operands, *captured_values(op)):
                extern(value)
        elif isinstance(op, ConstantOp):
            node.pattern = constant_pattern(op)
        elif isinstance(op, TupleOp):
            node.pattern = OpPattern.TUPLE
            for value in op.operands:
                if _is_tensor(value.type):
                    edge(value, node, OpPattern.INJECTIVE)
                else:
                    extern(value)
        elif isinstance(op, TupleGetItemOp):
            ty = op.tuple.type
            if isinstance(ty, TupleType) and all(_is_tensor(t) for t in ty.types.data):
                node.pattern = OpPattern.INJECTIVE
                edge(op.tuple, node, OpPattern.INJECTIVE)
            else:
                node.pattern = OpPattern.OPAQUE
                extern(op.tuple)
        elif isinstance(op, RelayOp):
            node.pattern = OpPattern(type(op).PATTERN)
            result_shape: Sequence[int] | None = None
            if len(op.results) == 1 and isinstance(op.results[0].type, TensorType):
                result_shape = op.results[0].type.get_shape()
            for value in op.operands:
                pattern = node.pattern
                if (
                    pattern == OpPattern.BROADCAST
                    and result_shape is not None
                    and isinstance(value.type, TensorType)
                    and tuple(value.type.get_shape()) == tuple(result_shape)
                ):
                    pattern = OpPattern.ELEMWISE
                edge(value, node, pattern)
        else:  # func.call and ops of other dialects: opaque consumers
            node.pattern = OpPattern.OPAQUE
            for value in op.operands:
                edge(value, node, OpPattern.OPAQUE)
    terminator = block_terminator(block)
    if terminator is not None:
        for value in terminator.operands:
            extern(value)
    return [nodes[op] for op in order]


# ---------------------------------------------------------------------------------------
# The post-dominator tree
# ---------------------------------------------------------------------------------------


@dataclass
class DomNode:
    """A node of the post-dominator tree."""

    parent: int | None
    """Index of the immediate post-dominator (None: none, e.g. an external reference)."""
    depth: int
    pattern: OpPattern
    """The largest edge pattern on the paths to the post-dominator."""


def _combine(a: OpPattern, b: OpPattern) -> OpPattern:
    return a if a > b else b


def post_dominators(nodes: Sequence[Node]) -> list[DomNode]:
    """Relay's single-pass post-dominator tree of a DAG, built in reverse post-DFS
    order as the least common ancestor of each node's consumers."""
    tree: dict[int, DomNode] = {}  # filled consumers first (reverse post-DFS order)

    def lca(
        lhs: int | None, rhs: int | None, pattern: OpPattern
    ) -> tuple[int | None, OpPattern]:
        while lhs != rhs:
            if lhs is None or rhs is None:
                return None, pattern
            left, right = tree[lhs], tree[rhs]
            if left.depth < right.depth:
                pattern = _combine(pattern, right.pattern)
                rhs = right.parent
            elif right.depth < left.depth:
                pattern = _combine(pattern, left.pattern)
                lhs = left.parent
            else:
                pattern = _combine(_combine(pattern, left.pattern), right.pattern)
                lhs, rhs = left.parent, right.parent
        return lhs, pattern

    for node in reversed(nodes):
        if node.extern_ref:
            tree[node.index] = DomNode(None, 1, OpPattern.OPAQUE)
            continue
        pattern = OpPattern.ELEMWISE
        parent: int | None = None
        for k, (consumer, edge_pattern) in enumerate(node.outputs):
            if k == 0:
                parent = consumer.index
            else:
                parent, pattern = lca(parent, consumer.index, pattern)
            pattern = _combine(pattern, edge_pattern)
        depth = 1 if parent is None else tree[parent].depth + 1
        tree[node.index] = DomNode(parent, depth, pattern)
    return [tree[node.index] for node in nodes]


# ---------------------------------------------------------------------------------------
# The partitioner
# ---------------------------------------------------------------------------------------


class _Group:
    """A union-find set of nodes (Relay's ``GraphPartitioner::Group``)."""

    __slots__ = ("anchor", "num_args", "num_nodes", "parent", "pattern", "root")

    def __init__(self, pattern: OpPattern, root: int):
        self.parent: _Group | None = None
        self.pattern = pattern
        self.root = root
        """Index of the node whose value leaves the group (valid on a set's root)."""
        self.anchor = pattern == OpPattern.OUT_ELEMWISE_FUSABLE
        self.num_nodes = 1
        self.num_args = 0
        """Kernel parameters the group's own inputs need (kept up to date on a set's
        root; only counted under a ``max_function_args`` limit)."""

    def find_root(self) -> _Group:
        root = self
        while root.parent is not None:
            root = root.parent
        node = self
        while node is not root:  # path compression
            nxt = node.parent
            assert nxt is not None
            node.parent = root
            node = nxt
        return root


class _Partitioner:
    def __init__(self, nodes: Sequence[Node], max_depth: int, max_args: int = 0):
        self.nodes = nodes
        self.max_depth = max_depth
        self.groups = [_Group(node.pattern, node.index) for node in nodes]
        self.visited: set[int] = set()
        self.args = _ArgCounter(nodes, self.groups, max_args) if max_args > 0 else None

    # -- helpers (Relay's CheckPath / CommitFuse / CountFusedNodesWithNewChild) ----------

    def check_path(self, src: Node, sink: Node, fcond: _Cond) -> bool:
        """Every node on every path from ``src`` (excluded) to ``sink`` satisfies
        ``fcond(pattern of its group, is_sink)``."""
        self.visited.clear()
        stack = [consumer for consumer, _ in reversed(src.outputs)]
        while stack:
            node = stack.pop()
            if node.index in self.visited:
                continue
            self.visited.add(node.index)
            group = self.groups[node.index].find_root()
            if not fcond(group.pattern, node is sink):
                return False
            if node is not sink:
                stack.extend(consumer for consumer, _ in reversed(node.outputs))
        return True

    def merge(self, child: _Group, parent: _Group) -> None:
        child = child.find_root()
        parent = parent.find_root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        parent.num_args += child.num_args
        child.parent = parent
        if child.anchor:
            if parent.anchor:
                raise FusionError("cannot merge two groups with an anchor op")
            parent.anchor = True
            if (
                child.pattern > OpPattern.BROADCAST
                and parent.pattern > OpPattern.BROADCAST
            ):
                raise FusionError("cannot merge two complex groups together")
            parent.pattern = _combine(child.pattern, parent.pattern)

    def commit_fuse(self, src: Node, sink: Node) -> None:
        """Merge every node on the paths from ``src`` to ``sink`` into sink's group
        (or, when the argument count asked to wait for a consumer, remember the fusion
        until that consumer is reached)."""
        if self.args is not None and self.args.postpone is not None:
            self.args.postponed.setdefault(self.args.postpone.index, []).append(src)
            return
        target = self.groups[sink.index]
        self.visited.clear()
        stack = [src]
        while stack:
            node = stack.pop()
            if node is sink or node.index in self.visited:
                continue
            self.visited.add(node.index)
            self.merge(self.groups[node.index], target)
            stack.extend(consumer for consumer, _ in reversed(node.outputs))

    def too_many_fused_nodes(self, child: Node, dom_parent: Node) -> bool:
        """Whether the dominator's group would have more than ``max_depth`` nodes with
        ``child`` and the nodes between them fused in (Relay counts each visited node's
        own group size). The walk stops as soon as the count passes ``max_depth``:
        a node whose post-dominator is far away (a constant shared by distant ops)
        would otherwise cost a walk over everything in between, and the partition
        quadratic time."""
        self.visited.clear()
        total = self.groups[dom_parent.index].find_root().num_nodes
        limit = self.max_depth
        stack = [child]
        while stack:
            if total > limit:
                return True
            node = stack.pop()
            if node is dom_parent or node.index in self.visited:
                continue
            self.visited.add(node.index)
            total += self.groups[node.index].num_nodes
            stack.extend(consumer for consumer, _ in node.outputs)
        return total > limit

    # -- the phases ---------------------------------------------------------------------

    def run(self, tree: Sequence[DomNode], phase: int) -> None:
        args = self.args
        for node in self.nodes:
            dom = tree[node.index]
            group = self.groups[node.index]
            if args is not None:
                args.postpone = None
                for src in args.postponed.pop(node.index, []):
                    if args.count(node, postpone=False) <= args.limit(node):
                        parent = tree[src.index].parent
                        assert parent is not None
                        if not self.groups[parent].anchor:
                            self.commit_fuse(src, self.nodes[parent])
            if group.pattern == OpPattern.OPAQUE or dom.parent is None:
                continue
            if node.extern_ref:
                raise FusionError("an external reference has a post-dominator")
            sink = self.nodes[dom.parent]
            if self.too_many_fused_nodes(node, sink):
                continue
            if args is not None:
                limit = args.limit(node)
                if limit > 0 and args.fused_count(node) > limit:
                    continue
            sink_group = self.groups[sink.index]
            if phase == 2:
                # pull injective producers of an intermediate tuple into the group the
                # tuple was fused into (by an injective consumer)
                if group.pattern > OpPattern.INJECTIVE:
                    continue
                sink_root = sink_group.find_root()
                if sink_root.pattern == OpPattern.TUPLE:
                    continue
                if (
                    sink_group.pattern == OpPattern.TUPLE
                    and sink_root.pattern <= OpPattern.INJECTIVE
                    and self.check_path(node, sink, _injective)
                ):
                    self.commit_fuse(node, sink)
                continue
            if group.find_root() is sink_group.find_root():
                continue
            if sink_group.pattern == OpPattern.TUPLE:
                continue  # do not fuse into a tuple (phase 2 handles its fields)
            if group.pattern == OpPattern.OUT_ELEMWISE_FUSABLE:
                if (
                    phase == 0
                    and dom.pattern == OpPattern.ELEMWISE
                    and self.check_path(node, sink, _broadcast)
                ):
                    self.commit_fuse(node, sink)
            elif group.pattern <= OpPattern.BROADCAST:
                if (
                    dom.pattern <= OpPattern.INJECTIVE
                    or dom.pattern == OpPattern.COMM_REDUCE
                ) and self.check_path(node, sink, _into_anchor):
                    self.commit_fuse(node, sink)
            elif group.pattern in (OpPattern.INJECTIVE, OpPattern.TUPLE):
                if phase == 1 and self.check_path(node, sink, _injective):
                    self.commit_fuse(node, sink)
            # COMM_REDUCE never starts a fusion


def _dynamic_args(ty: Attribute, with_strides: bool) -> int:
    """Extra kernel parameters a tensor of this type needs: one per dynamic
    dimension, plus one stride per dimension when it has any (Relay's
    ``CountAdditionalArgs_``)."""
    if not isinstance(ty, TensorType):
        return 0
    shape = ty.get_shape()
    dynamic = sum(1 for dim in shape if dim < 0)
    if with_strides and dynamic:
        dynamic += len(shape)
    return dynamic


class _ArgCounter:
    """Relay's ``max_function_args`` bookkeeping: how many parameters a fused kernel
    would take, so that no fusion makes a kernel exceed the target's limit.

    A node's own count is its operands that come from outside the block (function
    parameters) or from a tuple projection, each plus its dynamic-shape extras. A
    fusion is refused when the parameters of the consumers' groups (their own count
    plus the groups of their operands) would exceed the limit minus the node's
    outputs. When an operand's group has not been counted yet (a constant, or a node
    not reached), the fusion waits until that consumer is visited (Relay's
    postponed fusion)."""

    def __init__(self, nodes: Sequence[Node], groups: list[_Group], max_args: int):
        self.nodes = nodes
        self.groups = groups
        self.max_args = max_args
        self.node_of = {node.op: node for node in nodes}
        self.postpone: Node | None = None
        self.postponed: dict[int, list[Node]] = {}
        for node in nodes:
            groups[node.index].num_args = self._own_args(node)

    def _inputs(self, node: Node) -> Sequence[SSAValue]:
        """The values a node takes as call arguments or tuple fields (none for
        projections and region ops)."""
        op = node.op
        if op.regions or isinstance(op, TupleGetItemOp):
            return ()
        return op.operands

    def _producer(self, value: SSAValue) -> Node | None:
        return self.node_of.get(value.op) if isinstance(value, OpResult) else None

    def _own_args(self, node: Node) -> int:
        total = 0
        for value in self._inputs(node):
            producer = self._producer(value)
            if (
                producer is None
                or isinstance(producer.op, TupleGetItemOp)
                or (len(producer.op.results) > 1)
            ):
                total += 1 + _dynamic_args(value.type, True)
        return total

    def count(self, src: Node, postpone: bool = True) -> int:
        """Parameters of ``src``'s group with the groups of its operands (Relay's
        ``CountArgs_``)."""
        seen = {self.groups[src.index].find_root()}
        total = self.groups[src.index].num_args
        for value in self._inputs(src):
            producer = self._producer(value)
            if producer is None:
                continue
            group = self.groups[producer.index].find_root()
            if group in seen:
                continue
            seen.add(group)
            if group.num_args > 0:
                total += group.num_args
            elif postpone:
                self.postpone = src
            else:
                total += self.count(producer, postpone)
        return total

    def limit(self, child: Node) -> int:
        """The parameters left once ``child``'s outputs are passed (Relay's
        ``CountArgsLimit_``)."""
        outputs = 0
        for consumer, _ in child.outputs:
            outputs += 1
            results = consumer.op.results
            if len(results) == 1:
                outputs += _dynamic_args(results[0].type, False)
        return self.max_args - outputs if self.max_args > outputs else 0

    def fused_count(self, child: Node) -> int:
        """The largest count over ``child``'s consumers (Relay's ``CountFusedArgs``)."""
        return max((self.count(consumer) for consumer, _ in child.outputs), default=0)


class _Cond:
    """A path condition: ``(pattern of the group, whether the node is the sink)``."""

    def __init__(self, intermediate: frozenset[OpPattern], sink: frozenset[OpPattern]):
        self.intermediate = intermediate
        self.sink = sink

    def __call__(self, pattern: OpPattern, is_sink: bool) -> bool:
        return pattern in (self.sink if is_sink else self.intermediate)


_UP_TO_BROADCAST = frozenset({OpPattern.ELEMWISE, OpPattern.BROADCAST})
_UP_TO_INJECTIVE = _UP_TO_BROADCAST | {OpPattern.INJECTIVE}
_broadcast = _Cond(_UP_TO_BROADCAST, _UP_TO_BROADCAST)
_injective = _Cond(_UP_TO_INJECTIVE, _UP_TO_INJECTIVE)
_into_anchor = _Cond(
    _UP_TO_INJECTIVE,
    _UP_TO_INJECTIVE | {OpPattern.COMM_REDUCE, OpPattern.OUT_ELEMWISE_FUSABLE},
)
"""Elementwise/broadcast sources: parallel branches may be injective; the sink may
also be a reduction or a group already anchored by an out-elementwise-fusable op."""


def partition(
    nodes: Sequence[Node], opt_level: int, max_depth: int, max_args: int = 0
) -> list[int]:
    """Relay's grouping: for each node, the index of its group's root node.

    ``opt_level`` 0 leaves every node alone; otherwise the three phases run (anchors
    take elementwise chains; elementwise/broadcast ops join injective ops, reductions
    and anchored groups; injective ops and tuples join all-injective paths; then
    injective producers of intermediate tuples follow the tuple). No group gets more
    than ``max_depth`` nodes, and with ``max_args`` > 0 (the target's
    ``max_function_args``) no fusion makes a kernel take more parameters than that.
    """
    parts = _Partitioner(nodes, max_depth, max_args)
    if opt_level > 0:
        tree = post_dominators(nodes)
        for phase in range(3):
            parts.run(tree, phase)
    return [parts.groups[node.index].find_root().root for node in nodes]


def _post_dominators(func: FuncOp, am: AnalysisManager) -> Any:
    nodes = build_graph(func.body.block)
    return nodes, post_dominators(nodes)


POST_DOMINATORS: Analysis[Any] = Analysis(
    "post_dominators",
    "function",
    _post_dominators,
    "FuseOps' dataflow graph of a function and its post-dominator tree",
)
