"""Structural equality and hashing as TVM's ``test_ir_structural_equal_hash.py``
(v0.18) exercises them: ``structural_equal`` is symmetric and ``structural_hash``
agrees with it (equal programs hash equal; the unequal pairs here hash apart).

Covered: tensor and tuple types, constants by value, free variables by identity,
variables bound by ``let`` paired where bound (annotations compared, a missing one
differs from a present one), globals by name, tuples (the empty tuple is a value,
not a shared node), projections, functions (parameters, return types,
attributes), calls (callee, arguments, attributes with defaults counted), ``let``
chains (renaming is equal, reordering is not), ``if``, operators, sharing
(``add(y, y)`` with one ``y`` differs from two equal ``y``), and modules.
Out of scope: type variables and relations, ADTs and pattern matching, ``EnvFunc``,
``make_node`` attributes, ``Var.vid``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.ir import structural_equal, structural_hash


def agree(a: Any, b: Any, map_free_vars: bool = False) -> bool:
    forward = structural_equal(a, b, map_free_vars)
    assert forward == structural_equal(b, a, map_free_vars)
    hashes_equal = structural_hash(a, map_free_vars) == structural_hash(
        b, map_free_vars
    )
    assert forward == hashes_equal
    return forward


def test_types() -> None:
    assert agree(relay.TensorType((2, 3), "int8"), relay.TensorType((2, 3), "int8"))
    assert not agree(relay.TensorType((2, 3), "int8"), relay.TensorType((3, 2), "int8"))
    pair = relay.TupleType([relay.TensorType((1,), "float32")] * 2)
    assert agree(pair, relay.TupleType([relay.TensorType((1,), "float32")] * 2))
    assert not agree(pair, relay.TupleType([relay.TensorType((1,), "float32")]))


def test_constants_and_free_variables() -> None:
    assert agree(relay.const(np.ones(3, "float32")), relay.const(np.ones(3, "float32")))
    assert not agree(relay.const(1.0), relay.const(2.0))
    assert not agree(relay.const(1), relay.const(1, "int64"))
    a, b = relay.Var("a"), relay.Var("b")
    assert agree(a, a)
    assert not agree(a, b)
    assert agree(relay.exp(a), relay.exp(b), map_free_vars=True)


def test_let_bound_variables() -> None:
    a, b = relay.Var("a"), relay.Var("b")
    one = relay.const(1)
    assert agree(relay.Let(a, one, a), relay.Let(b, one, b))
    assert not agree(relay.Let(a, one, a), relay.Let(a, one, b))
    typed = relay.Var("t", relay.TensorType((), "int32"))
    other = relay.Var("u", relay.TensorType((), "int64"))
    assert not agree(relay.Let(typed, one, typed), relay.Let(other, one, other))
    assert not agree(relay.Let(a, one, a), relay.Let(typed, one, typed))


def test_globals_tuples_and_projections() -> None:
    assert not agree(relay.GlobalVar("f"), relay.GlobalVar("g"))
    assert agree(relay.Tuple([]), relay.Tuple([]))
    v = relay.Var("v")
    t = relay.Tuple([v, relay.const(2), relay.Tuple([relay.const(3)])])
    assert agree(t, relay.Tuple([v, relay.const(2), relay.Tuple([relay.const(3)])]))
    assert not agree(t, relay.Tuple([v, relay.const(2), relay.Tuple([relay.const(4)])]))
    assert not agree(relay.TupleGetItem(v, 0), relay.TupleGetItem(v, 1))


def test_functions_and_calls() -> None:
    def make(shape: tuple[int, ...], name: str | None = None) -> Any:
        x = relay.var("x", shape=shape)
        f = relay.Function([x], relay.nn.softmax(x, axis=-1))
        return f.with_attr("Name", name) if name else f

    assert agree(make((2, 2)), make((2, 2)))
    assert not agree(make((2, 2)), make((4, 2)))
    assert not agree(make((2, 2), "a"), make((2, 2), "b"))
    x = relay.var("x")
    # an attribute left at its default equals one written out
    assert agree(relay.nn.softmax(x), relay.nn.softmax(x, axis=-1))
    assert not agree(relay.nn.softmax(x), relay.nn.softmax(x, axis=0))
    f = relay.Var("f")
    assert agree(relay.Call(f, [x]), relay.Call(f, [x]))
    assert not agree(relay.Call(f, [x]), relay.Call(f, [x, x]))


def test_let_chains_and_if() -> None:
    def chain(swap: bool, reorder: bool) -> Any:
        p, q = relay.var("p", shape=(2,)), relay.var("q", shape=(2,))
        first, second = (q, p) if reorder else (p, q)
        sb = relay.ScopeBuilder()
        a = sb.let("b" if swap else "a", relay.exp(first))
        b = sb.let("a" if swap else "b", relay.exp(second))
        sb.ret(relay.add(a, b))
        return relay.Function([p, q], sb.get())

    assert agree(chain(False, False), chain(True, False))
    assert not agree(chain(False, False), chain(False, True))
    c = relay.var("c", "bool")
    assert agree(
        relay.If(c, relay.const(1), relay.const(2)),
        relay.If(c, relay.const(1), relay.const(2)),
    )
    assert not agree(
        relay.If(c, relay.const(1), relay.const(2)),
        relay.If(c, relay.const(2), relay.const(1)),
    )


def test_sharing_and_operators() -> None:
    x = relay.var("x")
    y = relay.add(x, x)
    shared = relay.add(y, y)
    assert agree(relay.add(y, y), shared)
    assert not agree(shared, relay.add(relay.add(x, x), relay.add(x, x)))
    assert agree(relay.op.get("add"), relay.op.get("add"))
    assert not agree(relay.op.get("add"), relay.op.get("subtract"))


def test_modules() -> None:
    def module(shape: tuple[int, ...]) -> Any:
        x = relay.var("x", shape=shape)
        return relay.transform.InferType()(
            relay.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
        )

    assert agree(module((3,)), module((3,)))
    assert not agree(module((3,)), module((4,)))
