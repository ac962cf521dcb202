"""Reductions: ``sum``, ``mean``, ``max``, ``min``, ``prod``, ``all``, ``any``,
``argmax``, ``argmin``, ``variance``, ``std`` and ``logsumexp``.

Relay's rules: ``axis`` lists the reduced axes (negative ones count from the end;
absent means every axis; an empty list reduces nothing, giving the input unchanged).
``exclude`` reduces every axis *not* listed. ``keepdims`` keeps the reduced axes with
size 1. A repeated or out-of-range axis is an error. The result keeps the data's dtype,
except ``argmax`` / ``argmin`` (``i32`` indices). ``all`` / ``any`` take ``i1`` data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
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
    broadcast_shapes,
    get_bool,
    get_ints,
    normalize_axis,
    opt_ints_prop,
    ranked,
    same_elem,
    shape_str,
    tensor,
)
from xrelay.dialects.relay.dtypes import is_bool, is_float, is_float_dtype
from xrelay.dialects.relay.layout import Layout, LayoutAxis
from xrelay.dialects.relay.layout_rules import InferredLayouts, MaybeLayout
from xrelay.dialects.relay.mixed_precision import MixedPrecisionCategory

I32 = IntegerType(32)

# ---------------------------------------------------------------------------------------
# Axis helpers
# ---------------------------------------------------------------------------------------


def reduce_axes(
    rank: int, axis: Sequence[int] | None, exclude: bool = False
) -> tuple[int, ...]:
    """The sorted axes a reduction reduces: all when ``axis`` is ``None``, the listed
    ones, or (``exclude``) the ones not listed. Raises on repeated or out-of-range
    axes."""
    if axis is None:
        return tuple(range(rank))
    listed = [normalize_axis(a, rank) for a in axis]
    if len(set(listed)) != len(listed):
        raise TypeRelationError(f"axis {list(axis)} repeats an axis")
    if exclude:
        return tuple(i for i in range(rank) if i not in listed)
    return tuple(sorted(listed))


def reduced_shape(
    shape: Sequence[int], axes: Sequence[int], keepdims: bool
) -> tuple[int, ...]:
    """``shape`` with ``axes`` dropped, or set to 1 with ``keepdims``."""
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _count(shape: Sequence[int], axes: Sequence[int]) -> int:
    """How many elements each reduction combines."""
    return math.prod(shape[i] for i in axes)


# ---------------------------------------------------------------------------------------
# Family bases
# ---------------------------------------------------------------------------------------


class AxisReduceOp(RelayOp):
    """A reduction of ``data`` over ``axis`` (see the module docstring)."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = opt_ints_prop()
    keepdims = bool_prop(False)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE

    BOOL_ONLY: ClassVar[bool] = False
    """``all`` / ``any`` take ``i1`` data."""
    FLOAT_ONLY: ClassVar[bool] = False
    """Reductions built on exp/log/sqrt take floating-point data."""

    def axes(self, rank: int) -> tuple[int, ...]:
        """The reduced axes for data of rank ``rank``, sorted."""
        axis = self.attr("axis")
        exclude = self.attr("exclude")
        return reduce_axes(
            rank,
            None if axis is None else get_ints(axis),
            False if exclude is None else get_bool(exclude),
        )

    def keep(self) -> bool:
        keepdims = self.attr("keepdims")
        return keepdims is not None and get_bool(keepdims)

    def result_elem(self, elem: Attribute) -> Attribute:
        return elem

    def check_data(self, x: TensorType) -> None:
        elem = x.get_element_type()
        if self.BOOL_ONLY and not is_bool(elem):
            raise TypeRelationError(f"data must be an i1 tensor, got {x}")
        if self.FLOAT_ONLY and not is_float(elem):
            raise TypeRelationError(f"data must be a floating-point tensor, got {x}")

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        self.check_data(x)
        shape = x.get_shape()
        axes = self.axes(len(shape))
        return [
            tensor(
                reduced_shape(shape, axes, self.keep()),
                self.result_elem(x.get_element_type()),
            )
        ]

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        """The reduction over ``axes`` with the reduced axes kept (size 1)."""
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        x = args[0]
        axes = self.axes(x.ndim)
        with np.errstate(all="ignore"):
            out = np.asarray(self.reduce(x, axes))
        return out.reshape(reduced_shape(x.shape, axes, self.keep()))

    # -- layout hooks --------------------------------------------------------------------

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``ReduceInferCorrectLayout``: the reduced axes follow their letters
        into the producer's new layout (a split axis is reduced in both parts, e.g.
        ``axis=[1]`` of ``NCHW`` is ``axis=[1, 4]`` of ``NCHW8c``); the result layout
        drops the reduced axes (keeps them, with a ``1`` block, with ``keepdims``)."""
        old = old_layouts[0]
        if old is None or not isinstance(old_types[0], TensorType):
            return None
        rank = len(old_types[0].get_shape())
        if old.ndim != rank:
            return None
        try:
            reduced = self.axes(rank)
        except TypeRelationError:
            return None
        exclude_attr = self.attr("exclude")
        exclude = exclude_attr is not None and get_bool(exclude_attr)
        dims = {old.axes[a].primal_letter for a in reduced}
        n_in = len(old_layouts)
        in_old, out_old, _ = _reduce_layout(old, dims, exclude, self.keep())
        keep = InferredLayouts((in_old,) * n_in, (out_old,))
        if new_layouts is None or new_layouts[0] is None or new_layouts[0] == old:
            return keep
        new = new_layouts[0]
        if not reduced or any(not a.is_primal for a in old.axes):
            return keep
        if not self.may_adapt(dims, old, new):
            return None
        in_new, out_new, axes = _reduce_layout(new, dims, exclude, self.keep())
        return InferredLayouts((in_new,) * n_in, (out_new,), {"axis": axes})

    def may_adapt(self, dims: set[str], old: Layout, new: Layout) -> bool:
        """Whether the op may reduce the primal axes ``dims`` in layout ``new``
        instead of ``old`` (index reductions depend on the order of the reduced
        axes)."""
        return True


def _reduce_layout(
    layout: Layout, dims: set[str], exclude: bool, keepdims: bool
) -> tuple[Layout, Layout, list[int]]:
    """The input layout, the result layout and the ``axis`` attribute of a reduction of
    the primal axes ``dims`` of a tensor in ``layout`` (``axis`` lists the kept axes
    with ``exclude``)."""
    out: list[LayoutAxis] = []
    listed: list[int] = []
    for k, a in enumerate(layout.axes):
        is_reduced = a.primal_letter in dims
        if is_reduced != exclude:
            listed.append(k)
        if not is_reduced:
            out.append(a)
        elif keepdims:
            out.append(a if a.is_primal else LayoutAxis(a.letter, 1))
    return layout, Layout(out), listed


class ReduceOp(AxisReduceOp):
    """A reduction with Relay's ``exclude`` flag."""

    exclude = bool_prop(False)


# ---------------------------------------------------------------------------------------
# Plain reductions
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class SumOp(ReduceOp):
    """The sum over the reduced axes."""

    name = "relay.sum"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        return np.sum(x, axis=axes, keepdims=True, dtype=x.dtype)


@irdl_op_definition
class MeanOp(ReduceOp):
    """The mean over the reduced axes; integer means truncate toward zero (the sum
    divided by the count in the data's dtype)."""

    name = "relay.mean"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        total = np.sum(x, axis=axes, keepdims=True, dtype=x.dtype)
        count = _count(x.shape, axes)
        if x.dtype.kind in "iu":
            return (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)
        return total / x.dtype.type(count)


def _extreme(dtype: np.dtype[Any], low: bool) -> Any:
    """The identity of ``max`` (``low``) or ``min``: what a reduction over no
    elements gives (TVM's and the kernels' initial value; numpy raises instead)."""
    if is_float_dtype(dtype):
        return -np.inf if low else np.inf
    if dtype.kind == "b":
        return not low
    info = np.iinfo(dtype)
    return info.min if low else info.max


@irdl_op_definition
class MaxOp(ReduceOp):
    """The maximum over the reduced axes."""

    name = "relay.max"

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        return np.max(x, axis=axes, keepdims=True, initial=_extreme(x.dtype, low=True))


@irdl_op_definition
class MinOp(ReduceOp):
    """The minimum over the reduced axes."""

    name = "relay.min"

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        return np.min(x, axis=axes, keepdims=True, initial=_extreme(x.dtype, low=False))


@irdl_op_definition
class ProdOp(ReduceOp):
    """The product over the reduced axes."""

    name = "relay.prod"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        return np.prod(x, axis=axes, keepdims=True, dtype=x.dtype)


@irdl_op_definition
class AllOp(ReduceOp):
    """Logical ``and`` of ``i1`` data over the reduced axes."""

    name = "relay.all"
    BOOL_ONLY: ClassVar[bool] = True

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        return np.all(x, axis=axes, keepdims=True)


@irdl_op_definition
class AnyOp(ReduceOp):
    """Logical ``or`` of ``i1`` data over the reduced axes."""

    name = "relay.any"
    BOOL_ONLY: ClassVar[bool] = True

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        return np.any(x, axis=axes, keepdims=True)


@irdl_op_definition
class LogSumExpOp(AxisReduceOp):
    """``log(sum(exp(data)))`` over the reduced axes, computed stably as
    ``m + log(sum(exp(data - m)))`` with ``m`` the maximum. No ``exclude``."""

    name = "relay.logsumexp"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    FLOAT_ONLY: ClassVar[bool] = True

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        m = np.max(x, axis=axes, keepdims=True, initial=_extreme(x.dtype, low=True))
        m = np.where(np.isfinite(m), m, np.zeros((), x.dtype))
        s = np.sum(np.exp(x - m), axis=axes, keepdims=True, dtype=x.dtype)
        return np.log(s) + m


# ---------------------------------------------------------------------------------------
# Index reductions
# ---------------------------------------------------------------------------------------


class ArgReduceOp(ReduceOp):
    """The index of the extreme element over the reduced axes, as ``i32``. Over several
    axes the index is the row-major position within the reduced axes. Ties give the
    first index, or the last with ``select_last_index``."""

    select_last_index = bool_prop(False)

    def result_elem(self, elem: Attribute) -> Attribute:
        return I32

    def pick(self, flat: Array) -> Array:
        """The index of the extreme element along the last axis."""
        raise NotImplementedError

    def may_adapt(self, dims: set[str], old: Layout, new: Layout) -> bool:
        """The index over several axes is a row-major position: the op follows a new
        layout when the reduced axes keep their relative order in it (NHWC ->
        NCHW over ``H, W``), and a split axis (``C`` of ``NCHW8c``, whose parts give
        ``C * 8 + c``, the original index) only when it is the one reduced axis.
        Relay's ``ReduceInferCorrectLayout`` applies to argmax/argmin too."""
        reduced = [a for a in new.axes if a.primal_letter in dims]
        split = any(not a.is_primal for a in reduced)
        if split:
            return len(dims) == 1
        old_order = [a.primal_letter for a in old.axes if a.primal_letter in dims]
        return [a.primal_letter for a in reduced] == old_order

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        kept_shape = reduced_shape(x.shape, axes, keepdims=False)
        if not axes:
            return np.zeros(kept_shape, np.int32)
        k = len(axes)
        moved = np.moveaxis(x, axes, tuple(range(x.ndim - k, x.ndim)))
        flat = moved.reshape((*kept_shape, math.prod(x.shape[a] for a in axes)))
        if flat.shape[-1] == 0:  # nothing to pick from: index 0, like the kernels
            return np.zeros(kept_shape, np.int32)
        if get_bool(self.select_last_index):
            n = flat.shape[-1]
            idx = n - 1 - self.pick(flat[..., ::-1])
        else:
            idx = self.pick(flat)
        return idx.astype(np.int32)


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    """The index of the maximum over the reduced axes (``i32``)."""

    name = "relay.argmax"

    def pick(self, flat: Array) -> Array:
        return np.argmax(flat, axis=-1)


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    """The index of the minimum over the reduced axes (``i32``)."""

    name = "relay.argmin"

    def pick(self, flat: Array) -> Array:
        return np.argmin(flat, axis=-1)


# ---------------------------------------------------------------------------------------
# Variance and standard deviation
# ---------------------------------------------------------------------------------------


def _variance(x: Array, mean: Array, axes: tuple[int, ...], unbiased: bool) -> Array:
    """``sum((x - mean) ** 2) / (n - unbiased)`` over ``axes``, kept dims."""
    diff = x - mean
    total = np.sum(diff * diff, axis=axes, keepdims=True, dtype=x.dtype)
    count = _count(x.shape, axes) - (1 if unbiased else 0)
    if x.dtype.kind in "iu":
        return (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)
    return total / x.dtype.type(count)


@irdl_op_definition
class VarianceOp(ReduceOp):
    """Relay's core ``variance``: ``sum((data - mean) ** 2) / (n - unbiased)`` over the
    reduced axes, where ``n`` counts the reduced elements. ``mean`` (the second operand)
    is the mean with kept dims; any shape that broadcasts to ``data`` is accepted."""

    name = "relay.variance"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    data = operand_def(ANY_TENSOR)
    mean = operand_def(ANY_TENSOR)
    unbiased = bool_prop(False)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        mean = ranked(operand_types[1], "mean")
        same_elem([x, mean], ["data", "mean"])
        shape = x.get_shape()
        try:
            joint = broadcast_shapes(shape, mean.get_shape())
        except TypeRelationError:
            joint = None
        if (
            joint is None
            or len(joint) != len(shape)
            or any(j != d and d != DYN for j, d in zip(joint, shape, strict=True))
        ):
            raise TypeRelationError(
                f"mean shape {shape_str(mean.get_shape())} does not broadcast to data "
                f"shape {shape_str(shape)}"
            )
        return super().type_relation(operand_types)

    def compute(self, *args: Any) -> Any:
        x, mean = args[0], args[1]
        axes = self.axes(x.ndim)
        with np.errstate(all="ignore"):
            out = _variance(x, mean, axes, get_bool(self.unbiased))
        return out.reshape(reduced_shape(x.shape, axes, self.keep()))


@irdl_op_definition
class StdOp(ReduceOp):
    """The standard deviation: ``sqrt(variance(data, mean(data)))`` over the reduced
    axes (Relay's python ``std``), dividing by ``n - 1`` when ``unbiased``."""

    name = "relay.std"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    unbiased = bool_prop(False)
    FLOAT_ONLY: ClassVar[bool] = True

    def reduce(self, x: Array, axes: tuple[int, ...]) -> Array:
        mean = np.mean(x, axis=axes, keepdims=True, dtype=x.dtype)
        return np.sqrt(_variance(x, mean, axes, get_bool(self.unbiased)))


REDUCE_OPS: list[type[RelayOp]] = [
    SumOp,
    MeanOp,
    MaxOp,
    MinOp,
    ProdOp,
    AllOp,
    AnyOp,
    ArgMaxOp,
    ArgMinOp,
    VarianceOp,
    StdOp,
    LogSumExpOp,
]
