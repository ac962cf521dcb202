"""Element types of lowered code.

A relay tensor's element type is described by a numpy dtype (:func:`numpy_dtype_of`).
Kernels see three IR types for it:

* the *register* type of a scalar value: ``f16``/``f32``/``f64``, ``i1`` for ``bool``
  and signless ``iN`` for signed and unsigned integers (arith ops are signless; the
  numpy dtype says which of ``divsi``/``divui``, ``cmpi slt``/``ult``... to use);
* the *memory* type of a buffer element: the register type, except ``bool`` which is
  stored as one byte (``i8`` holding 0 or 1, numpy's layout), so memrefs never hold
  ``i1``, and the 16-bit storage floats: ``f16`` for float16, ``i16`` (the raw bits)
  for bfloat16 (``ml_dtypes.bfloat16``, whose numpy kind is ``"V"``);
* the memref type of a buffer: ``memref<shape x memory type>`` (static shapes only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import DYN
from xrelay.lowering.errors import LoweringError

DType = np.dtype[Any]
"""A numpy dtype: how lowered code reads an element type."""

_FLOATS: dict[int, Attribute] = {
    16: Float16Type(),
    32: Float32Type(),
    64: Float64Type(),
}


def numpy_dtype_of(elem: Attribute, what: str = "tensor") -> DType:
    """The numpy dtype of an element type, or a :class:`LoweringError`."""
    try:
        return dtypes.numpy_dtype(elem)
    except dtypes.DTypeError as e:
        raise LoweringError(f"{what}: {e}") from None


def register_type(dt: DType) -> Attribute:
    """The IR type of a scalar value of dtype ``dt``. ``float16`` is a storage type:
    kernels compute on ``f32`` (loads widen, stores round), so that products are
    accumulated in ``f32`` as every peer does and no ``f16`` arithmetic (which LLVM
    may lower to runtime calls such as ``__truncdfhf2``) is emitted."""
    if is_float(dt):
        return _FLOATS[max(dt.itemsize * 8, 32)]
    if dt.kind == "b":
        return IntegerType(1)
    return IntegerType(dt.itemsize * 8)


def is_half(dt: DType) -> bool:
    """A 16-bit storage float, ``float16`` (stored as ``f16``) or ``bfloat16``
    (stored as its ``i16`` bits): computed as ``f32`` (:func:`register_type`)."""
    return is_float(dt) and dt.itemsize == 2


def is_bfloat16(dt: DType) -> bool:
    """``bfloat16``: loads widen its bits to ``f32`` by a shift, stores round to
    nearest even with integer ops (:class:`~xrelay.lowering.builder.KernelBuilder`)."""
    return dtypes.is_bfloat16(dt)


def memory_type(dt: DType) -> Attribute:
    """The IR type of a buffer element of dtype ``dt`` (``bool`` is a byte)."""
    if dt.kind == "b":
        return IntegerType(8)
    if is_bfloat16(dt):
        return IntegerType(16)
    if dt.kind == "f":
        return _FLOATS[dt.itemsize * 8]
    return register_type(dt)


def is_float(dt: DType) -> bool:
    """Floats, ``bfloat16`` included."""
    return dt.kind == "f" or dtypes.is_bfloat16(dt)


def is_signed(dt: DType) -> bool:
    """Signed integers (``bool`` and unsigned integers are not)."""
    return dt.kind == "i"


def static_shape(ty: TensorType, what: str) -> tuple[int, ...]:
    """The shape of a ranked tensor type, or a :class:`LoweringError` when a
    dimension is dynamic."""
    shape = tuple(ty.get_shape())
    if DYN in shape:
        raise LoweringError(f"{what}: cannot lower the dynamic shape {ty}")
    return shape


def tensor_info(ty: Attribute, what: str) -> tuple[tuple[int, ...], DType]:
    """Shape and numpy dtype of a value's tensor type (``what`` names it in errors)."""
    if not isinstance(ty, TensorType):
        raise LoweringError(f"{what}: cannot lower a value of type {ty}")
    tensor = cast(TensorType, ty)
    return static_shape(tensor, what), numpy_dtype_of(tensor.get_element_type(), what)


def memref_type(shape: Sequence[int], dt: DType) -> MemRefType:
    """``memref<shape x memory_type(dt)>``."""
    return MemRefType(memory_type(dt), list(shape))


def memref_bytes(ty: MemRefType) -> int | None:
    """Size in bytes of a buffer of the static memref type ``ty`` (``None`` when a
    dimension is dynamic); an ``i1`` element takes a byte."""
    elem = ty.element_type
    if isinstance(elem, IntegerType):
        width = max(1, elem.width.data // 8)
    else:
        width = getattr(elem, "bitwidth", 32) // 8
    shape = ty.get_shape()
    if any(d < 0 for d in shape):
        return None
    count = 1
    for d in shape:
        count *= d
    return count * width


def nbytes(shape: Sequence[int], dt: DType) -> int:
    """Size in bytes of a buffer."""
    return int(np.prod(shape, dtype=np.int64)) * dt.itemsize
