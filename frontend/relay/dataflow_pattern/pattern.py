"""The pattern language: one class per kind of pattern, and TVM's constructors
(``is_op``, ``wildcard``, ``is_constant``, ...). A pattern is a DAG like an
expression: using one pattern object twice means "the same expression twice"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from xrelay.frontend.relay.expr import Expr, Op, TupleWrapper, to_expr
from xrelay.frontend.relay.ty import TypeLike

if TYPE_CHECKING:
    from xrelay.frontend.relay.dataflow_pattern.rewrite import PartitionCheck


class DFPattern:
    """Base class of all patterns. ``p(a, b)`` is a call pattern with ``p`` as the
    callee; ``p | q`` either; ``p + q``, ``p - q``, ``p * q``, ``p / q`` the
    arithmetic ops. Patterns compare and hash by identity."""

    def __call__(self, *args: DFPattern | None) -> CallPattern:
        if len(args) == 1 and args[0] is None:
            return CallPattern(self, None)
        return CallPattern(self, [_pattern(a) for a in args])

    def __or__(self, other: DFPattern) -> AltPattern:
        return AltPattern(self, other)

    def __add__(self, other: DFPattern) -> CallPattern:
        return is_op("add")(self, other)

    def __sub__(self, other: DFPattern) -> CallPattern:
        return is_op("subtract")(self, other)

    def __mul__(self, other: DFPattern) -> CallPattern:
        return is_op("multiply")(self, other)

    def __truediv__(self, other: DFPattern) -> CallPattern:
        return is_op("divide")(self, other)

    def has_attr(self, attrs: dict[str, Any]) -> AttrPattern:
        """Also require attributes: of the call (its op's attributes, defaults
        count), of the function, or of the operator (``TOpPattern``, ...)."""
        return AttrPattern(self, dict(attrs))

    def has_type(self, ttype: TypeLike) -> TypePattern:
        return TypePattern(self, ttype)

    def has_dtype(self, dtype: str) -> DataTypePattern:
        return DataTypePattern(self, dtype)

    def has_shape(self, shape: Sequence[int]) -> ShapePattern:
        return ShapePattern(self, shape)

    def match(self, expr: Expr | TupleWrapper) -> bool:
        """Whether ``expr`` matches this pattern."""
        from xrelay.frontend.relay.dataflow_pattern.matcher import match

        return match(self, expr)

    def partition(
        self,
        expr: Expr | TupleWrapper,
        attrs: dict[str, Any] | None = None,
        check: PartitionCheck | None = None,
    ) -> Expr:
        """``expr`` with every match replaced by a call of a function of it."""
        from xrelay.frontend.relay.dataflow_pattern.rewrite import partition

        return partition(self, expr, attrs, check)

    def dominates(
        self, parent: DFPattern, path: DFPattern | None = None
    ) -> DominatorPattern:
        """This pattern (the child) dominating ``parent`` through ``path``."""
        return DominatorPattern(parent, wildcard() if path is None else path, self)

    def optional(
        self, option_constructor: Callable[[DFPattern], DFPattern]
    ) -> AltPattern:
        """This pattern, or ``option_constructor(this)`` (an optional user of it)."""
        return self | option_constructor(self)

    def inputs(self) -> list[DFPattern]:
        """The sub-patterns (the edges of the pattern graph)."""
        return []

    def __repr__(self) -> str:
        return type(self).__name__


def _pattern(value: object) -> DFPattern:
    if isinstance(value, DFPattern):
        return value
    if isinstance(value, Expr | TupleWrapper | Op):
        return ExprPattern(value)
    raise TypeError(f"expected a pattern, got {type(value).__name__} {value!r}")


class ExprPattern(DFPattern):
    """Matches an expression structurally equal to ``expr`` (an operator: that
    operator)."""

    def __init__(self, expr: Expr | TupleWrapper | Op):
        self.expr: Expr | Op = expr if isinstance(expr, Op) else to_expr(expr)

    def __repr__(self) -> str:
        return f"ExprPattern({self.expr!r})"


class VarPattern(DFPattern):
    """Matches a variable (named ``name_hint``, unless it is empty)."""

    def __init__(self, name_hint: str = ""):
        self.name_hint = name_hint

    def __repr__(self) -> str:
        return f"VarPattern({self.name_hint!r})"


class ConstantPattern(DFPattern):
    """Matches a constant."""


class WildcardPattern(DFPattern):
    """Matches anything."""


class CallPattern(DFPattern):
    """Matches a call whose callee matches ``op`` and whose arguments match
    ``args`` (``None``: any arguments)."""

    def __init__(self, op: DFPattern, args: Sequence[DFPattern] | None):
        self.op = _pattern(op)
        self.args: list[DFPattern] | None = (
            None if args is None else [_pattern(a) for a in args]
        )

    def inputs(self) -> list[DFPattern]:
        return [self.op, *(self.args or [])]

    def __repr__(self) -> str:
        return f"CallPattern({self.op!r}, {self.args!r})"


class FunctionPattern(DFPattern):
    """Matches a function whose parameters match ``params`` (``None``: any) and
    whose body matches ``body``."""

    def __init__(self, params: Sequence[DFPattern] | None, body: DFPattern):
        self.params = None if params is None else [_pattern(p) for p in params]
        self.body = _pattern(body)

    def inputs(self) -> list[DFPattern]:
        return [*(self.params or []), self.body]


class TuplePattern(DFPattern):
    """Matches a tuple whose fields match ``fields`` (``None``: any fields)."""

    def __init__(self, fields: Sequence[DFPattern] | None):
        self.fields = None if fields is None else [_pattern(f) for f in fields]

    def __getitem__(self, index: int) -> DFPattern:
        if self.fields is None or index >= len(self.fields):
            raise IndexError("TuplePattern index out of range")
        return self.fields[index]

    def __len__(self) -> int:
        return 0 if self.fields is None else len(self.fields)

    def inputs(self) -> list[DFPattern]:
        return list(self.fields or [])


class TupleGetItemPattern(DFPattern):
    """Matches field ``index`` (``None``: any field) of a tuple matching
    ``tuple_value``."""

    def __init__(self, tuple_value: DFPattern, index: int | None = None):
        self.tuple = _pattern(tuple_value)
        self.index = -1 if index is None else int(index)

    def inputs(self) -> list[DFPattern]:
        return [self.tuple]


class IfPattern(DFPattern):
    """Matches ``if (cond) {true_branch} else {false_branch}``."""

    def __init__(
        self, cond: DFPattern, true_branch: DFPattern, false_branch: DFPattern
    ):
        self.cond = _pattern(cond)
        self.true_branch = _pattern(true_branch)
        self.false_branch = _pattern(false_branch)

    def inputs(self) -> list[DFPattern]:
        return [self.cond, self.true_branch, self.false_branch]


class LetPattern(DFPattern):
    """Matches ``let var = value; body``."""

    def __init__(self, var: DFPattern, value: DFPattern, body: DFPattern):
        self.var = _pattern(var)
        self.value = _pattern(value)
        self.body = _pattern(body)

    def inputs(self) -> list[DFPattern]:
        return [self.var, self.value, self.body]


class AltPattern(DFPattern):
    """Matches what ``left`` matches, else what ``right`` matches."""

    def __init__(self, left: DFPattern, right: DFPattern):
        self.left = _pattern(left)
        self.right = _pattern(right)

    def inputs(self) -> list[DFPattern]:
        return [self.left, self.right]


class _Constrained(DFPattern):
    """A pattern with one more condition on the matched expression."""

    def __init__(self, pattern: DFPattern):
        self.pattern = _pattern(pattern)

    def inputs(self) -> list[DFPattern]:
        return [self.pattern]


class AttrPattern(_Constrained):
    """``pattern`` whose match has the attributes ``attrs``."""

    def __init__(self, pattern: DFPattern, attrs: dict[str, Any]):
        super().__init__(pattern)
        self.attrs = attrs


class TypePattern(_Constrained):
    """``pattern`` whose match has type ``type``."""

    def __init__(self, pattern: DFPattern, ttype: TypeLike):
        super().__init__(pattern)
        self.type = ttype


class ShapePattern(_Constrained):
    """``pattern`` whose match is a tensor of shape ``shape``."""

    def __init__(self, pattern: DFPattern, shape: Sequence[int]):
        super().__init__(pattern)
        self.shape = [int(d) for d in shape]


class DataTypePattern(_Constrained):
    """``pattern`` whose match is a tensor of element type ``dtype``."""

    def __init__(self, pattern: DFPattern, dtype: str):
        super().__init__(pattern)
        self.dtype = str(dtype)


class DominatorPattern(DFPattern):
    """``child`` dominating ``parent``: every path from ``parent`` to ``child``
    goes through nodes matching ``path`` only."""

    def __init__(self, parent: DFPattern, path: DFPattern, child: DFPattern):
        self.parent = _pattern(parent)
        self.path = _pattern(path)
        self.child = _pattern(child)

    def inputs(self) -> list[DFPattern]:
        return [self.parent, self.path, self.child]


# -- TVM's constructors ---------------------------------------------------------------


def is_var(name: str = "") -> VarPattern:
    return VarPattern(name)


def is_constant() -> ConstantPattern:
    return ConstantPattern()


def is_expr(expr: Expr | TupleWrapper) -> ExprPattern:
    return ExprPattern(expr)


def is_op(op_name: str) -> ExprPattern:
    """The operator ``op_name`` (``"nn.conv2d"``); call it to match its calls."""
    return ExprPattern(Op.get(op_name))


def is_tuple(fields: Sequence[DFPattern] | None) -> TuplePattern:
    return TuplePattern(fields)


def is_tuple_get_item(
    tuple_value: DFPattern, index: int | None = None
) -> TupleGetItemPattern:
    return TupleGetItemPattern(tuple_value, index)


def is_if(
    cond: DFPattern, true_branch: DFPattern, false_branch: DFPattern
) -> IfPattern:
    return IfPattern(cond, true_branch, false_branch)


def is_let(var: DFPattern, value: DFPattern, body: DFPattern) -> LetPattern:
    return LetPattern(var, value, body)


def wildcard() -> WildcardPattern:
    return WildcardPattern()


def has_type(ttype: TypeLike, pattern: DFPattern | None = None) -> TypePattern:
    return TypePattern(wildcard() if pattern is None else pattern, ttype)


def has_dtype(dtype: str, pattern: DFPattern | None = None) -> DataTypePattern:
    return DataTypePattern(wildcard() if pattern is None else pattern, dtype)


def has_shape(shape: Sequence[int], pattern: DFPattern | None = None) -> ShapePattern:
    return ShapePattern(wildcard() if pattern is None else pattern, shape)


def has_attr(attrs: dict[str, Any], pattern: DFPattern | None = None) -> AttrPattern:
    return (wildcard() if pattern is None else pattern).has_attr(attrs)


def dominates(parent: DFPattern, path: DFPattern, child: DFPattern) -> DominatorPattern:
    return DominatorPattern(parent, path, child)
