"""Grouping the matches of a pattern, then ``rewrite`` (callbacks on each match)
and ``partition`` (each match becomes a call of a function of it), with Relay's
rules:

* Matches are searched from the expression's output towards its inputs; a node
  already in a group, or inside a function made by an earlier partition
  (``PartitionedFromPattern``), starts no new match.
* A group's inputs are what the pattern's leaves matched (not operators, functions,
  or constants a constant pattern matched: those stay inside), and what a call or
  tuple pattern without arguments takes. A match overlapping an earlier group, or
  whose inner nodes are used outside it (other than through nodes its output
  post-dominates), makes no group.
* ``rewrite`` runs every callback over the expression, and again until a round
  changes nothing (at most 100 rounds), or once with ``rewrite_once``. A callback
  gets the matched node before (``pre``) and after (``post``) its inputs were
  rewritten, and ``node_map``: each pattern's matches, rewritten.
* ``partition`` replaces each match (that ``check`` accepts) by a call of a function
  of it, with attributes ``PartitionedFromPattern`` (the ops of the match,
  ``nn.conv2d_nn.relu_``) and ``attrs``. The function's parameters
  (``FunctionVar_<group>_<k>``) are typed by their arguments when the expression
  can be typed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xrelay.frontend.relay.analysis import post_order_visit
from xrelay.frontend.relay.dataflow_pattern.equal import graphs_equal
from xrelay.frontend.relay.dataflow_pattern.expr_types import ExprTypes, annotate
from xrelay.frontend.relay.dataflow_pattern.graph import IndexedGraph, expr_graph
from xrelay.frontend.relay.dataflow_pattern.matcher import DFPatternMatcher
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    AltPattern,
    CallPattern,
    ConstantPattern,
    DFPattern,
    DominatorPattern,
    ExprPattern,
    FunctionPattern,
    TuplePattern,
)
from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    Expr,
    If,
    Let,
    Op,
    ScalarLike,
    Tuple,
    TupleGetItem,
    TupleWrapper,
    Var,
    to_expr,
)
from xrelay.frontend.relay.expr_functor import ExprMutator, Node
from xrelay.frontend.relay.function import Function

PartitionCheck = Callable[[Expr], bool]

PARTITIONED_FROM_PATTERN = "PartitionedFromPattern"
MAX_ROUNDS = 100


class Group:
    """One match: its output node, what each pattern matched, the function of it
    and the arguments that function takes."""

    def __init__(
        self,
        root: Node,
        matched: dict[DFPattern, list[Node]],
        function: Function,
        args: list[Expr],
        name: str,
    ):
        self.root = root
        self.matched = matched
        self.function = function
        self.args = args
        self.name = name


class _Extractor(ExprMutator):
    """The match as a function body: its inputs replaced by parameters; names the
    match by its ops, in post-order."""

    def __init__(self, inputs: dict[Node, Var]):
        super().__init__()
        self.inputs = inputs
        self.name = ""

    def visit(self, expr: Node | TupleWrapper) -> Any:
        node = to_expr(expr) if isinstance(expr, TupleWrapper) else expr
        found = self.inputs.get(node)
        return found if found is not None else super().visit(node)

    def visit_call(self, call: Call) -> Any:
        out = super().visit_call(call)
        self.name += f"{call.op.name}_" if isinstance(call.op, Op) else "Call_"
        return out

    def visit_tuple(self, tup: Tuple) -> Any:
        out = super().visit_tuple(tup)
        self.name += "Tuple_"
        return out

    def visit_tuple_getitem(self, op: TupleGetItem) -> Any:
        out = super().visit_tuple_getitem(op)
        self.name += f"TupleGetItem{op.index}_"
        return out

    def visit_function(self, fn: Function) -> Any:
        out = super().visit_function(fn)
        self.name += "Function"
        return out

    def visit_let(self, let: Let) -> Any:
        out = super().visit_let(let)
        self.name += "Let_"
        return out

    def visit_if(self, ite: If) -> Any:
        out = super().visit_if(ite)
        self.name += "If_"
        return out


def _pattern_graph(pattern: DFPattern) -> IndexedGraph[DFPattern]:
    return IndexedGraph(pattern, lambda p: p.inputs())


class PatternGrouper:
    """The groups of ``pattern``'s matches in ``expr`` (see the module doc)."""

    def __init__(
        self,
        pattern: DFPattern,
        expr: Expr,
        types: ExprTypes,
        typed_params: bool = False,
    ):
        self.pattern = pattern
        self.types = types
        self.typed_params = typed_params
        self.graph = expr_graph(expr)
        self.pattern_graph = _pattern_graph(pattern)
        self.matcher = DFPatternMatcher(self.graph, types)
        self.groups: dict[int, Group] = {}
        self.gid_of: dict[Node, int] = {}
        self.graph_number = 0
        self._find()

    def _find(self) -> None:
        inside_partitioned: set[Node] = set()
        for node in reversed(self.graph.topological_order):
            current = node.ref
            if current in self.gid_of or isinstance(current, Op):
                continue  # (an operator is not a value in xrelay: no group of it)
            if (
                isinstance(current, Function)
                and PARTITIONED_FROM_PATTERN in current.attrs
            ):
                inside_partitioned.add(current)
                post_order_visit(current.body, inside_partitioned.add)
            if current not in inside_partitioned and self.matcher.match(
                self.pattern, current
            ):
                self._create_group(current)

    def _embedded_constant(self, expr: Node, pattern: DFPattern) -> bool:
        """A constant matched by a constant pattern stays inside the function."""
        if not isinstance(expr, Constant | ScalarLike):
            return False
        if isinstance(pattern, ConstantPattern):
            return True
        if isinstance(pattern, ExprPattern):
            return isinstance(pattern.expr, Constant)
        if isinstance(pattern, AltPattern):
            side = (
                pattern.left
                if self.matcher.match(pattern.left, expr)
                else pattern.right
            )
            return self._embedded_constant(expr, side)
        return False

    def _create_group(self, root: Node) -> None:
        node_map = {p: list(e) for p, e in self.matcher.memo.items()}
        fuzzy: set[Node] = set()
        for pnode in self.pattern_graph.topological_order:
            p = pnode.ref
            if isinstance(p, DominatorPattern):
                for side in (p.parent, p.path):
                    fuzzy.update(node_map.get(side, []))
            if isinstance(p, FunctionPattern):
                for fn in node_map.get(p, []):
                    assert isinstance(fn, Function)
                    fuzzy.update(n.ref for n in expr_graph(fn.body).topological_order)

        inputs: dict[Node, Var] = {}
        args: list[Expr] = []

        def make_input(expr: Node, pattern: DFPattern) -> None:
            if (
                expr in fuzzy
                or expr in inputs
                or isinstance(expr, Op | Function)
                or self._embedded_constant(expr, pattern)
            ):
                return
            assert isinstance(expr, Expr)
            name = f"FunctionVar_{self.graph_number}_{len(args)}"
            ty = self.types.try_type_of(expr) if self.typed_params else None
            inputs[expr] = Var(name, ty)
            args.append(expr)

        for pnode in self.pattern_graph.topological_order:
            p = pnode.ref
            if isinstance(p, TuplePattern) and p.fields is None:
                for match in node_map.get(p, []):
                    assert isinstance(match, Tuple)
                    for field in match.fields:
                        make_input(field, p)
            elif isinstance(p, CallPattern) and p.args is None:
                for match in node_map.get(p, []):
                    assert isinstance(match, Call)
                    for arg in match.args:
                        make_input(arg, p)
            elif not pnode.inputs:
                for match in node_map.get(p, []):
                    make_input(match, p)
        self.graph_number += 1

        extractor = _Extractor(inputs)
        body = extractor.visit(root)
        function = Function([inputs[a] for a in args], body)
        memo = extractor.memo_map
        root_node = self.graph.node(root)
        for node, made in memo.items():
            if node in inputs or isinstance(
                node, Op | Function | Constant | ScalarLike
            ):
                continue
            if node in self.gid_of:
                return  # overlaps an earlier group
            if made is not body:
                for user in self.graph.node(node).outputs:
                    if user.ref not in memo and not root_node.dominates(user):
                        return  # an inner node is used outside the match
        gid = len(self.groups) + 1
        for node in memo:
            self.gid_of[node] = gid
        self.groups[gid] = Group(root, node_map, function, args, extractor.name)


class _GroupMutator(ExprMutator):
    """Rebuilds the expression; at the output of a group, ``replace`` decides."""

    def __init__(self, grouper: PatternGrouper):
        super().__init__()
        self.grouper = grouper

    def _dispatch(self, node: Node) -> Any:
        post = super()._dispatch(node)
        gid = self.grouper.gid_of.get(node)
        if gid is None:
            return post
        group = self.grouper.groups[gid]
        return self.replace(group, node, post) if group.root is node else post

    def replace(self, group: Group, pre: Node, post: Any) -> Any:
        raise NotImplementedError()


class DFPatternCallback:
    """A rewrite: subclass it, set ``self.pattern`` and define
    ``callback(pre, post, node_map)`` returning the replacement of a match.
    ``require_type``: the expression is typed first (``checked_type`` of its
    nodes); ``rewrite_once``: one round only."""

    def __init__(self, require_type: bool = False, rewrite_once: bool = False):
        self.pattern: DFPattern | None = None
        self.require_type = require_type
        self.rewrite_once = rewrite_once

    def rewrite(self, expr: Expr | TupleWrapper) -> Expr:
        """``rewrite(self, expr)``."""
        return rewrite(self, expr)

    def callback(
        self, pre: Expr, post: Expr, node_map: dict[DFPattern, list[Expr]]
    ) -> Expr:
        raise NotImplementedError(
            f"{type(self).__name__} must define callback(pre, post, node_map)"
        )


class _Rewriter(_GroupMutator):
    def __init__(self, grouper: PatternGrouper, callback: DFPatternCallback):
        super().__init__(grouper)
        self.callback = callback

    def replace(self, group: Group, pre: Node, post: Any) -> Any:
        node_map = {
            p: [self.memo_map.get(e, e) for e in exprs]
            for p, exprs in group.matched.items()
        }
        out: Any = self.callback.callback(pre, post, node_map)  # type: ignore[arg-type]
        if not isinstance(out, Expr | TupleWrapper):
            raise TypeError(
                f"{type(self.callback).__name__}.callback returned "
                f"{type(out).__name__}, not a relay expression"
            )
        return to_expr(out)


def rewrite(
    callbacks: DFPatternCallback | Sequence[DFPatternCallback],
    expr: Expr | TupleWrapper,
    mod: Any = None,
) -> Expr:
    """``expr`` with the callbacks' patterns rewritten (see the module doc). ``mod``
    is accepted for TVM's signature; GlobalVars carry their types already."""
    todo = [callbacks] if isinstance(callbacks, DFPatternCallback) else list(callbacks)
    post = to_expr(expr)
    rounds = 0
    while True:
        last = post
        once = False
        for cb in todo:
            pattern = getattr(cb, "pattern", None)
            if not isinstance(pattern, DFPattern):
                raise ValueError(
                    f"{type(cb).__name__}.pattern must be a pattern, not {pattern!r}"
                )
            types = ExprTypes(post)
            grouper = PatternGrouper(pattern, post, types)
            if getattr(cb, "require_type", False):
                annotate(types, [n.ref for n in grouper.graph.topological_order])
            if grouper.groups:
                post = _Rewriter(grouper, cb).visit(post)
            rounds += 1
            once = bool(getattr(cb, "rewrite_once", False))
        if post is last or once or graphs_equal(last, post):
            return post
        if rounds >= MAX_ROUNDS:
            raise RuntimeError(
                f"rewrite: still changing after {rounds} rounds of the callbacks "
                f"({', '.join(type(cb).__name__ for cb in todo)}): do they undo each "
                "other?"
            )


class _Partitioner(_GroupMutator):
    def __init__(
        self,
        grouper: PatternGrouper,
        attrs: dict[str, Any],
        check: PartitionCheck,
    ):
        super().__init__(grouper)
        self.attrs = attrs
        self.check = check

    def replace(self, group: Group, pre: Node, post: Any) -> Any:
        if not self.check(pre):  # type: ignore[arg-type]
            return post
        args = [self.visit(a) for a in group.args]
        func = group.function.with_attr(PARTITIONED_FROM_PATTERN, group.name)
        if self.attrs:
            func = func.with_attr(self.attrs)
        return Call(func, args)


def partition(
    pattern: DFPattern,
    expr: Expr | TupleWrapper,
    attrs: dict[str, Any] | None = None,
    check: PartitionCheck | None = None,
) -> Expr:
    """``expr`` with each match of ``pattern`` replaced by a call of a function of
    it (see the module doc)."""
    node = to_expr(expr)
    if isinstance(pattern, FunctionPattern):
        return node  # a function that is not called: nothing to partition
    grouper = PatternGrouper(pattern, node, ExprTypes(node), typed_params=True)
    if not grouper.groups:
        return node
    return _Partitioner(grouper, dict(attrs or {}), check or (lambda _: True)).visit(
        node
    )
