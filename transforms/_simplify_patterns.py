"""The rewrite patterns of SimplifyExpr and SimplifyExprPostAlterOp (Relay's
``simplify_expr.cc``) as xDSL ``RewritePattern``\\ s.

Every pattern matches one relay op (the root), builds its replacement with
``RelayOp.make`` (so the new ops are typed by their type relations) and only commits
when the replacement has exactly the root's result type; otherwise nothing changes.
Relay applies its rewrites in a fixed order, repeatedly, to a fixed point; here the
lists :func:`simplify_expr_patterns` and :func:`post_alter_op_patterns` keep Relay's
order and xDSL's greedy driver repeats them to a fixed point.

Constant arithmetic made by a rewrite (``c1 * c2``) is folded on the spot with the
op's own numpy semantics, so no FoldConstant run is needed to finish the job.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from xrelay.dialects.relay.algorithm import ArgsortOp
from xrelay.dialects.relay.base import (
    DYN,
    Array,
    OpPattern,
    RelayOp,
    TypeRelationError,
    get_float,
    get_int,
    get_ints,
    get_str,
)
from xrelay.dialects.relay.dtypes import DTypeError, numpy_dtype
from xrelay.dialects.relay.elementwise import (
    AddOp,
    BinaryOp,
    CastLikeOp,
    CastOp,
    ClipOp,
    DivideOp,
    FullLikeOp,
    FullOp,
    MultiplyOp,
    OnesLikeOp,
    OnesOp,
    RsqrtOp,
    SqrtOp,
    SubtractOp,
    ZerosLikeOp,
    ZerosOp,
)
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.qnn import DequantizeOp
from xrelay.dialects.relay.reduce import ArgMaxOp, ArgMinOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.dialects.relay.transform import (
    BroadcastToLikeOp,
    BroadcastToOp,
    CollapseSumLikeOp,
    CollapseSumToOp,
    LayoutTransformOp,
    ReshapeLikeOp,
    ReshapeOp,
    ReverseReshapeOp,
    TransposeOp,
)

# ---------------------------------------------------------------------------------------
# Small helpers shared by the patterns (and by FoldScaleAxis)
# ---------------------------------------------------------------------------------------


def tensor_type(value: SSAValue) -> TensorType | None:
    """The value's ranked tensor type, ``None`` for anything else."""
    ty = value.type
    return cast(TensorType, ty) if isinstance(ty, TensorType) else None


def static_shape(value: SSAValue) -> tuple[int, ...] | None:
    """The value's shape when it is fully static, else ``None``."""
    ty = tensor_type(value)
    if ty is None:
        return None
    shape = tuple(ty.get_shape())
    return None if DYN in shape else shape


def elem_type(value: SSAValue) -> Attribute | None:
    ty = tensor_type(value)
    return None if ty is None else ty.get_element_type()


def defining(value: SSAValue) -> Operation | None:
    """The op producing ``value`` (``None`` for block arguments)."""
    return value.op if isinstance(value, OpResult) else None


def constant_of(value: SSAValue) -> Array | None:
    """The numpy value of ``value`` when a ``relay.constant`` produces it."""
    op = defining(value)
    return op.numpy() if isinstance(op, ConstantOp) else None


def is_constant(value: SSAValue) -> bool:
    return isinstance(defining(value), ConstantOp)


class Edit:
    """The new ops of one rewrite, made with ``RelayOp.make``: inserted together when
    the rewrite commits, erased (dropping their operand uses) when it does not."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def op(
        self, cls: type[RelayOp], operands: Sequence[SSAValue], **attrs: object
    ) -> SSAValue:
        """A new ``cls`` op on ``operands``; raises ``TypeRelationError`` when the
        operands and attributes do not fit its type relation."""
        new = cls.make(list(operands), dict(attrs))
        self.ops.append(new)
        return new.results[0]

    def like(self, old: RelayOp, operands: Sequence[SSAValue]) -> SSAValue:
        """A copy of ``old`` (same op, same attributes) on new operands."""
        new = type(old).make(list(operands), dict[str, object](old.properties))
        self.ops.append(new)
        return new.results[0]

    def const(self, array: Array | float | int | bool) -> SSAValue:
        new = ConstantOp.from_numpy(np.asarray(array))
        self.ops.append(new)
        return new.results[0]

    def fold(self, cls: type[RelayOp], operands: Sequence[SSAValue]) -> SSAValue:
        """``cls`` applied to constant operands, evaluated now: a new constant."""
        arrays = [constant_of(v) for v in operands]
        if any(a is None for a in arrays):
            raise TypeRelationError("fold needs constant operands")
        probe = cls.make(list(operands), {})
        try:
            (value,) = probe.evaluate(*cast(list[Array], arrays))
        finally:
            probe.erase()
        return self.const(cast(Array, value))

    def drop(self) -> None:
        for op in reversed(self.ops):
            op.erase()
        self.ops.clear()


class RelayRewrite(RewritePattern):
    """A rewrite of one single-result relay op with a complete type.

    Subclasses implement :meth:`rewrite`, returning the value that replaces the op's
    result (new ops made through ``edit``) or ``None`` when they do not apply. The
    replacement is committed only if its type equals the op's result type.
    """

    OPS: ClassVar[tuple[type[Operation], ...]] = (RelayOp,)
    """The op classes :meth:`rewrite` can apply to: others are skipped at the cost
    of one ``isinstance`` (a pattern set is tried on every op of a large program)."""

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        raise NotImplementedError

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.OPS):
            return
        if not isinstance(op, RelayOp) or len(op.results) != 1:
            return
        if tensor_type(op.results[0]) is None:
            return
        edit = Edit()
        try:
            value = self.rewrite(op, edit)
        except (TypeRelationError, DTypeError, ValueError):
            value = None
        if value is None or value is op.results[0] or value.type != op.results[0].type:
            edit.drop()
            return
        rewriter.replace(op, edit.ops, [value])


# ---------------------------------------------------------------------------------------
# Numeric properties of element types
# ---------------------------------------------------------------------------------------

_FLOAT_BITS: dict[type, tuple[int, int]] = {
    Float16Type: (5, 10),
    BFloat16Type: (8, 7),
    Float32Type: (8, 23),
    Float64Type: (11, 52),
}
"""(exponent bits, mantissa bits) of the floating-point types."""


def _kind(elem: Attribute) -> str | None:
    """``b`` (i1), ``i`` (signed/signless int), ``u`` (unsigned), ``f`` or ``None``."""
    if isinstance(elem, IntegerType):
        if elem.width.data == 1:
            return "b"
        return "u" if elem.signedness.data == Signedness.UNSIGNED else "i"
    if type(elem) in _FLOAT_BITS:
        return "f"
    return None


def _int_range(elem: Attribute) -> tuple[int, int] | None:
    kind = _kind(elem)
    if kind == "b":
        return (0, 1)
    if kind in ("i", "u"):
        bits = cast(IntegerType, elem).width.data
        return (
            (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
            if kind == "i"
            else (0, 2**bits - 1)
        )
    return None


def _float_max(elem: Attribute) -> float | None:
    if isinstance(elem, BFloat16Type):
        return (2 - 2**-7) * 2.0**127
    if type(elem) in _FLOAT_BITS:
        return float(np.finfo(numpy_dtype(elem)).max)
    return None


def _exact_int_limit(elem: Attribute) -> int:
    """Every integer of magnitude up to this is exact in float type ``elem``."""
    return 2 ** (_FLOAT_BITS[type(elem)][1] + 1)


def value_preserving(src: Attribute, dst: Attribute) -> bool:
    """Whether casting ``src`` to ``dst`` keeps every value exactly (a widening cast):
    casting on from ``dst`` then gives what casting straight from ``src`` gives."""
    if src == dst:
        return True
    ks, kd = _kind(src), _kind(dst)
    if ks is None or kd is None:
        return False
    if ks == "b":
        return True
    if ks == "f":
        if kd != "f":
            return False
        (se, sm), (de, dm) = _FLOAT_BITS[type(src)], _FLOAT_BITS[type(dst)]
        return de >= se and dm >= sm
    rng = _int_range(src)
    assert rng is not None
    return _range_fits(rng[0], rng[1], dst)


def _range_fits(lo: float, hi: float, dst: Attribute) -> bool:
    """Whether every integer in ``[lo, hi]`` is exact in ``dst``."""
    kind = _kind(dst)
    if kind in ("b", "i", "u"):
        rng = _int_range(dst)
        assert rng is not None
        return rng[0] <= lo and hi <= rng[1]
    if kind == "f":
        limit = _exact_int_limit(dst)
        return -limit <= lo and hi <= limit
    return False


def _clip_bounds(op: ClipOp) -> tuple[float, float]:
    return get_float(op.a_min), get_float(op.a_max)


def _clip_int_interval(op: ClipOp, elem: Attribute) -> tuple[int, int] | None:
    """The integers a clip of an integer tensor can give (``None`` if empty)."""
    rng = _int_range(elem)
    assert rng is not None
    lo, hi = _clip_bounds(op)
    lo_i = rng[0] if lo == -math.inf else max(rng[0], math.ceil(lo))
    hi_i = rng[1] if hi == math.inf else min(rng[1], math.floor(hi))
    return (lo_i, hi_i) if lo_i <= hi_i else None


# ---------------------------------------------------------------------------------------
# Concretize the *_like ops
# ---------------------------------------------------------------------------------------


class ConcretizeLike(RelayRewrite):
    """``zeros_like`` / ``ones_like`` / ``full_like`` / ``reshape_like`` /
    ``collapse_sum_like`` / ``broadcast_to_like`` with a static result type → the
    shape-explicit op (``zeros``, ``ones``, ``full``, ``reshape``, ``sum`` + ``reshape``,
    ``broadcast_to``): the ``like`` operand is no longer needed."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (
        ZerosLikeOp,
        OnesLikeOp,
        FullLikeOp,
        ReshapeLikeOp,
        BroadcastToLikeOp,
        CollapseSumLikeOp,
    )

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        shape = static_shape(op.results[0])
        elem = elem_type(op.results[0])
        if shape is None or elem is None:
            return None
        if isinstance(op, ZerosLikeOp):
            return edit.op(ZerosOp, [], shape=list(shape), dtype=elem)
        if isinstance(op, OnesLikeOp):
            return edit.op(OnesOp, [], shape=list(shape), dtype=elem)
        if isinstance(op, FullLikeOp):
            return edit.op(FullOp, [op.fill_value], shape=list(shape), dtype=elem)
        if isinstance(op, ReshapeLikeOp):
            return edit.op(ReshapeOp, [op.data], newshape=list(shape))
        if isinstance(op, BroadcastToLikeOp):
            return edit.op(BroadcastToOp, [op.data], shape=list(shape))
        if isinstance(op, CollapseSumLikeOp):
            return _collapse_sum_to(op.data, shape, edit)
        return None


def _collapse_sum_to(
    data: SSAValue, target: tuple[int, ...], edit: Edit
) -> SSAValue | None:
    """Relay's ``collapse_sum_to(data, target)``: the shape-explicit form of
    ``collapse_sum_like``."""
    return edit.op(CollapseSumToOp, [data], shape=list(target))


class ConcretizeCastLike(RelayRewrite):
    """``cast_like(x, y)`` → ``cast(x, dtype of y)`` (also for dynamic shapes)."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (CastLikeOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, CastLikeOp):
            return None
        elem = elem_type(op.results[0])
        return None if elem is None else edit.op(CastOp, [op.data], dtype=elem)


# ---------------------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------------------


class SimplifyAdd(RelayRewrite):
    """``x + x`` → ``x * 2`` (not for ``i1``)."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (AddOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, AddOp) or op.lhs is not op.rhs:
            return None
        elem = elem_type(op.results[0])
        if elem is None or _kind(elem) in (None, "b"):
            return None
        two = edit.const(np.asarray(2, dtype=numpy_dtype(elem)))
        return edit.op(MultiplyOp, [op.lhs, two])


class SimplifyRSqrt(RelayRewrite):
    """``x / sqrt(y)`` → ``x * rsqrt(y)``."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (DivideOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, DivideOp):
            return None
        sqrt = defining(op.rhs)
        if not isinstance(sqrt, SqrtOp):
            return None
        return edit.op(MultiplyOp, [op.lhs, edit.op(RsqrtOp, [sqrt.data])])


def _is_fill(value: SSAValue, fill: int) -> bool:
    """``value`` is all ``fill`` (0 or 1): a ``zeros``/``ones`` op, their ``_like``
    forms, or a constant holding only that value."""
    op = defining(value)
    if fill == 0 and isinstance(op, ZerosOp | ZerosLikeOp):
        return True
    if fill == 1 and isinstance(op, OnesOp | OnesLikeOp):
        return True
    array = constant_of(value)
    if array is None or array.size == 0:
        return False
    # one element first: a weight is rarely all one value, and the full comparison
    # would cost its size each time the walker offers one of its users
    return bool(array.flat[0] == fill) and bool(np.all(array == fill))


class EliminateIdentity(RelayRewrite):
    """``x + 0``, ``0 + x``, ``x - 0``, ``x * 1``, ``1 * x``, ``x / 1`` → ``x`` where the
    zero/one is a constant or a ``zeros``/``ones``(``_like``) op, and only when ``x``
    already has the result type (a zero that broadcasts ``x`` to a bigger shape stays)."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (
        AddOp,
        SubtractOp,
        MultiplyOp,
        DivideOp,
    )

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, AddOp | SubtractOp | MultiplyOp | DivideOp):
            return None
        fill = 0 if isinstance(op, AddOp | SubtractOp) else 1
        commutative = isinstance(op, AddOp | MultiplyOp)
        result_ty = op.results[0].type
        if op.lhs.type == result_ty and _is_fill(op.rhs, fill):
            return op.lhs
        if commutative and op.rhs.type == result_ty and _is_fill(op.lhs, fill):
            return op.rhs
        return None


def _commuted(op: BinaryOp) -> list[tuple[SSAValue, SSAValue]]:
    """The operand orders to match: both for add/multiply, as written otherwise."""
    if isinstance(op, AddOp | MultiplyOp):
        return [(op.lhs, op.rhs), (op.rhs, op.lhs)]
    return [(op.lhs, op.rhs)]


class SwitchAddMultiply(RelayRewrite):
    """``(x + c1) * c2`` → ``x * c2 + (c1 * c2)`` with constants ``c1``, ``c2`` (and
    ``x`` not constant): multiply-then-add is what FoldScaleAxis folds."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (MultiplyOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, MultiplyOp):
            return None
        for inner_v, c2 in _commuted(op):
            inner = defining(inner_v)
            if not isinstance(inner, AddOp) or not is_constant(c2):
                continue
            for x, c1 in _commuted(inner):
                if is_constant(c1) and not is_constant(x):
                    scaled = edit.op(MultiplyOp, [x, c2])
                    return edit.op(AddOp, [scaled, edit.fold(MultiplyOp, [c1, c2])])
        return None


class SimplifyAdjacentMultiplyOrAdd(RelayRewrite):
    """``(x * c1) * c2`` → ``x * (c1 * c2)`` and ``(x + c1) + c2`` → ``x + (c1 + c2)``
    with constants ``c1``, ``c2`` (the constant part folded now)."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (MultiplyOp, AddOp)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, MultiplyOp | AddOp):
            return None
        cls = type(op)
        for inner_v, c2 in _commuted(op):
            inner = defining(inner_v)
            if type(inner) is not cls or not is_constant(c2):
                continue
            for x, c1 in _commuted(cast(BinaryOp, inner)):
                if is_constant(c1) and not is_constant(x):
                    return edit.op(cls, [x, edit.fold(cls, [c1, c2])])
        return None


def _fill_scalar(value: SSAValue) -> Array | None:
    """The 0-d fill of a ``full``/``full_like`` (constant fill), ``ones``/``zeros`` or
    their ``_like`` forms, in the dtype of ``value``."""
    op = defining(value)
    elem = elem_type(value)
    if op is None or elem is None:
        return None
    npd = numpy_dtype(elem)
    if isinstance(op, ZerosOp | ZerosLikeOp):
        return np.asarray(0, dtype=npd)
    if isinstance(op, OnesOp | OnesLikeOp):
        return np.asarray(1, dtype=npd)
    if isinstance(op, FullOp | FullLikeOp):
        fill = constant_of(op.fill_value)
        if fill is None or fill.size != 1:
            return None
        return np.asarray(fill.reshape(()).astype(npd))
    return None


class FullElementwise(RelayRewrite):
    """A broadcasting binary op with a ``full``/``ones``/``zeros`` (or ``_like``)
    operand → the same op with a 0-d constant instead, when the other operand already
    has the result type."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (BinaryOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, BinaryOp) or op.PATTERN != OpPattern.BROADCAST:
            return None
        result_ty = op.results[0].type
        for i, (full_v, x) in enumerate(((op.lhs, op.rhs), (op.rhs, op.lhs))):
            if x.type != result_ty:
                continue
            scalar = _fill_scalar(full_v)
            if scalar is None:
                continue
            c = edit.const(scalar)
            return edit.like(op, [c, x] if i == 0 else [x, c])
        return None


# ---------------------------------------------------------------------------------------
# Reshapes, transposes and layout transforms
# ---------------------------------------------------------------------------------------


class SimplifyReshape(RelayRewrite):
    """``reshape(reshape(x))`` → one ``reshape`` to the static result shape (either
    of them may be a ``contrib_reverse_reshape``); a reshape whose result type is its
    input's is dropped."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (ReshapeOp, ReverseReshapeOp)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, ReshapeOp | ReverseReshapeOp):
            return None
        if op.data.type == op.results[0].type:
            return op.data
        inner = defining(op.data)
        shape = static_shape(op.results[0])
        if not isinstance(inner, ReshapeOp | ReverseReshapeOp) or shape is None:
            return None
        if inner.data.type == op.results[0].type:
            return inner.data
        return edit.op(ReshapeOp, [inner.data], newshape=list(shape))


def _transpose_perm(op: TransposeOp, rank: int) -> list[int]:
    if op.axes is None:
        return list(range(rank))[::-1]
    return [a % rank if rank else 0 for a in get_ints(op.axes)]


def _tokens(layout: str) -> list[str]:
    return [str(a) for a in Layout.parse(layout).axes]


def _layout_perm(op: LayoutTransformOp) -> list[int] | None:
    """The permutation a layout transform performs, ``None`` if it is not one."""
    src, dst = _tokens(get_str(op.src_layout)), _tokens(get_str(op.dst_layout))
    if sorted(src) != sorted(dst):
        return None
    return [src.index(t) for t in dst]


def _perm(op: Operation, rank: int) -> list[int] | None:
    if isinstance(op, TransposeOp):
        return _transpose_perm(op, rank)
    if isinstance(op, LayoutTransformOp):
        return _layout_perm(op)
    return None


class SimplifyTranspose(RelayRewrite):
    """Two consecutive ``transpose`` / ``layout_transform`` ops → one (a ``transpose``
    when both only permute axes, else a ``layout_transform`` with the combined source
    and destination layouts), or none when they cancel."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (TransposeOp, LayoutTransformOp)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, TransposeOp | LayoutTransformOp):
            return None
        inner = defining(op.data)
        if not isinstance(inner, TransposeOp | LayoutTransformOp):
            return None
        x = inner.data
        mid_ty, x_ty = tensor_type(inner.results[0]), tensor_type(x)
        if mid_ty is None or x_ty is None:
            return None
        p1 = _perm(inner, len(x_ty.get_shape()))
        p2 = _perm(op, len(mid_ty.get_shape()))
        if p1 is not None and p2 is not None and len(p1) == len(p2):
            combined = [p1[i] for i in p2]
            if combined == list(range(len(combined))):
                return x
            return edit.op(TransposeOp, [x], axes=combined)
        layouts = _combined_layouts(inner, op)
        if layouts is None:
            return None
        src, dst = layouts
        if Layout.parse(src) == Layout.parse(dst):
            return x
        return edit.op(LayoutTransformOp, [x], src_layout=src, dst_layout=dst)


def _combined_layouts(
    inner: TransposeOp | LayoutTransformOp, outer: TransposeOp | LayoutTransformOp
) -> tuple[str, str] | None:
    """``(src, dst)`` of one layout transform doing ``outer(inner(x))``, where at least
    one of them is a layout transform that is not a plain permutation."""
    if isinstance(inner, LayoutTransformOp) and isinstance(outer, LayoutTransformOp):
        if Layout.parse(get_str(inner.dst_layout)) != Layout.parse(
            get_str(outer.src_layout)
        ):
            return None
        return get_str(inner.src_layout), get_str(outer.dst_layout)
    if isinstance(inner, TransposeOp) and isinstance(outer, LayoutTransformOp):
        # x is laid out as src' where transposing src' by perm gives outer's src
        src = _tokens(get_str(outer.src_layout))
        perm = _transpose_perm(inner, len(src))
        x_layout = [""] * len(src)
        for i, p in enumerate(perm):
            x_layout[p] = src[i]
        return "".join(x_layout), get_str(outer.dst_layout)
    if isinstance(inner, LayoutTransformOp) and isinstance(outer, TransposeOp):
        dst = _tokens(get_str(inner.dst_layout))
        perm = _transpose_perm(outer, len(dst))
        return get_str(inner.src_layout), "".join(dst[p] for p in perm)
    return None


class SimplifyNoOpTranspose(RelayRewrite):
    """A ``transpose`` by the identity permutation or a ``layout_transform`` from a
    layout to itself → its input."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (TransposeOp, LayoutTransformOp)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if isinstance(op, LayoutTransformOp):
            same = Layout.parse(get_str(op.src_layout)) == Layout.parse(
                get_str(op.dst_layout)
            )
            return op.data if same else None
        if isinstance(op, TransposeOp):
            ty = tensor_type(op.data)
            if ty is None:
                return None
            rank = len(ty.get_shape())
            return op.data if _transpose_perm(op, rank) == list(range(rank)) else None
        return None


# ---------------------------------------------------------------------------------------
# Casts and clips
# ---------------------------------------------------------------------------------------


def _cast_input(op: Operation | None) -> SSAValue | None:
    if isinstance(op, CastOp | CastLikeOp):
        return op.data
    return None


class SimplifySameCast(RelayRewrite):
    """``cast``/``cast_like`` to the dtype the data already has → the data."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (CastOp, CastLikeOp)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        data = _cast_input(op)
        if data is None:
            return None
        return data if data.type == op.results[0].type else None


class SimplifyConsecutiveCast(RelayRewrite):
    """``cast(cast(x, t1), t2)`` → ``cast(x, t2)`` when the first cast keeps every value
    of ``x`` (a widening cast); a narrowing first cast stays."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (CastOp, CastLikeOp)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        mid = _cast_input(op)
        if mid is None:
            return None
        x = _cast_input(defining(mid))
        if x is None:
            return None
        src, t1, t2 = elem_type(x), elem_type(mid), elem_type(op.results[0])
        if src is None or t1 is None or t2 is None or not value_preserving(src, t1):
            return None
        if src == t2:
            return x
        return edit.op(CastOp, [x], dtype=t2)


def _clip_chain_exact(clip: ClipOp, dsts: Sequence[Attribute]) -> bool:
    """Whether casting the clip's output through ``dsts`` in turn gives what one cast
    to ``dsts[-1]`` gives: every cast keeps the values it receives, except that the
    first cast of a float clip to an integer type may truncate (as the single cast
    would) as long as the truncated range fits and the final type is an integer."""
    src = elem_type(clip.results[0])
    if src is None:
        return False
    kind = _kind(src)
    lo, hi = _clip_bounds(clip)
    integral = truncated = False
    ilo = ihi = 0
    if kind in ("i", "u"):
        interval = _clip_int_interval(clip, src)
        if interval is None:
            return False
        (ilo, ihi), integral = interval, True
    elif kind != "f":
        return False
    for dst in dsts:
        if integral:
            if not _range_fits(ilo, ihi, dst):
                return False
        elif _kind(dst) == "f":
            if not value_preserving(src, dst):
                return False
        elif _kind(dst) in ("i", "u") and math.isfinite(lo) and math.isfinite(hi):
            ilo, ihi = math.trunc(lo), math.trunc(hi)
            if not _range_fits(ilo, ihi, dst):
                return False
            integral = truncated = True
        else:
            return False
    return not truncated or _kind(dsts[-1]) in ("i", "u")


class SimplifyClipAndConsecutiveCast(RelayRewrite):
    """``cast(...cast(clip(x)))`` where the casts keep the clipped values → ``clip(x)``
    cast once to the final dtype (or nothing when that is the clip's dtype), e.g. an
    ``i32`` clip to ``[0, 255]`` cast to ``u8`` and back to ``i32`` is just the clip, and
    an ``f32`` clip to ``[0, 255]`` cast to ``u8`` then ``i32`` is one cast to ``i32``."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (CastOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, CastOp):
            return None
        casts: list[CastOp] = [op]
        source = defining(op.data)
        while isinstance(source, CastOp):
            casts.append(source)
            source = defining(source.data)
        if not isinstance(source, ClipOp):
            return None
        dsts = [elem_type(c.results[0]) for c in reversed(casts)]
        if any(d is None for d in dsts):
            return None
        if not _clip_chain_exact(source, cast(list[Attribute], dsts)):
            return None
        clipped = source.results[0]
        if clipped.type == op.results[0].type:
            return clipped
        if len(casts) < 2:
            return None  # already a single cast
        return edit.op(CastOp, [clipped], dtype=dsts[-1])


class SimplifyClip(RelayRewrite):
    """A ``clip`` whose range covers the whole range of the data's dtype → the data;
    ``clip(clip(x))`` with overlapping ranges → one clip with the intersection."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (ClipOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, ClipOp):
            return None
        elem = elem_type(op.data)
        if elem is None:
            return None
        lo, hi = _clip_bounds(op)
        kind = _kind(elem)
        if kind in ("i", "u"):
            rng = _int_range(elem)
            assert rng is not None
            if lo <= rng[0] and hi >= rng[1]:
                return op.data
        elif kind == "f":
            fmax = _float_max(elem)
            if fmax is not None and lo <= -fmax and hi >= fmax:
                return op.data
        inner = defining(op.data)
        if not isinstance(inner, ClipOp):
            return None
        ilo, ihi = _clip_bounds(inner)
        new_lo, new_hi = max(lo, ilo), min(hi, ihi)
        if new_lo > new_hi:
            return None
        if kind in ("i", "u"):
            if (
                _clip_int_interval(op, elem) is None
                or _clip_int_interval(inner, elem) is None
            ):
                return None
            if math.ceil(new_lo) > math.floor(new_hi):
                return None
        elif kind != "f":
            return None
        return edit.op(ClipOp, [inner.data], a_min=new_lo, a_max=new_hi)


# ---------------------------------------------------------------------------------------
# The pattern lists
# ---------------------------------------------------------------------------------------

PatternFactory = Callable[[], RewritePattern]


def _scalar(value: SSAValue) -> float | None:
    """The value of a one-element constant, or None."""
    array = constant_of(value)
    if array is None or array.size != 1:
        return None
    return float(array.reshape(-1)[0])


def _terms(value: SSAValue) -> list[tuple[str, tuple[SSAValue, ...], float]]:
    """The readings of ``value`` as ``coef * x * x`` (``("sq", (x,), coef)``) or
    ``coef * x * y`` (``("xy", (x, y), coef)``), multiplications taken both ways."""
    op = defining(value)
    if not isinstance(op, MultiplyOp):
        return []
    out: list[tuple[str, tuple[SSAValue, ...], float]] = []
    p, q = op.lhs, op.rhs
    if p is q:
        out.append(("sq", (p,), 1.0))
    for s, t in ((p, q), (q, p)):
        inner = defining(t)
        coef = _scalar(s)
        if coef is not None and isinstance(inner, MultiplyOp):  # c * (u * w)
            u, w = inner.lhs, inner.rhs
            out.append(("sq", (u,), coef) if u is w else ("xy", (u, w), coef))
        if coef is None and isinstance(inner, MultiplyOp):  # s * (c * w)
            for c, w in ((inner.lhs, inner.rhs), (inner.rhs, inner.lhs)):
                k = _scalar(c)
                if k is not None and _scalar(w) is None:
                    out.append(("sq", (s,), k) if s is w else ("xy", (s, w), k))
    if p is not q and _scalar(p) is None and _scalar(q) is None:
        out.append(("xy", (p, q), 1.0))
    return out


class SimplifyBinomial(RelayRewrite):
    """``a*x*x + b*x*y + c*y*y`` (the three terms in any order and grouping of two
    adds, constant scalars ``a, b, c`` defaulting to 1) → ``a * ((x + y*p) *
    (x + y*q))`` with ``p, q`` the roots of ``a*t*t - b*t + c`` (Relay's
    SimplifyBinomial; the identities ``y*1``, ``1*z`` then go, so ``x*x + 2*x*y +
    y*y`` becomes ``(x + y) * (x + y)`` with the sum shared). Not applied when the
    roots are not real, or not integers for an integer dtype."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (AddOp,)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, AddOp):
            return None
        elem = elem_type(op.results[0])
        if elem is None or _kind(elem) not in ("f", "i"):
            return None
        for inner_v, third in _commuted(op):
            inner = defining(inner_v)
            if not isinstance(inner, AddOp):
                continue
            found = self.match([inner.lhs, inner.rhs, third])
            if found is not None:
                return self.build(found, elem, edit)
        return None

    @staticmethod
    def match(
        values: list[SSAValue],
    ) -> tuple[SSAValue, SSAValue, float, float, float] | None:
        readings = [_terms(v) for v in values]
        for i in range(3):
            for j in range(3):
                k = 3 - i - j
                if len({i, j, k}) != 3:
                    continue
                for kind_x, xs, a in readings[i]:
                    for kind_y, ys, c in readings[j]:
                        if kind_x != "sq" or kind_y != "sq" or xs[0] is ys[0]:
                            continue
                        x, y = xs[0], ys[0]
                        for kind_b, bs, b in readings[k]:
                            if kind_b == "xy" and {id(bs[0]), id(bs[1])} == {
                                id(x),
                                id(y),
                            }:
                                return x, y, a, b, c
        return None

    @staticmethod
    def build(
        found: tuple[SSAValue, SSAValue, float, float, float],
        elem: Attribute,
        edit: Edit,
    ) -> SSAValue | None:
        x, y, a, b, c = found
        if c == 1 and a > 1:
            x, y, a, c = y, x, c, a
        disc = b * b - 4 * a * c
        if disc < 0 or a == 0:
            return None
        same = disc < 1e-4
        root = math.sqrt(disc)
        p = (b + root) / (2 * a)
        q = p if same else (b - root) / (2 * a)
        npd = numpy_dtype(elem)
        if _kind(elem) == "i" and not all(float(v).is_integer() for v in (a, p, q)):
            return None

        def factor(t: float) -> SSAValue:
            return edit.op(
                AddOp, [x, edit.op(MultiplyOp, [y, edit.const(np.asarray(t, npd))])]
            )

        first = factor(p)
        second = first if same else factor(q)
        product = edit.op(MultiplyOp, [first, second])
        return edit.op(MultiplyOp, [edit.const(np.asarray(a, npd)), product])


class SimplifyDequantizedArgReduce(RelayRewrite):
    """``argmax`` / ``argmin`` / ``argsort`` of ``qnn.dequantize(x)`` → the same op on
    ``x`` (Relay's SimplifyDQArgFunc). Dequantizing is strictly increasing only when every scale is
    a positive, finite constant, each distinct integer stays a distinct float
    (inputs of at most 16 bits) and per-channel parameters lie along a kept axis;
    xrelay rewrites only then (Relay does not check: a negative scale turns argmax
    into argmin)."""

    OPS: ClassVar[tuple[type[Operation], ...]] = (ArgMaxOp, ArgMinOp, ArgsortOp)

    def rewrite(self, op: RelayOp, edit: Edit) -> SSAValue | None:
        if not isinstance(op, ArgMaxOp | ArgMinOp | ArgsortOp):
            return None
        dq = defining(op.data)
        ty = tensor_type(op.data)
        if not isinstance(dq, DequantizeOp) or ty is None:
            return None
        scale = constant_of(dq.input_scale)
        data_ty = tensor_type(dq.data)
        bits = None if data_ty is None else _int_range(data_ty.get_element_type())
        if scale is None or bits is None or bits[1] - bits[0] >= 1 << 16:
            return None
        scale = np.asarray(scale, np.float64)
        if not np.all((scale >= 1e-30) & (scale <= 1e30)):
            return None
        rank = len(ty.get_shape())
        params = (tensor_type(dq.input_scale), tensor_type(dq.input_zero_point))
        per_channel = any(p is None or math.prod(p.get_shape()) > 1 for p in params)
        shape = ty.get_shape()
        reduced = (op.sort_axis(shape),) if isinstance(op, ArgsortOp) else op.axes(rank)
        if per_channel and get_int(dq.axis) % max(rank, 1) in reduced:
            return None
        return edit.like(op, [dq.data])


def simplify_expr_patterns() -> list[RewritePattern]:
    """SimplifyExpr's rewrites, in Relay's order."""
    factories: list[PatternFactory] = [
        ConcretizeLike,
        ConcretizeCastLike,
        SimplifyAdd,
        SimplifyRSqrt,
        EliminateIdentity,
        SimplifyReshape,
        SimplifyTranspose,
        SimplifyNoOpTranspose,
        SimplifySameCast,
        SimplifyConsecutiveCast,
        FullElementwise,
        SwitchAddMultiply,
        SimplifyAdjacentMultiplyOrAdd,
        SimplifyClipAndConsecutiveCast,
        SimplifyClip,
        SimplifyBinomial,
        SimplifyDequantizedArgReduce,
    ]
    return [f() for f in factories]


def post_alter_op_patterns() -> list[RewritePattern]:
    """SimplifyExprPostAlterOp's subset, in Relay's order: identities, reshapes, casts
    and clips."""
    factories: list[PatternFactory] = [
        EliminateIdentity,
        SimplifyReshape,
        SimplifySameCast,
        SimplifyConsecutiveCast,
        SimplifyClipAndConsecutiveCast,
        SimplifyClip,
    ]
    return [f() for f in factories]


__all__ = [
    "ConcretizeCastLike",
    "ConcretizeLike",
    "Edit",
    "EliminateIdentity",
    "FullElementwise",
    "RelayRewrite",
    "SimplifyAdd",
    "SimplifyAdjacentMultiplyOrAdd",
    "SimplifyClip",
    "SimplifyClipAndConsecutiveCast",
    "SimplifyConsecutiveCast",
    "SimplifyNoOpTranspose",
    "SimplifyRSqrt",
    "SimplifyReshape",
    "SimplifySameCast",
    "SimplifyTranspose",
    "SwitchAddMultiply",
    "constant_of",
    "defining",
    "elem_type",
    "is_constant",
    "post_alter_op_patterns",
    "simplify_expr_patterns",
    "static_shape",
    "tensor_type",
    "value_preserving",
]
