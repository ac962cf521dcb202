"""Shape and data-movement ops: reshapes, transposes, slicing, joining and splitting,
gathers, broadcasts, tiling, layout changes and ``one_hot``.

Relay's rules kept here: attribute names and defaults are the Python API's; dtypes are
never promoted (``concatenate``/``stack`` operands, ``broadcast_to_like`` and
``collapse_sum_like`` need one dtype); index operands (``take``, ``gather``,
``gather_nd``, ``one_hot``) must be integer tensors. ``concatenate`` and ``stack`` take
their tensors as variadic operands (Relay's one tuple argument, unpacked) and ``split``
has one result per piece (Relay's tuple result, unpacked).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)

from xrelay.dialects.relay import fake_quantization as fq
from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    DYN,
    FORMAT,
    MAX_RANK,
    Array,
    OpPattern,
    RelayOp,
    TypeRelationError,
    bool_prop,
    broadcast_shapes,
    dtype_prop,
    get_bool,
    get_int,
    get_ints,
    get_str,
    int_prop,
    ints_prop,
    normalize_axis,
    opt_int_prop,
    opt_ints_prop,
    ranked,
    same_elem,
    shape_str,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.dtypes import astype, is_float, is_int, numpy_dtype
from xrelay.dialects.relay.layout import Layout, transform_array
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    MaybeLayout,
    is_split,
    same_primal_axes,
)
from xrelay.status import index_error

INT64_MAX = 2**63 - 1
"""Relay's stand-in for "to the end" in strided-slice bounds."""


# ---------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------


def _rank(ty: Attribute) -> int:
    """The rank of a ranked tensor type, -1 for anything else."""
    return len(ty.get_shape()) if isinstance(ty, TensorType) else -1


def _static(shape: Sequence[int]) -> bool:
    return all(d != DYN for d in shape)


def _count(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _int_operand(ty: TensorType, what: str) -> None:
    if not is_int(ty.get_element_type()):
        raise TypeRelationError(f"{what} must be an integer tensor, got {ty}")


def _insert_axis_range(axis: int, rank: int, what: str = "axis") -> int:
    """``axis`` in ``[-rank-1, rank]`` (a position to insert at) → ``[0, rank]``."""
    if not -rank - 1 <= axis <= rank:
        raise TypeRelationError(
            f"{what} {axis} is out of range [{-rank - 1}, {rank}] for rank {rank}"
        )
    return axis + rank + 1 if axis < 0 else axis


class _UnaryTransformOp(RelayOp):
    """An op on one ``data`` tensor giving one tensor of the same dtype."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    KEEPS_QUANTIZATION: ClassVar[bool] = True

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """The op on the integers: it only moves elements (per-tensor types: the
        elements change channels)."""
        return fq.same_op(rewrite, per_tensor_only=True)

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        raise NotImplementedError

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        return [tensor(self.out_shape(x.get_shape()), x.get_element_type())]


# ---------------------------------------------------------------------------------------
# Reshapes
# ---------------------------------------------------------------------------------------


def reshape_shape(
    ishape: Sequence[int], newshape: Sequence[int], allowzero: bool = False
) -> tuple[int, ...]:
    """Relay's ``reshape`` shape rule (``InferNewShape``) with its special codes.

    * ``0``: copy the input dim at the current input position (with ``allowzero`` it is a
      plain zero-sized dim);
    * ``-1``: infer this dim from the remaining size (at most one);
    * ``-2``: copy all remaining input dims;
    * ``-3``: merge the next two input dims into one;
    * ``-4``: split the next input dim into the two following values (one may be -1).

    A positive value and ``-1`` also advance the input position by one. The element count
    must be preserved (checked when shapes are static).
    """
    oshape: list[int] = []
    used_in: set[int] = set()
    used_out: set[int] = set()
    src = 0
    infer_at = -1
    rank = len(ishape)
    i = 0
    while i < len(newshape):
        v = newshape[i]
        if v > 0 or (v == 0 and allowzero):
            oshape.append(v)
            src += 1
        elif v == 0:
            if src >= rank:
                raise TypeRelationError(
                    f"newshape[{i}] = 0 copies input dim {src} but the input "
                    f"{shape_str(ishape)} has rank {rank}"
                )
            used_in.add(src)
            used_out.add(len(oshape))
            oshape.append(ishape[src])
            src += 1
        elif v == -1:
            if infer_at >= 0:
                raise TypeRelationError(
                    f"newshape {list(newshape)} has more than one -1 (only one dim can "
                    "be inferred)"
                )
            infer_at = len(oshape)
            oshape.append(1)
            src += 1
        elif v == -2:
            while src < rank:
                used_in.add(src)
                used_out.add(len(oshape))
                oshape.append(ishape[src])
                src += 1
        elif v == -3:
            if src + 1 >= rank:
                raise TypeRelationError(
                    f"newshape[{i}] = -3 merges input dims {src} and {src + 1} but the "
                    f"input {shape_str(ishape)} has rank {rank}"
                )
            d1, d2 = ishape[src], ishape[src + 1]
            used_in.update((src, src + 1))
            src += 2
            used_out.add(len(oshape))
            oshape.append(DYN if DYN in (d1, d2) else d1 * d2)
        elif v == -4:
            if i + 2 >= len(newshape):
                raise TypeRelationError(
                    f"newshape[{i}] = -4 must be followed by two values, got "
                    f"{list(newshape)}"
                )
            if src >= rank:
                raise TypeRelationError(
                    f"newshape[{i}] = -4 splits input dim {src} but the input "
                    f"{shape_str(ishape)} has rank {rank}"
                )
            d0 = ishape[src]
            used_in.add(src)
            src += 1
            d1, d2 = newshape[i + 1], newshape[i + 2]
            i += 2
            if (d1 <= 0 and d1 != -1) or (d2 <= 0 and d2 != -1):
                raise TypeRelationError(
                    f"the two values after -4 must be positive or -1, got {d1}, {d2}"
                )
            if d1 == -1 and d2 == -1:
                raise TypeRelationError("the two values after -4 cannot both be -1")
            if d1 == -1:
                d1 = DYN if d0 == DYN else d0 // d2
            elif d2 == -1:
                d2 = DYN if d0 == DYN else d0 // d1
            if DYN not in (d0, d1, d2) and d1 * d2 != d0:
                raise TypeRelationError(
                    f"-4 cannot split input dim {src - 1} of size {d0} into "
                    f"{newshape[i - 1]} x {newshape[i]}"
                )
            used_out.update((len(oshape), len(oshape) + 1))
            oshape += [d1, d2]
        else:
            raise TypeRelationError(
                f"newshape {list(newshape)} has the unsupported value {v} (special "
                "values are 0, -1, -2, -3, -4)"
            )
        i += 1

    if infer_at >= 0:
        rest_in = [d for k, d in enumerate(ishape) if k not in used_in]
        rest_out = [
            d for k, d in enumerate(oshape) if k not in used_out and k != infer_at
        ]
        if DYN in rest_in or DYN in rest_out:
            oshape[infer_at] = DYN
        else:
            known = _count(rest_out)
            if known == 0:
                raise TypeRelationError(
                    f"cannot infer the -1 dim of newshape {list(newshape)}: the other "
                    "dims have zero elements"
                )
            oshape[infer_at] = _count(rest_in) // known

    if _static(ishape) and _static(oshape) and _count(ishape) != _count(oshape):
        raise TypeRelationError(
            f"cannot reshape {shape_str(ishape)} ({_count(ishape)} elements) to "
            f"{shape_str(oshape)} ({_count(oshape)} elements) (newshape "
            f"{list(newshape)})"
        )
    return tuple(oshape)


@irdl_op_definition
class ReshapeOp(_UnaryTransformOp):
    """``data`` with a new shape; ``newshape`` may use Relay's special codes 0 (copy a
    dim), -1 (infer), -2 (copy the rest), -3 (merge two dims), -4 (split a dim in two);
    with ``allowzero`` a 0 is a zero-sized dim. See :func:`reshape_shape`."""

    RELAYOUT: ClassVar[bool] = True

    name = "relay.reshape"
    newshape = ints_prop()
    allowzero = bool_prop(False)

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        return reshape_shape(shape, get_ints(self.newshape), get_bool(self.allowzero))

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        return x.reshape(self.out_shape(x.shape))


def reverse_reshape_shape(
    ishape: Sequence[int], newshape: Sequence[int]
) -> tuple[int, ...]:
    """Relay's ``contrib_reverse_reshape`` shape rule: :func:`reshape_shape` applied
    right to left (both shapes reversed, the result reversed back), so that ``0``
    copies the dim at the same place counted from the end and ``-1`` is inferred
    there: ``(10, 5, 4)`` with ``(-1, 0)`` gives ``(50, 4)`` (reshape gives
    ``(40, 5)``)."""
    try:
        return reshape_shape(tuple(ishape)[::-1], tuple(newshape)[::-1])[::-1]
    except TypeRelationError as err:
        raise TypeRelationError(
            f"{err}, reading newshape {list(newshape)} from the right"
        ) from None


@irdl_op_definition
class ReverseReshapeOp(_UnaryTransformOp):
    """``data`` with a new shape whose special codes (see :class:`ReshapeOp`) are read
    from the right (Relay's ``contrib_reverse_reshape``; see
    :func:`reverse_reshape_shape`)."""

    RELAYOUT: ClassVar[bool] = True

    name = "relay.contrib_reverse_reshape"
    newshape = ints_prop()

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        return reverse_reshape_shape(shape, get_ints(self.newshape))

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        return x.reshape(self.out_shape(x.shape))


def reshape_like_shape(
    lhs: Sequence[int],
    rhs: Sequence[int],
    lhs_begin: int,
    lhs_end: int | None,
    rhs_begin: int,
    rhs_end: int | None,
) -> tuple[int, ...]:
    """``lhs[:lhs_begin] + rhs[rhs_begin:rhs_end] + lhs[lhs_end:]`` (negative bounds
    count from the end; absent ends are the ranks)."""

    def bounds(begin: int, end: int | None, rank: int, side: str) -> tuple[int, int]:
        e = rank if end is None else end
        b = begin + rank if begin < 0 else begin
        e = e + rank if e < 0 else e
        if not 0 <= b <= e <= rank:
            raise TypeRelationError(
                f"{side}_begin {begin} and {side}_end {end} do not give a range of "
                f"dims of a rank-{rank} tensor"
            )
        return b, e

    lb, le = bounds(lhs_begin, lhs_end, len(lhs), "lhs")
    rb, re_ = bounds(rhs_begin, rhs_end, len(rhs), "rhs")
    return (*lhs[:lb], *rhs[rb:re_], *lhs[le:])


@irdl_op_definition
class ReshapeLikeOp(RelayOp):
    """``data`` reshaped so that its dims ``[lhs_begin, lhs_end)`` become the dims
    ``[rhs_begin, rhs_end)`` of ``like`` (absent ends mean "to the last dim")."""

    name = "relay.reshape_like"
    data = operand_def(ANY_TENSOR)
    like = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    lhs_begin = int_prop(0)
    lhs_end = opt_int_prop()
    rhs_begin = int_prop(0)
    rhs_end = opt_int_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def _shape(self, lhs: Sequence[int], rhs: Sequence[int]) -> tuple[int, ...]:
        return reshape_like_shape(
            lhs,
            rhs,
            get_int(self.lhs_begin),
            None if self.lhs_end is None else get_int(self.lhs_end),
            get_int(self.rhs_begin),
            None if self.rhs_end is None else get_int(self.rhs_end),
        )

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, like = ranked(operand_types[0], "data"), ranked(operand_types[1], "like")
        shape = self._shape(x.get_shape(), like.get_shape())
        if _static(x.get_shape()) and _static(shape):
            if _count(x.get_shape()) != _count(shape):
                raise TypeRelationError(
                    f"cannot reshape {shape_str(x.get_shape())} "
                    f"({_count(x.get_shape())} elements) to {shape_str(shape)} "
                    f"({_count(shape)} elements)"
                )
        return [tensor(shape, x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        return args[0].reshape(self._shape(args[0].shape, args[1].shape))


def _permutation(axes: Sequence[int] | None, rank: int) -> list[int]:
    if axes is None:
        return list(range(rank))[::-1]
    if len(axes) != rank:
        raise TypeRelationError(
            f"axes {list(axes)} has {len(axes)} entries but data has rank {rank}"
        )
    perm = [normalize_axis(a, rank) for a in axes]
    if len(set(perm)) != rank:
        raise TypeRelationError(f"axes {list(axes)} is not a permutation")
    return perm


@irdl_op_definition
class TransposeOp(_UnaryTransformOp):
    """``data`` with its dims permuted by ``axes`` (absent: reversed); negative axes
    count from the end."""

    RELAYOUT: ClassVar[bool] = True

    name = "relay.transpose"
    axes = opt_ints_prop()

    def _perm(self, rank: int) -> list[int]:
        return _permutation(None if self.axes is None else get_ints(self.axes), rank)

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        return [shape[a] for a in self._perm(len(shape))]

    def compute(self, *args: Any) -> Any:
        return np.transpose(args[0], self._perm(args[0].ndim))

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """The transpose of the integers; a per-channel axis follows its dim."""
        x = rewrite.input(0)
        if x is None or fq.is_per_tensor(x.type):
            return fq.same_op(rewrite, per_tensor_only=True)
        perm = self._perm(len(fq.shape_of(x.value)))
        value = rewrite.emit(TransposeOp, [x.value], {"axes": perm})
        t = x.type
        return fq.Quantized(
            value, fq.AffineType(t.scale, t.zero_point, t.dtype, perm.index(t.axis))
        )

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``TransposeInferCorrectLayout``: ``axes`` follow their letters into
        the producer's new layout (when it has the same axes); the result layout is the
        input layout permuted."""
        old = old_layouts[0]
        if old is None or old.ndim != _rank(old_types[0]):
            return None
        try:
            perm = self._perm(old.ndim)
        except TypeRelationError:
            return None
        layout, axes = old, perm
        new = new_layouts[0] if new_layouts is not None else None
        if new is not None and new != old and new.ndim == old.ndim:
            moved = [new.index_of(old.axes[a].letter) for a in perm]
            if all(k >= 0 for k in moved):
                layout, axes = new, moved
        out = Layout([layout.axes[a] for a in axes])
        attrs: dict[str, object] = {"axes": axes} if layout is not old else {}
        return InferredLayouts((layout,), (out,), attrs)


@irdl_op_definition
class ExpandDimsOp(_UnaryTransformOp):
    """``data`` with ``num_newaxis`` dims of size 1 inserted at ``axis`` (in
    ``[-ndim-1, ndim]``; negative counts from the end of the result)."""

    RELAYOUT: ClassVar[bool] = True

    name = "relay.expand_dims"
    axis = int_prop()
    num_newaxis = int_prop(1)
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        n = get_int(self.num_newaxis)
        if n < 0:
            raise TypeRelationError(f"num_newaxis must be >= 0, got {n}")
        if len(shape) + n > MAX_RANK:
            raise TypeRelationError(
                f"num_newaxis {n} would make a rank-{len(shape) + n} tensor (at most "
                f"{MAX_RANK})"
            )
        pivot = _insert_axis_range(get_int(self.axis), len(shape))
        return (*shape[:pivot], *([1] * n), *shape[pivot:])

    def compute(self, *args: Any) -> Any:
        return args[0].reshape(self.out_shape(args[0].shape))


@irdl_op_definition
class SqueezeOp(_UnaryTransformOp):
    """``data`` without the size-1 dims listed in ``axis`` (absent: all size-1 dims);
    each listed dim must have size 1."""

    RELAYOUT: ClassVar[bool] = True

    name = "relay.squeeze"
    axis = opt_ints_prop()

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        if self.axis is None:
            return [d for d in shape if d != 1]
        drop = {normalize_axis(a, len(shape)) for a in get_ints(self.axis)}
        for a in sorted(drop):
            if shape[a] not in (1, DYN):
                raise TypeRelationError(
                    f"cannot squeeze axis {a} of size {shape[a]} (shape "
                    f"{shape_str(shape)}); it must have size 1"
                )
        return [d for k, d in enumerate(shape) if k not in drop]

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``SqueezeInferCorrectLayout``: the squeezed axes follow their
        letters into the producer's new layout (not when one is split there); the
        result layout drops them."""
        old = old_layouts[0]
        if old is None or not isinstance(old_types[0], TensorType):
            return None
        shape = old_types[0].get_shape()
        if old.ndim != len(shape):
            return None
        if self.axis is None:
            drop = [k for k, d in enumerate(shape) if d == 1]
        else:
            try:
                drop = [normalize_axis(a, len(shape)) for a in get_ints(self.axis)]
            except TypeRelationError:
                return None
        layout, axes = old, drop
        new = new_layouts[0] if new_layouts is not None else None
        if new is not None and new != old:
            letters = [old.axes[a] for a in drop]
            if all(
                a.is_primal
                and new.index_of(a.letter) >= 0
                and not is_split(new, a.letter)
                for a in letters
            ):
                layout, axes = new, sorted(new.index_of(a.letter) for a in letters)
        out = Layout([a for k, a in enumerate(layout.axes) if k not in axes])
        attrs: dict[str, object] = {"axis": axes} if layout is not old else {}
        return InferredLayouts((layout,), (out,), attrs)

    def compute(self, *args: Any) -> Any:
        return args[0].reshape(self.out_shape(args[0].shape))


# ---------------------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------------------


def _join_types(
    operand_types: Sequence[Attribute], what: str
) -> tuple[list[TensorType], Attribute]:
    if not operand_types:
        raise TypeRelationError(f"{what} needs at least one tensor")
    tys = [ranked(t, f"data[{k}]") for k, t in enumerate(operand_types)]
    elem = same_elem(tys, [f"data[{k}]" for k in range(len(tys))])
    rank = len(tys[0].get_shape())
    for k, t in enumerate(tys[1:], 1):
        if len(t.get_shape()) != rank:
            raise TypeRelationError(
                f"data[{k}] has rank {len(t.get_shape())} but data[0] has rank {rank} "
                f"({what} needs equal ranks)"
            )
    return tys, elem


def _merge_dim(dims: Sequence[int], axis: int, what: str) -> int:
    known = {d for d in dims if d != DYN}
    if len(known) > 1:
        raise TypeRelationError(
            f"{what} needs equal dims on axis {axis}, got {sorted(known)}"
        )
    return known.pop() if known else DYN


@irdl_op_definition
class ConcatenateOp(RelayOp):
    """The operands joined along ``axis``; all have the same rank and dtype and equal
    dims except on ``axis`` (Relay's tuple argument given as variadic operands)."""

    name = "relay.concatenate"
    data = var_operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(0)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.concatenate``."""
        return fq.quantized_concatenate(rewrite, get_int(self.axis))

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        tys, elem = _join_types(operand_types, "concatenate")
        shapes = [t.get_shape() for t in tys]
        rank = len(shapes[0])
        axis = normalize_axis(get_int(self.axis), rank)
        out: list[int] = []
        for k in range(rank):
            dims = [s[k] for s in shapes]
            if k == axis:
                out.append(DYN if DYN in dims else sum(dims))
            else:
                out.append(_merge_dim(dims, k, "concatenate"))
        return [tensor(out, elem)]

    def compute(self, *args: Any) -> Any:
        return np.concatenate(args, axis=get_int(self.axis))

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``ConcatenateLayout``: when every operand comes in one new layout,
        ``axis`` follows its letter there; otherwise every operand takes the first
        known original layout (the concatenated axis must not be a sub-axis)."""
        ref = next((x for x in old_layouts if x is not None), None)
        rank = _rank(old_types[0])
        if ref is None or ref.ndim != rank:
            return None
        try:
            axis = normalize_axis(get_int(self.axis), rank)
        except TypeRelationError:
            return None
        n = len(old_layouts)
        if new_layouts is not None and ref.axes[axis].is_primal:
            first = new_layouts[0]
            if first is not None and all(x == first for x in new_layouts):
                k = first.index_of(ref.axes[axis].letter)
                if k >= 0:
                    attrs: dict[str, object] = {"axis": k} if first != ref else {}
                    return InferredLayouts((first,) * n, (first,), attrs)
        if not ref.axes[axis].is_primal:
            return None
        return InferredLayouts((ref,) * n, (ref,))


@irdl_op_definition
class StackOp(RelayOp):
    """The operands (same shape and dtype) stacked along a new dim at ``axis`` (in
    ``[-ndim-1, ndim]``)."""

    name = "relay.stack"
    data = var_operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        tys, elem = _join_types(operand_types, "stack")
        shapes = [t.get_shape() for t in tys]
        rank = len(shapes[0])
        axis = _insert_axis_range(get_int(self.axis), rank)
        dims = [_merge_dim([s[k] for s in shapes], k, "stack") for k in range(rank)]
        return [tensor((*dims[:axis], len(tys), *dims[axis:]), elem)]

    def compute(self, *args: Any) -> Any:
        return np.stack(args, axis=get_int(self.axis))


@irdl_op_definition
class SplitOp(RelayOp):
    """``data`` cut along ``axis`` into pieces, one result each.

    ``indices_or_sections`` is either an integer ``n`` (``n`` equal pieces; ``n`` must
    divide the dim) or an ``array<i64: ...>`` of split points (numpy.split semantics:
    piece ``k`` is ``data[idx[k-1]:idx[k]]`` along ``axis`` with Python slice rules, so
    pieces may be empty).
    """

    name = "relay.split"
    data = operand_def(ANY_TENSOR)
    results_ = var_result_def(ANY_TENSOR)
    indices_or_sections = prop_def(IntegerAttr[I64] | DenseArrayBase[IntegerType])
    axis = int_prop(0)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def make(
        cls,
        operands: Sequence[SSAValue] = (),
        attrs: dict[str, object] | None = None,
        result_types: Sequence[Attribute] | None = None,
        regions: Sequence[Any] = (),
    ):
        """As :meth:`RelayOp.make`; a Python int for ``indices_or_sections`` becomes an
        ``i64`` integer attribute and a list the ``array<i64: ...>`` of split points."""
        attrs = dict(attrs or {})
        ios = attrs.get("indices_or_sections")
        if isinstance(ios, int | np.integer) and not isinstance(ios, bool):
            attrs["indices_or_sections"] = IntegerAttr(int(ios), i64)
        elif isinstance(ios, list | tuple | np.ndarray):
            values = [int(v) for v in np.asarray(ios, dtype=np.int64).reshape(-1)]
            attrs["indices_or_sections"] = DenseArrayBase.from_list(i64, values)
        return super().make(operands, attrs, result_types, regions)

    def pieces(self, dim: int) -> list[tuple[int, int]]:
        """``(start, stop)`` of each piece along an axis of size ``dim``."""
        ios = self.indices_or_sections
        if isinstance(ios, IntegerAttr):
            n = get_int(ios)
            if n < 1:
                raise TypeRelationError(f"the number of sections must be >= 1, got {n}")
            if dim == DYN:
                return [(0, DYN)] * n
            if dim % n:
                raise TypeRelationError(
                    f"{n} sections do not divide the split axis of size {dim}"
                )
            step = dim // n
            return [(k * step, (k + 1) * step) for k in range(n)]
        points = list(get_ints(ios))
        bounds = [0, *points, None]
        out: list[tuple[int, int]] = []
        for lo, hi in itertools.pairwise(bounds):
            if dim == DYN:
                out.append((0, DYN))
            else:
                start, stop, _ = slice(lo, hi).indices(dim)
                out.append((start, max(start, stop)))
        return out

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        shape = x.get_shape()
        if not shape:
            raise TypeRelationError("cannot split a 0-d tensor")
        axis = normalize_axis(get_int(self.axis), len(shape))
        types: list[Attribute] = []
        for start, stop in self.pieces(shape[axis]):
            dims = list(shape)
            dims[axis] = DYN if stop == DYN else stop - start
            types.append(tensor(dims, x.get_element_type()))
        return types

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``SplitInferCorrectLayout``: ``axis`` follows its letter into the
        producer's new layout; when that axis is split by ``f``, the split points are
        divided by ``f`` (they, or the piece sizes, must be multiples of ``f``);
        otherwise the data goes back to its original layout."""
        old = old_layouts[0]
        if old is None or not isinstance(old_types[0], TensorType):
            return None
        shape = old_types[0].get_shape()
        if old.ndim != len(shape) or not shape:
            return None
        try:
            axis = normalize_axis(get_int(self.axis), len(shape))
            pieces = len(self.pieces(shape[axis]))
        except TypeRelationError:
            return None
        keep = InferredLayouts((old,), (old,) * pieces)
        new = new_layouts[0] if new_layouts is not None else None
        letter = old.axes[axis]
        if new is None or new == old or not letter.is_primal:
            return keep
        k = new.index_of(letter.letter)
        if k < 0:
            return keep
        attrs: dict[str, object] = {"axis": k}
        factor = new.factor_of(letter.letter)
        if factor > 0:
            ios = self.indices_or_sections
            if isinstance(ios, IntegerAttr):
                dim = shape[axis]
                if dim == DYN or (dim // factor) % max(get_int(ios), 1):
                    return keep
            else:
                points = list(get_ints(ios))
                if any(p < 0 or p % factor for p in points):
                    return keep
                attrs["indices_or_sections"] = [p // factor for p in points]
        return InferredLayouts((new,), (new,) * pieces, attrs)

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        axis = get_int(self.axis) % x.ndim
        out: list[Array] = []
        for start, stop in self.pieces(x.shape[axis]):
            index = [slice(None)] * x.ndim
            index[axis] = slice(start, stop)
            out.append(np.ascontiguousarray(x[tuple(index)]))
        return tuple(out)


# ---------------------------------------------------------------------------------------
# Slicing and gathering
# ---------------------------------------------------------------------------------------


def _canonical_index(index: int, extent: int, stride: int) -> int:
    """TVM's ``CanonicalizeIndex``: wrap a negative index once, then clamp to
    ``[0, extent]`` (``[-1, extent-1]`` for a negative stride)."""
    lo, hi = (-1, extent - 1) if stride < 0 else (0, extent)
    if index < 0:
        index += extent
    return min(max(index, lo), hi)


def strided_slice_plan(
    shape: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None,
    axes: Sequence[int] | None,
    slice_mode: str,
) -> list[tuple[int, int, int, int]]:
    """``(axis, start, stride, length)`` for each sliced axis, by Relay's rules.

    Without ``axes`` every dim is sliced; missing trailing ``strides`` are 1, missing
    ``begin`` are 0 (``INT64_MAX`` for a negative stride) and missing ``end`` are
    ``INT64_MAX`` (0 for a negative stride). In ``"size"`` mode ``end`` holds sizes
    (-1: to the end) and strides are ignored. Bounds wrap once when negative and are
    clamped to the dim; a slice running against its stride is an error.
    """
    rank = len(shape)
    if slice_mode not in ("end", "size"):
        raise TypeRelationError(
            f'slice_mode must be "end" or "size", got "{slice_mode}"'
        )
    begin, end = list(begin), list(end)
    if axes is not None:
        ax = [normalize_axis(a, rank, "axes entry") for a in axes]
        st = [1] * len(ax) if strides is None else list(strides)
        if not len(ax) == len(begin) == len(end) == len(st):
            raise TypeRelationError(
                f"begin ({len(begin)}), end ({len(end)}), strides ({len(st)}) and "
                f"axes ({len(ax)}) must have the same length"
            )
    else:
        ax = list(range(rank))
        st = [] if strides is None else list(strides)
        for name, values in (("begin", begin), ("end", end), ("strides", st)):
            if len(values) > rank:
                raise TypeRelationError(
                    f"{name} has {len(values)} entries but data has rank {rank}"
                )
        st += [1] * (rank - len(st))
        begin += [0 if s > 0 else INT64_MAX for s in st[len(begin) :]]
        end += [INT64_MAX if s > 0 else 0 for s in st[len(end) :]]
    if 0 in st:
        raise TypeRelationError(f"strides {st} contain a zero stride")

    plan: list[tuple[int, int, int, int]] = []
    for k, a in enumerate(ax):
        stride = st[k] if slice_mode == "end" else 1
        b, e = begin[k], end[k]
        if slice_mode == "size":
            e = INT64_MAX if e < 0 else b + e
        dim = shape[a]
        if dim == DYN:
            plan.append((a, 0, stride, DYN))
            continue
        cb = _canonical_index(b, dim, stride)
        ce = _canonical_index(e, dim, stride)
        if (stride < 0 and ce > cb) or (stride > 0 and cb > ce):
            raise TypeRelationError(
                f"begin {begin[k]} and end {end[k]} (clamped to {cb} and {ce}) are "
                f"invalid for axis {a} of size {dim} with stride {stride}"
            )
        length = (abs(ce - cb) + abs(stride) - 1) // abs(stride)
        plan.append((a, cb, stride, length))
    return plan


@irdl_op_definition
class StridedSliceOp(_UnaryTransformOp):
    """``data[begin:end:strides]`` on the listed ``axes`` (absent: all dims, missing
    trailing entries take the whole dim); ``slice_mode="size"`` reads ``end`` as sizes
    (-1 = to the end). See :func:`strided_slice_plan` for Relay's clamping rules."""

    name = "relay.strided_slice"
    begin = ints_prop()
    end = ints_prop()
    strides = opt_ints_prop()
    axes = opt_ints_prop()
    slice_mode = str_prop("end")

    def _plan(self, shape: Sequence[int]) -> list[tuple[int, int, int, int]]:
        return strided_slice_plan(
            shape,
            get_ints(self.begin),
            get_ints(self.end),
            None if self.strides is None else get_ints(self.strides),
            None if self.axes is None else get_ints(self.axes),
            get_str(self.slice_mode),
        )

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        out = list(shape)
        for a, _, _, length in self._plan(shape):
            out[a] = length
        return out

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        index: list[slice] = [slice(None)] * x.ndim
        for a, start, stride, length in self._plan(x.shape):
            if length == 0:
                index[a] = slice(0, 0)
                continue
            stop = start + stride * length  # -1 and below: "past index 0"
            index[a] = slice(start, stop if stop >= 0 else None, stride)
        return np.ascontiguousarray(x[tuple(index)])

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``StridedSliceInferCorrectLayout``: the sliced axes follow their
        letters into the producer's new layout (an op with ``axes``, or going to a
        blocked layout, keeps or takes that form; one without going to a permuted
        layout gets full-rank ``begin``/``end``/``strides`` in the new axis order, as
        Relay writes them); an axis split
        by ``f`` there can be sliced only with stride 1 and bounds that are multiples
        of ``f`` (divided by ``f``), else the data goes back to its original layout.
        A blocked original layout is not changed."""
        old = old_layouts[0]
        if old is None or not isinstance(old_types[0], TensorType):
            return None
        shape = old_types[0].get_shape()
        if old.ndim != len(shape):
            return None
        keep = InferredLayouts((old,), (old,))
        new = new_layouts[0] if new_layouts is not None else None
        if new is None or new == old:
            return keep
        if any(not a.is_primal for a in old.axes) or not same_primal_axes(old, new):
            return keep
        try:
            plan = self._plan(shape)
        except TypeRelationError:
            return None
        size_mode = get_str(self.slice_mode) == "size"
        begin: list[int] = []
        end: list[int] = []
        strides: list[int] = []
        axes: list[int] = []
        for (a, b, e, st), (_, start, stride, length) in zip(
            self._entries(len(shape)), plan, strict=True
        ):
            whole = start == 0 and stride == 1 and length == shape[a] != DYN
            if whole and self.axes is None:
                continue  # the whole axis: nothing to slice (given axes are kept)
            letter = old.axes[a].letter
            axes.append(new.index_of(letter))
            factor = new.factor_of(letter)
            if factor <= 0:
                begin.append(b)
                end.append(e)
                strides.append(st)
                continue
            if (stride != 1 and not size_mode) or DYN in (shape[a], length):
                return keep
            if start % factor or length % factor:
                return keep
            begin.append(start // factor)
            end.append(length // factor if size_mode else (start + length) // factor)
            strides.append(1)
        if self.axes is None and all(a.is_primal for a in new.axes):
            # Relay's form for a permutation: full-rank bounds in the new order
            sliced = dict(zip(axes, zip(begin, end, strides, strict=True), strict=True))
            full_b: list[int] = []
            full_e: list[int] = []
            full_s: list[int] = []
            for k, ax in enumerate(new.axes):
                if k in sliced:
                    b, e, st = sliced[k]
                else:  # a whole axis: 0 to its extent
                    b, e, st = 0, shape[old.index_of(ax.letter)], 1
                full_b.append(b)
                full_e.append(e)
                full_s.append(st)
            return InferredLayouts(
                (new,), (new,), {"begin": full_b, "end": full_e, "strides": full_s}
            )
        attrs: dict[str, object] = {
            "begin": begin,
            "end": end,
            "strides": strides,
            "axes": axes,
        }
        return InferredLayouts((new,), (new,), attrs)

    def _entries(self, rank: int) -> list[tuple[int, int, int, int]]:
        """``(axis, begin, end, stride)`` of every sliced axis as the attributes give
        them, with Relay's defaults for missing trailing entries."""
        begin, end = list(get_ints(self.begin)), list(get_ints(self.end))
        strides = [] if self.strides is None else list(get_ints(self.strides))
        if self.axes is not None:
            axes = [normalize_axis(a, rank) for a in get_ints(self.axes)]
            strides = strides or [1] * len(axes)
            return list(zip(axes, begin, end, strides, strict=True))
        strides += [1] * (rank - len(strides))
        begin += [0 if s > 0 else INT64_MAX for s in strides[len(begin) :]]
        end += [INT64_MAX if s > 0 else 0 for s in strides[len(end) :]]
        return list(zip(range(rank), begin, end, strides, strict=True))


def _checked_indices(idx: Array, size: int, op_name: str) -> Array:
    """``idx`` with negative entries counted from the end; an entry outside
    ``[-size, size)`` raises :class:`~xrelay.status.IndexOutOfRangeError` (what
    compiled code reports from its status block)."""
    idx = idx.astype(np.int64)
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise index_error(op_name, int(idx[bad].reshape(-1)[0]), size)
    return np.where(idx < 0, idx + size, idx)


def _wrap_indices(idx: Array, size: int, mode: str, op_name: str) -> Array:
    """``mode``: ``clip`` clamps, ``wrap`` wraps, ``fast`` is checked (xrelay
    defines Relay's unchecked mode: negative indices count from the end once, and
    anything out of range fails the run instead of reading outside the buffer)."""
    idx = idx.astype(np.int64)
    if mode == "clip":
        return np.clip(idx, 0, max(size - 1, 0))
    if mode == "wrap":
        return np.mod(idx, size) if size else idx
    return _checked_indices(idx, size, op_name)


def _no_empty_read(size: int, out_shape: Sequence[int], what: str) -> None:
    """Reading anything from a dim of size 0 is an error of the program."""
    if size == 0 and DYN not in out_shape and math.prod(out_shape) > 0:
        raise TypeRelationError(f"cannot gather from {what} of size 0")


def _axis_index(n: int, pos: int, rank: int) -> Array:
    """``arange(n)`` laid out along dim ``pos`` of a rank-``rank`` index grid."""
    shape = [1] * rank
    shape[pos] = n
    return np.arange(n).reshape(shape)


@irdl_op_definition
class TakeOp(RelayOp):
    """Elements of ``data`` picked by integer ``indices`` along ``axis`` (absent: from
    the flattened ``data``); the first ``batch_dims`` dims of ``indices`` run alongside
    those of ``data``. ``mode``: ``"clip"`` clamps out-of-range indices (negative ones
    to 0), ``"wrap"`` takes them modulo the dim, ``"fast"`` does neither: negative
    indices count from the end once, and an index outside ``[-dim, dim)`` is an error
    of the run (Relay leaves it undefined; compiled code reports it through the run
    status, :mod:`xrelay.status`)."""

    name = "relay.take"
    data = operand_def(ANY_TENSOR)
    indices = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = opt_int_prop()
    batch_dims = int_prop(0)
    mode = str_prop("clip")
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def _params(self, data_rank: int, indices_rank: int) -> tuple[int, int]:
        assert self.axis is not None
        axis = normalize_axis(get_int(self.axis), data_rank)
        batch = get_int(self.batch_dims)
        if batch < 0:
            batch += indices_rank
        if not 0 <= batch <= min(indices_rank, axis):
            raise TypeRelationError(
                f"batch_dims {get_int(self.batch_dims)} must be in [0, {axis}] (at most "
                f"the axis {axis} and the indices rank {indices_rank})"
            )
        return axis, batch

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, idx = ranked(operand_types[0], "data"), ranked(operand_types[1], "indices")
        _int_operand(idx, "indices")
        mode = get_str(self.mode)
        if mode not in ("clip", "wrap", "fast"):
            raise TypeRelationError(
                f'mode must be "clip", "wrap" or "fast", got "{mode}"'
            )
        elem = x.get_element_type()
        if self.axis is None:
            if DYN not in x.get_shape():
                _no_empty_read(math.prod(x.get_shape()), idx.get_shape(), "data")
            return [tensor(idx.get_shape(), elem)]
        ds, js = x.get_shape(), idx.get_shape()
        axis, batch = self._params(len(ds), len(js))
        for k in range(batch):
            if DYN not in (ds[k], js[k]) and ds[k] != js[k]:
                raise TypeRelationError(
                    f"batch dim {k}: data has {ds[k]} but indices has {js[k]}"
                )
        out = (*ds[:axis], *js[batch:], *ds[axis + 1 :])
        _no_empty_read(ds[axis], out, f"axis {axis}")
        return [tensor(out, elem)]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        idx: Array = args[1]
        mode = get_str(self.mode)
        if self.axis is None:
            return x.reshape(-1)[_wrap_indices(idx, x.size, mode, self.name)]
        axis, batch = self._params(x.ndim, idx.ndim)
        idx = _wrap_indices(idx, x.shape[axis], mode, self.name)
        n_idx = idx.ndim - batch
        rank = x.ndim - 1 + n_idx
        grid: list[Array] = []
        for k in range(x.ndim):
            if k < axis:
                grid.append(_axis_index(x.shape[k], k, rank))
            elif k == axis:
                # indices' batch dims line up with output dims 0..batch-1, the rest
                # fill output dims axis..axis+n_idx-1
                shape = [1] * rank
                shape[:batch] = idx.shape[:batch]
                shape[axis : axis + n_idx] = idx.shape[batch:]
                grid.append(idx.reshape(shape))
            else:
                grid.append(_axis_index(x.shape[k], k - 1 + n_idx, rank))
        return x[tuple(grid)]


@irdl_op_definition
class GatherOp(RelayOp):
    """``out[i..., j, k...] = data[i..., indices[i..., j, k...], k...]`` along
    ``axis``: ``indices`` has ``data``'s rank and dims except on ``axis``; the result
    has the shape of ``indices``. A negative index counts from the end; indices
    still out of range are clamped into the axis (never read outside ``data``)."""

    name = "relay.gather"
    data = operand_def(ANY_TENSOR)
    indices = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, idx = ranked(operand_types[0], "data"), ranked(operand_types[1], "indices")
        _int_operand(idx, "indices")
        ds, js = x.get_shape(), idx.get_shape()
        if len(ds) != len(js):
            raise TypeRelationError(
                f"indices has rank {len(js)} but data has rank {len(ds)} (they must "
                "be equal)"
            )
        axis = normalize_axis(get_int(self.axis), len(ds))
        for k, (d, j) in enumerate(zip(ds, js, strict=True)):
            if k == axis:
                if j == 0:
                    raise TypeRelationError(f"indices dim {k} (the axis) must be >= 1")
            elif DYN not in (d, j) and d != j:
                raise TypeRelationError(
                    f"indices dim {k} is {j} but data dim {k} is {d} (only the axis "
                    f"{axis} may differ)"
                )
        _no_empty_read(ds[axis], js, f"axis {axis}")
        return [tensor(js, x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        axis = get_int(self.axis) % x.ndim
        idx = _checked_indices(args[1], x.shape[axis], self.name)
        return np.take_along_axis(x, idx, axis=axis)


@irdl_op_definition
class GatherNDOp(RelayOp):
    """Slices of ``data`` addressed by the columns of ``indices`` (shape
    ``(M, Y...)``): ``out[y..., rest...] = data[b..., indices[0, y...], ...,
    indices[M-1, y...], rest...]`` where the first ``batch_dims`` dims of ``data`` run
    alongside the first ``Y`` dims. The result shape is ``Y + data.shape[M +
    batch_dims:]``. ``index_rank`` (optional) states ``M``. A negative index counts
    from the end; indices still out of range are clamped into their dim (never read
    outside ``data``)."""

    name = "relay.gather_nd"
    data = operand_def(ANY_TENSOR)
    indices = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    batch_dims = int_prop(0)
    index_rank = opt_int_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, idx = ranked(operand_types[0], "data"), ranked(operand_types[1], "indices")
        _int_operand(idx, "indices")
        ds, js = x.get_shape(), idx.get_shape()
        if not js or js[0] == DYN:
            raise TypeRelationError(
                f"indices must have a static first dim (the index depth M), got {idx}"
            )
        m, batch = js[0], get_int(self.batch_dims)
        if self.index_rank is not None and get_int(self.index_rank) != m:
            raise TypeRelationError(
                f"index_rank {get_int(self.index_rank)} differs from indices dim 0 ({m})"
            )
        if batch < 0 or batch > len(js) - 1:
            raise TypeRelationError(
                f"batch_dims {batch} must be in [0, {len(js) - 1}] for indices {idx}"
            )
        if m + batch > len(ds):
            raise TypeRelationError(
                f"indices address {m} dims after {batch} batch dims but data has rank "
                f"{len(ds)}"
            )
        for k in range(batch):
            if DYN not in (ds[k], js[k + 1]) and ds[k] != js[k + 1]:
                raise TypeRelationError(
                    f"batch dim {k}: data has {ds[k]} but indices has {js[k + 1]}"
                )
        out = (*js[1:], *ds[m + batch :])
        for k in range(m):
            _no_empty_read(ds[batch + k], out, f"dim {batch + k}")
        return [tensor(out, x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        idx: Array = args[1].astype(np.int64)
        batch = get_int(self.batch_dims)
        y_rank = idx.ndim - 1
        grid: list[Array] = [_axis_index(x.shape[k], k, y_rank) for k in range(batch)]
        grid += [
            _checked_indices(row, x.shape[batch + k], self.name)
            for k, row in enumerate(idx)
        ]
        return x[tuple(grid)]


# ---------------------------------------------------------------------------------------
# Broadcasting, tiling, reversing
# ---------------------------------------------------------------------------------------


def _check_broadcasts_to(src: Sequence[int], dst: Sequence[int]) -> None:
    try:
        ok = len(src) <= len(dst) and broadcast_shapes(src, dst) == tuple(dst)
    except TypeRelationError:
        ok = False
    if not ok:
        raise TypeRelationError(
            f"shape {shape_str(src)} does not broadcast to {shape_str(dst)}"
        )


@irdl_op_definition
class BroadcastToOp(_UnaryTransformOp):
    """``data`` broadcast (numpy rules) to ``shape``."""

    name = "relay.broadcast_to"
    shape = ints_prop()
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        dst = get_ints(self.shape)
        if any(d < 0 for d in dst):
            raise TypeRelationError(f"shape {list(dst)} has a negative dimension")
        _check_broadcasts_to(shape, dst)
        return dst

    def compute(self, *args: Any) -> Any:
        return np.array(np.broadcast_to(args[0], get_ints(self.shape)))


@irdl_op_definition
class BroadcastToLikeOp(RelayOp):
    """``data`` broadcast to the type of ``like`` (same dtype)."""

    name = "relay.broadcast_to_like"
    data = operand_def(ANY_TENSOR)
    like = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, like = ranked(operand_types[0], "data"), ranked(operand_types[1], "like")
        same_elem([x, like], ["data", "like"])
        _check_broadcasts_to(x.get_shape(), like.get_shape())
        return [like]

    def compute(self, *args: Any) -> Any:
        return np.array(np.broadcast_to(args[0], args[1].shape))


@irdl_op_definition
class CollapseSumLikeOp(RelayOp):
    """``data`` summed down to the type of ``like``: the reverse of broadcasting
    ``like`` to ``data`` (leading dims and dims where ``like`` has 1 are summed)."""

    name = "relay.collapse_sum_like"
    data = operand_def(ANY_TENSOR)
    like = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, like = ranked(operand_types[0], "data"), ranked(operand_types[1], "like")
        same_elem([x, like], ["data", "like"])
        _check_broadcasts_to(like.get_shape(), x.get_shape())
        return [like]

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        target: tuple[int, ...] = args[1].shape
        lead = x.ndim - len(target)
        axes = tuple(range(lead)) + tuple(
            lead + k for k, d in enumerate(target) if d == 1 and x.shape[lead + k] != 1
        )
        return np.sum(x, axis=axes, dtype=x.dtype).reshape(target)


@irdl_op_definition
class CollapseSumToOp(_UnaryTransformOp):
    """``data`` summed down to ``shape``: :class:`CollapseSumLikeOp` with the target
    shape as an attribute (Relay's ``collapse_sum_to``); ``shape`` must broadcast to
    the data's shape."""

    name = "relay.collapse_sum_to"
    shape = ints_prop()
    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        target = get_ints(self.shape)
        _check_broadcasts_to(target, shape)
        return target

    def compute(self, *args: Any) -> Any:
        x: Array = args[0]
        target = tuple(get_ints(self.shape))
        lead = x.ndim - len(target)
        axes = tuple(range(lead)) + tuple(
            lead + k for k, d in enumerate(target) if d == 1 and x.shape[lead + k] != 1
        )
        return np.sum(x, axis=axes, dtype=x.dtype).reshape(target)


@irdl_op_definition
class TileOp(_UnaryTransformOp):
    """``data`` repeated ``reps[k]`` times along each dim (numpy.tile: the shorter of
    the shape and ``reps`` is padded with leading 1s); every rep must be positive."""

    name = "relay.tile"
    reps = ints_prop()
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        reps = get_ints(self.reps)
        if any(r <= 0 for r in reps):
            raise TypeRelationError(f"reps {list(reps)} must all be > 0")
        rank = max(len(shape), len(reps))
        s = [1] * (rank - len(shape)) + list(shape)
        r = [1] * (rank - len(reps)) + list(reps)
        return [DYN if d == DYN else d * k for d, k in zip(s, r, strict=True)]

    def compute(self, *args: Any) -> Any:
        return np.tile(args[0], get_ints(self.reps))


@irdl_op_definition
class RepeatOp(_UnaryTransformOp):
    """Each element of ``data`` repeated ``repeats`` (>= 1) times along ``axis``."""

    name = "relay.repeat"
    repeats = int_prop()
    axis = int_prop()
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        n = get_int(self.repeats)
        if n < 1:
            raise TypeRelationError(f"repeats must be >= 1, got {n}")
        axis = normalize_axis(get_int(self.axis), len(shape))
        out = list(shape)
        out[axis] = DYN if shape[axis] == DYN else shape[axis] * n
        return out

    def compute(self, *args: Any) -> Any:
        return np.repeat(args[0], get_int(self.repeats), axis=get_int(self.axis))


@irdl_op_definition
class ReverseOp(_UnaryTransformOp):
    """``data`` with the order of its elements along ``axis`` reversed."""

    name = "relay.reverse"
    axis = int_prop()

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        normalize_axis(get_int(self.axis), len(shape))
        return shape

    def compute(self, *args: Any) -> Any:
        return np.ascontiguousarray(np.flip(args[0], axis=get_int(self.axis)))


# ---------------------------------------------------------------------------------------
# Layouts, shapes, one-hot
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class LayoutTransformOp(_UnaryTransformOp):
    """``data`` stored in layout ``src_layout`` rearranged into ``dst_layout`` (e.g.
    ``NCHW`` → ``NCHW8c``: ``[N, C/8, H, W, 8]``); both layouts have the same primal axes
    and split dims must be divisible (see :mod:`xrelay.dialects.relay.layout`)."""

    RELAYOUT: ClassVar[bool] = True

    name = "relay.layout_transform"
    src_layout = str_prop()
    dst_layout = str_prop()

    def out_shape(self, shape: tuple[int, ...]) -> Sequence[int]:
        try:
            src = Layout.parse(get_str(self.src_layout))
            dst = Layout.parse(get_str(self.dst_layout))
            if DYN in shape:
                raise ValueError(f"data shape {shape_str(shape)} must be static")
            return src.transform_shape(shape, dst)
        except ValueError as e:
            raise TypeRelationError(str(e)) from None

    def compute(self, *args: Any) -> Any:
        return transform_array(
            args[0], get_str(self.src_layout), get_str(self.dst_layout)
        )


@irdl_op_definition
class ShapeOfOp(RelayOp):
    """The shape of ``data`` as a 1-D tensor of ``dtype`` (default ``i32``; Relay
    also allows a float dtype)."""

    name = "relay.shape_of"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    dtype = prop_def(TypeAttribute, i32)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        if not (is_int(self.dtype) or is_float(self.dtype)):
            raise TypeRelationError(
                f"dtype must be an integer or float type, got {self.dtype}"
            )
        return [tensor([len(x.get_shape())], self.dtype)]

    def compute(self, *args: Any) -> Any:
        return np.array(args[0].shape, dtype=numpy_dtype(self.dtype))


@irdl_op_definition
class NdarraySizeOp(RelayOp):
    """The number of elements of ``data`` as a 0-d tensor of ``dtype`` (default
    ``i32``; Relay's ``ndarray_size``)."""

    name = "relay.ndarray_size"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    dtype = prop_def(TypeAttribute, i32)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        ranked(operand_types[0], "data")
        return [tensor([], self.dtype)]

    def compute(self, *args: Any) -> Any:
        return np.array(args[0].size, dtype=numpy_dtype(self.dtype))


@irdl_op_definition
class OneHotOp(RelayOp):
    """A ``dtype`` tensor with a new dim of size ``depth`` at ``axis`` (-1: last),
    holding ``on_value`` where the position along that dim equals the index in
    ``indices`` and ``off_value`` elsewhere (indices outside ``[0, depth)`` give a row of
    ``off_value``). ``on_value`` and ``off_value`` are 0-d tensors."""

    name = "relay.one_hot"
    indices = operand_def(ANY_TENSOR)
    on_value = operand_def(ANY_TENSOR)
    off_value = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    depth = int_prop()
    axis = int_prop(-1)
    dtype = dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    def _axis(self, rank: int) -> int:
        return _insert_axis_range(get_int(self.axis), rank)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        idx = ranked(operand_types[0], "indices")
        on = ranked(operand_types[1], "on_value")
        off = ranked(operand_types[2], "off_value")
        _int_operand(idx, "indices")
        for ty, what in ((on, "on_value"), (off, "off_value")):
            if ty.get_shape():
                raise TypeRelationError(f"{what} must be a 0-d tensor, got {ty}")
        depth = get_int(self.depth)
        if depth <= 0:
            raise TypeRelationError(f"depth must be > 0, got {depth}")
        shape = idx.get_shape()
        axis = self._axis(len(shape))
        return [tensor((*shape[:axis], depth, *shape[axis:]), self.dtype)]

    def compute(self, *args: Any) -> Any:
        idx: Array = args[0]
        npd = numpy_dtype(self.dtype)
        on = astype(args[1], npd)
        off = astype(args[2], npd)
        axis = self._axis(idx.ndim)
        positions = _axis_index(get_int(self.depth), axis, idx.ndim + 1)
        hit = np.expand_dims(idx, axis) == positions
        return np.where(hit, on, off).astype(npd)


TRANSFORM_OPS: list[type[RelayOp]] = [
    ReshapeOp, ReshapeLikeOp, ReverseReshapeOp, TransposeOp, ExpandDimsOp, SqueezeOp,
    ConcatenateOp, StackOp, SplitOp,
    StridedSliceOp, TakeOp, GatherOp, GatherNDOp,
    BroadcastToOp, BroadcastToLikeOp, CollapseSumLikeOp, CollapseSumToOp, TileOp,
    RepeatOp, ReverseOp, LayoutTransformOp, ShapeOfOp, NdarraySizeOp, OneHotOp,
]  # fmt: skip

__all__ = [
    "INT64_MAX",
    "TRANSFORM_OPS",
    "BroadcastToLikeOp",
    "BroadcastToOp",
    "CollapseSumLikeOp",
    "CollapseSumToOp",
    "ConcatenateOp",
    "ExpandDimsOp",
    "GatherNDOp",
    "GatherOp",
    "LayoutTransformOp",
    "NdarraySizeOp",
    "OneHotOp",
    "RepeatOp",
    "ReshapeLikeOp",
    "ReshapeOp",
    "ReverseOp",
    "ReverseReshapeOp",
    "ShapeOfOp",
    "SplitOp",
    "SqueezeOp",
    "StackOp",
    "StridedSliceOp",
    "TakeOp",
    "TileOp",
    "TransposeOp",
    "reshape_like_shape",
    "reshape_shape",
    "reverse_reshape_shape",
    "strided_slice_plan",
]
