"""Relay's types on the Python side: ``TensorType``, ``TupleType``, ``FuncType``,
``Any`` (a dynamic dimension), ``IncompleteType`` and the type variables
``TypeVar`` / ``GlobalTypeVar`` (built and compared only), shaped like
``tvm.relay.ty``.

They are plain Python descriptions; :func:`to_ir` turns them into the builtin types of
the IR (``tensor<1x3xf32>``, ``tuple<...>``, ``(…) -> …``) and :func:`from_ir` back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias, cast

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FunctionType,
)
from xdsl.dialects.builtin import (
    TensorType as IRTensorType,
)
from xdsl.dialects.builtin import (
    TupleType as IRTupleType,
)
from xdsl.ir import Attribute, TypeAttribute

from xrelay.dialects.relay import dtypes

DYN = DYNAMIC_INDEX
"""A dynamic dimension in the IR (xDSL's marker, printed ``?``)."""


class Any:
    """A dimension whose size is not known before run time (Relay's ``Any``)."""

    def __repr__(self) -> str:
        return "?"


class Type:
    """Base class of the Python-side Relay types."""


class TensorType(Type):
    """A tensor type: ``shape`` (ints, or :class:`Any` for dynamic dims) and ``dtype``."""

    def __init__(self, shape: Sequence[int | Any], dtype: str = "float32"):
        self.shape: tuple[int | Any, ...] = tuple(
            d if isinstance(d, Any) else int(d) for d in shape
        )
        dtypes.element_type(dtype)  # reject unknown dtypes early
        self.dtype = str(dtype)

    @property
    def concrete_shape(self) -> tuple[int, ...]:
        """The shape as ints; raises if a dimension is dynamic."""
        if any(isinstance(d, Any) for d in self.shape):
            raise ValueError(f"{self} has a dynamic dimension")
        return cast(tuple[int, ...], self.shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorType):
            return NotImplemented
        return _dims(self.shape) == _dims(other.shape) and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash((_dims(self.shape), self.dtype))

    def __repr__(self) -> str:
        return f"TensorType({list(self.shape)}, {self.dtype})"


class TupleType(Type):
    """The type of a tuple: one type per field."""

    def __init__(self, fields: Sequence[TypeLike]):
        self.fields: tuple[TypeLike, ...] = tuple(fields)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TupleType):
            return NotImplemented
        return _same_types(self.fields, other.fields)

    def __hash__(self) -> int:
        return hash(len(self.fields))

    def __repr__(self) -> str:
        return f"TupleType({list(self.fields)})"


class FuncType(Type):
    """The type of a function: argument types and one return type."""

    def __init__(self, arg_types: Sequence[TypeLike], ret_type: TypeLike):
        self.arg_types: tuple[TypeLike, ...] = tuple(arg_types)
        self.ret_type: TypeLike = ret_type

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FuncType):
            return NotImplemented
        return _same_types(
            [*self.arg_types, self.ret_type], [*other.arg_types, other.ret_type]
        )

    def __hash__(self) -> int:
        return hash(len(self.arg_types))

    def __repr__(self) -> str:
        return f"FuncType({list(self.arg_types)}, {self.ret_type})"


class TypeKind:
    """The kind of a type variable (TVM's ``relay.TypeKind``)."""

    Type = 0
    ShapeVar = 1
    Constraint = 4
    AdtHandle = 5
    TypeData = 6


class TypeVar(Type):
    """A type variable (Relay's ``TypeVar``): it can be built, compared and named,
    but xrelay's functions are monomorphic, so using one as the type of a value is
    a one-line error. Equal only to itself, as in TVM."""

    def __init__(self, name_hint: str, kind: int = TypeKind.Type):
        self.name_hint = str(name_hint)
        self.kind = kind

    def __repr__(self) -> str:
        return f"TypeVar({self.name_hint})"


class GlobalTypeVar(TypeVar):
    """The name of a global type definition (an ADT in TVM): equal to itself only."""

    def __init__(self, name_hint: str, kind: int = TypeKind.AdtHandle):
        super().__init__(name_hint, kind)

    def __repr__(self) -> str:
        return f"GlobalTypeVar({self.name_hint})"


class IncompleteType(Type):
    """A type to be inferred (Relay's ``IncompleteType``): the type of an untyped
    variable, solved by InferType."""

    def __init__(self, kind: int = TypeKind.Type):
        self.kind = kind

    def __repr__(self) -> str:
        return "IncompleteType()"


TypeLike: TypeAlias = Type | Attribute
"""A Python-side type, or an IR type used directly."""


def _same_types(a: Sequence[TypeLike], b: Sequence[TypeLike]) -> bool:
    """Field-wise type equality; a type variable equals only itself."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if isinstance(x, TypeVar) or isinstance(y, TypeVar):
            if x is not y:
                return False
        elif isinstance(x, Type) and isinstance(y, Type):
            if x != y:
                return False
        elif to_ir(x) != to_ir(y):
            return False
    return True


def scalar_type(dtype: str) -> TensorType:
    """A 0-d tensor type (Relay's ``scalar_type``)."""
    return TensorType((), dtype)


def _dims(shape: Sequence[int | Any]) -> tuple[int, ...]:
    return tuple(DYN if isinstance(d, Any) else d for d in shape)


def to_ir(ty: TypeLike) -> Attribute:
    """The IR type of a Python-side type (IR types pass through unchanged)."""
    if isinstance(ty, Attribute):
        return ty
    if isinstance(ty, TensorType):
        return IRTensorType(dtypes.element_type(ty.dtype), list(_dims(ty.shape)))
    if isinstance(ty, TupleType):
        return IRTupleType(
            tuple(cast(TypeAttribute, to_ir(field)) for field in ty.fields)
        )
    if isinstance(ty, FuncType):
        return FunctionType.from_lists(
            [to_ir(a) for a in ty.arg_types], [to_ir(ty.ret_type)]
        )
    if isinstance(ty, IncompleteType):
        from xrelay.dialects.relay.base import UNKNOWN

        return UNKNOWN
    if isinstance(ty, TypeVar):
        raise TypeError(
            f"{ty!r}: type variables (polymorphic functions, ADTs) are not part of "
            "xrelay; give the type itself"
        )
    raise TypeError(f"cannot use {ty!r} as a relay type")


def from_ir(ty: Attribute) -> TypeLike:
    """The Python-side type of an IR type (types without a counterpart pass through)."""
    if isinstance(ty, IRTensorType):
        tensor = cast(IRTensorType[Attribute], ty)
        shape = [Any() if d == DYN else d for d in tensor.get_shape()]
        return TensorType(shape, dtypes.dtype_name(tensor.get_element_type()))
    if isinstance(ty, IRTupleType):
        return TupleType([from_ir(t) for t in ty.types.data])
    if isinstance(ty, FunctionType):
        outputs = ty.outputs.data
        ret: TypeLike = (
            from_ir(outputs[0])
            if len(outputs) == 1
            else TupleType([from_ir(t) for t in outputs])
        )
        return FuncType([from_ir(t) for t in ty.inputs.data], ret)
    return ty
