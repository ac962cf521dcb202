"""Relay data types as builtin element types, and their numpy counterparts.

Relay names dtypes with strings (``"float32"``, ``"int64"``, ``"bool"``); xrelay's IR
uses builtin element types (``f32``, ``i64``, ``i1``). Integers are signless in the IR
and read as signed by the reference semantics, except ``ui*`` types. ``bfloat16``'s
numpy counterpart is ``ml_dtypes.bfloat16`` (numpy has none; its dtype kind is
``"V"``, so test it with :func:`is_bfloat16`, not by kind).
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute

_BY_NAME: dict[str, Attribute] = {
    "float16": Float16Type(),
    "float32": Float32Type(),
    "float64": Float64Type(),
    "bfloat16": BFloat16Type(),
    "bool": IntegerType(1),
    "int8": IntegerType(8),
    "int16": IntegerType(16),
    "int32": IntegerType(32),
    "int64": IntegerType(64),
    "uint8": IntegerType(8, Signedness.UNSIGNED),
    "uint16": IntegerType(16, Signedness.UNSIGNED),
    "uint32": IntegerType(32, Signedness.UNSIGNED),
    "uint64": IntegerType(64, Signedness.UNSIGNED),
}
BFLOAT16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
"""numpy's view of ``bfloat16`` (from ``ml_dtypes``)."""

_ALIASES = {"float": "float32", "int": "int32", "double": "float64", "half": "float16"}


class DTypeError(ValueError):
    """An unknown or unsupported data type."""


def element_type(dtype: str | Attribute | np.dtype[Any] | type) -> Attribute:
    """The builtin element type for a Relay dtype name, numpy dtype or element type."""
    if isinstance(dtype, Attribute):
        if isinstance(dtype, IntegerType | AnyFloat | IndexType):
            return dtype
        raise DTypeError(f"'{dtype}' is not a tensor element type")
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype, dtype)
        if name in _BY_NAME:
            return _BY_NAME[name]
        try:
            return element_type(np.dtype(name))
        except TypeError:
            raise DTypeError(
                f"unknown dtype '{dtype}' (known: {', '.join(sorted(_BY_NAME))})"
            ) from None
    npd = np.dtype(dtype)
    if npd == BFLOAT16:
        return BFloat16Type()
    if npd == np.bool_:
        return IntegerType(1)
    if npd.kind == "f":
        return element_type(f"float{npd.itemsize * 8}")
    if npd.kind == "i":
        return IntegerType(npd.itemsize * 8)
    if npd.kind == "u":
        return IntegerType(npd.itemsize * 8, Signedness.UNSIGNED)
    raise DTypeError(f"numpy dtype '{npd}' has no relay element type")


def dtype_name(elem: Attribute) -> str:
    """The Relay dtype name (``"float32"``) of a builtin element type."""
    for name, ty in _BY_NAME.items():
        if ty == elem:
            return name
    if isinstance(elem, IntegerType):
        sign = "u" if elem.signedness.data == Signedness.UNSIGNED else ""
        return f"{sign}int{elem.width.data}"
    if isinstance(elem, IndexType):
        return "int64"
    raise DTypeError(f"'{elem}' is not a tensor element type")


def numpy_dtype(elem: Attribute) -> np.dtype[Any]:
    """The numpy dtype holding values of a builtin element type."""
    if isinstance(elem, BFloat16Type):
        return BFLOAT16
    name = dtype_name(elem)
    return np.dtype(np.bool_) if name == "bool" else np.dtype(name)


def is_bfloat16(dt: np.dtype[Any]) -> bool:
    """The numpy dtype is ``ml_dtypes.bfloat16``."""
    return dt == BFLOAT16


def to_bfloat16(value: Any) -> np.ndarray[Any, Any]:
    """``value`` rounded to bfloat16 the way compiled code rounds: through float32
    (as ``ml_dtypes`` does), to nearest even; a NaN is quieted and keeps its sign
    and the top of its payload (``ml_dtypes`` would drop the payload), so moving
    bfloat16 NaNs through float32 keeps their bits."""
    arr = np.asarray(value)
    if is_bfloat16(arr.dtype):
        return arr
    f32 = np.ascontiguousarray(arr, dtype=np.float32)
    bits = f32.view(np.uint32)
    high = bits >> np.uint32(16)
    # uint32 arithmetic wraps; only a NaN can wrap, and NaNs take ``high | 0x40``
    rounded = (bits + (high & np.uint32(1)) + np.uint32(0x7FFF)) >> np.uint32(16)
    out = np.where(np.isnan(f32), high | np.uint32(0x40), rounded)
    return out.astype(np.uint16).view(BFLOAT16)


def float_to_int(value: Any, dt: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """Floats converted to the integer dtype ``dt`` the way compiled code converts
    them (LLVM's ``fptosi.sat`` / ``fptoui.sat``, onnxruntime's saturating casts):
    truncated toward zero; NaN is 0; a value below or above ``dt``'s range (±inf
    included) is ``dt``'s minimum or maximum. numpy leaves those undefined (on x86
    ``INT_MIN`` for a NaN or an overflow); here every input has one result."""
    x = np.asarray(value)
    wide = x.astype(np.float64)  # exact for every float16, bfloat16, float32
    info = np.iinfo(dt)
    # float(info.max) rounds up to a power of two for 32/64-bit types: at or above
    # it is out of range; float(info.min) is exact
    high = wide >= float(info.max)
    low = wide <= float(info.min)
    safe = np.where(np.isnan(wide) | high | low, 0.0, np.trunc(wide))
    out = safe.astype(dt)
    out[high] = info.max
    out[low] = info.min
    return out


def astype(value: Any, dt: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """``value`` as an array of dtype ``dt``: numpy's ``astype``, except that floats
    become integers by :func:`float_to_int` (defined for every input) and become
    ``bfloat16`` by :func:`to_bfloat16`."""
    arr = np.asarray(value)
    if arr.dtype == dt:
        return arr
    if dt.kind in "iu" and is_float_dtype(arr.dtype):
        return float_to_int(arr, dt)
    if is_bfloat16(dt):
        return to_bfloat16(arr)
    return arr.astype(dt)


def is_float_dtype(dt: np.dtype[Any]) -> bool:
    """A numpy float dtype, ``bfloat16`` included (its numpy kind is ``"V"``)."""
    return dt.kind == "f" or is_bfloat16(dt)


def is_float(elem: Attribute) -> bool:
    return isinstance(elem, AnyFloat)


def is_bool(elem: Attribute) -> bool:
    return isinstance(elem, IntegerType) and elem.width.data == 1


def is_int(elem: Attribute) -> bool:
    return isinstance(elem, IntegerType | IndexType) and not is_bool(elem)


def tensor_type(
    shape: tuple[int, ...] | list[int], dtype: str | Attribute
) -> TensorType:
    """``tensor<shape x dtype>`` with a Relay dtype name or an element type."""
    return TensorType(element_type(dtype), list(shape))
