"""Ops that write or mask elements by index: ``scatter_nd``, ``scatter_elements`` and
``trilu``.

Index safety: an index read from the ``indices`` tensor counts from the end when
negative (ONNX's rule); one outside ``[-dim, dim)`` is an error (ONNX says so):
:func:`checked_indices` raises :class:`~xrelay.status.IndexOutOfRangeError` in the
reference semantics, and the kernels report it in the run status (see
:mod:`xrelay.status`), so that no index in the data makes a kernel read or write
outside a buffer. The first bad index in the row-major order of the updates is named.

Duplicate indices are applied in the row-major order of the updates: with
``"update"`` the last one wins, the other reductions combine them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    DYN,
    FORMAT,
    Array,
    OpPattern,
    RelayOp,
    TypeRelationError,
    bool_prop,
    get_bool,
    get_int,
    get_str,
    int_prop,
    normalize_axis,
    ranked,
    same_elem,
    shape_str,
    str_prop,
)
from xrelay.dialects.relay.dtypes import is_int
from xrelay.status import index_error

SCATTER_REDUCTIONS = ("update", "add", "mul", "min", "max")
"""How a scattered update combines with the element it lands on."""


def checked_indices(idx: Array, sizes: Sequence[int], op_name: str) -> Array:
    """Indices read from data, ``idx[..., k]`` indexing a dim of ``sizes[k]``: a
    negative one counts from the end; the first (row-major) one outside
    ``[-size, size)`` raises :class:`~xrelay.status.IndexOutOfRangeError`."""
    idx = np.asarray(idx).astype(np.int64)
    sz = np.asarray(sizes, dtype=np.int64)
    bad = (idx < -sz) | (idx >= sz)
    if bad.any():
        first = int(np.argmax(bad.reshape(-1)))
        k = first % len(sizes)
        raise index_error(op_name, int(idx.reshape(-1)[first]), sizes[k])
    return np.where(idx < 0, idx + sz, idx)


def _int_tensor(ty: TensorType, what: str) -> None:
    if not is_int(ty.get_element_type()):
        raise TypeRelationError(f"{what} must be an integer tensor, got {ty}")


def _same_dims(a: Sequence[int], b: Sequence[int], what: str) -> None:
    if len(a) != len(b) or any(
        DYN not in (x, y) and x != y for x, y in zip(a, b, strict=True)
    ):
        raise TypeRelationError(f"{what}: {shape_str(a)} != {shape_str(b)}")


def _reduction(value: str) -> str:
    if value not in SCATTER_REDUCTIONS:
        raise TypeRelationError(
            f'unknown reduction "{value}" (one of {", ".join(SCATTER_REDUCTIONS)})'
        )
    return value


def _scatter_operands(
    operand_types: Sequence[Attribute], reduction: str
) -> tuple[TensorType, TensorType, TensorType]:
    """A scatter's ``data``, integer ``indices`` and ``updates`` (of data's element
    type), ranked, after checking ``reduction``."""
    x = ranked(operand_types[0], "data")
    idx = ranked(operand_types[1], "indices")
    upd = ranked(operand_types[2], "updates")
    _int_tensor(idx, "indices")
    same_elem([x, upd], ["data", "updates"])
    _reduction(reduction)
    return x, idx, upd


def _combine(old: Any, new: Any, how: str) -> Any:
    if how == "update":
        return new
    if how == "add":
        return old + new
    if how == "mul":
        return old * new
    if how == "min":
        return np.minimum(old, new)
    return np.maximum(old, new)


@irdl_op_definition
class ScatterNDOp(RelayOp):
    """``data`` with slices replaced (or combined, see ``mode``) by ``updates`` at
    the positions given by the columns of ``indices``: with ``indices`` of shape
    ``(M, Y...)`` and ``updates`` of shape ``Y + data.shape[M:]``,
    ``out[indices[:, y], rest] = updates[y, rest]`` for every ``y``.

    ``mode``: ``"update"`` (the last duplicate wins), ``"add"``, ``"mul"``,
    ``"min"``, ``"max"``. An index out of range is an error (module docstring)."""

    name = "relay.scatter_nd"
    data = operand_def(ANY_TENSOR)
    indices = operand_def(ANY_TENSOR)
    updates = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    mode = str_prop("update")
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, idx, upd = _scatter_operands(operand_types, get_str(self.mode))
        ds, js = x.get_shape(), idx.get_shape()
        if not js or js[0] == DYN:
            raise TypeRelationError(
                f"indices must have a static first dim (the index depth M), got {idx}"
            )
        m = js[0]
        if m > len(ds):
            raise TypeRelationError(
                f"indices address {m} dims but data has rank {len(ds)}"
            )
        _same_dims(
            upd.get_shape(),
            (*js[1:], *ds[m:]),
            "updates must have the shape indices.shape[1:] + data.shape[M:]",
        )
        return [x]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        idx: Array = np.asarray(args[1]).astype(np.int64)
        upd: Array = args[2]
        how = get_str(self.mode)
        m = idx.shape[0]
        out = x.copy()
        cols = idx.reshape(m, -1)
        rows = upd.reshape(cols.shape[1], *x.shape[m:])
        safe = checked_indices(cols.T, x.shape[:m], self.name)
        for n in range(cols.shape[1]):
            pos = tuple(int(s) for s in safe[n])
            out[pos] = _combine(out[pos], rows[n], how)
        return out


@irdl_op_definition
class ScatterElementsOp(RelayOp):
    """``data`` with elements replaced (or combined, see ``reduction``) by
    ``updates`` along ``axis``: ``out[i..., indices[i..., j, k...], k...] =
    updates[i..., j, k...]``. ``indices`` and ``updates`` have one shape, of
    ``data``'s rank and no larger than ``data`` on the other axes.

    ``reduction``: ``"update"`` (the last duplicate wins), ``"add"``, ``"mul"``,
    ``"min"``, ``"max"`` (Relay's ``"mean"`` is not provided). An index out of range
    is an error (module docstring)."""

    name = "relay.scatter_elements"
    data = operand_def(ANY_TENSOR)
    indices = operand_def(ANY_TENSOR)
    updates = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(0)
    reduction = str_prop("update")
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, idx, upd = _scatter_operands(operand_types, get_str(self.reduction))
        ds, js = x.get_shape(), idx.get_shape()
        _same_dims(js, upd.get_shape(), "indices and updates must have one shape")
        if len(js) != len(ds):
            raise TypeRelationError(
                f"indices has rank {len(js)} but data has rank {len(ds)} (they must "
                "be equal)"
            )
        axis = normalize_axis(get_int(self.axis), len(ds))
        for k, (d, j) in enumerate(zip(ds, js, strict=True)):
            if k != axis and DYN not in (d, j) and j > d:
                raise TypeRelationError(
                    f"indices dim {k} is {j} but data dim {k} is only {d}"
                )
        return [x]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        upd: Array = args[2]
        axis = get_int(self.axis) % x.ndim
        idx = checked_indices(
            np.asarray(args[1])[..., None], [x.shape[axis]], self.name
        )[..., 0]
        how = get_str(self.reduction)
        out = x.copy()
        for pos in np.ndindex(*idx.shape):
            dst = list(pos)
            dst[axis] = int(idx[pos])
            target = tuple(dst)
            out[target] = _combine(out[target], upd[pos], how)
        return out


@irdl_op_definition
class TriluOp(RelayOp):
    """The upper (``upper=True``) or lower triangle of the last two dims of ``data``,
    zeros elsewhere: element ``(i, j)`` is kept when ``j - i >= k`` (upper) or
    ``j - i <= k`` (lower). ``k`` is a 0-d integer tensor (the diagonal offset)."""

    name = "relay.trilu"
    data = operand_def(ANY_TENSOR)
    k = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    upper = bool_prop(True)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        k = ranked(operand_types[1], "k")
        _int_tensor(k, "k")
        if k.get_shape():
            raise TypeRelationError(f"k must be a 0-d tensor, got {k}")
        if len(x.get_shape()) < 2:
            raise TypeRelationError(f"data must have rank >= 2, got {x}")
        return [x]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        k = int(np.asarray(args[1]))
        rows, cols = x.shape[-2:]
        diff = np.arange(cols)[None, :] - np.arange(rows)[:, None]
        keep = diff >= k if get_bool(self.upper) else diff <= k
        return np.where(keep, x, np.zeros((), x.dtype))


INDEXING_OPS: list[type[RelayOp]] = [ScatterNDOp, ScatterElementsOp, TriluOp]

__all__ = [
    "INDEXING_OPS",
    "SCATTER_REDUCTIONS",
    "ScatterElementsOp",
    "ScatterNDOp",
    "TriluOp",
    "checked_indices",
]
