"""Graph equality of two expressions, on the Python DAG: how ``rewrite`` sees that a
round of callbacks changed nothing (Relay compares the rounds with structural
equality). Sharing must match; variables bound by a function or a let pair by
position, free ones only with themselves; constants compare by value; calls by
callee, attributes and arguments."""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay.frontend.relay.dataflow_pattern.matcher import plain
from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    GlobalVar,
    If,
    Let,
    ScalarLike,
    Tuple,
    TupleGetItem,
    Var,
)
from xrelay.frontend.relay.expr_functor import Node
from xrelay.frontend.relay.function import Function


def _kind(node: Node) -> type:
    return Function if isinstance(node, Function) else type(node)


def graphs_equal(lhs: Node, rhs: Node) -> bool:
    """Whether ``lhs`` and ``rhs`` are the same program (see the module doc)."""
    pairs: dict[Any, Any] = {}
    back: dict[Any, Any] = {}

    def pair(a: Any, b: Any) -> bool:
        if a in pairs or b in back:
            return pairs.get(a) is b
        pairs[a], back[b] = b, a
        return True

    stack: list[tuple[Node, Node]] = [(lhs, rhs)]
    while stack:
        a, b = stack.pop()
        if a in pairs or b in back:
            if pairs.get(a) is not b:
                return False
            continue
        if a is b:
            pair(a, b)
            continue
        if _kind(a) is not _kind(b) or isinstance(a, Var):
            return False  # a different kind, or a different free variable
        pair(a, b)
        if isinstance(a, Constant):
            x, y = a.data, b.data  # type: ignore[union-attr]
            if x.dtype != y.dtype or x.shape != y.shape:
                return False
            if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
                return False
        elif isinstance(a, GlobalVar):
            if a != b:
                return False
        elif isinstance(a, Call):
            assert isinstance(b, Call)
            if len(a.args) != len(b.args) or plain(dict(a.attrs)) != plain(
                dict(b.attrs)
            ):
                return False
            stack.append((a.op, b.op))  # type: ignore[arg-type]
            stack.extend(zip(a.args, b.args, strict=True))
        elif isinstance(a, Tuple):
            assert isinstance(b, Tuple)
            if len(a.fields) != len(b.fields):
                return False
            stack.extend(zip(a.fields, b.fields, strict=True))
        elif isinstance(a, TupleGetItem):
            assert isinstance(b, TupleGetItem)
            if a.index != b.index:
                return False
            stack.append((a.tuple_value, b.tuple_value))
        elif isinstance(a, If):
            assert isinstance(b, If)
            stack.append((a.cond, b.cond))
            stack.append((a.true_branch, b.true_branch))
            stack.append((a.false_branch, b.false_branch))
        elif isinstance(a, Let):
            assert isinstance(b, Let)
            if not pair(a.var, b.var):
                return False
            stack.append((a.value, b.value))
            stack.append((a.body, b.body))
        elif isinstance(a, Function):
            assert isinstance(b, Function)
            if len(a.params) != len(b.params):
                return False
            if plain(dict(a.attrs)) != plain(dict(b.attrs)):
                return False
            for p, q in zip(a.params, b.params, strict=True):
                if not pair(p, q):
                    return False
            stack.append((a.body, b.body))
        elif isinstance(a, ScalarLike):
            assert isinstance(b, ScalarLike)
            if a.value != b.value:
                return False
            stack.append((a.like, b.like))
        else:  # an operator: only itself
            return False
    return True
