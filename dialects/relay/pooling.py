"""2-D pooling ops: max / average pooling with windows, global pooling and adaptive
pooling.

All take a rank-4 ``data`` in ``layout`` (a permutation of ``NCHW``: ``NCHW``, ``NHWC``,
...) and give the result in ``out_layout`` (``""`` means ``layout``). ``padding`` is
four ints ``(top, left, bottom, right)``; :meth:`make` widens Relay's 1- and 2-int
forms.

Windowed pooling (Relay / TVM / ONNX semantics):

* output size ``(H + pt + pb - ((ph-1)*dh + 1) [+ sh - 1 with ceil_mode]) // sh + 1``;
* max pooling pads with ``-inf`` (padding never wins);
* average pooling divides by the number of window elements inside the input, or with
  ``count_include_pad`` inside the padded input; with ``ceil_mode`` the part of a window
  that runs past the padded input is never counted.

Adaptive pooling splits each axis of size ``n`` into ``m`` bins ``[floor(i*n/m),
ceil((i+1)*n/m))`` (PyTorch / TVM rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay import fake_quantization as fq
from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    FORMAT,
    Array,
    OpPattern,
    RelayOp,
    TypeRelationError,
    bool_prop,
    get_bool,
    get_ints,
    get_str,
    ints_prop,
    opt_ints_prop,
    ranked,
    shape_str,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.layout import Layout, transform_array
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    LayoutConversionError,
    MaybeLayout,
    layout_of,
)
from xrelay.dialects.relay.mixed_precision import MixedPrecisionCategory
from xrelay.dialects.relay.nn import (
    PaddedOp,
    check_permutation,
    layout_shape,
    padding4,
    positive_pair,
    shape_in_layout,
    to_layout,
    window_out,
    windows2d,
)


def _trunc_divide(total: Array, count: Array) -> Array:
    """``total / count``; integer division truncates toward zero (TVM's ``div``)."""
    if total.dtype.kind in "iu":
        q = np.abs(total) // count
        return np.where(total < 0, -q, q)
    return total / count


def _lowest(dtype: np.dtype[Any]) -> Any:
    """The value that never wins a max: ``-inf`` or the integer minimum."""
    if dtypes.is_float_dtype(dtype):
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


class Pool2DBase(RelayOp):
    """Pooling ops: one rank-4 operand in ``layout``, one result in ``out_layout``."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    layout = str_prop("NCHW")
    out_layout = str_prop("")
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    def layouts(self) -> tuple[str, str]:
        layout = get_str(self.layout)
        check_permutation(layout, "NCHW", "layout")
        out_layout = get_str(self.out_layout) or layout
        check_permutation(out_layout, "NCHW", "out_layout")
        return layout, out_layout

    def nchw(self, shape: Sequence[int]) -> tuple[int, ...]:
        return layout_shape(shape, self.layouts()[0], "NCHW", "layout")

    def out_hw(self, h: int, w: int) -> tuple[int, int]:
        raise NotImplementedError

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        n, c, h, w = self.nchw(x.get_shape())
        oh, ow = self.out_hw(h, w)
        out_layout = self.layouts()[1]
        return [
            tensor(
                shape_in_layout((n, c, oh, ow), "NCHW", out_layout),
                x.get_element_type(),
            )
        ]

    def pool(self, x: Array) -> Array:
        """The pooling on an ``NCHW`` array."""
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        layout, out_layout = self.layouts()
        out = self.pool(to_layout(args[0], layout, "NCHW"))
        return to_layout(out, "NCHW", out_layout)

    # -- layout hooks --------------------------------------------------------------------

    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data",)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``PoolInferCorrectLayout``: with ``out_layout`` set the op keeps its
        layouts; otherwise it takes the layout its producer gives (xrelay's pools take
        permutations of ``NCHW`` only: a blocked input goes back to ``layout``)."""
        layout = get_str(self.layout)
        data = layout_of(layout)
        out = layout_of(get_str(self.out_layout) or layout)
        if data is None or out is None:
            return None
        if get_str(self.out_layout) or new_layouts is None:
            return InferredLayouts((data,), (out,))
        new = new_layouts[0]
        if new is None or new == data or not _is_nchw_permutation(new.name):
            return InferredLayouts((data,), (data,))
        return InferredLayouts((new,), (new,), {"layout": new.name})

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``convert_*pool2d``: ``layout`` and ``out_layout`` become
        ``desired[0]`` (a permutation of ``NCHW``)."""
        if len(desired) != 1:
            raise LayoutConversionError(
                f"{self.name} takes 1 desired layout, got {len(desired)}: "
                f"{list(desired)}"
            )
        layout = desired[0]
        if not _is_nchw_permutation(layout):
            raise LayoutConversionError(
                f"{self.name} cannot take the layout '{layout}' (expected a "
                "permutation of NCHW)"
            )
        return self.layout_variant(updates={"layout": layout, "out_layout": layout})


def _is_nchw_permutation(layout: str) -> bool:
    return len(layout) == 4 and sorted(layout) == sorted("NCHW")


def channel_blocked(layout: str) -> Layout | None:
    """``layout`` when it is a permutation of ``NCHW`` with ``C`` split into blocks
    (``NCHW16c``), else ``None``."""
    parsed = layout_of(layout)
    if (
        parsed is None
        or sorted(parsed.primal_letters) != sorted("NCHW")
        or parsed.ndim != 5
        or parsed.factor_of("C") <= 0
    ):
        return None
    return parsed


class BlockedChannels(Pool2DBase):
    """Pools that take, besides the permutations of ``NCHW``, a layout with blocked
    channels (``NCHW16c``, as AlterOpLayout gives their producer): every channel is
    pooled on its own, so the result keeps the input's layout (``out_layout`` must
    then be the same or empty)."""

    def blocked(self) -> Layout | None:
        """The input's layout when its channels are blocked (see the class)."""
        layout = channel_blocked(get_str(self.layout))
        if layout is None:
            return None
        out = get_str(self.out_layout)
        if out and out != layout.name:
            raise TypeRelationError(
                f"out_layout '{out}' must be the blocked layout '{layout.name}' of the "
                "data (or empty)"
            )
        return layout

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        layout = self.blocked()
        if layout is None:
            return super().type_relation(operand_types)
        x = ranked(operand_types[0], "data")
        shape = list(x.get_shape())
        if len(shape) != layout.ndim:
            raise TypeRelationError(
                f"layout '{layout.name}' needs a rank-{layout.ndim} tensor, got shape "
                f"{shape_str(shape)}"
            )
        factor = layout.factor_of("C")
        if shape[layout.index_of("c")] != factor:
            raise TypeRelationError(
                f"the channel block of '{layout.name}' is {factor}, got shape "
                f"{shape_str(shape)}"
            )
        hp, wp = layout.index_of("H"), layout.index_of("W")
        shape[hp], shape[wp] = self.out_hw(shape[hp], shape[wp])
        return [tensor(shape, x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        layout = self.blocked()
        if layout is None:
            return super().compute(*args)
        plain = self.pool(transform_array(args[0], layout, "NCHW"))
        return transform_array(plain, "NCHW", layout)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """As Relay's pools, and a producer's layout with blocked channels is kept
        (no transform back to ``NCHW`` before the pool)."""
        if (
            new_layouts is not None
            and new_layouts[0] is not None
            and not get_str(self.out_layout)
            and _is_nchw_permutation(get_str(self.layout))
            and channel_blocked(new_layouts[0].name) is not None
        ):
            new = new_layouts[0]
            return InferredLayouts((new,), (new,), {"layout": new.name})
        return super().infer_correct_layout(new_layouts, old_layouts, old_types)


# ---------------------------------------------------------------------------------------
# Windowed pooling
# ---------------------------------------------------------------------------------------


class WindowPool2D(BlockedChannels, PaddedOp):
    """Pooling over ``pool_size`` windows moved by ``strides``."""

    pool_size = ints_prop((1, 1))
    strides = ints_prop((1, 1))
    dilation = ints_prop((1, 1))
    padding = ints_prop((0, 0, 0, 0))
    ceil_mode = bool_prop(False)
    PAIR_ATTRS: ClassVar[tuple[str, ...]] = ("pool_size", "strides", "dilation")

    def params(
        self,
    ) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, ...]]:
        """Checked pool size, strides, dilation and padding."""
        return (
            positive_pair(get_ints(self.pool_size), "pool_size"),
            positive_pair(get_ints(self.strides), "strides"),
            positive_pair(get_ints(self.dilation), "dilation"),
            padding4(get_ints(self.padding)),
        )

    def out_hw(self, h: int, w: int) -> tuple[int, int]:
        (ph, pw), (sh, sw), (dh, dw), (pt, pl, pb, pr) = self.params()
        ceil = get_bool(self.ceil_mode)
        return (
            window_out(h, pt + pb, (ph - 1) * dh + 1, sh, "height", ceil),
            window_out(w, pl + pr, (pw - 1) * dw + 1, sw, "width", ceil),
        )

    def windows(self, x: Array, fill: Any) -> Array:
        """``[N, C, OH, OW, PH, PW]`` windows over ``x`` padded with ``fill`` (also past
        the bottom/right padding, where ceil mode reaches)."""
        (ph, pw), (sh, sw), (dh, dw), (pt, pl, _, _) = self.params()
        oh, ow = self.out_hw(x.shape[2], x.shape[3])
        ext_h = (oh - 1) * sh + (ph - 1) * dh + 1
        ext_w = (ow - 1) * sw + (pw - 1) * dw + 1
        bottom = max(0, ext_h - pt - x.shape[2])
        right = max(0, ext_w - pl - x.shape[3])
        xp = np.pad(
            x,
            ((0, 0), (0, 0), (pt, bottom), (pl, right)),
            mode="constant",
            constant_values=fill,
        )[:, :, :ext_h, :ext_w]
        return windows2d(xp, (ph, pw), (sh, sw), (dh, dw), (oh, ow))

    def counts(self, h: int, w: int, include_pad: bool) -> Array:
        """``[OH, OW]``: how many elements of each window are counted — those inside the
        input, or inside the padded input with ``include_pad``."""
        (ph, pw), (sh, sw), (dh, dw), (pt, pl, pb, pr) = self.params()
        oh, ow = self.out_hw(h, w)
        per_axis: list[Array] = []
        for out, size, k, s, d, before, after in (
            (oh, h, ph, sh, dh, pt, pb),
            (ow, w, pw, sw, dw, pl, pr),
        ):
            pos = np.arange(out)[:, None] * s - before + np.arange(k)[None, :] * d
            lo, hi = (-before, size + after) if include_pad else (0, size)
            per_axis.append(np.sum((pos >= lo) & (pos < hi), axis=1))
        return np.outer(per_axis[0], per_axis[1])


@irdl_op_definition
class MaxPool2DOp(WindowPool2D):
    """The maximum of each ``pool_size`` window (dilated by ``dilation``, moved by
    ``strides``) of ``data`` padded with ``-inf``."""

    name = "relay.nn.max_pool2d"
    KEEPS_QUANTIZATION: ClassVar[bool] = True

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """The maximum of the integers (the mapping to reals is increasing)."""
        return fq.same_op(rewrite, per_tensor_only=False)

    def pool(self, x: Array) -> Array:
        return np.max(self.windows(x, _lowest(x.dtype)), axis=(4, 5))


@irdl_op_definition
class AvgPool2DOp(WindowPool2D):
    """The mean of each window. The divisor counts the window elements inside ``data``
    (``count_include_pad=False``) or inside the padded data (``True``); elements that
    only ``ceil_mode`` reaches are never counted."""

    name = "relay.nn.avg_pool2d"

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.avg_pool2d``."""
        return fq.quantized_avg_pool(rewrite, fq.attrs_of(self))

    count_include_pad = bool_prop(False)

    def pool(self, x: Array) -> Array:
        acc = x.dtype if x.dtype.kind == "f" else np.dtype(np.int64)
        total = np.sum(self.windows(x.astype(acc, copy=False), 0), axis=(4, 5))
        counts = self.counts(x.shape[2], x.shape[3], get_bool(self.count_include_pad))
        return _trunc_divide(total, np.maximum(counts, 1).astype(acc))


# ---------------------------------------------------------------------------------------
# Global pooling
# ---------------------------------------------------------------------------------------


class GlobalPool2D(BlockedChannels):
    """Pooling over the whole ``H x W`` plane: ``H`` and ``W`` become 1 (also on
    blocked channels, see :class:`BlockedChannels`)."""

    def out_hw(self, h: int, w: int) -> tuple[int, int]:
        return 1, 1


@irdl_op_definition
class GlobalAvgPool2DOp(GlobalPool2D):
    """The mean over ``H`` and ``W`` of each channel."""

    name = "relay.nn.global_avg_pool2d"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.avg_pool2d`` over the whole plane (``NCHW`` only)."""
        layout, out_layout = self.layouts()
        if layout != "NCHW" or out_layout != "NCHW":
            return None
        _, _, h, w = fq.shape_of(self.data)
        return fq.quantized_avg_pool(rewrite, {"pool_size": [h, w]})

    def pool(self, x: Array) -> Array:
        if x.dtype.kind == "f":
            return np.mean(x, axis=(2, 3), keepdims=True, dtype=x.dtype)
        total = np.asarray(np.sum(x, axis=(2, 3), keepdims=True, dtype=np.int64))
        return _trunc_divide(total, np.asarray(max(x.shape[2] * x.shape[3], 1)))


@irdl_op_definition
class GlobalMaxPool2DOp(GlobalPool2D):
    """The maximum over ``H`` and ``W`` of each channel."""

    name = "relay.nn.global_max_pool2d"
    KEEPS_QUANTIZATION: ClassVar[bool] = True

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        return fq.same_op(rewrite, per_tensor_only=False)

    def pool(self, x: Array) -> Array:
        return np.max(x, axis=(2, 3), keepdims=True)


# ---------------------------------------------------------------------------------------
# Adaptive pooling
# ---------------------------------------------------------------------------------------


def adaptive_bins(size: int, out: int) -> tuple[Array, Array, Array]:
    """Gather indices ``[out, L]`` of the bins of an axis, a mask of the real entries
    (shorter bins repeat their last index) and the bin lengths."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)  # ceil((i+1) * size / out)
    length = end - start
    taps = np.arange(int(length.max()) if out else 0)[None, :]
    valid = taps < length[:, None]
    index = np.minimum(start[:, None] + taps, end[:, None] - 1)
    return index, valid, length


class AdaptivePool2D(Pool2DBase):
    """Pooling into an ``output_size`` grid of bins (absent: keep ``H``, ``W``; one
    value: a square grid)."""

    output_size = opt_ints_prop()

    def out_hw(self, h: int, w: int) -> tuple[int, int]:
        if self.output_size is None:
            return h, w
        size = get_ints(self.output_size)
        if len(size) not in (1, 2):
            raise TypeRelationError(
                f"output_size must have 1 or 2 values, got {len(size)}"
            )
        oh, ow = (size[0], size[0]) if len(size) == 1 else (size[0], size[1])
        if oh < 1 or ow < 1:
            raise TypeRelationError(f"output_size must be positive, got {tuple(size)}")
        for dim, out, what in ((h, oh, "height"), (w, ow, "width")):
            if dim == 0:
                raise TypeRelationError(f"cannot pool the empty {what} into {out} bins")
        return oh, ow

    def bins(self, x: Array) -> tuple[tuple[Array, Array, Array], ...]:
        h, w = x.shape[2], x.shape[3]
        oh, ow = self.out_hw(h, w)
        return adaptive_bins(h, oh), adaptive_bins(w, ow)


@irdl_op_definition
class AdaptiveAvgPool2DOp(AdaptivePool2D):
    """The mean of each adaptive bin."""

    name = "relay.nn.adaptive_avg_pool2d"
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def pool(self, x: Array) -> Array:
        (ih, vh, lh), (iw, vw, lw) = self.bins(x)
        acc = x.dtype if x.dtype.kind == "f" else np.dtype(np.int64)
        xa = x.astype(acc, copy=False)
        rows = np.sum(xa[:, :, ih, :] * vh[:, :, None].astype(acc), axis=3)
        total = np.sum(rows[:, :, :, iw] * vw.astype(acc), axis=4)
        return _trunc_divide(total, np.outer(lh, lw).astype(acc))


@irdl_op_definition
class AdaptiveMaxPool2DOp(AdaptivePool2D):
    """The maximum of each adaptive bin."""

    name = "relay.nn.adaptive_max_pool2d"

    def pool(self, x: Array) -> Array:
        (ih, _, _), (iw, _, _) = self.bins(x)
        rows = np.max(x[:, :, ih, :], axis=3)
        return np.max(rows[:, :, :, iw], axis=4)


POOLING_OPS: list[type[RelayOp]] = [
    MaxPool2DOp,
    AvgPool2DOp,
    GlobalAvgPool2DOp,
    GlobalMaxPool2DOp,
    AdaptiveAvgPool2DOp,
    AdaptiveMaxPool2DOp,
]
