"""Relay expressions as a lazy Python DAG, shaped like ``tvm.relay.expr``.

Building an expression emits nothing: ``relay.add(x, y)`` only records a :class:`Call`
node. The IR (a ``func.func`` of relay ops) is made when a :class:`Function` is put in
an :class:`~xrelay.frontend.relay.module.IRModule` (see
:mod:`xrelay.frontend.relay.emitter`). Nodes compare and hash by identity, so a node
used twice is one value in the IR.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from numbers import Number
from typing import Any, TypeAlias, cast

import numpy as np
from xdsl.ir import Attribute

from xrelay.dialects.relay import dtypes
from xrelay.frontend.relay.ty import TensorType, TypeLike
from xrelay.runtime.ndarray import NDArray as NDArray
from xrelay.runtime.ndarray import ndarray as ndarray

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class Attrs(dict[str, Any]):
    """The attributes of a call; readable as ``attrs["axis"]`` or ``attrs.axis``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _user_site() -> tuple[str, int] | None:
    """The first stack frame outside this package: where the user built a node."""
    frame = sys._getframe(1)  # pyright: ignore[reportPrivateUsage]
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            return filename, frame.f_lineno
        frame = frame.f_back
    return None


class SourceName:
    """The name of a source a :class:`Span` points into (TVM's ``tvm.ir.SourceName``)."""

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceName) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"SourceName({self.name!r})"


class Span:
    """A place in a source (TVM's ``tvm.ir.Span``): an op's location. The IR keeps
    a start (``loc("file":line:col)``); ``end_line``/``end_column`` repeat it."""

    def __init__(
        self,
        source_name: SourceName | str,
        line: int,
        end_line: int,
        column: int,
        end_column: int,
    ):
        self.source_name = (
            source_name
            if isinstance(source_name, SourceName)
            else SourceName(source_name)
        )
        self.line, self.end_line = int(line), int(end_line)
        self.column, self.end_column = int(column), int(end_column)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and (
            other.source_name,
            other.line,
            other.column,
        ) == (self.source_name, self.line, self.column)

    def __hash__(self) -> int:
        return hash((self.source_name, self.line, self.column))

    def __repr__(self) -> str:
        return f"Span({self.source_name.name}:{self.line}:{self.column})"


Scalar: TypeAlias = "int | float | bool | np.number[Any] | np.bool_"


def _is_scalar(value: object) -> bool:
    return isinstance(value, Number | np.bool_) and not isinstance(value, Expr)


class Expr:
    """Base class of every relay expression; overloads ``+ - * /``, unary ``-`` and
    the ordering comparisons ``< <= > >=`` like TVM (``==`` keeps Python identity).

    A Python number on either side of an operator becomes a 0-d constant of the
    other operand's dtype (TVM asks for an explicit ``relay.const`` there).
    """

    span: Any = None

    # -- operators ----------------------------------------------------------------------

    def _binary(self, name: str, other: object, reverse: bool = False) -> Call:
        if isinstance(other, Expr | TupleWrapper):
            rhs = to_expr(other)
        elif _is_scalar(other):
            rhs = ScalarLike(cast(Scalar, other), self)
        else:
            raise TypeError(
                f"unsupported operand type for {name}: {type(other).__name__}"
            )
        args = [rhs, self] if reverse else [self, rhs]
        return Call(Op.get(name), args)

    def __add__(self, other: object) -> Call:
        return self._binary("add", other)

    def __radd__(self, other: object) -> Call:
        return self._binary("add", other, reverse=True)

    def __sub__(self, other: object) -> Call:
        return self._binary("subtract", other)

    def __rsub__(self, other: object) -> Call:
        return self._binary("subtract", other, reverse=True)

    def __mul__(self, other: object) -> Call:
        return self._binary("multiply", other)

    def __rmul__(self, other: object) -> Call:
        return self._binary("multiply", other, reverse=True)

    def __truediv__(self, other: object) -> Call:
        return self._binary("divide", other)

    def __rtruediv__(self, other: object) -> Call:
        return self._binary("divide", other, reverse=True)

    def __neg__(self) -> Call:
        return Call(Op.get("negative"), [self])

    def __lt__(self, other: object) -> Call:
        return self._binary("less", other)

    def __le__(self, other: object) -> Call:
        return self._binary("less_equal", other)

    def __gt__(self, other: object) -> Call:
        return self._binary("greater", other)

    def __ge__(self, other: object) -> Call:
        return self._binary("greater_equal", other)

    def __call__(self, *args: Expr | TupleWrapper) -> Call:
        """A call with this expression as the callee (a GlobalVar or a Function)."""
        return Call(self, list(args))

    # -- conversions --------------------------------------------------------------------

    def astype(self, dtype: str) -> Call:
        """``relay.cast(self, dtype)``."""
        return Call(Op.get("cast"), [self], {"dtype": dtype})

    def astuple(self) -> Expr:
        """The expression itself (for symmetry with :class:`TupleWrapper`)."""
        return self

    def astext(self, show_meta_data: bool = True, fmt: str = "relay") -> str:
        """The expression in Relay's text format (TVM's ``astext``, read back by
        ``relay.parse_expr``); ``fmt="mlir"``: the module made by
        ``IRModule.from_expr(self)`` as xrelay's IR."""
        if fmt == "relay":
            from xrelay.frontend.relay.expr_text import expr_to_text

            return expr_to_text(cast(Any, self), show_meta_data)
        if fmt != "mlir":
            raise ValueError(f"astext: fmt is 'relay' or 'mlir', not {fmt!r}")
        from xrelay.frontend.relay.module import IRModule

        # (cast: pyright sees this package under two paths, see the Makefile)
        me = cast(Any, self)
        return IRModule.from_expr(me).astext(show_meta_data=show_meta_data)

    def __str__(self) -> str:
        return self.astext(show_meta_data=False, fmt="mlir")

    def _short(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return self._short()

    # -- types ----------------------------------------------------------------------------

    @property
    def checked_type(self) -> Any:
        """The type InferType gave this expression (TVM's ``checked_type``): set on
        the expressions of a module's functions (``mod["main"].body``) and, by
        ``InferTypeLocal(expr)``, on ``expr`` and its subexpressions."""
        ty = self.__dict__.get("_checked_type")
        if ty is None:
            ty = self._implied_type()
        if ty is None:
            raise ValueError(
                f"the type of {self._short()} is not checked yet: run InferType on a "
                "module holding it, or InferTypeLocal(expr)"
            )
        return ty

    @checked_type.setter
    def checked_type(self, ty: Any) -> None:
        self.__dict__["_checked_type"] = ty

    def _implied_type(self) -> Any:
        """A type known without inference (a variable's complete annotation)."""
        return None


class Var(Expr):
    """A variable: a function parameter or a ``Let``-bound name."""

    def __init__(self, name_hint: str, type_annotation: TypeLike | None = None):
        self.name_hint = str(name_hint)
        self.type_annotation: TypeLike | None = type_annotation

    def _short(self) -> str:
        return f"Var(%{self.name_hint}, {self.type_annotation!r})"

    @property
    def vid(self) -> VarId:
        """The variable's identity (TVM's ``Var.vid``): ``a.vid.same_as(b.vid)``
        when ``a`` and ``b`` are the same variable."""
        return VarId(self)

    def _implied_type(self) -> Any:
        from xrelay.dialects.relay.base import is_complete
        from xrelay.frontend.relay.ty import from_ir, to_ir

        ann = self.type_annotation
        return (
            None if ann is None or not is_complete(to_ir(ann)) else from_ir(to_ir(ann))
        )


class VarId:
    """The identity of a :class:`Var` (TVM's ``relay.Id``): its ``name_hint``, and
    ``same_as`` telling whether two belong to the same variable."""

    def __init__(self, var: Var) -> None:
        self._var = var
        self.name_hint = var.name_hint

    def same_as(self, other: object) -> bool:
        return isinstance(other, VarId) and other._var is self._var

    def __repr__(self) -> str:
        return f"Id({self.name_hint})"


class Constant(Expr):
    """A constant tensor; ``data`` is a numpy array (with TVM's ``.numpy()``)."""

    def __init__(self, data: Any):
        self.data: NDArray = ndarray(data)

    def _short(self) -> str:
        return f"Constant({self.data.dtype}{list(self.data.shape)})"


class Op:
    """An operator, named as in Relay (``"add"``, ``"nn.conv2d"``); its IR op is
    ``relay.<name>``. One instance per name: ``Op.get("add") is Op.get("add")``."""

    _registry: dict[str, Op] = {}

    def __init__(self, name: str):
        self.name = name

    @property
    def ir_name(self) -> str:
        return "relay." + self.name

    @staticmethod
    def get(name: str) -> Op:
        name = name.removeprefix("relay.")
        op = Op._registry.get(name)
        if op is None:  # setdefault: two threads asking at once get the same Op
            op = Op._registry.setdefault(name, Op(name))
        return op

    def __repr__(self) -> str:
        return f"Op({self.name})"

    # -- TVM's Op attributes and setters (see op/registry.py) ----------------------------

    def get_attr(self, attr_name: str) -> Any:
        """``TOpPattern``, ``TOpIsStateful`` or a registered attribute (None if unset)."""
        from xrelay.frontend.relay.op import registry

        return registry.get_attr(self, attr_name)

    def has_attr(self, attr_name: str) -> bool:
        return self.get_attr(attr_name) is not None

    def set_attr(self, attr_name: str, value: Any, plevel: int = 10) -> None:
        from xrelay.frontend.relay.op import registry

        registry.set_attr(self, attr_name, value, plevel)

    def reset_attr(self, attr_name: str) -> None:
        from xrelay.dialects.relay.op_attrs import reset_op_attr

        reset_op_attr(self.name, attr_name)

    @property
    def num_inputs(self) -> int | None:
        from xrelay.frontend.relay.op import registry

        return registry.defined(self).num_inputs

    def set_num_inputs(self, n: int) -> None:
        """(ops registered from Python) the number of inputs its calls take."""
        from xrelay.frontend.relay.op import registry

        registry.defined(self).num_inputs = int(n)

    def add_argument(self, name: str, type: str, description: str) -> None:
        from xrelay.frontend.relay.op import registry

        registry.defined(self).arguments.append((name, type, description))

    def add_type_rel(self, rel_name: str, type_rel_func: Any = None) -> None:
        """(ops registered from Python) ``"Identity"``, ``"Broadcast"`` or a function
        ``fn(arg_types, attrs) -> type``."""
        from xrelay.frontend.relay.op import registry

        registry.add_type_rel(self, rel_name, type_rel_func)

    def set_support_level(self, level: int) -> None:
        from xrelay.frontend.relay.op import registry

        registry.defined(self).support_level = int(level)

    def set_attrs_type_key(self, key: str) -> None:
        from xrelay.frontend.relay.op import registry

        registry.defined(self).attrs_type_key = str(key)

    def astext(self, show_meta_data: bool = True) -> str:
        """The operator's name in Relay's text format."""
        from xrelay.frontend.relay.expr_text import expr_to_text

        return expr_to_text(self, show_meta_data)


class GlobalVar(Expr):
    """The name of a module-level function (``@f``); equal when the names are equal.

    Calling it (``gv(x, y)``) makes a ``func.call``. Its function type is set when a
    function is bound to it in an IRModule (``mod[gv] = func``).
    """

    def __init__(self, name_hint: str, type_annot: Attribute | None = None):
        self.name_hint = str(name_hint)
        self._type: Attribute | None = type_annot

    @property
    def checked_type(self) -> Attribute:  # pyright: ignore[reportIncompatibleMethodOverride]
        """The callee's ``FunctionType``."""
        if self._type is None:
            raise ValueError(
                f"the type of @{self.name_hint} is not known: add it to the module first"
            )
        return self._type

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GlobalVar):
            return self.name_hint == other.name_hint
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("GlobalVar", self.name_hint))

    def __str__(self) -> str:
        return f"@{self.name_hint}"

    def _short(self) -> str:
        return f"GlobalVar(@{self.name_hint})"


class Call(Expr):
    """``op(args...)`` where ``op`` is an :class:`Op` (one relay op in the IR), a
    :class:`GlobalVar` (``func.call``) or a :class:`Function` (outlined into the
    module, then called)."""

    def __init__(
        self,
        op: Op | Expr | str,
        args: Sequence[Expr | TupleWrapper],
        attrs: dict[str, Any] | None = None,
        type_args: Any = None,
        span: Any = None,
    ):
        self.op: Op | Expr = Op.get(op) if isinstance(op, str) else op
        self.args: list[Expr] = [to_expr(a) for a in args]
        self.attrs = Attrs(attrs or {})
        # Relay's type arguments of a polymorphic op: xrelay's ops are monomorphic,
        # so they are kept for code that passes them on (``Call(c.op, c.args,
        # c.attrs, c.type_args, span)``) and are always empty after lifting
        self.type_args: list[Any] = list(type_args or [])
        self.span = span
        self.site = _user_site()

    def _short(self) -> str:
        op = self.op.name if isinstance(self.op, Op) else repr(self.op)
        return f"Call({op}, {len(self.args)} args)"


class Tuple(Expr):
    """A tuple of expressions."""

    def __init__(self, fields: Sequence[Expr | TupleWrapper], span: Any = None):
        self.fields: list[Expr] = [to_expr(f) for f in fields]
        self.span = span

    def __getitem__(self, index: int) -> Expr:
        if index >= len(self):
            raise IndexError("Tuple index out of range")
        return self.fields[index]

    def __len__(self) -> int:
        return len(self.fields)

    def astype(self, dtype: str) -> Call:
        raise TypeError("astype cannot be used on tuple")

    def _short(self) -> str:
        return f"Tuple({len(self.fields)} fields)"


class TupleGetItem(Expr):
    """Field ``index`` of a tuple-valued expression."""

    def __init__(self, tuple_value: Expr | TupleWrapper, index: int, span: Any = None):
        self.tuple_value = to_expr(tuple_value)
        self.index = int(index)
        self.span = span

    def _short(self) -> str:
        return f"TupleGetItem({self.tuple_value!r}, {self.index})"


class If(Expr):
    """``true_branch`` if the 0-d boolean ``cond`` holds, else ``false_branch``."""

    def __init__(
        self,
        cond: Expr,
        true_branch: Expr | TupleWrapper,
        false_branch: Expr | TupleWrapper,
        span: Any = None,
    ):
        self.cond = to_expr(cond)
        self.true_branch = to_expr(true_branch)
        self.false_branch = to_expr(false_branch)
        self.span = span


class Let(Expr):
    """``let var = value; body``. In the IR this is only SSA: ``var`` names ``value``."""

    def __init__(
        self, variable: Var, value: Expr | TupleWrapper, body: Expr | TupleWrapper
    ):
        if not isinstance(cast(object, variable), Var):
            raise TypeError(f"Let binds a relay.Var, got {variable!r}")
        self.var = variable
        self.value = to_expr(value)
        self.body = to_expr(body)


class ScalarLike(Expr):
    """A 0-d constant whose dtype is taken from another expression's type when the IR
    is made (how ``x * 2.0`` or ``nn.pad(x, w, pad_value=0.0)`` get their constant)."""

    def __init__(self, value: Scalar, like: Expr):
        self.value = value
        self.like = like


class TupleWrapper:
    """A tuple-valued expression of known size, usable like a Python tuple
    (``t[0]``, ``len(t)``, iteration); ``astuple()`` gives the expression."""

    def __init__(self, tuple_value: Expr, size: int):
        self.tuple_value = tuple_value
        self.size = size

    def astuple(self) -> Expr:
        return self.tuple_value

    def astext(self, show_meta_data: bool = True, fmt: str = "relay") -> str:
        return self.tuple_value.astext(show_meta_data, fmt)

    def __getitem__(self, index: int) -> TupleGetItem:
        if not -self.size <= index < self.size:
            raise IndexError("Tuple index out of range")
        return TupleGetItem(self.tuple_value, index % self.size)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[TupleGetItem]:
        return (self[i] for i in range(self.size))

    def __repr__(self) -> str:
        return f"TupleWrapper({self.tuple_value!r}, {self.size})"

    def astype(self, dtype: str) -> Call:
        raise TypeError("astype cannot be used on tuple")


def to_expr(value: object) -> Expr:
    """``value`` as an expression: expressions pass, a TupleWrapper gives its tuple."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, TupleWrapper):
        return value.tuple_value
    raise TypeError(
        f"expected a relay expression, got {type(value).__name__} {value!r}"
        + (": wrap it with relay.const first" if _is_scalar(value) else "")
    )


def var(
    name_hint: str,
    type_annotation: TypeLike | str | None = None,
    shape: Sequence[Any] | None = None,
    dtype: str = "float32",
    span: Any = None,
) -> Var:
    """A new variable, typed by ``type_annotation`` or by ``shape`` and ``dtype``.

    ``relay.var("x", "float32")`` (a dtype string as the annotation) is a 0-d tensor.
    """
    if type_annotation is not None and shape is not None:
        raise ValueError("Can only specify either type_annotation or shape.")
    if shape is not None:
        type_annotation = TensorType(shape, dtype)
    elif isinstance(type_annotation, str):
        type_annotation = TensorType((), type_annotation)
    return Var(name_hint, type_annotation)


_NARROW = {"int64": "int32", "float64": "float32"}
"""TVM's default narrowing of 64-bit constants when no dtype is given."""


def const(value: Any, dtype: str | None = None, span: Any = None) -> Constant:
    """A constant from a numpy array, a nested list or a Python scalar.

    Without ``dtype`` (TVM's rule): 64-bit floats become ``float32`` and 64-bit ints
    ``int32`` (so Python ``1.0`` is float32 and ``1`` int32); bools are ``bool``;
    other numpy dtypes are kept.
    """
    if isinstance(value, Constant):
        value = value.data
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray | np.generic):
        value = value.numpy()
    if isinstance(value, bool | int | float | list | tuple):
        value = np.array(value, dtype=dtype)
    elif not isinstance(value, np.ndarray | np.generic):
        raise ValueError("value has to be scalar or NDArray")
    array = np.asarray(value)
    if not dtype:
        target = _NARROW.get(str(array.dtype))
    else:
        target = dtype
    if target is not None:
        array = array.astype(dtypes.numpy_dtype(dtypes.element_type(target)))
    return Constant(array)
