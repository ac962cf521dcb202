"""Relay's text format for one relay expression (``expr.astext()``), as TVM prints
an expression: read back by ``relay.parse_expr``.

    #[version = "0.0.5"]
    free_var %x: Tensor[(2), float32];
    %0 = add(%x, 1f);
    multiply(%0, %0)

* The expression is printed from the Python expression tree, not the IR, so any
  expression prints, including ones the IR cannot hold (a call of a variable, a
  bare operator ``add``, a global ``@f``).
* Calls, tuples, projections, ``if`` and functions used more than once (or whose
  value is needed by name) are bound to ``%<n>`` (Relay's graph form), so sharing
  survives the round trip; ``let`` chains and ``%n`` bindings are printed in order,
  without recursion, so a chain of 90,000 calls prints.
* Variables keep their names, made unique in the printout (``%x``, ``%x_1``); free
  variables are declared first with ``free_var %x: T;``.
* 0-d constants are literals (``3f``, ``42i16``, ``True``); other constants are
  ``meta[relay.Constant][k]`` with the ``#[metadata]`` section of
  :mod:`text_printer`.
"""

from __future__ import annotations

from collections.abc import Iterator
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
from xrelay.frontend.relay.expr_equal import attr_plain, op_defaults
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.text_printer import (
    VERSION,
    RelayTextPrinter,
    scalar_literal,
    type_text,
    value_text,
)
from xrelay.frontend.relay.ty import to_ir


def children(e: Expr) -> Iterator[Expr]:
    """The sub-expressions printed inside ``e`` (not function or branch bodies)."""
    if isinstance(e, Call):
        if isinstance(e.op, Expr):
            yield e.op
        yield from e.args
    elif isinstance(e, Tuple):
        yield from e.fields
    elif isinstance(e, TupleGetItem):
        yield e.tuple_value
    elif isinstance(e, If):
        yield e.cond


def _use_counts(root: Expr) -> dict[int, int]:
    """How many times each compound node is referenced (iteratively)."""
    counts: dict[int, int] = {}
    stack: list[Expr] = [root]
    while stack:
        e = stack.pop()
        inner: list[Expr] = list(children(e))
        if isinstance(e, Function):
            inner.append(e.body)
        elif isinstance(e, If):
            inner += [e.true_branch, e.false_branch]
        elif isinstance(e, Let):
            inner += [e.value, e.body]
        for c in inner:
            seen = counts.get(id(c), 0)
            counts[id(c)] = seen + 1
            if not seen:
                stack.append(c)
    return counts


def _attr_text(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, np.generic):
        return value_text(value.item())
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"  # type: ignore[union-attr]
    if hasattr(value, "value") and not isinstance(value, str):  # tir.IntImm
        return value_text(value.value)
    return value_text(value)


def _type(ty: Any) -> str | None:
    if ty is None:
        return None
    ir = to_ir(ty)
    return None if is_unknown(ir) else type_text(ir)


class ExprTextPrinter:
    """Prints one expression; see the module docstring."""

    def __init__(self, show_meta_data: bool = True):
        self.meta = RelayTextPrinter(None, show_meta_data)
        self.show_meta_data = show_meta_data
        self.var_names: dict[Var, str] = {}
        self.used: set[str] = set()
        self.free: list[Var] = []
        self.bound: set[Var] = set()
        self.counter = 0
        self.counts: dict[int, int] = {}

    def print(self, expr: Expr | Op) -> str:
        if isinstance(expr, Op):
            return f"{VERSION}\n{expr.name}"
        self.counts = _use_counts(expr)
        lines: list[str] = []
        final = self.block(expr, lines, {}, "")
        head: list[str] = []
        for v in self.free:
            ty = _type(v.type_annotation)
            head.append(f"free_var {self.var_names[v]}{': ' + ty if ty else ''};")
        out = self.meta.finish("\n".join([*head, *lines, final]))
        return out if self.meta.constants and self.show_meta_data else out[:-1]

    # -- names --------------------------------------------------------------------------

    def name(self, v: Var) -> str:
        found = self.var_names.get(v)
        if found is not None:
            return found
        base = "".join(c if c.isalnum() or c in "_/" else "_" for c in v.name_hint)
        base = base or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        self.var_names[v] = f"%{name}"
        return f"%{name}"

    def declare(self, v: Var) -> str:
        self.bound.add(v)
        name = self.name(v)
        ty = _type(v.type_annotation)
        return f"{name}: {ty}" if ty else name

    def fresh(self) -> str:
        name = f"%{self.counter}"
        self.counter += 1
        return name

    # -- blocks and values --------------------------------------------------------------

    def block(self, e: Expr, lines: list[str], memo: dict[int, str], ind: str) -> str:
        """Print ``e``'s bindings into ``lines``; the text of its result."""
        memo = dict(memo)  # names bound in this block end with it
        while isinstance(e, Let):
            shared = self.counts.get(id(e.value), 0) > 1
            value = self.value(e.value, lines, memo, ind, top=not shared)
            lines.append(f"{ind}let {self.declare(e.var)} = {value};")
            e = e.body
        return self.value(e, lines, memo, ind, top=True)

    def value(
        self, root: Expr, lines: list[str], memo: dict[int, str], ind: str, top: bool
    ) -> str:
        """The text of ``root``; its compound operands are bound first, in post
        order (an explicit stack: deep graphs do not recurse)."""
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if id(e) in memo:
                continue
            if not ready:
                stack.append((e, True))
                stack.extend((c, False) for c in children(e) if id(c) not in memo)
                continue
            text = self.node(e, lines, memo, ind)
            if e is root and top:
                return text
            if isinstance(e, Var | Constant | GlobalVar):
                memo[id(e)] = text
            else:
                name = self.fresh()
                lines.append(f"{ind}{name} = {text};")
                memo[id(e)] = name
        return memo[id(root)]

    def node(self, e: Expr, lines: list[str], memo: dict[int, str], ind: str) -> str:
        """The text of one node whose operands are in ``memo``."""
        if isinstance(e, Var):
            if e not in self.bound and e not in self.var_names:
                self.free.append(e)
            return self.name(e)
        if isinstance(e, GlobalVar):
            return f"@{e.name_hint}"
        if isinstance(e, Constant):
            array = e.data.numpy()
            return scalar_literal(array) or self.meta.meta_constant(array)
        if isinstance(e, Call):
            return self.call(e, memo)
        if isinstance(e, Tuple):
            fields = [memo[id(f)] for f in e.fields]
            return "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
        if isinstance(e, TupleGetItem):
            return f"{memo[id(e.tuple_value)]}.{e.index}"
        inner = ind + "  "
        if isinstance(e, If):
            then_lines: list[str] = []
            then = self.block(e.true_branch, then_lines, memo, inner)
            else_lines: list[str] = []
            other = self.block(e.false_branch, else_lines, memo, inner)
            return "\n".join(
                [
                    f"if ({memo[id(e.cond)]}) {{",
                    *then_lines,
                    f"{inner}{then}",
                    f"{ind}}} else {{",
                    *else_lines,
                    f"{inner}{other}",
                    f"{ind}}}",
                ]
            )
        if isinstance(e, Function):
            params = [self.declare(p) for p in e.params]
            attrs = [f"{k}={_attr_text(v)}" for k, v in e.attrs.items()]
            ret = _type(e.ret_type)
            body_lines: list[str] = []
            body = self.block(e.body, body_lines, memo, inner)
            head = f"fn ({', '.join(params + attrs)})" + (f" -> {ret}" if ret else "")
            return "\n".join([f"{head} {{", *body_lines, f"{inner}{body}", f"{ind}}}"])
        if isinstance(e, Let):  # a let in operand position: a nested block
            block_lines: list[str] = []
            body = self.block(e, block_lines, memo, inner)
            return "\n".join(["{", *block_lines, f"{inner}{body}", f"{ind}}}"])
        if isinstance(e, TupleWrapper):
            return self.node(e.astuple(), lines, memo, ind)
        raise TypeError(f"cannot print {type(e).__name__} as Relay text")

    def call(self, e: Call, memo: dict[int, str]) -> str:
        op = e.op
        if isinstance(op, Op):
            callee = op.name
        else:
            callee = memo[id(op)]
            if callee.startswith(("fn", "if", "{")):
                callee = f"({callee})"
        args = [memo[id(a)] for a in e.args]
        defaults = op_defaults(op.name) if isinstance(op, Op) else {}
        attrs = [
            f"{k}={_attr_text(v)}"
            for k, v in e.attrs.items()
            if k not in defaults or attr_plain(v) != defaults[k]
        ]
        return f"{callee}({', '.join(args + attrs)})"


def expr_to_text(expr: Expr | Op, show_meta_data: bool = True) -> str:
    """``expr`` in Relay's text format (see the module docstring)."""
    return ExprTextPrinter(show_meta_data).print(expr)
