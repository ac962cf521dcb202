"""Variable analyses on relay expressions (``tvm.relay.analysis``): ``free_vars``,
``bound_vars``, ``all_vars``.

The order is TVM's: variables in the order a depth-first, left-to-right walk meets
them, each once (so ``IRModule.from_expr(add(y, x))`` has parameters ``y, x``).
"""

from __future__ import annotations

from collections.abc import Callable

from xrelay.frontend.relay.expr import (
    Call,
    Expr,
    If,
    Let,
    ScalarLike,
    Tuple,
    TupleGetItem,
    TupleWrapper,
    Var,
    to_expr,
)
from xrelay.frontend.relay.function import Function


def children(node: Expr) -> list[Expr]:
    """The sub-expressions of ``node``, in evaluation order (a Let's and a Function's
    are handled by the walkers, which bind variables on the way)."""
    if isinstance(node, Call):
        head: list[Expr] = [node.op] if isinstance(node.op, Expr) else []
        return head + node.args
    if isinstance(node, Tuple):
        return list(node.fields)
    if isinstance(node, TupleGetItem):
        return [node.tuple_value]
    if isinstance(node, If):
        return [node.cond, node.true_branch, node.false_branch]
    if isinstance(node, Let):
        return [node.value, node.body]
    if isinstance(node, Function):
        return [node.body]
    if isinstance(node, ScalarLike):
        return [node.like]
    return []


def _walk(expr: Expr | TupleWrapper) -> tuple[list[Var], set[Var]]:
    """All variables in first-met order, and the set of the bound ones."""
    seen: set[Expr] = set()
    order: dict[Var, None] = {}
    bound: set[Var] = set()
    stack: list[Expr] = [to_expr(expr)]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, Var):
            order.setdefault(node, None)
            continue
        if isinstance(node, Function):
            for p in node.params:
                bound.add(p)
                order.setdefault(p, None)
        elif isinstance(node, Let):
            bound.add(node.var)
            order.setdefault(node.var, None)
        stack.extend(reversed(children(node)))
    return list(order), bound


def free_vars(expr: Expr | TupleWrapper) -> list[Var]:
    """Variables used in ``expr`` but bound neither by a Function nor by a Let."""
    order, bound = _walk(expr)
    return [v for v in order if v not in bound]


def bound_vars(expr: Expr | TupleWrapper) -> list[Var]:
    """Variables bound in ``expr`` (parameters of Functions, Let variables)."""
    order, bound = _walk(expr)
    return [v for v in order if v in bound]


def all_vars(expr: Expr | TupleWrapper) -> list[Var]:
    """Every variable in ``expr``."""
    return _walk(expr)[0]


def post_order_visit(
    expr: Expr | TupleWrapper, fvisit: Callable[[Expr], object]
) -> None:
    """Call ``fvisit`` on every sub-expression of ``expr`` after its children, each
    node once (TVM's ``post_order_visit``; a Function's parameters are visited
    before its body)."""
    seen: set[Expr] = set()
    stack: list[tuple[Expr, bool]] = [(to_expr(expr), False)]
    while stack:
        node, ready = stack.pop()
        if ready:
            fvisit(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        kids = children(node)
        if isinstance(node, Function):
            kids = [*node.params, *kids]
        elif isinstance(node, Let):
            kids = [node.var, *kids]
        stack.extend((k, False) for k in reversed(kids) if k not in seen)


def free_type_vars(expr: object, mod: object = None) -> list[object]:
    """Type variables free in ``expr``: always empty, as xrelay has no type
    polymorphism (every type is concrete or incomplete)."""
    return []


def bound_type_vars(expr: object, mod: object = None) -> list[object]:
    """Type variables bound in ``expr``: always empty (no type polymorphism)."""
    return []


def all_type_vars(expr: object, mod: object = None) -> list[object]:
    """Every type variable in ``expr``: always empty (no type polymorphism)."""
    return []
