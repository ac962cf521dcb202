"""``InferTypeLocal(expr)``: the type of one expression (TVM's
``relay.transform.InferTypeLocal``), found by emitting it with its free variables as
parameters and running InferType. As TVM's, it also sets ``checked_type`` on
``expr`` and every subexpression (variables, calls, tuples, local functions)."""

from __future__ import annotations

from typing import Any

from xrelay.frontend.relay.expr import Expr, TupleWrapper, to_expr
from xrelay.frontend.relay.ty import TypeLike


def InferTypeLocal(expr: Expr | TupleWrapper) -> TypeLike:
    """The checked type of ``expr``: a ``TensorType``/``TupleType``, or a
    ``FuncType`` for a function. Raises ``BuildError`` on a type error."""
    from xrelay.frontend.relay.analysis import post_order_visit
    from xrelay.frontend.relay.dataflow_pattern.expr_types import ExprTypes
    from xrelay.frontend.relay.function import Function

    node = to_expr(expr)
    types = ExprTypes(node)
    nodes: list[Any] = []
    post_order_visit(node, nodes.append)
    for sub in nodes:
        if isinstance(sub, Expr) and not isinstance(sub, Function):
            ty = types.type_of(sub)
            if ty is not None:
                sub.checked_type = ty
    # a function's type follows from its parameters' and its body's
    for sub in nodes:
        if isinstance(sub, Function):
            ty = sub._implied_type()  # pyright: ignore[reportPrivateUsage]
            if ty is not None:
                sub.checked_type = ty
    return node.checked_type
