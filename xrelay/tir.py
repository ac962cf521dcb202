"""``xrelay.tir`` (TVM's ``tvm.tir``): the scalar constants Relay takes where it
takes numbers, and ``Any``, a dynamic dimension.

    f = f.with_attr("Primitive", tir.IntImm("int32", 1))
    x = relay.var("x", shape=(tir.Any(), 4))

``IntImm`` is an ``int`` (``FloatImm`` a ``float``) that also keeps its dtype, so it
goes anywhere Relay accepts a number: attributes, shapes, function attributes, and
compares equal to the number (``tir.IntImm("int64", 2) == 2``). ``Any()`` is
:class:`xrelay.relay.Any`: InferType carries it through the ops whose type
relations allow dynamic dimensions; an op or pass needing a static shape fails
with one line naming it. The rest of TIR (``PrimFunc``, buffers, loops) is not part
of xrelay.
"""

from __future__ import annotations

from typing import Any as _Any

from xrelay.frontend.relay.ty import Any as Any

_INT_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
)
_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


class IntImm(int):
    """An integer constant with a dtype (TVM's ``tir.IntImm(dtype, value)``)."""

    dtype: str

    def __new__(cls, dtype: str, value: int, span: _Any = None) -> IntImm:
        if dtype not in _INT_DTYPES:
            raise ValueError(f"tir.IntImm needs an integer dtype, not {dtype!r}")
        obj = super().__new__(cls, int(value))
        obj.dtype = dtype
        return obj

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"T.{self.dtype}({int(self)})"


class FloatImm(float):
    """A floating-point constant with a dtype (TVM's ``tir.FloatImm``)."""

    dtype: str

    def __new__(cls, dtype: str, value: float, span: _Any = None) -> FloatImm:
        if dtype not in _FLOAT_DTYPES:
            raise ValueError(f"tir.FloatImm needs a float dtype, not {dtype!r}")
        obj = super().__new__(cls, float(value))
        obj.dtype = dtype
        return obj

    @property
    def value(self) -> float:
        return float(self)

    def __repr__(self) -> str:
        return f"T.{self.dtype}({float(self)})"


def const(value: float | int | bool, dtype: str | None = None) -> IntImm | FloatImm:
    """A scalar constant (TVM's ``tir.const``): ``int32`` for ints, ``float32`` for
    floats and ``bool`` for bools unless ``dtype`` says otherwise."""
    if dtype is None:
        dtype = (
            "bool"
            if isinstance(value, bool)
            else "int32"
            if isinstance(value, int)
            else "float32"
        )
    if dtype in _FLOAT_DTYPES:
        return FloatImm(dtype, float(value))
    return IntImm(dtype, int(value))


def layout(layout_str: str, dtype: str = "int32") -> _Any:
    """A data layout (``"NCHW"``, ``"NCHW16c"``; TVM's ``tir.layout``); ``""`` is the
    undefined layout."""
    from xrelay.dialects.relay.layout import Layout

    return Layout.parse(layout_str)


__all__ = ["Any", "FloatImm", "IntImm", "const", "layout"]
