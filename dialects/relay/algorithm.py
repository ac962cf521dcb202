"""Scans, selection and contraction: ``cumsum``, ``cumprod``, ``topk`` and
``einsum``.

``cumsum``/``cumprod`` accumulate in the output dtype, in order along the axis (the
reference is numpy's ``accumulate``, which does the same). ``topk`` orders NaN above
every number and breaks ties by the lower index (a stable sort). ``einsum`` takes
numpy's equation language: letters, ``...`` (whose dims broadcast), implicit outputs.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType, i32
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)

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
    opt_dtype_prop,
    opt_int_prop,
    ranked,
    same_elem,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.dtypes import astype, is_int, numpy_dtype
from xrelay.dialects.relay.layout_rules import InferredLayouts, MaybeLayout, new_axis_of
from xrelay.dialects.relay.mixed_precision import MixedPrecisionCategory

# ---------------------------------------------------------------------------------------
# Scans
# ---------------------------------------------------------------------------------------


class _ScanOp(RelayOp):
    """``cumsum`` / ``cumprod``: the running reduction of ``data`` along ``axis``
    (absent: over the flattened data, giving a 1-D result) in ``dtype`` (absent: the
    data's). ``exclusive``: element ``i`` leaves out ``data[i]`` (the first is the
    identity, 0 or 1)."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = opt_int_prop()
    dtype = opt_dtype_prop()
    exclusive = bool_prop(False)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    IDENTITY: ClassVar[int] = 0

    def out_dtype(self, data_elem: Attribute) -> Attribute:
        return data_elem if self.dtype is None else self.dtype

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        shape = x.get_shape()
        elem = self.out_dtype(x.get_element_type())
        if self.axis is None:
            n = DYN if DYN in shape else int(np.prod(shape, dtype=np.int64))
            return [tensor([n], elem)]
        normalize_axis(get_int(self.axis), len(shape))
        return [tensor(shape, elem)]

    def accumulate(self, x: Array, axis: int) -> Array:
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        if self.dtype is not None:
            x = astype(x, numpy_dtype(self.dtype))
        if self.axis is None:
            x, axis = x.reshape(-1), 0
        else:
            axis = get_int(self.axis) % x.ndim
        out = self.accumulate(x, axis)
        if get_bool(self.exclusive) and x.shape[axis]:
            first = np.full_like(np.take(x, [0], axis=axis), self.IDENTITY)
            rest = np.take(out, np.arange(x.shape[axis] - 1), axis=axis)
            out = np.concatenate([first, rest], axis=axis)
        return out


@irdl_op_definition
class CumsumOp(_ScanOp):
    __doc__ = _ScanOp.__doc__
    name = "relay.cumsum"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    IDENTITY: ClassVar[int] = 0

    def accumulate(self, x: Array, axis: int) -> Array:
        return np.add.accumulate(x, axis=axis, dtype=x.dtype)


@irdl_op_definition
class CumprodOp(_ScanOp):
    __doc__ = _ScanOp.__doc__
    name = "relay.cumprod"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    IDENTITY: ClassVar[int] = 1

    def accumulate(self, x: Array, axis: int) -> Array:
        return np.multiply.accumulate(x, axis=axis, dtype=x.dtype)


# ---------------------------------------------------------------------------------------
# Top-k
# ---------------------------------------------------------------------------------------

TOPK_RET_TYPES = ("both", "values", "indices")


def sort_order(x: Array, axis: int, ascending: bool) -> Array:
    """The indices that sort ``x`` along ``axis``: NaN above every number, ties in
    index order."""
    moved = np.moveaxis(x, axis, -1)
    if ascending:
        order = np.argsort(moved, axis=-1, kind="stable")
    else:
        # descending with ties in index order = the reversed ascending order of the
        # reversed data
        n = moved.shape[-1]
        order = (n - 1 - np.argsort(moved[..., ::-1], axis=-1, kind="stable"))[
            ..., ::-1
        ]
    return np.moveaxis(order, -1, axis)


@irdl_op_definition
class TopKOp(RelayOp):
    """The ``k`` largest (``is_ascend=False``) or smallest elements of ``data`` along
    ``axis``, in order, and their indices (of ``dtype``); ``k < 1`` takes the whole
    axis. ``ret_type``: ``"both"`` (two results: values, indices), ``"values"`` or
    ``"indices"`` (one result). NaN counts as larger than every number; equal values
    come in index order."""

    name = "relay.topk"
    data = operand_def(ANY_TENSOR)
    results_ = var_result_def(ANY_TENSOR)
    k = int_prop(1)
    axis = int_prop(-1)
    ret_type = str_prop("both")
    is_ascend = bool_prop(False)
    dtype = prop_def(TypeAttribute, i32)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def params(self, shape: Sequence[int]) -> tuple[int, int]:
        """``(axis, k)`` normalised for a data ``shape``."""
        axis = normalize_axis(get_int(self.axis), len(shape))
        k = get_int(self.k)
        n = shape[axis]
        if k < 1 or (n != DYN and k > n):
            k = n
        return axis, k

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        ret = get_str(self.ret_type)
        if ret not in TOPK_RET_TYPES:
            raise TypeRelationError(
                f'ret_type must be "both", "values" or "indices", got "{ret}"'
            )
        if not is_int(self.dtype):
            raise TypeRelationError(f"dtype must be an integer type, got {self.dtype}")
        shape = list(x.get_shape())
        if not shape:
            raise TypeRelationError(f"data must have rank >= 1, got {x}")
        axis, k = self.params(shape)
        shape[axis] = k
        values = tensor(shape, x.get_element_type())
        indices = tensor(shape, self.dtype)
        return {"both": [values, indices], "values": [values], "indices": [indices]}[
            ret
        ]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        axis, k = self.params(x.shape)
        order = np.take(
            sort_order(x, axis, get_bool(self.is_ascend)), np.arange(k), axis=axis
        )
        values = np.take_along_axis(x, order, axis=axis)
        indices = order.astype(numpy_dtype(self.dtype))
        ret = get_str(self.ret_type)
        if ret == "both":
            return (values, indices)
        return values if ret == "values" else indices

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """The data follows its producer's new layout and ``axis`` moves with it
        (not onto a split axis); values and indices are in the data's layout."""
        old = old_layouts[0]
        if old is None or not isinstance(old_types[0], TensorType):
            return None
        rank = len(old_types[0].get_shape())
        if old.ndim != rank or rank == 0:
            return None
        n_out = len(self.results)
        new = new_layouts[0] if new_layouts is not None else None
        if new is None or new == old:
            return InferredLayouts((old,), (old,) * n_out)
        moved = new_axis_of(old, normalize_axis(get_int(self.axis), rank), new)
        if moved is None:
            return None
        return InferredLayouts((new,), (new,) * n_out, {"axis": moved})


@irdl_op_definition
class ArgsortOp(RelayOp):
    """The indices (of ``dtype``) that sort ``data`` along ``axis``, ascending unless
    ``is_ascend`` is false (Relay's ``argsort``); NaN counts as larger than every
    number and equal values come in index order, as in :class:`TopKOp`."""

    name = "relay.argsort"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(-1)
    is_ascend = bool_prop(True)
    dtype = prop_def(TypeAttribute, i32)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def sort_axis(self, shape: Sequence[int]) -> int:
        return normalize_axis(get_int(self.axis), len(shape))

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        if not is_int(self.dtype):
            raise TypeRelationError(f"dtype must be an integer type, got {self.dtype}")
        if not x.get_shape():
            raise TypeRelationError(f"data must have rank >= 1, got {x}")
        self.sort_axis(x.get_shape())
        return [tensor(x.get_shape(), self.dtype)]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        order = sort_order(x, self.sort_axis(x.shape), get_bool(self.is_ascend))
        return order.astype(numpy_dtype(self.dtype))


# ---------------------------------------------------------------------------------------
# Einsum
# ---------------------------------------------------------------------------------------

LETTERS = string.ascii_letters


@dataclass(frozen=True)
class EinsumPlan:
    """An equation resolved against operand shapes. Labels are letters, or
    ``"0"``, ``"1"``... for the dims ``...`` stands for (numbered from the right)."""

    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]
    sizes: dict[str, int]

    @property
    def summed(self) -> tuple[str, ...]:
        """The labels summed over (in first-appearance order)."""
        seen: list[str] = []
        for labels in self.inputs:
            for label in labels:
                if label not in self.output and label not in seen:
                    seen.append(label)
        return tuple(seen)

    @property
    def out_shape(self) -> tuple[int, ...]:
        return tuple(self.sizes[label] for label in self.output)


def _term_labels(term: str, rank: int | None, what: str) -> list[str]:
    """The labels of one term; ``rank`` (for an operand) sizes the ellipsis."""
    if term.count("...") > 1:
        raise TypeRelationError(f"{what} '{term}' has more than one '...'")
    head, dots, tail = term.partition("...")
    for c in head + tail:
        if c not in LETTERS:
            raise TypeRelationError(f"{what} '{term}' has the invalid label '{c}'")
    if not dots:
        if rank is not None and len(term) != rank:
            raise TypeRelationError(
                f"{what} '{term}' has {len(term)} labels but the operand has rank "
                f"{rank}"
            )
        return list(term)
    if rank is None:
        return [*head, "...", *tail]
    n = rank - len(head) - len(tail)
    if n < 0:
        raise TypeRelationError(
            f"{what} '{term}' has more labels than the operand's rank {rank}"
        )
    return [*head, *(str(i) for i in reversed(range(n))), *tail]


def einsum_plan(equation: str, shapes: Sequence[Sequence[int]]) -> EinsumPlan:
    """Parse ``equation`` for operands of ``shapes``; raise on any mismatch."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise TypeRelationError(
            f"equation '{equation}' has {len(terms)} operand terms but there are "
            f"{len(shapes)} operands"
        )
    inputs: list[tuple[str, ...]] = []
    sizes: dict[str, int] = {}
    ellipsis_rank = 0
    for n, (term, shape) in enumerate(zip(terms, shapes, strict=True)):
        labels = _term_labels(term, len(shape), f"operand term #{n}")
        for label, dim in zip(labels, shape, strict=True):
            if dim == DYN:
                raise TypeRelationError("einsum needs static operand shapes")
            old = sizes.get(label)
            if old is None or (old == 1 and not label.isalpha()):
                sizes[label] = dim
            elif dim != old and not (dim == 1 and not label.isalpha()):
                raise TypeRelationError(
                    f"label '{label}' has size {old} and {dim} in equation '{equation}'"
                )
        ellipsis_rank = max(ellipsis_rank, sum(not c.isalpha() for c in labels))
        inputs.append(tuple(labels))
    dots = [str(i) for i in reversed(range(ellipsis_rank))]
    if arrow:
        out = _term_labels(rhs, None, "the output term")
        if "..." in out:
            at = out.index("...")
            out[at : at + 1] = dots
        elif ellipsis_rank:
            raise TypeRelationError(
                f"equation '{equation}' has '...' in an operand but not in the output"
            )
        for label in out:
            if label not in sizes:
                raise TypeRelationError(
                    f"output label '{label}' is not in any operand of '{equation}'"
                )
        if len(set(out)) != len(out):
            raise TypeRelationError(f"the output of '{equation}' repeats a label")
    else:
        counts: dict[str, int] = {}
        for labels in inputs:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        once = sorted(c for c, m in counts.items() if m == 1 and c.isalpha())
        out = [*dots, *once]
    return EinsumPlan(tuple(inputs), tuple(out), sizes)


@irdl_op_definition
class EinsumOp(RelayOp):
    """The tensor contraction of ``equation`` (numpy's ``einsum`` language) over the
    operands (Relay's one tuple argument, unpacked), which share one dtype. Products
    are summed in that dtype."""

    name = "relay.einsum"
    data = var_operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    equation = str_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def plan(self, shapes: Sequence[Sequence[int]]) -> EinsumPlan:
        return einsum_plan(get_str(self.equation), shapes)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        if not operand_types:
            raise TypeRelationError("einsum needs at least one operand")
        types = [ranked(t, f"operand #{i}") for i, t in enumerate(operand_types)]
        elem = same_elem(types, [f"operand #{i}" for i in range(len(types))])
        plan = self.plan([t.get_shape() for t in types])
        return [tensor(plan.out_shape, elem)]

    def compute(self, *args: Any) -> Any:
        return np.einsum(get_str(self.equation), *args)


ALGORITHM_OPS: list[type[RelayOp]] = [CumsumOp, CumprodOp, TopKOp, ArgsortOp, EinsumOp]

__all__ = [
    "ALGORITHM_OPS",
    "TOPK_RET_TYPES",
    "ArgsortOp",
    "CumprodOp",
    "CumsumOp",
    "EinsumOp",
    "EinsumPlan",
    "TopKOp",
    "einsum_plan",
    "sort_order",
]
