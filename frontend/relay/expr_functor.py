"""Relay's expression functors (``tvm.relay.expr_functor``): ``ExprFunctor``,
``ExprVisitor`` and ``ExprMutator`` on xrelay's relay expressions.

    from xrelay.relay.expr_functor import ExprMutator   # tvm.relay.expr_functor

    class Double(ExprMutator):
        def visit_constant(self, const):
            return relay.const(const.data.numpy() * 2)

    new_func = Double().visit(mod["main"])   # a relay.Function; mod["main"] = new_func

TVM's rules:

* :meth:`ExprFunctor.visit` dispatches on the node kind to ``visit_function``,
  ``visit_call``, ``visit_var``, ``visit_global_var``, ``visit_constant``,
  ``visit_tuple``, ``visit_tuple_getitem``, ``visit_let``, ``visit_if`` and
  ``visit_op`` (an operator in a call's ``op`` position), and memoises the result
  by node in ``memo_map``: a node reached twice (a shared subexpression) is
  dispatched once, and the second ``visit`` returns the first result.
* :class:`ExprVisitor` walks every child (a call's op, then its arguments; a
  function's parameters, then its body; ...) and returns nothing.
* :class:`ExprMutator` rebuilds a node only when one of its children changed and
  returns the node itself otherwise, so a mutator that changes nothing gives back
  the very object it was given (``mod["main"]`` included).

xrelay has one node kind TVM has not: ``ScalarLike`` (the constant of ``x * 2.0``,
whose dtype comes from ``x``); it goes to ``visit_scalar_like``.

Deep graphs: a visit recurses once per level of the graph, as in TVM, so the first
``visit`` of a functor raises Python's recursion limit for its duration by what the
graph's depth needs (the depth is measured iteratively, once per node).
Python calls between Python functions do not use the C stack (CPython 3.11+), so
this is safe for visitors written in Python.
"""

from __future__ import annotations

import copy
import sys
import weakref
from collections.abc import Callable, MutableMapping
from typing import Any

from xrelay.frontend.relay.expr import (
    Attrs,
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
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.function_view import FunctionView

Node = Expr | Op
"""What a functor visits: an expression, or an operator (a call's ``op``)."""

FRAMES_PER_LEVEL = 12
"""Python frames a visit may take per level of the graph (``visit`` →
``visit_call`` → a comprehension → ``super().visit_call`` → ``visit`` ... with
room for user helpers)."""

_MARGIN = 500


def node_inputs(node: Node) -> list[Node]:
    """What a default visit of ``node`` visits, in order (its edges in the graph)."""
    if isinstance(node, Call):
        return [node.op, *node.args]
    if isinstance(node, Function):
        return [*node.params, node.body]
    if isinstance(node, Tuple):
        return list(node.fields)
    if isinstance(node, TupleGetItem):
        return [node.tuple_value]
    if isinstance(node, Let):
        return [node.var, node.value, node.body]
    if isinstance(node, If):
        return [node.cond, node.true_branch, node.false_branch]
    if isinstance(node, ScalarLike):
        return [node.like]
    return []


_HEIGHTS: weakref.WeakKeyDictionary[Node, int] = weakref.WeakKeyDictionary()
"""Heights of the nodes measured so far (a node's children never change)."""


def graph_height(root: Node, known: MutableMapping[Node, int] | None = None) -> int:
    """The number of nodes on the longest path down from ``root`` (iteratively;
    ``known`` caches heights between calls, by default for every functor)."""
    if known is None:
        known = _HEIGHTS
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if node in known:
            continue
        kids = node_inputs(node)
        if ready:
            known[node] = 1 + max((known[k] for k in kids), default=0)
            continue
        stack.append((node, True))
        stack.extend((k, False) for k in kids if k not in known)
    return known[root]


class ExprFunctor:
    """The base functor: :meth:`visit` memoises and dispatches; every
    ``visit_<kind>`` must be defined by a subclass."""

    def __init__(self) -> None:
        self.memo_map: dict[Node, Any] = {}
        self._active = 0

    def visit(self, expr: Node | TupleWrapper) -> Any:
        """Visit ``expr`` (dispatching on its kind) unless it was visited already;
        the result of its visit."""
        node: Node = expr.astuple() if isinstance(expr, TupleWrapper) else expr
        memo = self.__dict__.get("memo_map")
        if memo is None:  # a subclass whose __init__ did not call super().__init__()
            ExprFunctor.__init__(self)
            memo = self.memo_map
        if node in memo:
            return memo[node]
        if self._active:
            result = self._dispatch(node)
        else:
            result = self._visit_deep(node)
        memo[node] = result
        return result

    def _visit_deep(self, node: Node) -> Any:
        """The first (outermost) visit: with room on Python's stack for the graph."""
        self._method(node)  # not an expression: fail before measuring it
        extra = graph_height(node) * FRAMES_PER_LEVEL + _MARGIN
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(old + extra)
        self._active += 1
        try:
            return self._dispatch(node)
        finally:
            self._active -= 1
            sys.setrecursionlimit(old)

    def _method(self, node: Node) -> str:
        """The name of the ``visit_<kind>`` method for ``node``."""
        method = _DISPATCH.get(type(node))
        if method is not None:
            return method
        for cls, name in _ORDER:
            if isinstance(node, cls):
                return name
        raise TypeError(
            f"{type(self).__name__}.visit: {node!r} is not a relay expression"
        )

    def _dispatch(self, node: Node) -> Any:
        visit_kind: Callable[[Any], Any] = getattr(self, self._method(node))
        return visit_kind(node)

    # -- one method per node kind (TVM's names) -----------------------------------------

    def visit_function(self, fn: Function) -> Any:
        raise NotImplementedError()

    def visit_let(self, let: Let) -> Any:
        raise NotImplementedError()

    def visit_call(self, call: Call) -> Any:
        raise NotImplementedError()

    def visit_var(self, var: Var) -> Any:
        raise NotImplementedError()

    def visit_global_var(self, gvar: GlobalVar) -> Any:
        raise NotImplementedError()

    def visit_if(self, ite: If) -> Any:
        raise NotImplementedError()

    def visit_tuple(self, tup: Tuple) -> Any:
        raise NotImplementedError()

    def visit_tuple_getitem(self, op: TupleGetItem) -> Any:
        raise NotImplementedError()

    def visit_constant(self, const: Constant) -> Any:
        raise NotImplementedError()

    def visit_op(self, op: Op) -> Any:
        raise NotImplementedError()

    def visit_scalar_like(self, scalar: ScalarLike) -> Any:
        raise NotImplementedError()


_ORDER: list[tuple[type, str]] = [
    (Function, "visit_function"),
    (Call, "visit_call"),
    (Var, "visit_var"),
    (GlobalVar, "visit_global_var"),
    (Constant, "visit_constant"),
    (Tuple, "visit_tuple"),
    (TupleGetItem, "visit_tuple_getitem"),
    (Let, "visit_let"),
    (If, "visit_if"),
    (Op, "visit_op"),
    (ScalarLike, "visit_scalar_like"),
]
_DISPATCH: dict[type, str] = dict(_ORDER)


class ExprVisitor(ExprFunctor):
    """Visits every node once (children after the node's own ``visit_<kind>``
    starts, in Relay's order); returns nothing. Override the ``visit_<kind>`` of
    the nodes to look at and call ``super()`` to keep walking below them."""

    def visit_tuple(self, tup: Tuple) -> None:
        for field in tup.fields:
            self.visit(field)

    def visit_call(self, call: Call) -> None:
        self.visit(call.op)
        for arg in call.args:
            self.visit(arg)

    def visit_var(self, var: Var) -> None:
        pass

    def visit_let(self, let: Let) -> None:
        self.visit(let.var)
        self.visit(let.value)
        self.visit(let.body)

    def visit_function(self, fn: Function) -> None:
        for param in fn.params:
            self.visit(param)
        self.visit(fn.body)

    def visit_if(self, ite: If) -> None:
        self.visit(ite.cond)
        self.visit(ite.true_branch)
        self.visit(ite.false_branch)

    def visit_global_var(self, gvar: GlobalVar) -> None:
        pass

    def visit_op(self, op: Op) -> None:
        pass

    def visit_constant(self, const: Constant) -> None:
        pass

    def visit_tuple_getitem(self, op: TupleGetItem) -> None:
        self.visit(op.tuple_value)

    def visit_scalar_like(self, scalar: ScalarLike) -> None:
        self.visit(scalar.like)


def _same(new: list[Any], old: list[Any]) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old, strict=True))


class ExprMutator(ExprFunctor):
    """Rebuilds the expression bottom-up from what the ``visit_<kind>`` methods
    return: a node whose children all come back unchanged is returned as it is
    (``visit(func) is func`` when nothing changed), a node with a changed child is
    rebuilt with the same attributes. Memoised by node, so a shared subexpression
    stays shared in the result."""

    def visit_function(self, fn: Function) -> Any:
        new_params = [self.visit(p) for p in fn.params]
        new_body = self.visit(fn.body)
        if _same(new_params, fn.params) and new_body is fn.body:
            return fn
        # a function lifted from the IR has a return type that is the IR's (always
        # known): the rebuilt body decides it, as for a function written unannotated
        ret_type = None if isinstance(fn, FunctionView) else fn.ret_type
        return Function(new_params, new_body, ret_type, fn.type_params, dict(fn.attrs))

    def visit_let(self, let: Let) -> Any:
        new_var = self.visit(let.var)
        new_value = self.visit(let.value)
        new_body = self.visit(let.body)
        if new_var is let.var and new_value is let.value and new_body is let.body:
            return let
        return Let(new_var, new_value, new_body)

    def visit_call(self, call: Call) -> Any:
        new_fn = self.visit(call.op)
        new_args = [self.visit(arg) for arg in call.args]
        if new_fn is call.op and _same(new_args, call.args):
            return call
        # a copy keeps the span and the user's site (Call() would look for the site
        # on the stack, which is as deep as the graph here)
        made = copy.copy(call)
        made.op = new_fn
        made.args = [to_expr(a) for a in new_args]
        made.attrs = Attrs(call.attrs)
        return made

    def visit_var(self, var: Var) -> Any:
        return var

    def visit_global_var(self, gvar: GlobalVar) -> Any:
        return gvar

    def visit_if(self, ite: If) -> Any:
        new_cond = self.visit(ite.cond)
        new_true = self.visit(ite.true_branch)
        new_false = self.visit(ite.false_branch)
        if (
            new_cond is ite.cond
            and new_true is ite.true_branch
            and new_false is ite.false_branch
        ):
            return ite
        return If(new_cond, new_true, new_false, ite.span)

    def visit_tuple(self, tup: Tuple) -> Any:
        new_fields = [self.visit(field) for field in tup.fields]
        if _same(new_fields, tup.fields):
            return tup
        return Tuple(new_fields, tup.span)

    def visit_tuple_getitem(self, op: TupleGetItem) -> Any:
        new_tuple = self.visit(op.tuple_value)
        if new_tuple is op.tuple_value:
            return op
        return TupleGetItem(new_tuple, op.index, op.span)

    def visit_constant(self, const: Constant) -> Any:
        return const

    def visit_op(self, op: Op) -> Any:
        return op

    def visit_scalar_like(self, scalar: ScalarLike) -> Any:
        new_like = self.visit(scalar.like)
        if new_like is scalar.like:
            return scalar
        return ScalarLike(scalar.value, new_like)
