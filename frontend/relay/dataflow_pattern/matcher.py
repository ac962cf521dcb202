"""Matching a pattern against an expression, with Relay's rules:

* a pattern object used twice must match the same expression twice (the matcher
  remembers what each pattern matched, and forgets what a failed branch matched);
* ``p | q`` tries ``p`` first; calls of ``add`` and ``multiply`` also match with
  their arguments swapped; ``divide(multiply(a, b), c)`` matches
  ``multiply(a, divide(b, c))`` (and the other way round);
* ``dominates(parent, path, child)``: ``child`` matches, every path up from it goes
  through nodes matching ``path`` until it meets a node matching ``parent``, and
  such a node is post-dominated by the child;
* ``has_attr`` on a call compares its attributes (an attribute left at its default
  has the default), on a function its attributes, on an operator its registered
  attributes (``TOpPattern``: the op's fusion pattern, as an int).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from xrelay.frontend.relay.dataflow_pattern.expr_types import ExprTypes
from xrelay.frontend.relay.dataflow_pattern.graph import IndexedGraph, expr_graph
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    AltPattern,
    AttrPattern,
    CallPattern,
    ConstantPattern,
    DataTypePattern,
    DFPattern,
    DominatorPattern,
    ExprPattern,
    FunctionPattern,
    IfPattern,
    LetPattern,
    ShapePattern,
    TupleGetItemPattern,
    TuplePattern,
    TypePattern,
    VarPattern,
    WildcardPattern,
)
from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    Expr,
    GlobalVar,
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
from xrelay.frontend.relay.expr_functor import Node
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.ty import TensorType, to_ir


class DFPatternMatcher:
    """Matches patterns against the nodes of one expression graph; ``memo`` maps
    each pattern to what it matched in the last :meth:`match`."""

    def __init__(self, graph: IndexedGraph[Node], types: ExprTypes):
        self.graph = graph
        self.types = types
        self.memo: dict[DFPattern, list[Node]] = {}
        self.matched: list[DFPattern] = []
        self.memoize = True

    def match(self, pattern: DFPattern, expr: Node) -> bool:
        self.memo.clear()
        self.matched.clear()
        return self.visit(pattern, expr)

    def _clear(self, watermark: int) -> None:
        for pattern in self.matched[watermark:]:
            self.memo.pop(pattern, None)
        del self.matched[watermark:]

    def visit(self, pattern: DFPattern, expr: Node) -> bool:
        if self.memoize and pattern in self.memo:
            return self.memo[pattern][0] is expr
        watermark = len(self.matched)
        if self._visit(pattern, expr):
            self.memo.setdefault(pattern, []).append(expr)
            self.matched.append(pattern)
            return True
        self._clear(watermark)
        return False

    def _visit(self, p: DFPattern, expr: Node) -> bool:
        if isinstance(p, WildcardPattern):
            return True
        if isinstance(p, ExprPattern):
            return exprs_equal(p.expr, expr)
        if isinstance(p, VarPattern):
            return isinstance(expr, Var) and p.name_hint in ("", expr.name_hint)
        if isinstance(p, ConstantPattern):
            return isinstance(expr, Constant | ScalarLike)
        if isinstance(p, CallPattern):
            return self._call(p, expr)
        if isinstance(p, AltPattern):
            return self.visit(p.left, expr) or self.visit(p.right, expr)
        if isinstance(p, AttrPattern):
            return self.visit(p.pattern, expr) and attrs_match(p.attrs, expr)
        if isinstance(p, TypePattern | ShapePattern | DataTypePattern):
            return self._typed(p, expr) and self.visit(p.pattern, expr)
        if isinstance(p, TuplePattern):
            if not isinstance(expr, Tuple):
                return False
            if p.fields is None:
                return True
            return self._all(p.fields, expr.fields)
        if isinstance(p, TupleGetItemPattern):
            return (
                isinstance(expr, TupleGetItem)
                and p.index in (-1, expr.index)
                and self.visit(p.tuple, expr.tuple_value)
            )
        if isinstance(p, FunctionPattern):
            if not isinstance(expr, Function):
                return False
            if p.params is not None and not self._all(p.params, expr.params):
                return False
            return self.visit(p.body, expr.body)
        if isinstance(p, IfPattern):
            return (
                isinstance(expr, If)
                and self.visit(p.cond, expr.cond)
                and self.visit(p.true_branch, expr.true_branch)
                and self.visit(p.false_branch, expr.false_branch)
            )
        if isinstance(p, LetPattern):
            return (
                isinstance(expr, Let)
                and self.visit(p.var, expr.var)
                and self.visit(p.value, expr.value)
                and self.visit(p.body, expr.body)
            )
        if isinstance(p, DominatorPattern):
            return self._dominator(p, expr)
        raise TypeError(f"unknown pattern {p!r}")

    def _all(self, patterns: list[DFPattern], exprs: Sequence[Expr]) -> bool:
        if len(patterns) != len(exprs):
            return False
        return all(self.visit(p, e) for p, e in zip(patterns, exprs, strict=True))

    # -- calls --------------------------------------------------------------------------

    def _call(self, p: CallPattern, expr: Node) -> bool:
        if not isinstance(expr, Call):
            return False
        watermark = len(self.matched)
        if self.visit(p.op, expr.op):
            watermark2 = len(self.matched)

            def args_match(patterns: list[DFPattern] | None) -> bool:
                ok = patterns is None or self._all(patterns, expr.args)
                if not ok:
                    self._clear(watermark2)
                return ok

            if args_match(p.args):
                return True
            if _pattern_op(p) in ("add", "multiply") and p.args is not None:
                return args_match(list(reversed(p.args)))
            return False
        self._clear(watermark)
        return self._associated(p, expr, watermark)

    def _associated(self, p: CallPattern, expr: Call, watermark: int) -> bool:
        """``(a * b) / c`` against ``a * (b / c)``, and ``(a / b) * c`` against
        ``(a * c) / b``: Relay's matcher tries these rewritings of the pattern."""
        args = p.args
        if args is None or len(args) != 2 or len(expr.args) != 2:
            return False
        if _pattern_op(p) == "divide":
            inner = args[0]
            if (
                isinstance(inner, CallPattern)
                and _pattern_op(inner) == "multiply"
                and inner.args is not None
                and _expr_op(expr) == "multiply"
                and any(_expr_op(a) == "divide" for a in expr.args)
            ):
                for i in range(2):
                    div = CallPattern(p.op, [inner.args[i], args[1]])
                    mul = CallPattern(inner.op, [inner.args[(i + 1) % 2], div])
                    if self.visit(mul, expr):
                        return True
                    self._clear(watermark)
            return False
        if _pattern_op(p) == "multiply":
            for i in range(2):
                inner = args[i]
                if (
                    isinstance(inner, CallPattern)
                    and _pattern_op(inner) == "divide"
                    and inner.args is not None
                    and _expr_op(expr) == "divide"
                    and any(_expr_op(a) == "multiply" for a in expr.args)
                ):
                    mul = CallPattern(p.op, [inner.args[0], args[(i + 1) % 2]])
                    return self.visit(CallPattern(inner.op, [mul, inner.args[1]]), expr)
        return False

    # -- types --------------------------------------------------------------------------

    def _typed(
        self, p: TypePattern | ShapePattern | DataTypePattern, expr: Node
    ) -> bool:
        ty = self.types.type_of(expr)
        if ty is None:
            return False
        if isinstance(p, TypePattern):
            return to_ir(ty) == to_ir(p.type)
        if not isinstance(ty, TensorType):
            return False
        if isinstance(p, ShapePattern):
            return list(ty.shape) == p.shape
        return ty.dtype == p.dtype

    # -- dominators ---------------------------------------------------------------------

    def _inputs(self, expr: Node) -> list[Node]:
        node = self.graph.node(expr)
        op = expr.op if isinstance(expr, Call) else None
        return [i.ref for i in node.inputs if op is None or i.ref is not op]

    def _matches_path(self, p: DominatorPattern, expr: Node) -> bool:
        """Up every input of ``expr``: a node matching ``parent`` ends the search at
        that level; otherwise the input must match ``path`` and lead up the same
        way (Relay's rule, walked with a stack)."""
        stack = [iter(self._inputs(expr))]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                continue
            self.memoize = True
            if self.visit(p.parent, nxt):
                stack.pop()
                continue
            self.memoize = False
            if not self.visit(p.path, nxt):
                return False
            stack.append(iter(self._inputs(nxt)))
        return True

    def _dominates_parent(self, p: DominatorPattern, expr: Node) -> bool:
        stack = [self.graph.node(expr)]
        seen: set[int] = set()
        while stack:
            for child in stack.pop().dominator_children:
                if child.index in seen:
                    continue
                if self.visit(p.parent, child.ref):
                    return True
                stack.append(child)
                seen.add(child.index)
        return False

    def _dominator(self, p: DominatorPattern, expr: Node) -> bool:
        if not self.visit(p.child, expr):
            return False
        on_path = self._matches_path(p, expr)
        self.memoize = True
        return on_path and self._dominates_parent(p, expr)


def _pattern_op(p: CallPattern) -> str | None:
    op = p.op
    if isinstance(op, ExprPattern) and isinstance(op.expr, Op):
        return op.expr.name
    return None


def _expr_op(expr: Node) -> str | None:
    if isinstance(expr, Call) and isinstance(expr.op, Op):
        return expr.op.name
    return None


# -- equality and attributes -------------------------------------------------------------


def exprs_equal(pattern_expr: Expr | Op, expr: Node) -> bool:
    """``is_expr(e)`` against ``expr``: the same node, the same operator, an equal
    constant, or structurally equal programs."""
    if pattern_expr is expr:
        return True
    if isinstance(pattern_expr, Op) or isinstance(expr, Op):
        return False
    if isinstance(pattern_expr, Var) or isinstance(expr, Var):
        return False  # a variable equals only itself (it is free in both)
    if isinstance(pattern_expr, GlobalVar) or isinstance(expr, GlobalVar):
        return pattern_expr == expr
    if isinstance(pattern_expr, Constant):
        if not isinstance(expr, Constant):
            return False
        a, b = pattern_expr.data, expr.data
        return (
            a.dtype == b.dtype
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        )
    from xrelay.frontend.relay.structural_equal import structural_equal

    try:
        return structural_equal(pattern_expr, expr)
    except Exception:  # an expression that cannot be built (free variables, ...)
        return False


def plain(value: Any) -> Any:
    """An attribute value in a comparable form (lists for tuples, Python numbers)."""
    if isinstance(value, list | tuple):
        return [plain(v) for v in cast(list[Any], value)]
    if isinstance(value, np.ndarray):
        return plain(cast(np.ndarray[Any, Any], value).tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def call_attr(call: Call, name: str) -> tuple[bool, Any]:
    """Whether the call's op has attribute ``name``, and its value (the default when
    the call leaves it out)."""
    if name in call.attrs:
        return True, call.attrs[name]
    if not isinstance(call.op, Op):
        return False, None
    from xrelay.dialects.relay import OPS_BY_NAME
    from xrelay.frontend.relay.lift import attr_value

    cls = OPS_BY_NAME.get(call.op.ir_name)
    if cls is None:
        return False, None
    prop = cls.get_irdl_definition().properties.get(name)
    if prop is None:
        return False, None
    default = getattr(prop, "default_value", None)
    return True, None if default is None else attr_value(default)


def op_attr(op: Op, name: str) -> tuple[bool, Any]:
    """A registered attribute of operator ``op`` (``TOpPattern`` is the op's fusion
    pattern)."""
    from xrelay.dialects.relay import OPS_BY_NAME
    from xrelay.dialects.relay.op_attrs import get_op_attr

    if name == "TOpPattern":
        cls = OPS_BY_NAME.get(op.ir_name)
        return (False, None) if cls is None else (True, int(cls.PATTERN))
    value = get_op_attr(op.name, name)
    return value is not None, value


def attrs_match(attrs: dict[str, Any], expr: Node) -> bool:
    for name, wanted in attrs.items():
        if isinstance(expr, Op):
            found, value = op_attr(expr, name)
        elif isinstance(expr, Call):
            found, value = call_attr(expr, name)
        elif isinstance(expr, Function):
            fn_attrs = expr.attrs
            found, value = name in fn_attrs, fn_attrs.get(name)
        else:
            return False
        if not found or plain(value) != plain(wanted):
            return False
    return True


def match(pattern: DFPattern, expr: Expr | TupleWrapper) -> bool:
    """Whether ``expr`` matches ``pattern`` (TVM's ``relay.dataflow_pattern.match``)."""
    node = to_expr(expr)
    return DFPatternMatcher(expr_graph(node), ExprTypes(node)).match(pattern, node)
