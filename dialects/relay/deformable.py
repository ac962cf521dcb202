"""``nn.deformable_conv2d`` (Relay's, deformable convolution v1).

In ``NCHW`` / ``OIHW`` terms: ``data`` is ``[N, C, H, W]``, ``weight`` ``[O, C/groups,
KH, KW]`` and ``offset`` ``[N, 2 * deformable_groups * KH * KW, OH, OW]``. Output
``out[n, o, y, x]`` sums, over the input channels ``c`` of ``o``'s group and the
kernel taps ``(i, j)``, ``weight[o, c, i, j]`` times the data of channel ``c`` sampled
at ``(y * sh - pad_top + i * dh + dy, x * sw - pad_left + j * dw + dx)``, where ``dy``
/ ``dx`` are the offsets ``offset[n, 2 * k, y, x]`` / ``offset[n, 2 * k + 1, y, x]``,
``k = g * KH * KW + i * KW + j`` and ``g`` the deformable group of ``c`` (``C /
deformable_groups`` channels each). A sample at ``(h, w)`` is 0 unless ``0 <= h <
H`` and ``0 <= w < W`` (a NaN offset gives 0); inside, it blends the pixels
``floor(h)``, ``min(floor(h) + 1, H - 1)`` (likewise ``w``) bilinearly, TVM's
``bilinear_sample_nchw``. Accumulated in the data's float type.

``NHWC`` data (with ``HWIO`` / ``HWOI``-style kernels and an ``NHWC`` offset) is the
same computation transposed; the lowering runs it as ``NCHW`` between transforms.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    get_int,
    get_ints,
    get_str,
    int_prop,
    ints_prop,
    opt_dtype_prop,
    opt_int_prop,
    opt_ints_prop,
    ranked,
    same_elem,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.dtypes import is_float, numpy_dtype
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    LayoutConversionError,
    MaybeLayout,
    layout_of,
)
from xrelay.dialects.relay.nn import (
    PaddedOp,
    check_permutation,
    layout_shape,
    padding4,
    positive_pair,
    shape_in_layout,
    to_layout,
    window_out,
)

_DEFAULT_KERNELS = {"NCHW": "OIHW", "NHWC": "HWIO"}


def sample_bilinear(plane: Array, h: Array, w: Array) -> Array:
    """``plane`` (``[H, W]``) sampled at float positions (module docstring); 0 outside
    and for NaN."""
    hh, ww = plane.shape
    with np.errstate(invalid="ignore"):
        inside = (h >= 0) & (h < hh) & (w >= 0) & (w < ww)
    hs = np.where(inside, h, 0)
    ws = np.where(inside, w, 0)
    y0 = np.floor(hs)
    x0 = np.floor(ws)
    ty, tx = hs - y0, ws - x0
    y0i, x0i = y0.astype(np.int64), x0.astype(np.int64)
    y1i, x1i = np.minimum(y0i + 1, hh - 1), np.minimum(x0i + 1, ww - 1)
    one = plane.dtype.type(1)
    top = plane[y0i, x0i] * (one - tx) + plane[y0i, x1i] * tx
    bottom = plane[y1i, x0i] * (one - tx) + plane[y1i, x1i] * tx
    return np.where(inside, top * (one - ty) + bottom * ty, plane.dtype.type(0))


@irdl_op_definition
class DeformableConv2DOp(PaddedOp):
    """Deformable 2-D convolution of ``data`` with ``weight`` at positions moved by
    ``offset`` (module docstring)."""

    name = "relay.nn.deformable_conv2d"
    data = operand_def(ANY_TENSOR)
    offset = operand_def(ANY_TENSOR)
    weight = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    strides = ints_prop((1, 1))
    padding = ints_prop((0, 0, 0, 0))
    dilation = ints_prop((1, 1))
    deformable_groups = int_prop(1)
    groups = int_prop(1)
    channels = opt_int_prop()
    kernel_size = opt_ints_prop()
    data_layout = str_prop("NCHW")
    kernel_layout = str_prop("OIHW")
    out_layout = str_prop("")
    out_dtype = opt_dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data", "kernel")

    def layouts(self) -> tuple[str, str, str]:
        data = get_str(self.data_layout)
        kernel = get_str(self.kernel_layout)
        out = get_str(self.out_layout) or data
        check_permutation(data, "NCHW", "data_layout")
        check_permutation(kernel, "OIHW", "kernel_layout")
        check_permutation(out, "NCHW", "out_layout")
        return data, kernel, out

    def params(
        self,
    ) -> tuple[tuple[int, int], tuple[int, ...], tuple[int, int], int, int]:
        """Checked strides, padding, dilation, groups and deformable groups."""
        groups, dg = get_int(self.groups), get_int(self.deformable_groups)
        if groups < 1 or dg < 1:
            raise TypeRelationError(
                f"groups and deformable_groups must be positive, got {groups} and {dg}"
            )
        return (
            positive_pair(get_ints(self.strides), "strides"),
            padding4(get_ints(self.padding)),
            positive_pair(get_ints(self.dilation), "dilation"),
            groups,
            dg,
        )

    def geometry(
        self, data: Sequence[int], weight: Sequence[int]
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, int]]:
        """Data (NCHW), weight (OIHW) and output (OH, OW), checked."""
        data_layout, kernel_layout, _ = self.layouts()
        (sh, sw), (pt, pl, pb, pr), (dh, dw), groups, dg = self.params()
        n, c, h, w = layout_shape(data, data_layout, "NCHW", "data_layout")
        o, i, kh, kw = layout_shape(weight, kernel_layout, "OIHW", "kernel_layout")
        if DYN not in (c, i) and (c % groups or c // groups != i):
            raise TypeRelationError(
                f"data has {c} channels but the weight takes {i} per group with "
                f"groups={groups}"
            )
        if c != DYN and c % dg:
            raise TypeRelationError(
                f"the {c} channels are not divisible by deformable_groups={dg}"
            )
        if o != DYN and o % groups:
            raise TypeRelationError(
                f"the weight's {o} output channels are not divisible by groups={groups}"
            )
        if self.channels is not None and get_int(self.channels) != o:
            raise TypeRelationError(
                f"channels={get_int(self.channels)} but the weight gives {o}"
            )
        if self.kernel_size is not None and tuple(get_ints(self.kernel_size)) != (
            kh,
            kw,
        ):
            raise TypeRelationError(
                f"kernel_size {tuple(get_ints(self.kernel_size))} does not match the "
                f"weight's kernel {(kh, kw)}"
            )
        oh = window_out(h, pt + pb, (kh - 1) * dh + 1, sh, "height")
        ow = window_out(w, pl + pr, (kw - 1) * dw + 1, sw, "width")
        return (n, c, h, w), (o, i, kh, kw), (oh, ow)

    def offset_shape(self, data: Sequence[int], kh: int, kw: int) -> tuple[int, ...]:
        """The offset's shape in the data layout."""
        data_layout, _, _ = self.layouts()
        (sh, sw), (pt, pl, pb, pr), (dh, dw), _, dg = self.params()
        n, _, h, w = layout_shape(data, data_layout, "NCHW", "data_layout")
        oh = window_out(h, pt + pb, (kh - 1) * dh + 1, sh, "height")
        ow = window_out(w, pl + pr, (kw - 1) * dw + 1, sw, "width")
        return shape_in_layout((n, 2 * dg * kh * kw, oh, ow), "NCHW", data_layout)

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """Relay's ``DeformableConv2DRel`` with an incomplete offset: its shape from
        the data, ``kernel_size`` (or the weight) and the window attributes."""
        data, weight = operand_types[0], operand_types[2]
        if not isinstance(data, TensorType):
            return [None, None, None]
        x = cast(TensorType[Attribute], data)
        if self.kernel_size is not None:
            kh, kw = positive_pair(get_ints(self.kernel_size), "kernel_size")
        elif isinstance(weight, TensorType):
            _, kernel_layout, _ = self.layouts()
            shape = cast(TensorType[Attribute], weight).get_shape()
            _, _, kh, kw = layout_shape(shape, kernel_layout, "OIHW", "kernel_layout")
        else:
            return [None, None, None]
        offset = tensor(self.offset_shape(x.get_shape(), kh, kw), x.element_type)
        return [None, offset, None]

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        off = ranked(operand_types[1], "offset")
        wt = ranked(operand_types[2], "weight")
        elem = same_elem([x, off, wt], ["data", "offset", "weight"])
        if not is_float(elem):
            raise TypeRelationError(f"data must be a float tensor, got {x}")
        (n, _, _, _), (o, _, kh, kw), (oh, ow) = self.geometry(
            x.get_shape(), wt.get_shape()
        )
        want = self.offset_shape(x.get_shape(), kh, kw)
        got = off.get_shape()
        if len(got) != len(want) or any(
            a != b and DYN not in (a, b) for a, b in zip(got, want, strict=True)
        ):
            raise TypeRelationError(
                f"offset must have shape {list(want)}, got {list(got)}"
            )
        _, _, out_layout = self.layouts()
        out_elem = self.out_dtype if self.out_dtype is not None else elem
        return [tensor(shape_in_layout((n, o, oh, ow), "NCHW", out_layout), out_elem)]

    def compute(self, *args: Any) -> Any:
        data_layout, kernel_layout, out_layout = self.layouts()
        x = to_layout(np.asarray(args[0]), data_layout, "NCHW")
        off = to_layout(np.asarray(args[1]), data_layout, "NCHW")
        wt = to_layout(np.asarray(args[2]), kernel_layout, "OIHW")
        (sh, sw), (pt, pl, _, _), (dh, dw), groups, dg = self.params()
        (n, c, _, _), (o, cg, kh, kw), (oh, ow) = self.geometry(
            args[0].shape, args[2].shape
        )
        dt = x.dtype if self.out_dtype is None else numpy_dtype(self.out_dtype)
        x, off, wt = x.astype(dt), off.astype(dt), wt.astype(dt)
        out = np.zeros((n, o, oh, ow), dt)
        ys = np.arange(oh, dtype=dt)[:, None] * sh - pt
        xs = np.arange(ow, dtype=dt)[None, :] * sw - pl
        per_dg = c // dg
        og = o // groups
        for b in range(n):
            for ch in range(c):
                g, d = ch // cg, ch // per_dg
                for i in range(kh):
                    for j in range(kw):
                        k = d * kh * kw + i * kw + j
                        hpos = ys + i * dh + off[b, 2 * k]
                        wpos = xs + j * dw + off[b, 2 * k + 1]
                        val = sample_bilinear(x[b, ch], hpos, wpos)
                        w_col = wt[g * og : (g + 1) * og, ch - g * cg, i, j]
                        out[b, g * og : (g + 1) * og] += w_col[:, None, None] * val
        return to_layout(out, "NCHW", out_layout)

    # -- layouts --------------------------------------------------------------------------

    def primal_form(
        self,
    ) -> tuple[RelayOp, list[tuple[str, str] | None], tuple[str, str] | None] | None:
        """Layouts other than ``NCHW`` / ``OIHW``: the ``NCHW`` op between
        transforms (what the kernel runs)."""
        data, kernel, out = self.layouts()
        if (data, kernel, out) == ("NCHW", "OIHW", "NCHW"):
            return None
        op = self.layout_variant(
            updates={"data_layout": "NCHW", "kernel_layout": "OIHW", "out_layout": ""}
        )
        moves: list[tuple[str, str] | None] = [
            (data, "NCHW") if data != "NCHW" else None,
            (data, "NCHW") if data != "NCHW" else None,
            (kernel, "OIHW") if kernel != "OIHW" else None,
        ]
        return op, moves, (("NCHW", out) if out != "NCHW" else None)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``DeformableConvInferCorrectLayout``: data and offset in the data
        layout, the weight in the kernel layout, the result in the output layout."""
        data = layout_of(get_str(self.data_layout))
        kernel = layout_of(get_str(self.kernel_layout))
        out = layout_of(get_str(self.out_layout) or get_str(self.data_layout))
        if data is None or kernel is None or out is None:
            return None
        return InferredLayouts((data, data, kernel), (out,))

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``convert_deformable_conv2d``: data layout ``desired[0]``
        (``NCHW`` or ``NHWC``), kernel ``desired[1]`` or by default ``OIHW`` /
        ``HWIO``."""
        if len(desired) != 2:
            raise LayoutConversionError(
                f"{self.name} takes 2 desired layouts (data and kernel), got "
                f"{len(desired)}: {list(desired)}"
            )
        data, kernel = desired
        if data not in _DEFAULT_KERNELS:
            raise LayoutConversionError(
                f"{self.name} cannot take the data layout '{data}' (NCHW or NHWC)"
            )
        if kernel == "default":
            kernel = _DEFAULT_KERNELS[data]
        parsed = layout_of(kernel)
        if parsed is None or sorted(parsed.name) != sorted("OIHW"):
            raise LayoutConversionError(
                f"{self.name} cannot take the kernel layout '{kernel}' (a permutation "
                "of OIHW)"
            )
        return self.layout_variant(
            updates={"data_layout": data, "kernel_layout": kernel}
        )


DEFORMABLE_OPS: list[type[RelayOp]] = [DeformableConv2DOp]

__all__ = ["DEFORMABLE_OPS", "DeformableConv2DOp", "sample_bilinear"]
