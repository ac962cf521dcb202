"""Normalisation ops: batch, layer, group and instance normalisation, L2 normalisation
and local response normalisation.

Relay's rules: the scale (``gamma``) and shift (``beta``) vectors, and batch_norm's
moving statistics, are 1-D tensors with one entry per channel (``data.shape[axis]``)
and share ``data``'s dtype; every op keeps ``data``'s type. ``center`` / ``scale``
switch the shift and the scale off (the vectors are still typed).

The reference semantics are the inference forms (SimplifyInference's rewrites):
batch_norm uses the moving statistics; the others normalise with statistics computed
over the data (biased variance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, cast

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
    float_prop,
    get_bool,
    get_float,
    get_int,
    get_ints,
    int_prop,
    normalize_axis,
    opt_ints_prop,
    ranked,
    same_elem,
    tensor,
)
from xrelay.dialects.relay.dtypes import is_float
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    MaybeLayout,
    channel_axis_layouts,
    is_split,
    letters_axes,
)
from xrelay.dialects.relay.mixed_precision import MixedPrecisionCategory

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def _float_data(x: TensorType) -> Attribute:
    """The element type of ``data``, which must be floating point."""
    elem = x.get_element_type()
    if not is_float(elem):
        raise TypeRelationError(f"data must be a floating-point tensor, got {x}")
    return elem


def _required(op: RelayOp, name: str) -> Attribute:
    """A required attribute's value; a missing one is a type error (so that ``make``
    reports it rather than failing on the absent property)."""
    value = op.attr(name)
    if value is None:
        raise TypeRelationError(f"the required attribute {name} is missing")
    return value


def _check_vector(ty: TensorType, channels: int, axis: int, what: str) -> None:
    """``ty`` must be ``[channels]`` (a ``?`` on either side agrees)."""
    shape = ty.get_shape()
    if len(shape) != 1 or not (shape[0] == channels or DYN in (shape[0], channels)):
        c = "?" if channels == DYN else str(channels)
        raise TypeRelationError(
            f"{what} must have shape [{c}] (data.shape[{axis}]), got {ty}"
        )


def _along(vec: Array, ndim: int, axis: int) -> Array:
    """A 1-D per-channel vector shaped to broadcast along ``axis`` of a rank-``ndim``
    tensor."""
    shape = [1] * ndim
    shape[axis] = -1
    return vec.reshape(shape)


def _affine(
    y: Array, gamma: Array, beta: Array, axis: int, scale: bool, center: bool
) -> Array:
    """``y * gamma + beta`` along ``axis``, each part only when switched on."""
    if scale:
        y = y * _along(gamma, y.ndim, axis)
    if center:
        y = y + _along(beta, y.ndim, axis)
    return y


def _normalise(x: Array, axes: tuple[int, ...], eps: float) -> Array:
    """``(x - mean) / sqrt(var + eps)`` with the statistics taken over ``axes``."""
    mean = np.mean(x, axis=axes, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=axes, keepdims=True)
    return centred / np.sqrt(var + x.dtype.type(eps))


class AffineNormOp(RelayOp):
    """``normalise(data) * gamma + beta`` with per-channel ``gamma`` / ``beta``
    along ``axis``; the result has ``data``'s type."""

    data = operand_def(ANY_TENSOR)
    gamma = operand_def(ANY_TENSOR)
    beta = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    epsilon = float_prop(1e-5)
    center = bool_prop(True)
    scale = bool_prop(True)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def norm_axis(self, rank: int) -> int:
        """The channel axis, in ``[0, rank)``."""
        axis = self.attr("axis")
        assert axis is not None
        return normalize_axis(get_int(axis), rank)

    def check(self, x: TensorType, axis: int) -> None:
        """Op-specific checks beyond the shared ones."""

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """Incomplete ``gamma`` / ``beta``: vectors ``[data.shape[axis]]`` of the
        data's dtype (Relay's norm relations assign them)."""
        return _channel_vectors(operand_types, self.norm_axis, 2)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        gamma = ranked(operand_types[1], "gamma")
        beta = ranked(operand_types[2], "beta")
        _float_data(x)
        same_elem([x, gamma, beta], ["data", "gamma", "beta"])
        axis = self.norm_axis(len(x.get_shape()))
        channels = x.get_shape()[axis]
        _check_vector(gamma, channels, axis, "gamma")
        _check_vector(beta, channels, axis, "beta")
        self.check(x, axis)
        return [x]

    def normalise(self, x: Array, axis: int, eps: float) -> Array:
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        x, gamma, beta = args[0], args[1], args[2]
        axis = self.norm_axis(x.ndim)
        y = self.normalise(x, axis, get_float(self.epsilon))
        return _affine(
            y, gamma, beta, axis, get_bool(self.scale), get_bool(self.center)
        )


_VECTOR = Layout.parse("C")
"""The layout of a per-channel vector operand or result."""


def _channel_vectors(
    operand_types: Sequence[Attribute], axis_of: Callable[[int], int], count: int
) -> list[Attribute | None]:
    """For the ``count`` operands after the data: per-channel vectors along the axis
    ``axis_of(rank)`` of the data, of its dtype (None when the data is unknown)."""
    data = operand_types[0]
    if not isinstance(data, TensorType):
        return [None] * len(operand_types)
    x = cast(TensorType[Attribute], data)
    vec = tensor([x.get_shape()[axis_of(len(x.get_shape()))]], x.element_type)
    return [None, *([vec] * count)]


def _rank(ty: Attribute) -> int:
    return len(ty.get_shape()) if isinstance(ty, TensorType) else -1


# ---------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class BatchNormOp(RelayOp):
    """Batch normalisation in inference form:
    ``(data - moving_mean) / sqrt(moving_var + epsilon) * gamma + beta`` along
    ``axis``. Three results, as Relay's tuple: the normalised data, and
    ``moving_mean`` and ``moving_var`` unchanged."""

    name = "relay.nn.batch_norm"
    data = operand_def(ANY_TENSOR)
    gamma = operand_def(ANY_TENSOR)
    beta = operand_def(ANY_TENSOR)
    moving_mean = operand_def(ANY_TENSOR)
    moving_var = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    mean_result = result_def(ANY_TENSOR)
    var_result = result_def(ANY_TENSOR)
    axis = int_prop(1)
    epsilon = float_prop(1e-5)
    center = bool_prop(True)
    scale = bool_prop(True)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    VECTORS: ClassVar[tuple[str, ...]] = ("gamma", "beta", "moving_mean", "moving_var")

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """Relay's ``BatchNormRel`` with incomplete vectors: ``[data.shape[axis]]`` of
        the data's dtype."""
        return _channel_vectors(
            operand_types,
            lambda rank: normalize_axis(get_int(self.axis), rank),
            4,
        )

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        vectors = [
            ranked(ty, what)
            for ty, what in zip(operand_types[1:], self.VECTORS, strict=True)
        ]
        elem = _float_data(x)
        same_elem([x, *vectors], ["data", *self.VECTORS])
        axis = normalize_axis(get_int(self.axis), len(x.get_shape()))
        channels = x.get_shape()[axis]
        for vec, what in zip(vectors, self.VECTORS, strict=True):
            _check_vector(vec, channels, axis, what)
        stats = tensor([channels], elem)
        return [x, stats, stats]

    def compute(self, *args: Any) -> Any:
        x, gamma, beta, mean, var = args[0], args[1], args[2], args[3], args[4]
        axis = get_int(self.axis) % x.ndim
        eps = x.dtype.type(get_float(self.epsilon))
        y = (x - _along(mean, x.ndim, axis)) / np.sqrt(_along(var, x.ndim, axis) + eps)
        y = _affine(y, gamma, beta, axis, get_bool(self.scale), get_bool(self.center))
        return (y, mean, var)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``BatchNormInferCorrectLayout``: ``axis`` follows the data into its
        new layout (not when that axis is split); the vectors and the two statistics
        results are ``C``."""
        rank = _rank(old_types[0])
        return channel_axis_layouts(
            new_layouts,
            old_layouts,
            rank,
            get_int(self.axis),
            [_VECTOR] * 4,
            extra_outputs=[_VECTOR, _VECTOR],
        )


@irdl_op_definition
class LayerNormOp(AffineNormOp):
    """Layer normalisation: each slice along ``axis`` normalised by its own mean and
    (biased) variance, then ``* gamma + beta`` (``[data.shape[axis]]``)."""

    name = "relay.nn.layer_norm"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    axis = int_prop(-1)

    def normalise(self, x: Array, axis: int, eps: float) -> Array:
        return _normalise(x, (axis,), eps)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``NormalizationInferCorrectLayout``: ``axis`` follows the data into
        its new layout (not when that axis is split); ``gamma``/``beta`` are ``C``."""
        return channel_axis_layouts(
            new_layouts,
            old_layouts,
            _rank(old_types[0]),
            get_int(self.axis),
            [_VECTOR] * 2,
        )


@irdl_op_definition
class GroupNormOp(AffineNormOp):
    """Group normalisation: the ``C = data.shape[axis]`` channels are split into
    ``num_groups`` groups of consecutive channels; each group is normalised together
    with every axis after ``axis`` (per batch entry and leading axis), then
    ``* gamma + beta`` per channel. ``C`` must be divisible by ``num_groups``."""

    name = "relay.nn.group_norm"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    num_groups = int_prop()
    axis = int_prop(1)

    def check(self, x: TensorType, axis: int) -> None:
        groups = get_int(_required(self, "num_groups"))
        channels = x.get_shape()[axis]
        if groups <= 0:
            raise TypeRelationError(f"num_groups must be positive, got {groups}")
        if channels != DYN and channels % groups:
            raise TypeRelationError(
                f"the {channels} channels (data.shape[{axis}]) are not divisible by "
                f"num_groups {groups}"
            )

    def normalise(self, x: Array, axis: int, eps: float) -> Array:
        groups = get_int(self.num_groups)
        shape = x.shape
        split = (*shape[:axis], groups, shape[axis] // groups, *shape[axis + 1 :])
        grouped = x.reshape(split)
        axes = tuple(range(axis + 1, grouped.ndim))
        return _normalise(grouped, axes, eps).reshape(shape)


@irdl_op_definition
class InstanceNormOp(AffineNormOp):
    """Instance normalisation: every (batch entry, channel) pair is normalised over the
    remaining axes (all but axis 0 and ``axis``), then ``* gamma + beta`` per
    channel."""

    name = "relay.nn.instance_norm"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER
    axis = int_prop(1)

    def normalise(self, x: Array, axis: int, eps: float) -> Array:
        axes = tuple(i for i in range(1, x.ndim) if i != axis)
        return _normalise(x, axes, eps)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """As ``layer_norm``; the new layout must also keep the batch axis (axis 0)
        first and unsplit, since every other axis is normalised."""
        inferred = channel_axis_layouts(
            new_layouts,
            old_layouts,
            _rank(old_types[0]),
            get_int(self.axis),
            [_VECTOR] * 2,
        )
        old = old_layouts[0]
        if inferred is None or old is None or inferred.inputs[0] == old:
            return inferred
        new = inferred.inputs[0]
        batch = old.axes[0]
        if new.axes[0] != batch or is_split(new, batch.letter):
            return None
        return inferred


@irdl_op_definition
class L2NormalizeOp(RelayOp):
    """``data / sqrt(max(sum(data ** 2, axis, keepdims), eps))``; ``axis`` absent means
    every axis."""

    name = "relay.nn.l2_normalize"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    eps = float_prop()
    axis = opt_ints_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def axes(self, rank: int) -> tuple[int, ...]:
        if self.axis is None:
            return tuple(range(rank))
        axes = [normalize_axis(a, rank) for a in get_ints(self.axis)]
        if len(set(axes)) != len(axes):
            raise TypeRelationError(f"axis {list(get_ints(self.axis))} repeats an axis")
        return tuple(axes)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        _float_data(x)
        _required(self, "eps")
        self.axes(len(x.get_shape()))
        return [x]

    def compute(self, *args: Any) -> Any:
        x = args[0]
        sq = np.sum(x * x, axis=self.axes(x.ndim), keepdims=True)
        return x / np.sqrt(np.maximum(sq, x.dtype.type(get_float(self.eps))))

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``L2NormalizeInferCorrectLayout``: ``axis`` follows its letters into
        the producer's new layout (both parts of a split axis are summed)."""
        old = old_layouts[0]
        rank = _rank(old_types[0])
        if old is None or old.ndim != rank:
            return None
        new = new_layouts[0] if new_layouts is not None else None
        if new is None or new == old:
            return InferredLayouts((old,), (old,))
        if self.axis is None:
            return InferredLayouts((new,), (new,))
        try:
            axes = self.axes(rank)
        except TypeRelationError:
            return None
        if any(not old.axes[a].is_primal for a in axes):
            return None
        # in the order ``axis`` lists them (Relay's order), the inner part of a split
        # axis right after its outer part
        moved: list[int] = []
        for a in axes:
            moved += letters_axes(new, [old.axes[a].letter])
        return InferredLayouts((new,), (new,), {"axis": moved})


@irdl_op_definition
class LRNOp(RelayOp):
    """Local response normalisation across channels:
    ``data / (bias + alpha / size * s) ** beta`` where ``s`` sums ``data ** 2`` over a
    window of ``size`` channels along ``axis`` around each channel
    (``(size - 1) // 2`` before it, the rest after; zeros outside)."""

    name = "relay.nn.lrn"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    size = int_prop(5)
    axis = int_prop(1)
    bias = float_prop(2.0)
    alpha = float_prop(1e-5)
    beta = float_prop(0.75)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        _float_data(x)
        normalize_axis(get_int(self.axis), len(x.get_shape()))
        if get_int(self.size) <= 0:
            raise TypeRelationError(f"size must be positive, got {get_int(self.size)}")
        return [x]

    def compute(self, *args: Any) -> Any:
        x = args[0]
        size, axis = get_int(self.size), get_int(self.axis) % x.ndim
        before = (size - 1) // 2
        pad = [(0, 0)] * x.ndim
        pad[axis] = (before, size - 1 - before)
        padded = np.pad(x * x, pad)
        windows = np.lib.stride_tricks.sliding_window_view(padded, size, axis=axis)
        sq_sum = windows.sum(axis=-1)
        dt = x.dtype.type
        bias, alpha, beta = (
            dt(get_float(self.bias)),
            dt(get_float(self.alpha)),
            dt(get_float(self.beta)),
        )
        return x / np.power(bias + alpha / dt(size) * sq_sum, beta)


NORMALIZATION_OPS: list[type[RelayOp]] = [
    BatchNormOp,
    LayerNormOp,
    GroupNormOp,
    InstanceNormOp,
    L2NormalizeOp,
    LRNOp,
]
