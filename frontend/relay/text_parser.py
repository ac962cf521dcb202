"""Relay's text format (``#[version = "0.0.5"]``) read into the relay dialect:
``relay.parse(text)`` / ``relay.fromtext(text)`` give an :class:`IRModule`.

The text is parsed into relay expressions (:mod:`xrelay.frontend.relay.expr`), which
the builder emits as IR: every op is type-checked as it is made, and an error names
the line of the text. Supported: ``def @f(...) -> T { ... }`` (several, calling each
other in any order), graph bindings ``%0 = ...;``, ``let %x: T = ...;`` (also as an
operand in parentheses: ``(let %a = 1; %a) + 2``, its bindings scoped there), op
calls with attributes (``nn.conv2d(%x, %w, padding=[1, 1], channels=4)``), tuples and
projections (``%0.1``), ``if (...) {...} else {...}``, local functions ``fn (...)
{...}`` that are called (fused ``Primitive=1`` functions), scalar literals (``1f``,
``2i64``, ``True``), ``meta[relay.Constant][k]`` with a ``#[metadata]`` section
(xrelay's own JSON, TVM's JSON with base64 NDArrays) or an ``init_meta_table``,
types ``Tensor[(1, 3), float32]``, ``float32``, ``(T, T)``, dynamic dims ``?``, and
``/* ... */`` / ``//`` comments (``/* ty=... */`` annotations are skipped).

Out of scope, each a one-line :class:`RelayTextError` naming the construct: ADTs and
the Prelude (``type``, ``match``, constructors), references (``ref``, ``ref_read``,
``ref_write``), type polymorphism (``def @f[A]``), first-class closures (a function
used as a value or capturing a variable), ``extern`` and graph-level ``free_var``.
"""

from __future__ import annotations

import base64
import bisect
import json
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.parser import Parser

from xrelay.dialects.relay.base import UNKNOWN
from xrelay.error import DiagnosticError
from xrelay.frontend.relay.analysis import free_vars
from xrelay.frontend.relay.emitter import BuildError
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
    Var,
)
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.ty import Any as AnyDim
from xrelay.frontend.relay.ty import FuncType, TensorType, TupleType, TypeLike


class RelayTextError(DiagnosticError):
    """The text is not Relay's text format, or uses a construct xrelay leaves out.
    The message starts with ``<source>:<line>:<col>: error:``; ``location`` and
    ``message`` hold the two parts."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(f"{location}: error: {message}" if location else message)
        self.location = location
        self.message = message


@dataclass
class Token:
    kind: str
    text: str
    pos: int


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*)
  | (?P<header>\#\[[^\]]*\])
  | (?P<arrow>->)
  | (?P<global>@[A-Za-z_][\w.]*)
  | (?P<local>%[A-Za-z0-9_][\w/]*)
  | (?P<number>(?:\d+\.\d*|\d+)(?:[eE][+-]?\d+)?(?:f16|f32|f64|f|i8|i16|i32|i64|u8|u16|u32|u64|i|u)?)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<ident>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)
  | (?P<binop><=|>=|==|!=|[*/+<>-])
  | (?P<punct>[()\[\]{},;=:.?])
  | (?P<other>=>|\S)
    """,
    re.VERBOSE | re.DOTALL,
)

_SUFFIX_DTYPE = {
    "f": "float32",
    "f32": "float32",
    "f16": "float16",
    "f64": "float64",
    "i": "int32",
    "i32": "int32",
    "i64": "int64",
    "i8": "int8",
    "i16": "int16",
    "u": "uint32",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
}

_OUT_OF_SCOPE = {
    "type": "ADT definitions (type)",
    "match": "ADTs (match)",
    "ref": "references (ref)",
    "ref_read": "references (ref_read)",
    "ref_write": "references (ref_write)",
    "extern": "extern definitions",
}


_PRECEDENCE = {
    "*": 4, "/": 4, "+": 3, "-": 3, "<": 2, ">": 2, "<=": 2, ">=": 2, "==": 1, "!=": 1,
}  # fmt: skip
_BINARY = {
    "*": "multiply",
    "/": "divide",
    "+": "add",
    "-": "subtract",
    "<": "less",
    ">": "greater",
    "<=": "less_equal",
    ">=": "greater_equal",
    "==": "equal",
    "!=": "not_equal",
}


def _split_metadata(text: str) -> tuple[str, str | None]:
    marker = text.find("#[metadata]")
    if marker < 0:
        return text, None
    return text[:marker], text[marker + len("#[metadata]") :]


class _Parser:
    def __init__(
        self, text: str, source: str, meta: Mapping[str, Sequence[Any]] | None
    ) -> None:
        self.source = source
        self.text = text
        self.newlines: list[int] | None = None
        program, metadata = _split_metadata(text)
        self.tokens = self.tokenize(program)
        self.i = 0
        self.meta: dict[str, list[Any]] = {k: list(v) for k, v in (meta or {}).items()}
        if metadata is not None:
            for key, values in _read_metadata(metadata, self).items():
                self.meta.setdefault(key, values)
        self.scopes: list[dict[str, Expr]] = []
        self.final_tuple: Tuple | None = None
        """The tuple literal a body just read ended in (see ``function_rest``)."""
        self.globals: dict[str, GlobalVar] = {}
        self.literals: set[int] = set()
        """ids of the constants read as number literals (``-`` folds into them)."""
        self.module_mode = True
        """Reading ``def``s (closures are errors); False for one expression."""

    # -- tokens -------------------------------------------------------------------------

    def tokenize(self, text: str) -> list[Token]:
        out: list[Token] = []
        pos = 0
        while pos < len(text):
            if text.startswith("/*", pos):  # block comments nest
                pos = self.skip_comment(text, pos)
                continue
            m = _TOKEN.match(text, pos)
            if m is None:
                raise self.error_at(pos, f"unexpected character {text[pos]!r}")
            kind = cast(str, m.lastgroup)
            if kind not in ("ws", "comment"):
                out.append(Token(kind, m.group(), pos))
            pos = m.end()
        out.append(Token("eof", "", len(text)))
        return out

    def skip_comment(self, text: str, pos: int) -> int:
        depth, k = 0, pos
        while k < len(text):
            if text.startswith("/*", k):
                depth, k = depth + 1, k + 2
            elif text.startswith("*/", k):
                depth, k = depth - 1, k + 2
                if depth == 0:
                    return k
            else:
                k += 1
        raise self.error_at(pos, "unterminated comment '/*'")

    def line_of(self, pos: int) -> int:
        """The 1-based line of offset ``pos`` (a binary search: no rescan)."""
        if self.newlines is None:
            self.newlines = [m.start() for m in re.finditer("\n", self.text)]
        return bisect.bisect_left(self.newlines, pos) + 1

    def location(self, pos: int) -> str:
        line = self.line_of(pos)
        col = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return f"{self.source}:{line}:{col}"

    def error_at(self, pos: int, message: str) -> RelayTextError:
        return RelayTextError(message, self.location(pos))

    def error(self, message: str, tok: Token | None = None) -> RelayTextError:
        return self.error_at((tok or self.peek()).pos, message)

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        self.i += 1
        return tok

    def at(self, text: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.text == text and tok.kind in ("punct", "ident", "arrow", "binop")

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> Token:
        tok = self.peek()
        if not self.at(text):
            shown = tok.text or "the end of the text"
            raise self.error(f"expected '{text}', got '{shown}'")
        return self.next()

    def out_of_scope(self, tok: Token) -> None:
        what = _OUT_OF_SCOPE.get(tok.text)
        if what is not None:
            raise self.error(f"{what} is not supported by xrelay", tok)

    # -- module -------------------------------------------------------------------------

    def whole_expression(self) -> Any:
        while self.peek().kind == "header":
            self.next()
        self.scopes.append({})
        try:
            expr = self.body()
        except RecursionError:
            raise self.error(
                "the expression is nested too deeply to parse (Python's recursion "
                "limit)"
            ) from None
        if self.peek().kind != "eof":
            raise self.error(f"unexpected '{self.peek().text}' after the expression")
        return expr

    def is_expression(self) -> bool:
        """The text (after its headers) is one expression, not ``def``s."""
        k = 0
        while self.peek(k).kind == "header":
            k += 1
        tok = self.peek(k)
        return tok.kind != "eof" and tok.text not in ("def", "type", "extern")

    def module(self) -> list[tuple[str, Function, Token]]:
        defs: list[tuple[str, Function, Token]] = []
        while self.peek().kind == "header":
            self.next()
        while self.peek().kind != "eof":
            tok = self.peek()
            if tok.kind == "header":
                self.next()
                continue
            self.out_of_scope(tok)
            if tok.text != "def":
                raise self.error(f"expected 'def', got '{tok.text}'")
            self.next()
            name_tok = self.next()
            if name_tok.kind != "global":
                raise self.error(
                    "expected a function name (@name) after 'def'", name_tok
                )
            name = name_tok.text[1:]
            if self.at("["):
                raise self.error(
                    f"type polymorphism (type parameters of @{name}) is not supported "
                    "by xrelay"
                )
            defs.append((name, self.function_rest(), name_tok))
        return defs

    def function_rest(self) -> Function:
        """``(params) [-> type] { body }`` after ``def @name`` or ``fn``."""
        self.expect("(")
        params: list[Var] = []
        attrs: dict[str, Any] = {}
        self.scopes.append({})
        while not self.at(")"):
            tok = self.peek()
            if tok.kind == "local":
                self.next()
                ty = self.type_() if self.accept(":") else None
                var = Var(tok.text[1:], ty)
                self.scopes[-1][tok.text] = var
                params.append(var)
            elif tok.kind == "ident" and self.at("=", 1):
                self.next()
                self.next()
                attrs[tok.text] = self.attr_value()
            else:
                raise self.error(f"expected a parameter, got '{tok.text}'")
            if not self.accept(","):
                break
        self.expect(")")
        ret = self.type_() if self.accept("->") else None
        self.expect("{")
        body = self.body()
        literal = self.final_tuple
        self.expect("}")
        self.scopes.pop()
        fn = Function(params, body, ret, attrs=attrs or None)
        # ``{ ...; (%a, %b) }``: the fields are the function's results (a body
        # ending in a variable bound to a tuple returns one tuple value)
        fn.returns_fields = literal is not None and literal is body
        return fn

    # -- bodies and expressions ---------------------------------------------------------

    def lookup(self, tok: Token) -> Expr:
        for scope in reversed(self.scopes):
            found = scope.get(tok.text)
            if found is not None:
                return found
        raise self.error(f"{tok.text} is not defined here", tok)

    def body(self) -> Expr:
        """Bindings then one expression, up to the closing brace; ``e1; e2`` is
        ``let %_ = e1; e2``. Iterative: long binding chains do not recurse."""
        lets: list[tuple[Var, Expr, int]] = []  # (var, value, scopes to pop)
        while True:
            tok = self.peek()
            if tok.kind == "local" and self.at("=", 1):
                self.next()
                self.next()
                value = self.expr()
                self.expect(";")
                self.scopes[-1][tok.text] = value
                continue
            if tok.kind == "ident" and tok.text == "free_var":
                self.next()
                var_tok = self.next()
                if var_tok.kind != "local":
                    raise self.error(
                        f"expected a variable after 'free_var', got '{var_tok.text}'",
                        var_tok,
                    )
                ty = self.type_() if self.accept(":") else None
                self.expect(";")
                self.scopes[0][var_tok.text] = Var(var_tok.text[1:], ty)
                continue
            if tok.kind == "ident" and tok.text == "let":
                self.next()
                var_tok = self.next()
                if var_tok.kind != "local":
                    raise self.error(
                        f"expected a variable after 'let', got '{var_tok.text}'",
                        var_tok,
                    )
                ty = self.type_() if self.accept(":") else None
                self.expect("=")
                var = Var(var_tok.text[1:], ty)
                self.scopes.append({var_tok.text: var})  # in scope in its value
                value = self.expr()
                self.expect(";")
                lets.append((var, value, 1))
                continue
            paren = self.at("(")
            final = self.expr()
            if self.at(";"):
                self.next()
                lets.append((Var("_"), final, 0))
                continue
            break
        self.final_tuple = (
            final if paren and not lets and isinstance(final, Tuple) else None
        )
        for var, value, scopes in reversed(lets):
            final = Let(var, value, final)
            for _ in range(scopes):
                self.scopes.pop()
        return final

    def expr(self, min_precedence: int = 1) -> Expr:
        """Binary operators by precedence (``*`` ``/``, then ``+`` ``-``, then
        comparisons, then ``==`` ``!=``), left-associative."""
        lhs = self.unary()
        while True:
            tok = self.peek()
            level = _PRECEDENCE.get(tok.text, 0) if tok.kind == "binop" else 0
            if level < min_precedence:
                return lhs
            self.next()
            rhs = self.expr(level + 1)
            lhs = Call(Op.get(_BINARY[tok.text]), [lhs, rhs])

    def unary(self) -> Expr:
        """``-e``: a negative literal for a number, ``negative(e)`` otherwise."""
        tok = self.peek()
        if tok.kind == "binop" and tok.text == "-":
            self.next()
            operand = self.unary()
            if isinstance(operand, Constant) and id(operand) in self.literals:
                negated = Constant(-operand.data.numpy())
                self.literals.add(id(negated))
                return negated
            return Call(Op.get("negative"), [operand])
        value = self.postfix()
        if not isinstance(value, Expr):
            return cast(Expr, value)  # an operator used as a value (``add``)
        return value

    def postfix(self) -> Expr | Op:
        node = self.primary()
        while True:
            if self.at("("):
                start = self.peek()
                args, attrs = self.arguments()
                node = self.call_value(node, args, attrs, start)
            elif self.at(".") and self.peek(1).kind == "number":
                self.next()
                index = self.next()
                if isinstance(node, Op):
                    raise self.error("an operator has no fields", index)
                node = TupleGetItem(node, int(index.text))
            else:
                return node

    def call_value(
        self, callee: Expr | Op, args: list[Expr], attrs: dict[str, Any], tok: Token
    ) -> Expr:
        if isinstance(callee, Op):
            call = Call(callee, args, attrs)
            call.site = (self.source, self.line_of(tok.pos))
            return call
        if attrs:
            raise self.error("only operators take attributes", tok)
        if self.module_mode and isinstance(callee, Function):
            captured = free_vars(callee)
            if captured:
                names = ", ".join(f"%{v.name_hint}" for v in captured)
                raise self.error(
                    f"first-class closures (a local function capturing {names}) are "
                    "not supported by xrelay",
                    tok,
                )
        elif self.module_mode and not isinstance(callee, GlobalVar | Function):
            raise self.error(
                "first-class closures (calling a value that is not a function) are "
                "not supported by xrelay",
                tok,
            )
        return Call(callee, args)

    def arguments(self) -> tuple[list[Expr], dict[str, Any]]:
        self.expect("(")
        args: list[Expr] = []
        attrs: dict[str, Any] = {}
        while not self.at(")"):
            tok = self.peek()
            if tok.kind == "ident" and self.at("=", 1):
                self.next()
                self.next()
                attrs[tok.text] = self.attr_value()
            else:
                args.append(self.expr())
            if not self.accept(","):
                break
        self.expect(")")
        return args, attrs

    def primary(self) -> Expr | Op:
        tok = self.peek()
        if tok.kind == "local":
            self.next()
            return self.lookup(tok)
        if tok.kind == "global":
            self.next()
            name = tok.text[1:]
            return self.globals.setdefault(name, GlobalVar(name))
        if tok.kind == "number":
            self.next()
            lit = self.literal(tok)
            self.literals.add(id(lit))
            return lit
        if tok.kind == "punct" and tok.text == "(":
            self.next()
            if self.at("let"):  # a let chain as an operand: (let %a = 1; %a + 2)
                self.scopes.append({})
                inner = self.body()
                self.scopes.pop()
                self.expect(")")
                return inner
            fields: list[Expr] = []
            trailing = False
            while not self.at(")"):
                fields.append(self.expr())
                trailing = self.accept(",")
                if not trailing:
                    break
            self.expect(")")
            if len(fields) == 1 and not trailing:
                return fields[0]
            return Tuple(fields)
        if tok.kind == "punct" and tok.text == "{":
            return self.block()
        if tok.kind != "ident":
            raise self.error(f"expected an expression, got '{tok.text or 'the end'}'")
        self.out_of_scope(tok)
        if tok.text in ("True", "False"):
            self.next()
            lit = Constant(np.array(tok.text == "True"))
            return lit
        if tok.text == "fn":
            self.next()
            return self.function_rest()
        if tok.text == "if":
            self.next()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            then = self.block()
            self.expect("else")
            other = self.block()
            return If(cond, then, other)
        if tok.text == "meta":
            return self.meta_ref()
        if tok.text[0].isupper():
            raise self.error(
                f"ADTs (constructor {tok.text}) are not supported by xrelay"
            )
        from xrelay.dialects.relay import OPS_BY_NAME

        self.next()
        if OPS_BY_NAME.get("relay." + tok.text) is None:
            raise self.error(f"unknown operator or keyword '{tok.text}'", tok)
        return Op.get(tok.text)

    def block(self) -> Expr:
        self.expect("{")
        self.scopes.append({})
        body = self.body()
        self.scopes.pop()
        self.expect("}")
        return body

    def literal(self, tok: Token) -> Constant:
        m = re.fullmatch(
            r"([\d.eE+-]+?)(f16|f32|f64|f|i8|i16|i32|i64|u8|u16|u32|u64|i|u)?",
            tok.text,
        )
        assert m is not None
        digits, suffix = m.group(1), m.group(2)
        is_float = any(c in digits for c in ".eE") or (suffix or "").startswith("f")
        try:
            value = float(digits) if is_float else int(digits)
        except ValueError:
            raise self.error(f"bad number {tok.text}", tok) from None
        if suffix is not None:
            dtype = _SUFFIX_DTYPE[suffix]
        elif is_float:
            dtype = "float32"
        else:  # an unsuffixed integer is int32, or int64 if it does not fit
            dtype = "int32" if -(2**31) <= int(value) < 2**31 else "int64"
        if dtype.startswith("float"):
            with np.errstate(over="ignore"):
                array = np.array(value, dtype=dtype)
            if not np.isfinite(array) or abs(value) > float(np.finfo(dtype).max):
                raise self.error(f"{tok.text} does not fit in {dtype}", tok)
            return Constant(array)
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise self.error(f"{tok.text} does not fit in {dtype}", tok)
        return Constant(np.array(int(value), dtype=dtype))

    def meta_ref(self) -> Expr:
        tok = self.next()
        self.expect("[")
        kind = self.next()
        self.expect("]")
        self.expect("[")
        index = self.next()
        self.expect("]")
        if kind.text != "relay.Constant":
            raise self.error(
                f"meta[{kind.text}] is not supported (only relay.Constant)", kind
            )
        table = self.meta.get("relay.Constant")
        if table is None:
            raise self.error(
                "meta[relay.Constant] needs the #[metadata] section (or init_meta_table)",
                tok,
            )
        k = int(index.text)
        if not 0 <= k < len(table):
            raise self.error(
                f"meta[relay.Constant][{k}] is out of range ({len(table)} constants)",
                index,
            )
        value = table[k]
        return value if isinstance(value, Constant) else Constant(np.asarray(value))

    # -- attributes and types -----------------------------------------------------------

    def attr_value(self) -> Any:
        tok = self.next()
        if tok.kind == "binop" and tok.text == "-" and self.peek().kind == "number":
            return -self.attr_value()
        if tok.kind == "number":  # attributes are f64 / i64: no rounding to f32
            if re.fullmatch(r"-?\d+", tok.text):
                return int(tok.text)
            lit = self.literal(tok).data
            if lit.dtype.kind == "f":
                return float(re.sub(r"(f16|f32|f64|f)$", "", tok.text))
            return int(lit)
        if tok.kind == "string":
            return json.loads(tok.text)
        if tok.kind == "ident":
            if tok.text in ("True", "False"):
                return tok.text == "True"
            if tok.text == "None":
                return None
            return tok.text  # a bare dtype (float32) or layout
        if tok.text == "[":
            values: list[Any] = []
            while not self.at("]"):
                values.append(self.attr_value())
                if not self.accept(","):
                    break
            self.expect("]")
            return values
        raise self.error(f"expected an attribute value, got '{tok.text}'", tok)

    def type_(self) -> TypeLike:
        tok = self.next()
        if tok.kind == "ident" and tok.text == "_":  # Relay's IncompleteType
            return UNKNOWN
        if tok.kind == "ident" and tok.text == "Tensor":
            self.expect("[")
            if self.accept("?"):  # xrelay's incomplete type (an unranked tensor)
                self.expect(",")
                dtype = self.next()
                self.expect("]")
                from xdsl.dialects.builtin import UnrankedTensorType

                from xrelay.dialects.relay import dtypes

                return UnrankedTensorType(
                    dtypes.element_type(self.tensor([], dtype).dtype)
                )
            self.expect("(")
            dims: list[int | AnyDim] = []
            while not self.at(")"):
                d = self.next()
                if d.text in ("?", "Any"):
                    dims.append(AnyDim())
                elif d.kind == "number":
                    dims.append(int(re.sub(r"i(64|32)?$", "", d.text)))
                else:
                    raise self.error(f"expected a dimension, got '{d.text}'", d)
                if not self.accept(","):
                    break
            self.expect(")")
            self.expect(",")
            dtype = self.next()
            self.expect("]")
            return self.tensor(dims, dtype)
        if tok.kind == "punct" and tok.text == "(":
            fields: list[TypeLike] = []
            while not self.at(")"):
                fields.append(self.type_())
                if not self.accept(","):
                    break
            self.expect(")")
            return TupleType(fields)
        if tok.kind == "ident" and tok.text == "fn":
            self.expect("(")
            args: list[TypeLike] = []
            while not self.at(")"):
                args.append(self.type_())
                if not self.accept(","):
                    break
            self.expect(")")
            self.expect("->")
            return FuncType(args, self.type_())
        if tok.kind == "ident":
            return self.tensor([], tok)
        raise self.error(f"expected a type, got '{tok.text}'", tok)

    def tensor(self, dims: Sequence[int | AnyDim], dtype: Token) -> TensorType:
        try:
            return TensorType(dims, dtype.text)
        except Exception:
            if dtype.text[:1].isupper():
                raise self.error(
                    f"ADTs (the type {dtype.text}) are not supported by xrelay", dtype
                ) from None
            raise self.error(f"unknown dtype or type '{dtype.text}'", dtype) from None


def _read_metadata(text: str, parser: _Parser) -> dict[str, list[Any]]:
    """The ``#[metadata]`` section: xrelay's JSON or TVM's (base64 NDArrays)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RelayTextError(
            f"{parser.source}: error: bad #[metadata] section: {e}"
        ) from e
    if "relay.Constant" in data:
        return {
            "relay.Constant": [
                np.frombuffer(
                    base64.b64decode(c["data"]),
                    dtype=np.dtype(c["dtype"]).newbyteorder("<"),
                ).reshape(c["shape"])
                for c in data["relay.Constant"]
            ]
        }
    if "nodes" in data and "b64ndarrays" in data:
        return {"relay.Constant": _tvm_constants(data)}
    return {}


_DL_CODES = {0: "int", 1: "uint", 2: "float"}


def _tvm_ndarray(blob: bytes) -> np.ndarray[Any, Any]:
    """One NDArray of TVM's binary format (magic, reserved, device, ndim, dtype,
    shape, byte size, data; little-endian)."""
    _magic, _reserved, _dev_type, _dev_id, ndim = struct.unpack_from("<QQiii", blob, 0)
    code, bits, _lanes = struct.unpack_from("<BBH", blob, 28)
    shape = struct.unpack_from(f"<{ndim}q", blob, 32)
    offset = 32 + 8 * ndim
    (size,) = struct.unpack_from("<q", blob, offset)
    name = "bool" if code == 1 and bits == 1 else f"{_DL_CODES[code]}{bits}"
    raw = blob[offset + 8 : offset + 8 + size]
    return np.frombuffer(raw, dtype=np.dtype(name).newbyteorder("<")).reshape(shape)


def _tvm_constants(data: dict[str, Any]) -> list[Any]:
    nodes: list[dict[str, Any]] = data["nodes"]
    arrays = [_tvm_ndarray(base64.b64decode(b)) for b in data["b64ndarrays"]]
    root = nodes[data.get("root", 1)]
    keys = root.get("keys", [])
    values = root.get("data", [])
    for key, value in zip(keys, values, strict=False):
        if key == "relay.Constant":
            entries = nodes[value].get("data", [])
            return [arrays[int(nodes[i]["attrs"]["data"])] for i in entries]
    return []


def parse(
    text: str,
    source_name: str = "from_string",
    init_module: Any = None,
    init_meta_table: Mapping[str, Sequence[Any]] | None = None,
) -> Any:
    """Read Relay text into an :class:`IRModule` (TVM's ``tvm.relay.parse`` /
    ``tvm.parser.parse``). Raises :class:`RelayTextError` with ``file:line:col``."""
    from xrelay.frontend.relay.module import IRModule

    if _is_mlir(text):
        return _parse_mlir(text, source_name)
    parser = _Parser(text, source_name, init_meta_table)
    if parser.is_expression():  # one expression: the module's @main
        parser.module_mode = False
        expr = parser.whole_expression()
        try:
            return IRModule.from_expr(expr)
        except (BuildError, TypeError, ValueError) as e:
            raise RelayTextError(str(e).split("\n")[0], f"{source_name}:1:1") from e
    try:
        defs = parser.module()
    except RecursionError:
        raise parser.error(
            "the program is nested too deeply to parse (Python's recursion limit)"
        ) from None
    mod = init_module if init_module is not None else IRModule()
    by_name = {name: (fn, tok) for name, fn, tok in defs}
    done: set[str] = set()
    active: list[str] = []

    def add(name: str) -> None:
        if name in done:
            return
        fn, tok = by_name[name]
        active.append(name)
        for callee in _called_globals(fn):
            if callee in by_name and callee not in active:
                add(callee)
            elif callee not in by_name and callee not in mod:
                raise parser.error(f"@{callee} is not defined", tok)
        active.pop()
        try:
            mod[name] = fn
        except RecursionError:
            raise parser.error(
                f"in @{name}: the function is nested too deeply to build (Python's "
                "recursion limit)",
                tok,
            ) from None
        except (BuildError, TypeError, ValueError) as e:
            message = str(e)
            site = re.search(r" \(built at [^()]*:(\d+)\)", message)
            if site is None:
                raise parser.error(f"in @{name}: {message}", tok) from e
            line = int(site.group(1))
            start = sum(len(x) + 1 for x in parser.text.split("\n")[: line - 1])
            text_line = parser.text.split("\n")[line - 1]
            start += len(text_line) - len(text_line.lstrip())
            message = message[: site.start()] + message[site.end() :]
            raise parser.error_at(start, f"in @{name}: {message}") from e
        done.add(name)

    for name, _, _ in defs:
        add(name)
    return mod


def _is_mlir(text: str) -> bool:
    """xrelay's own IR (what ``IRModule.astext()`` writes), not Relay text."""
    head = text.lstrip()
    return head.startswith(
        ("builtin.module", '"builtin.module"', "func.func", "module")
    )


def _parse_mlir(text: str, source_name: str) -> Any:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.utils.exceptions import ParseError, VerifyException

    from xrelay.dialects.context import mlir_context
    from xrelay.frontend.relay.module import IRModule

    try:
        module = Parser(mlir_context(), text, source_name).parse_module()
        module.verify()
    except (ParseError, VerifyException) as e:
        first = str(e).strip().split("\n")[0]
        raise RelayTextError(f"bad xrelay IR: {first}", source_name) from None
    assert isinstance(module, ModuleOp)
    return IRModule(module)


def _called_globals(fn: Function) -> list[str]:
    from xrelay.frontend.relay.analysis import children

    out: list[str] = []
    seen: set[Expr] = set()
    stack: list[Expr] = [fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, Call) and isinstance(node.op, GlobalVar):
            out.append(node.op.name_hint)
        stack.extend(children(node))
    return out


def fromtext(text: str, source_name: str = "from_string") -> Any:
    """TVM's ``relay.fromtext``: :func:`parse`."""
    return parse(text, source_name)


def parse_expr(text: str, source_name: str = "from_string") -> Any:
    """One expression (TVM's ``tvm.relay.parse_expr``), optionally after the
    ``#[version]`` header and ``free_var %x: T;`` declarations, with its
    ``#[metadata]`` section. Gives a relay expression (an :class:`Op` for a bare
    operator name); closures and free variables are allowed here."""
    parser = _Parser(text, source_name, None)
    parser.module_mode = False
    return parser.whole_expression()
