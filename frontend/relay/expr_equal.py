"""Structural equality of relay expression trees (the Python objects), for the
expressions the IR cannot hold: a call of a variable or of a closure, a ``let``
of an untyped value, a bare operator or global. ``structural_equal`` uses it when
one side cannot be built as IR; the rules are those of :mod:`structural_equal`:

* graph equality: a node on one side pairs with one node on the other, for good;
* variables bound by a function or a ``let`` pair where they are bound (their type
  annotations must be equal, no annotation equals ``_``); free variables are equal
  when they are the same ``relay.Var``, or, with ``map_free_vars``, when they pair
  at their first use;
* constants compare by dtype, shape and value (NaN equals NaN), operators and
  globals by name, calls by callee, arguments and attributes, functions by
  parameters, return type, attributes and body.

The walk uses an explicit stack, so a chain of 90,000 calls compares.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay.dialects.relay.base import is_unknown
from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    Expr,
    GlobalVar,
    If,
    Let,
    Op,
    Tuple,
    TupleGetItem,
    TupleWrapper,
    Var,
)
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.ty import to_ir


class _Mismatch(Exception):
    pass


def types_equal(a: Any, b: Any) -> bool:
    """Two type annotations (Python types or IR types); None equals ``_``."""
    ta = None if a is None else to_ir(a)
    tb = None if b is None else to_ir(b)
    if ta is None or is_unknown(ta):
        return tb is None or is_unknown(tb)
    if tb is None or is_unknown(tb):
        return False
    return ta == tb


def attr_plain(value: Any) -> Any:
    """An attribute value with tuples as lists and numpy / IntImm scalars as Python
    numbers, for comparing and hashing."""
    if isinstance(value, list | tuple):
        return [attr_plain(v) for v in value]  # type: ignore[union-attr]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    inner = getattr(value, "value", None)
    if isinstance(inner, int | float):
        return inner
    return value


def op_defaults(name: str) -> dict[str, Any]:
    """The attribute defaults of the op named ``name`` as plain Python values."""
    from xrelay.dialects.relay import OPS_BY_NAME
    from xrelay.frontend.relay.lift import attr_value

    cls = OPS_BY_NAME.get("relay." + name)
    if cls is None:
        return {}
    out: dict[str, Any] = {}
    for key, prop in cls.get_irdl_definition().properties.items():
        if prop.default_value is not None:
            out[key] = attr_plain(attr_value(prop.default_value))
    return out


def call_attrs(call: Call) -> dict[str, Any]:
    """A call's attributes with the op's defaults filled in (defaults count)."""
    given = {k: attr_plain(v) for k, v in call.attrs.items()}
    if isinstance(call.op, Op):
        return {**op_defaults(call.op.name), **given}
    return given


def constants_equal(a: Constant, b: Constant) -> bool:
    x, y = a.data.numpy(), b.data.numpy()
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    return bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))


class TreeComparer:
    """Compares two expression trees; ``reason`` names the first difference."""

    def __init__(self, map_free_vars: bool):
        self.map_free_vars = map_free_vars
        self.pairs: dict[int, int] = {}
        self.rpairs: dict[int, int] = {}
        self.vars: dict[Var, Var] = {}
        self.rvars: dict[Var, Var] = {}
        self.reason = ""
        self.where = "the result"
        self._keep: list[Any] = []  # the paired nodes stay alive (ids stay unique)

    def fail(self, message: str) -> _Mismatch:
        self.reason = f"{message} (at {self.where})"
        return _Mismatch()

    def define(self, a: Var, b: Var) -> None:
        if not types_equal(a.type_annotation, b.type_annotation):
            raise self.fail(
                f"%{a.name_hint} and %{b.name_hint} have different type annotations"
            )
        self.vars[a] = b
        self.rvars[b] = a

    def var(self, a: Var, b: Var) -> None:
        known = self.vars.get(a)
        if known is not None or b in self.rvars:
            if known is not b:
                raise self.fail(f"%{a.name_hint} is compared with %{b.name_hint}")
            return
        if a is b:
            return
        if not self.map_free_vars:
            raise self.fail(
                f"the free variables differ (%{a.name_hint} vs %{b.name_hint}): free "
                "variables are equal only if they are the same relay.Var "
                "(map_free_vars=True pairs them)"
            )
        self.define(a, b)

    def equal(self, lhs: Any, rhs: Any) -> bool:
        try:
            self.run(lhs, rhs)
        except _Mismatch:
            return False
        return True

    def run(self, lhs: Any, rhs: Any) -> None:
        stack: list[tuple[Any, Any, str]] = [(lhs, rhs, "the result")]
        while stack:
            top = stack.pop()
            a: Any = top[0]
            b: Any = top[1]
            self.where = top[2]
            if isinstance(a, TupleWrapper):
                a = a.astuple()
            if isinstance(b, TupleWrapper):
                b = b.astuple()
            if type(a) is not type(b):
                raise self.fail(
                    f"a {type(a).__name__} is compared with a {type(b).__name__}"
                )
            if isinstance(a, Op):
                if a.name != b.name:
                    raise self.fail(f"the operators {a.name} and {b.name} differ")
                continue
            if isinstance(a, GlobalVar):
                if a.name_hint != b.name_hint:
                    raise self.fail(f"@{a.name_hint} is compared with @{b.name_hint}")
                continue
            if isinstance(a, Var):
                self.var(a, b)
                continue
            if isinstance(a, Constant):
                if not constants_equal(a, b):
                    raise self.fail("two constants differ")
                continue
            if isinstance(a, Tuple) and not a.fields and not b.fields:
                continue  # ``()`` is a value, not a graph node (as in Relay)
            seen = self.pairs.get(id(a))
            if seen is not None or id(b) in self.rpairs:
                if seen != id(b):
                    raise self.fail(
                        f"sharing differs: a {type(a).__name__} is used in two places "
                        "on one side and two different ones on the other"
                    )
                continue
            self.pairs[id(a)] = id(b)
            self.rpairs[id(b)] = id(a)
            self._keep += [a, b]
            stack.extend(reversed(self.children(a, b)))  # first operand first

    def children(self, a: Expr, b: Any) -> list[tuple[Any, Any, str]]:
        what = type(a).__name__
        if isinstance(a, Call):
            what = a.op.name if isinstance(a.op, Op) else "a call"
        return [(x, y, f"{name} of {what}") for x, y, name in self.pairs_of(a, b)]

    def pairs_of(self, a: Expr, b: Any) -> list[tuple[Any, Any, str]]:
        if isinstance(a, Call):
            if len(a.args) != len(b.args):
                raise self.fail("two calls have different numbers of arguments")
            ka, kb = call_attrs(a), call_attrs(b)
            if ka != kb:
                raise self.fail(f"call attributes differ: {ka} vs {kb}")
            return [
                (a.op, b.op, "the callee"),
                *(
                    (x, y, f"operand #{i}")
                    for i, (x, y) in enumerate(zip(a.args, b.args, strict=True))
                ),
            ]
        if isinstance(a, Tuple):
            if len(a.fields) != len(b.fields):
                raise self.fail("two tuples have different sizes")
            return [
                (x, y, f"field #{i}")
                for i, (x, y) in enumerate(zip(a.fields, b.fields, strict=True))
            ]
        if isinstance(a, TupleGetItem):
            if a.index != b.index:
                raise self.fail(f"projections .{a.index} and .{b.index} differ")
            return [(a.tuple_value, b.tuple_value, "the tuple")]
        if isinstance(a, If):
            return [
                (a.cond, b.cond, "the condition"),
                (a.true_branch, b.true_branch, "the then branch"),
                (a.false_branch, b.false_branch, "the else branch"),
            ]
        if isinstance(a, Let):
            self.define(a.var, b.var)
            return [(a.value, b.value, "the value"), (a.body, b.body, "the body")]
        if isinstance(a, Function):
            if len(a.params) != len(b.params):
                raise self.fail("two functions have different numbers of parameters")
            for p, q in zip(a.params, b.params, strict=True):
                self.define(p, q)
            if not types_equal(a.ret_type, b.ret_type):
                raise self.fail("two functions have different return types")
            fa = {k: attr_plain(v) for k, v in a.attrs.items()}
            fb = {k: attr_plain(v) for k, v in b.attrs.items()}
            if fa != fb:
                raise self.fail(f"function attributes differ: {fa} vs {fb}")
            return [(a.body, b.body, "the body")]
        raise self.fail(f"cannot compare {type(a).__name__} structurally")


def tree_compare(lhs: Any, rhs: Any, map_free_vars: bool = False) -> str | None:
    """None if the expression trees are equal, else the first difference."""
    cmp = TreeComparer(map_free_vars)
    return None if cmp.equal(lhs, rhs) else cmp.reason
