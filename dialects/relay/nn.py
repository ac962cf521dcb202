"""Neural-network ops: 2-D convolution and its transpose, dense / matmul / batch_matmul,
the softmax family, dropout, batch_flatten and pad; and the CPU-layout forms
AlterOpLayout makes, ``contrib_conv2d_NCHWc`` and ``contrib_dense_pack``
(:data:`CONTRIB_NN_OPS`).

Relay's conventions kept here:

* convolutions take any data layout that is a permutation of ``NCHW`` (``NCHW``,
  ``NHWC``, ...) and any kernel layout that is a permutation of ``OIHW`` (``IOHW`` for
  ``conv2d_transpose``); axes are matched by letter. ``out_layout=""`` means the data
  layout.
* ``padding`` is stored as four ints ``(top, left, bottom, right)``; :meth:`make`
  accepts Relay's 1- and 2-int forms and widens them (:func:`normalize_padding2d`).
* ``out_dtype`` absent means the data dtype; the operands are converted to it before
  multiplying (so ``int8 x int8 -> int32`` accumulates in ``int32``). Without
  ``out_dtype`` both operands must share one dtype.

The reference semantics are vectorised numpy: convolutions use an im2col view made by
``sliding_window_view`` contracted with ``tensordot`` / ``einsum``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from xrelay.dialects.relay import fake_quantization as fq
from xrelay.dialects.relay import layout_policy
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
    get_str,
    int_prop,
    ints_prop,
    normalize_axis,
    opt_dtype_prop,
    opt_int_prop,
    opt_ints_prop,
    ranked,
    same_elem,
    shape_str,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.dtypes import is_float, numpy_dtype
from xrelay.dialects.relay.layout import Layout, LayoutAxis, transform_array
from xrelay.dialects.relay.layout_rules import (
    SCALAR,
    InferredLayouts,
    LayoutConversionError,
    MaybeLayout,
    elementwise_layouts,
    layout_of,
    ndim_primal,
)
from xrelay.dialects.relay.mixed_precision import MixedPrecisionCategory
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.dialects.relay.transform import ConcatenateOp

# ---------------------------------------------------------------------------------------
# Helpers shared with the pooling ops
# ---------------------------------------------------------------------------------------


def normalize_padding2d(padding: object) -> object:
    """Relay's 2-D padding forms widened to ``(top, left, bottom, right)``.

    One int ``p`` gives ``(p, p, p, p)``; two ints ``(ph, pw)`` give ``(ph, pw, ph, pw)``;
    four ints stay. Anything else is returned unchanged (the type relation rejects it).
    """
    if isinstance(padding, int | np.integer):
        return (int(padding),) * 4
    if isinstance(padding, list | tuple):
        items = list(cast(Sequence[Any], padding))
        if len(items) == 1:
            return tuple(items) * 4
        if len(items) == 2:
            return (items[0], items[1], items[0], items[1])
    return padding


def layout_shape(
    shape: Sequence[int], layout: str, canonical: str, what: str
) -> tuple[int, ...]:
    """``shape`` (laid out as ``layout``) as the extents of the axes of ``canonical``.

    ``layout`` is a permutation of the letters of ``canonical``, possibly blocked
    (``NCHW16c``: the channel extent is ``outer * 16``; the sub-axis must be 16).
    """
    parsed = _parsed(layout, canonical, what)
    if len(shape) != parsed.ndim:
        raise TypeRelationError(
            f"{what} '{layout}' needs a rank-{parsed.ndim} tensor, got shape "
            f"{shape_str(shape)}"
        )
    extent: dict[str, int] = {}
    for i, axis in enumerate(parsed.axes):
        if not axis.is_primal:
            if shape[i] != DYN and shape[i] != axis.factor:
                raise TypeRelationError(
                    f"{what} '{layout}': the sub-axis '{axis}' has extent {shape[i]}, "
                    f"not {axis.factor} (shape {shape_str(shape)})"
                )
            continue
        factor = parsed.factor_of(axis.letter)
        size = shape[i]
        extent[axis.letter] = size * factor if factor > 0 and size != DYN else size
    return tuple(extent[c] for c in canonical)


def shape_in_layout(
    shape: Sequence[int], canonical: str, layout: str
) -> tuple[int, ...]:
    """A shape given in the axes of ``canonical`` laid out as ``layout`` (a blocked
    axis must be divisible by its factor)."""
    parsed = _parsed(layout, canonical, "layout")
    extent = dict(zip(canonical, shape, strict=True))
    out: list[int] = []
    for axis in parsed.axes:
        if not axis.is_primal:
            out.append(cast(int, axis.factor))
            continue
        size = extent[axis.letter]
        factor = parsed.factor_of(axis.letter)
        if factor > 0 and size != DYN:
            if size % factor:
                raise TypeRelationError(
                    f"layout '{layout}': axis {axis.letter} of extent {size} is not "
                    f"divisible by its block {factor}"
                )
            size //= factor
        out.append(size)
    return tuple(out)


def check_layout(layout: str, canonical: str, what: str) -> None:
    """``layout`` is a permutation of ``canonical``, possibly blocked."""
    _parsed(layout, canonical, what)


def check_permutation(layout: str, canonical: str, what: str) -> None:
    """``layout`` is a plain permutation of ``canonical`` (no blocked axis)."""
    if len(layout) != len(canonical) or sorted(layout) != sorted(canonical):
        raise TypeRelationError(
            f"{what} '{layout}' is not supported (expected a permutation of "
            f"'{canonical}')"
        )


def _parsed(layout: str, canonical: str, what: str) -> Layout:
    """``layout`` parsed; its primal axes must be a permutation of ``canonical``."""
    try:
        parsed = Layout.parse(layout)
    except ValueError as e:
        raise TypeRelationError(f"{what}: {e}") from None
    if sorted(parsed.primal_letters) != sorted(canonical):
        raise TypeRelationError(
            f"{what} '{layout}' is not supported (expected a permutation of "
            f"'{canonical}', optionally blocked as in '{canonical}16{canonical[1].lower()}')"
        )
    return parsed


def is_blocked(layout: str) -> bool:
    """Whether ``layout`` splits an axis (``NCHW16c``)."""
    return any(ch.isdigit() for ch in layout)


def to_layout(x: Array, src: str, dst: str) -> Array:
    """Rearrange an array laid out as ``src`` into the layout ``dst`` (the same
    primal letters; either may be blocked)."""
    if src == dst:
        return x
    if is_blocked(src) or is_blocked(dst):
        return transform_array(x, src, dst)
    return np.transpose(x, [src.index(c) for c in dst])


def positive_pair(values: Sequence[int], what: str) -> tuple[int, int]:
    if len(values) != 2:
        raise TypeRelationError(f"{what} must have 2 values, got {len(values)}")
    if any(v <= 0 for v in values):
        raise TypeRelationError(f"{what} must be positive, got {tuple(values)}")
    return values[0], values[1]


def padding4(values: Sequence[int]) -> tuple[int, int, int, int]:
    if len(values) != 4:
        raise TypeRelationError(
            f"padding must have 4 values (top, left, bottom, right), got {len(values)}"
        )
    if any(v < 0 for v in values):
        raise TypeRelationError(f"padding must be non-negative, got {tuple(values)}")
    return values[0], values[1], values[2], values[3]


def window_out(
    size: int, pad: int, window: int, stride: int, what: str, ceil: bool = False
) -> int:
    """Output length of a sliding window; at least 1. An unknown input size (``?``)
    or window (from a ``?`` kernel dimension) gives ``?``."""
    if size == DYN or window < 1:
        return DYN
    span = size + pad - window + (stride - 1 if ceil else 0)
    out = span // stride + 1
    if span < 0 or out < 1:
        raise TypeRelationError(
            f"the output {what} would be {out if span >= 0 else 0}: the input {what} "
            f"{size} with padding {pad} is smaller than the window {window}"
        )
    return out


def windows2d(
    x: Array,
    window: tuple[int, int],
    strides: tuple[int, int],
    dilation: tuple[int, int],
    out_hw: tuple[int, int],
) -> Array:
    """The im2col view of an ``NCHW`` array already padded:
    ``[N, C, OH, OW, KH, KW]`` (no copy)."""
    kh, kw = window
    dh, dw = dilation
    sh, sw = strides
    oh, ow = out_hw
    ext = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    view = np.lib.stride_tricks.sliding_window_view(x, ext, axis=(2, 3))
    return view[:, :, : (oh - 1) * sh + 1 : sh, : (ow - 1) * sw + 1 : sw, ::dh, ::dw]


def normalize_pair(value: object) -> object:
    """One int (or a 1-element list) ``v`` widened to ``(v, v)``; else unchanged."""
    if isinstance(value, int | np.integer):
        return (int(value), int(value))
    if isinstance(value, list | tuple) and len(cast(Sequence[Any], value)) == 1:
        return tuple(cast(Sequence[Any], value)) * 2
    return value


def _is_permutation(layout: str, canonical: str) -> bool:
    return len(layout) == len(canonical) and sorted(layout) == sorted(canonical)


def _nchwc_factor(layout: str) -> int | None:
    """``x`` for a layout ``NCHW{x}c``, else ``None``."""
    parsed = layout_of(layout)
    if parsed is None or parsed.ndim != 5 or parsed.primal.name != "NCHW":
        return None
    if parsed.axes[:4] != Layout.parse("NCHW").axes or parsed.axes[4].letter != "c":
        return None
    return parsed.factor_of("c")


def _oihw_io_factors(layout: str) -> tuple[int, int] | None:
    """``(i, o)`` for a layout ``OIHW{i}i{o}o``, else ``None``."""
    parsed = layout_of(layout)
    if parsed is None or parsed.ndim != 6:
        return None
    if parsed.axes[:4] != Layout.parse("OIHW").axes:
        return None
    if parsed.axes[4].letter != "i" or parsed.axes[5].letter != "o":
        return None
    return parsed.factor_of("i"), parsed.factor_of("o")


def _oihw_o_factor(layout: str) -> int | None:
    """``o`` for a layout ``OIHW{o}o`` (only the output channels blocked), else
    ``None``."""
    parsed = layout_of(layout)
    if parsed is None or parsed.ndim != 5:
        return None
    if parsed.axes[:4] != Layout.parse("OIHW").axes or parsed.axes[4].letter != "o":
        return None
    return parsed.factor_of("o")


def _static_shapes(types: Sequence[Attribute]) -> list[tuple[int, ...]] | None:
    """The shapes of ranked tensor types without ``?`` dims, else ``None``."""
    shapes: list[tuple[int, ...]] = []
    for ty in types:
        if not isinstance(ty, TensorType):
            return None
        shape = tuple(cast(TensorType, ty).get_shape())
        if DYN in shape:
            return None
        shapes.append(shape)
    return shapes


def _ranks_are(types: Sequence[Attribute], ranks: Sequence[int]) -> bool:
    return len(types) == len(ranks) and all(
        isinstance(t, TensorType) and len(cast(TensorType, t).get_shape()) == r
        for t, r in zip(types, ranks, strict=True)
    )


_PLAIN_LETTERS = "NDHWC"


def _rows_layout(
    old_layouts: Sequence[MaybeLayout], old_types: Sequence[Attribute]
) -> Layout | None:
    """The layout of a dense's N-D data (rank 3 or more, the last axis reduced) and of
    its result: the data's original layout when it is plain (no sub-axes) and of the
    data's rank, else one of that rank (``NWC``, ``NHWC``, ...). ``None`` for other
    ranks."""
    if not old_types or not isinstance(old_types[0], TensorType):
        return None
    rank = len(cast(TensorType[Any], old_types[0]).get_shape())
    if rank < 3:
        return None
    old = old_layouts[0] if old_layouts else None
    if old is not None and old.ndim == rank and ndim_primal(old) == rank:
        return old
    letters = _PLAIN_LETTERS[-rank:] if rank <= 5 else None
    if letters is None:
        letters = "".join(chr(ord("A") + k) for k in range(rank))
    return Layout.parse(letters)


class PaddedOp(RelayOp):
    """Ops with Relay's 2-D ``padding``: :meth:`make` widens its 1- and 2-int forms,
    and single ints given for the pair attributes (``strides``, ...) as Relay's Python
    API does."""

    PAIR_ATTRS: ClassVar[tuple[str, ...]] = ("strides", "dilation")

    @classmethod
    def make(
        cls,
        operands: Sequence[SSAValue] = (),
        attrs: dict[str, object] | None = None,
        result_types: Sequence[Attribute] | None = None,
        regions: Sequence[Any] = (),
    ):
        if attrs is not None:
            attrs = dict(attrs)
            if attrs.get("padding") is not None:
                attrs["padding"] = normalize_padding2d(attrs["padding"])
            for key in cls.PAIR_ATTRS:
                if attrs.get(key) is not None:
                    attrs[key] = normalize_pair(attrs[key])
        return super().make(operands, attrs, result_types, regions)


def _out_elem(
    out_dtype: Attribute | None, types: Sequence[TensorType], names: Sequence[str]
) -> Attribute:
    """The result element type: ``out_dtype``, else the (shared) operand dtype."""
    if out_dtype is not None:
        return out_dtype
    return same_elem(types, names)


def _np_out(out_dtype: Attribute | None, x: Array) -> np.dtype[Any]:
    return numpy_dtype(out_dtype) if out_dtype is not None else x.dtype


# ---------------------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------------------


class ConvOp(PaddedOp):
    """The operands, attributes and shared checks of the 2-D convolutions."""

    data = operand_def(ANY_TENSOR)
    weight = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    strides = ints_prop((1, 1))
    padding = ints_prop((0, 0, 0, 0))
    dilation = ints_prop((1, 1))
    groups = int_prop(1)
    channels = opt_int_prop()
    kernel_size = opt_ints_prop()
    data_layout = str_prop("NCHW")
    out_layout = str_prop("")
    out_dtype = opt_dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.ALWAYS
    KERNEL_CANONICAL: ClassVar[str] = "OIHW"
    """The kernel layout the weight shape is read in (``IOHW`` for the transpose)."""
    BLOCKED_AS_PRIMAL: ClassVar[bool] = True
    """Blocked layouts are computed as the unblocked op between transforms
    (:meth:`primal_form`); the NCHWc op has kernels for its blocked layouts."""

    def kernel_layout_str(self) -> str:
        raise NotImplementedError

    def conv_params(
        self,
    ) -> tuple[tuple[int, int], tuple[int, int, int, int], tuple[int, int], int]:
        """Checked strides, padding, dilation and groups."""
        strides = positive_pair(get_ints(self.strides), "strides")
        padding = padding4(get_ints(self.padding))
        dilation = positive_pair(get_ints(self.dilation), "dilation")
        groups = get_int(self.groups)
        if groups < 1:
            raise TypeRelationError(f"groups must be positive, got {groups}")
        return strides, padding, dilation, groups

    def layouts(self) -> tuple[str, str, str]:
        """Data, kernel and output layouts (``out_layout=""`` is the data layout)."""
        data_layout = get_str(self.data_layout)
        check_layout(data_layout, "NCHW", "data_layout")
        kernel_layout = self.kernel_layout_str()
        check_layout(kernel_layout, self.KERNEL_CANONICAL, "kernel_layout")
        out_layout = get_str(self.out_layout) or data_layout
        check_layout(out_layout, "NCHW", "out_layout")
        return data_layout, kernel_layout, out_layout

    def primal_form(
        self,
    ) -> tuple[RelayOp, list[tuple[str, str] | None], tuple[str, str] | None] | None:
        """For a blocked data, kernel or output layout (``NCHW16c``,
        ``OIHW16i16o``): this op in the unblocked layouts (detached, see
        :meth:`layout_variant`), the ``(src, dst)`` layout transforms its operands
        need and the one taking its result back; ``None`` when nothing is blocked.
        The lowering computes a blocked convolution this way."""
        if not self.BLOCKED_AS_PRIMAL:
            return None
        data, kernel, out = self.layouts()
        if not any(is_blocked(x) for x in (data, kernel, out)):
            return None
        pd, pk, po = (Layout.parse(x).primal.name for x in (data, kernel, out))
        op = self.layout_variant(
            updates={"data_layout": pd, "kernel_layout": pk, "out_layout": po}
        )
        moves = [
            (data, pd) if data != pd else None,
            (kernel, pk) if kernel != pk else None,
        ]
        return op, moves, (po, out) if out != po else None

    def check_kernel_size(self, kh: int, kw: int) -> None:
        if self.kernel_size is None:
            return
        ks = get_ints(self.kernel_size)
        if len(ks) != 2:
            raise TypeRelationError(f"kernel_size must have 2 values, got {len(ks)}")
        if tuple(ks) != (kh, kw):
            raise TypeRelationError(
                f"kernel_size {tuple(ks)} does not match the weight's kernel {(kh, kw)}"
            )

    # -- layout hooks --------------------------------------------------------------------

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``ConvInferCorrectLayout``: the operands must be in the op's data and
        kernel layouts, whatever their producers give; the result is in the output
        layout."""
        data_layout = get_str(self.data_layout)
        data = layout_of(data_layout)
        kernel = layout_of(self.kernel_layout_str())
        out = layout_of(get_str(self.out_layout) or data_layout)
        if data is None or kernel is None or out is None:
            return None
        return InferredLayouts((data, kernel), (out,))

    def desired_pair(self, desired: Sequence[str]) -> tuple[str, str]:
        """The desired data and kernel layouts, checked."""
        if len(desired) != 2:
            raise LayoutConversionError(
                f"{self.name} takes 2 desired layouts (data and kernel), got "
                f"{len(desired)}: {list(desired)}"
            )
        data, kernel = desired[0], desired[1]
        if data == "default":
            raise LayoutConversionError(
                f"the desired data layout of {self.name} cannot be 'default'"
            )
        return data, kernel

    def converted(self, data: str, kernel: str, defaults: dict[str, str]) -> RelayOp:
        """This op in data layout ``data`` (a permutation of ``NCHW``) and kernel layout
        ``kernel`` (``"default"``: from ``defaults``, by data layout)."""
        if not _is_permutation(data, "NCHW"):
            raise LayoutConversionError(
                f"{self.name} cannot take the data layout '{data}' (expected a "
                "permutation of NCHW)"
            )
        if kernel == "default":
            if data not in defaults:
                raise LayoutConversionError(
                    f"{self.name} has no default kernel layout for data layout "
                    f"'{data}'; give the kernel layout"
                )
            kernel = defaults[data]
        if not _is_permutation(kernel, self.KERNEL_CANONICAL):
            raise LayoutConversionError(
                f"{self.name} cannot take the kernel layout '{kernel}' (expected a "
                f"permutation of {self.KERNEL_CANONICAL})"
            )
        return self.layout_variant(
            updates={"data_layout": data, "kernel_layout": kernel}
        )


@irdl_op_definition
class Conv2DOp(ConvOp):
    """2-D convolution (cross-correlation) of ``data`` with ``weight``.

    In ``NCHW`` / ``OIHW`` terms: ``out[n, o, y, x] = sum(c, i, j) data_pad[n, g*C/G + c,
    y*sh + i*dh, x*sw + j*dw] * weight[o, c, i, j]`` with ``g = o // (O/G)``. The weight
    is ``[O, C/groups, KH, KW]``. A depthwise weight ``[C, M, KH, KW]`` (``groups == C
    == O``, Relay's depthwise form) gives ``C*M`` output channels, channel ``c*M + m``
    using ``weight[c, m]``.
    """

    name = "relay.nn.conv2d"
    kernel_layout = str_prop("OIHW")
    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data", "kernel")
    IS_LAYER: ClassVar[bool] = True

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.conv2d``: the weight per-tensor or per output channel."""
        data_layout, kernel_layout, out_layout = self.layouts()
        return fq.integer_product(
            rewrite,
            "relay.qnn.conv2d",
            fq.attrs_of(self, ["out_dtype"]),
            kernel_layout.index("O"),
            (out_layout or data_layout).index("C"),
        )

    def kernel_layout_str(self) -> str:
        return get_str(self.kernel_layout)

    def geometry(
        self, data: Sequence[int], weight: Sequence[int]
    ) -> tuple[tuple[int, ...], tuple[int, ...], bool, int]:
        """Data shape in NCHW, weight shape in OIHW, whether depthwise, out channels."""
        data_layout, kernel_layout, _ = self.layouts()
        n, c, h, w = layout_shape(data, data_layout, "NCHW", "data_layout")
        o, i, kh, kw = layout_shape(weight, kernel_layout, "OIHW", "kernel_layout")
        _, _, _, groups = self.conv_params()
        depthwise = groups > 1 and c == groups and o == groups
        if depthwise:
            out_c = c * i if DYN not in (c, i) else DYN
        else:
            if DYN not in (c, i) and (c % groups != 0 or c // groups != i):
                raise TypeRelationError(
                    f"data has {c} input channels but the weight takes {i} per group "
                    f"with groups={groups} (needs {c} == {i} * {groups})"
                )
            if o != DYN and o % groups != 0:
                raise TypeRelationError(
                    f"the weight's {o} output channels are not divisible by "
                    f"groups={groups}"
                )
            out_c = o
        if self.channels is not None and get_int(self.channels) != out_c:
            raise TypeRelationError(
                f"channels={get_int(self.channels)} but the weight gives {out_c} output "
                "channels"
            )
        self.check_kernel_size(kh, kw)
        return (n, c, h, w), (o, i, kh, kw), depthwise, out_c

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """Relay's ``Conv2DRel`` with an incomplete weight: ``[channels, C/groups, KH,
        KW]`` in the kernel layout, of the data's dtype, when ``channels`` and
        ``kernel_size`` are given and the data type is known."""
        data = operand_types[0]
        if (
            not isinstance(data, TensorType)
            or self.channels is None
            or self.kernel_size is None
        ):
            return [None, None]
        data_layout, kernel_layout, _ = self.layouts()
        _, c, _, _ = layout_shape(
            cast(TensorType[Attribute], data).get_shape(),
            data_layout,
            "NCHW",
            "data_layout",
        )
        ks = get_ints(self.kernel_size)
        groups = get_int(self.groups)
        if len(ks) != 2 or groups < 1 or c == DYN or c % groups:
            return [None, None]
        oihw = (get_int(self.channels), c // groups, ks[0], ks[1])
        shape = shape_in_layout(oihw, "OIHW", kernel_layout)
        return [None, tensor(shape, cast(TensorType[Attribute], data).element_type)]

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data, weight = (
            ranked(operand_types[0], "data"),
            ranked(operand_types[1], "weight"),
        )
        (strides, padding, dilation, _) = self.conv_params()
        _, _, out_layout = self.layouts()
        (n, _, h, w), (_, _, kh, kw), _, out_c = self.geometry(
            data.get_shape(), weight.get_shape()
        )
        elem = _out_elem(self.out_dtype, [data, weight], ["data", "weight"])
        oh = window_out(
            h, padding[0] + padding[2], (kh - 1) * dilation[0] + 1, strides[0], "height"
        )
        ow = window_out(
            w, padding[1] + padding[3], (kw - 1) * dilation[1] + 1, strides[1], "width"
        )
        return [tensor(shape_in_layout((n, out_c, oh, ow), "NCHW", out_layout), elem)]

    def compute(self, *args: Any) -> Any:
        data_layout, kernel_layout, out_layout = self.layouts()
        strides, (pt, pl, pb, pr), dilation, groups = self.conv_params()
        npd = _np_out(self.out_dtype, args[0])
        x = to_layout(args[0], data_layout, "NCHW").astype(npd, copy=False)
        wt = to_layout(args[1], kernel_layout, "OIHW").astype(npd, copy=False)
        (n, c, h, w), (o, i, kh, kw), depthwise, out_c = self.geometry(
            args[0].shape, args[1].shape
        )
        if depthwise:
            wt = wt.reshape(out_c, 1, kh, kw)
            o, i = out_c, 1
        oh = (h + pt + pb - (kh - 1) * dilation[0] - 1) // strides[0] + 1
        ow = (w + pl + pr - (kw - 1) * dilation[1] - 1) // strides[1] + 1
        xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
        cols = windows2d(xp, (kh, kw), strides, dilation, (oh, ow))
        if groups == 1:
            out = np.tensordot(cols, wt, axes=([1, 4, 5], [1, 2, 3]))  # N, OH, OW, O
            return to_layout(out, "NHWC", out_layout)
        cols = cols.reshape(n, groups, c // groups, oh, ow, kh, kw)
        wg = wt.reshape(groups, o // groups, i, kh, kw)
        out = np.einsum("ngchwij,gocij->ngohw", cols, wg).reshape(n, o, oh, ow)
        return to_layout(out, "NCHW", out_layout)

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``convert_conv2d``: data layout ``desired[0]``; kernel layout
        ``desired[1]`` or, for ``"default"``, ``OIHW`` with ``NCHW`` and ``HWIO``
        (depthwise: ``HWOI``) with ``NHWC``. A blocked data layout ``NCHW{x}c`` with
        kernel ``OIHW{x}i{y}o`` gives ``contrib_conv2d_NCHWc`` (kept as it is when the
        channels do not divide)."""
        data, kernel = self.desired_pair(desired)
        block = _nchwc_factor(data)
        if block is not None:
            return self._to_nchwc(data, kernel, block, operand_types)
        depthwise = False
        shapes = _static_shapes(operand_types)
        if shapes is not None:
            try:
                depthwise = self.geometry(shapes[0], shapes[1])[2]
            except TypeRelationError:
                depthwise = False
        defaults = {
            "NCHW": "OIHW",
            "NHWC": "HWOI" if depthwise else "HWIO",
            "HWNC": "HWOI",
        }
        return self.converted(data, kernel, defaults)

    def _to_nchwc(
        self,
        data: str,
        kernel: str,
        block: int,
        operand_types: Sequence[Attribute],
    ) -> RelayOp | None:
        if kernel == "default":
            raise LayoutConversionError(
                f"{self.name}: the kernel layout for data layout '{data}' cannot be "
                "'default' (give OIHW{i}i{o}o)"
            )
        blocks = _oihw_io_factors(kernel)
        o_only = _oihw_o_factor(kernel)
        if o_only is not None:
            blocks = (block, o_only)  # input channels whole in the kernel
        if blocks is None or blocks[0] != block:
            raise LayoutConversionError(
                f"{self.name}: kernel layout '{kernel}' does not fit data layout "
                f"'{data}' (expected OIHW{block}i{{o}}o or OIHW{{o}}o)"
            )
        shapes = _static_shapes(operand_types)
        if shapes is None or get_int(self.groups) != 1:
            return None
        try:
            _, (o, i, _, _), _, _ = self.geometry(shapes[0], shapes[1])
        except TypeRelationError:
            return None
        if i % block or o % blocks[1]:
            return None
        # Relay keeps ``out_layout`` as it was (""): the data's layout, which is
        # the output's when the blocks agree
        out = "" if blocks[1] == block else f"NCHW{blocks[1]}c"
        return self.layout_variant(
            Conv2DNCHWcOp,
            {"data_layout": data, "kernel_layout": kernel, "out_layout": out},
        )

    def alter_layout(
        self, target: str, operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's x86 ``_alter_conv2d_layout``: an ``NCHW``/``OIHW`` convolution with
        ``groups == 1`` and static shapes becomes ``contrib_conv2d_NCHWc`` with data
        ``NCHW{ic}c``, kernel ``OIHW{ic}i{oc}o`` and output ``NCHW{oc}c``; the blocks
        come from :func:`~xrelay.lowering.cpu_layout.choose_conv2d_blocking`.
        A grouped convolution keeps its ``groups`` with blocks that divide one
        group's channels (:func:`~xrelay.lowering.cpu_layout.
        choose_grouped_conv2d_blocking`); a depthwise one (``groups`` = channels,
        multiplier 1) takes data and output ``NCHW{c}c`` and kernel ``OIHW1i{c}o``
        (``[C/c, 1, KH, KW, 1, c]``, Relay's ``depthwise_conv2d_NCHWc`` form)."""
        if not layout_policy.current().is_cpu_target(target):
            return None
        if (
            get_str(self.data_layout) != "NCHW"
            or get_str(self.kernel_layout) != "OIHW"
            or get_str(self.out_layout) not in ("", "NCHW")
        ):
            return None
        shapes = _static_shapes(operand_types)
        if shapes is None or len(shapes[0]) != 4 or len(shapes[1]) != 4:
            return None
        groups = get_int(self.groups)
        if groups == 1:
            pixels = shapes[0][2] * shapes[0][3]
            blocking = layout_policy.current().choose_conv2d_blocking(
                shapes[0][1], shapes[1][0], pixels
            )
        elif shapes[1][1] * groups != shapes[0][1]:
            return None  # a depthwise form with a channel multiplier: left alone
        else:
            blocking = layout_policy.current().choose_grouped_conv2d_blocking(
                shapes[0][1], shapes[1][0], groups, shapes[0][2] * shapes[0][3]
            )
        if blocking is None:
            return None
        ic, oc = blocking
        return self.layout_variant(
            Conv2DNCHWcOp,
            {
                "data_layout": f"NCHW{ic if ic > 1 else oc}c",
                "kernel_layout": f"OIHW{ic}i{oc}o",
                "out_layout": f"NCHW{oc}c",
            },
        )


@irdl_op_definition
class Conv2DTransposeOp(ConvOp):
    """Transposed 2-D convolution (the gradient of ``conv2d`` with respect to its data).

    In ``NCHW`` / ``IOHW`` terms the weight is ``[C, O/groups, KH, KW]``; every input
    pixel ``data[n, c, y, x]`` adds ``data * weight[c, o, i, j]`` to output pixel
    ``(y*sh + i*dh - pad_top, x*sw + j*dw - pad_left)`` of channel ``g*O/G + o``. Output
    size ``(H-1)*sh + (KH-1)*dh + 1 - pad_top - pad_bottom + output_padding_h``.
    """

    name = "relay.nn.conv2d_transpose"
    kernel_layout = str_prop("IOHW")
    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data", "kernel")
    output_padding = ints_prop((0, 0))
    KERNEL_CANONICAL: ClassVar[str] = "IOHW"

    def kernel_layout_str(self) -> str:
        return get_str(self.kernel_layout)

    def geometry(
        self, data: Sequence[int], weight: Sequence[int]
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, int], int]:
        """Data (NCHW), weight (IOHW), output (H, W) and output channels."""
        data_layout, kernel_layout, _ = self.layouts()
        strides, padding, dilation, groups = self.conv_params()
        op = get_ints(self.output_padding)
        if len(op) != 2 or any(v < 0 for v in op):
            raise TypeRelationError(
                f"output_padding must be 2 non-negative values, got {tuple(op)}"
            )
        n, c, h, w = layout_shape(data, data_layout, "NCHW", "data_layout")
        i, o, kh, kw = layout_shape(
            weight, kernel_layout, self.KERNEL_CANONICAL, "kernel_layout"
        )
        if c != DYN and i != DYN and c != i:
            raise TypeRelationError(
                f"data has {c} input channels but the weight has {i} (its 'I' axis)"
            )
        if c != DYN and c % groups != 0:
            raise TypeRelationError(
                f"data's {c} input channels are not divisible by groups={groups}"
            )
        out_c = o * groups if o != DYN else DYN
        if self.channels is not None and get_int(self.channels) != out_c:
            raise TypeRelationError(
                f"channels={get_int(self.channels)} but the weight gives {out_c} output "
                f"channels ({o} per group, groups={groups})"
            )
        self.check_kernel_size(kh, kw)
        out_hw: list[int] = []
        for size, k, s, d, before, after, extra, what in (
            (h, kh, strides[0], dilation[0], padding[0], padding[2], op[0], "height"),
            (w, kw, strides[1], dilation[1], padding[1], padding[3], op[1], "width"),
        ):
            if size == DYN:
                out_hw.append(DYN)
                continue
            out = (size - 1) * s + (k - 1) * d + 1 - before - after + extra
            if out < 1:
                raise TypeRelationError(f"the output {what} would be {out}")
            out_hw.append(out)
        return (n, c, h, w), (i, o, kh, kw), (out_hw[0], out_hw[1]), out_c

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data, weight = (
            ranked(operand_types[0], "data"),
            ranked(operand_types[1], "weight"),
        )
        _, _, out_layout = self.layouts()
        (n, _, _, _), _, (oh, ow), out_c = self.geometry(
            data.get_shape(), weight.get_shape()
        )
        elem = _out_elem(self.out_dtype, [data, weight], ["data", "weight"])
        return [tensor(shape_in_layout((n, out_c, oh, ow), "NCHW", out_layout), elem)]

    def compute(self, *args: Any) -> Any:
        data_layout, kernel_layout, out_layout = self.layouts()
        (sh, sw), (pt, pl, _, _), (dh, dw), groups = self.conv_params()
        npd = _np_out(self.out_dtype, args[0])
        x = to_layout(args[0], data_layout, "NCHW").astype(npd, copy=False)
        wt = to_layout(args[1], kernel_layout, "IOHW").astype(npd, copy=False)
        (n, c, h, w), (_, og, kh, kw), (oh, ow), out_c = self.geometry(
            args[0].shape, args[1].shape
        )
        cg = c // groups
        # full (uncropped) output, large enough for the crop window
        full_h = max((h - 1) * sh + (kh - 1) * dh + 1, pt + oh)
        full_w = max((w - 1) * sw + (kw - 1) * dw + 1, pl + ow)
        buf = np.zeros((n, groups, og, full_h, full_w), dtype=npd)
        xg = x.reshape(n, groups, cg, h * w)
        wg = wt.reshape(groups, cg, og, kh, kw)
        for i in range(kh):
            for j in range(kw):
                # [G, og, cg] @ [N, G, cg, H*W] -> [N, G, og, H*W]
                tap = np.matmul(np.swapaxes(wg[:, :, :, i, j], 1, 2), xg)
                buf[
                    :,
                    :,
                    :,
                    i * dh : i * dh + (h - 1) * sh + 1 : sh,
                    j * dw : j * dw + (w - 1) * sw + 1 : sw,
                ] += tap.reshape(n, groups, og, h, w)
        out = buf[:, :, :, pt : pt + oh, pl : pl + ow].reshape(n, out_c, oh, ow)
        return to_layout(out, "NCHW", out_layout)

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``convert_conv2d_transpose``: data layout ``desired[0]``; kernel
        layout ``desired[1]`` or, for ``"default"``, ``IOHW`` with ``NCHW`` and
        ``HWIO`` with ``NHWC``."""
        data, kernel = self.desired_pair(desired)
        return self.converted(data, kernel, {"NCHW": "IOHW", "NHWC": "HWIO"})


@irdl_op_definition
class Conv2DNCHWcOp(ConvOp):
    """2-D convolution on channel-blocked data (Relay's ``nn.contrib_conv2d_NCHWc``,
    made by AlterOpLayout on CPUs).

    ``data_layout`` is ``NCHW{x}c`` (``[N, C/x, H, W, x]``), ``kernel_layout``
    ``OIHW{x}i{y}o`` (``[O/y, C/x, KH, KW, x, y]``) and ``out_layout`` ``NCHW{y}c``
    (``""``: the data layout). The semantics are ``conv2d``'s on the unblocked
    tensors, with the same attributes.

    A kernel ``OIHW{y}o`` (``[O/y, C, KH, KW, y]``, the input channels whole;
    ``groups == 1``) is taken too, computed as ``conv2d`` between transforms.

    Grouped (``groups > 1``): the kernel is ``[O/y, (C/G)/x, KH, KW, x, y]``, and
    ``x`` divides ``C/G``, ``y`` divides ``O/G`` (no block straddles two groups).
    Depthwise (``groups == C == O``, one channel per group): kernel ``OIHW1i{y}o``
    (``[C/y, 1, KH, KW, 1, y]``) with data and output ``NCHW{y}c``.
    """

    BLOCKED_AS_PRIMAL: ClassVar[bool] = False
    name = "relay.nn.contrib_conv2d_NCHWc"
    data_layout = str_prop("NCHW8c")
    kernel_layout = str_prop("OIHW8i8o")

    def kernel_layout_str(self) -> str:
        return get_str(self.kernel_layout)

    def blocked_layouts(self) -> tuple[Layout, Layout, Layout]:
        """The checked data, kernel and output layouts."""
        data = get_str(self.data_layout)
        ic = _nchwc_factor(data)
        if ic is None:
            raise TypeRelationError(
                f"data_layout '{data}' is not supported (expected NCHW{{c}}c, e.g. "
                "NCHW8c)"
            )
        kernel = get_str(self.kernel_layout)
        io = _oihw_io_factors(kernel)
        depthwise_form = io is not None and io[0] == 1 and io[1] == ic
        grouped = get_int(self.groups) > 1
        o_only = _oihw_o_factor(kernel)
        if o_only is not None and not grouped:
            io = (ic, o_only)  # the input channels whole: computed unblocked
        if io is None or (io[0] != ic and not (grouped and depthwise_form)):
            raise TypeRelationError(
                f"kernel_layout '{kernel}' does not fit data_layout '{data}' (expected "
                f"OIHW{ic}i{{o}}o, or OIHW{{o}}o without groups)"
            )
        out = get_str(self.out_layout) or data
        oc = _nchwc_factor(out)
        if oc is None or oc != io[1]:
            raise TypeRelationError(
                f"out_layout '{out}' does not fit kernel_layout '{kernel}' (expected "
                f"NCHW{io[1]}c)"
            )
        return Layout.parse(data), Layout.parse(kernel), Layout.parse(out)

    def layouts(self) -> tuple[str, str, str]:
        data, kernel, out = self.blocked_layouts()
        return data.name, kernel.name, out.name

    def primal_form(
        self,
    ) -> tuple[RelayOp, list[tuple[str, str] | None], tuple[str, str] | None] | None:
        """A kernel blocked on its output channels only (``OIHW{o}o``) has no
        blocked kernel: the op is computed as ``nn.conv2d`` in ``NCHW`` / ``OIHW``
        between transforms (``None`` for the ``OIHW{i}i{o}o`` forms)."""
        if _oihw_o_factor(get_str(self.kernel_layout)) is None:
            return None
        data, kernel, out = self.layouts()
        op = self.layout_variant(
            Conv2DOp,
            {"data_layout": "NCHW", "kernel_layout": "OIHW", "out_layout": ""},
        )
        return op, [(data, "NCHW"), (kernel, "OIHW")], ("NCHW", out)

    def plain(self) -> Conv2DOp:
        """The ``NCHW`` / ``OIHW`` convolution with the same attributes."""
        return cast(
            Conv2DOp,
            self.layout_variant(
                Conv2DOp,
                {"data_layout": "NCHW", "kernel_layout": "OIHW", "out_layout": ""},
            ),
        )

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data, weight = (
            ranked(operand_types[0], "data"),
            ranked(operand_types[1], "weight"),
        )
        data_layout, kernel_layout, out_layout = self.blocked_layouts()
        plain_types = [
            tensor(_unblock(data.get_shape(), data_layout, "data"), data.element_type),
            tensor(
                _unblock(weight.get_shape(), kernel_layout, "weight"),
                weight.element_type,
            ),
        ]
        (out,) = self.plain().type_relation(plain_types)
        out = ranked(out)
        self._check_group_blocks(plain_types, data_layout, kernel_layout)
        shape = _block(out.get_shape(), out_layout, "output")
        return [tensor(shape, out.get_element_type())]

    def _check_group_blocks(
        self, plain: Sequence[Attribute], data: Layout, kernel: Layout
    ) -> None:
        """A grouped convolution's blocks stay inside its groups (static shapes)."""
        groups = get_int(self.groups)
        if groups == 1:
            return
        c = ranked(plain[0]).get_shape()[1]
        o, i = ranked(plain[1]).get_shape()[:2]
        x, y = kernel.factor_of("i"), kernel.factor_of("o")
        if x == 1 and data.factor_of("c") != 1:
            # the depthwise form: one input channel per group, data blocked like
            # the output
            if DYN not in (c, o) and not (c == o == groups and i == 1):
                raise TypeRelationError(
                    f"kernel_layout '{kernel}' with data_layout '{data}' is the "
                    f"depthwise form: it needs groups == channels == output channels "
                    f"and one input channel per group, got groups={groups}, {c} "
                    f"channels, weight of {o} x {i}"
                )
            return
        # (the input blocks divide a group's channels: the weight holds ``x * (C/G)/x``)
        if o != DYN and (o // groups) % y:
            raise TypeRelationError(
                f"the output block {y} does not divide the {o // groups} output "
                f"channels of a group (groups={groups})"
            )

    def compute(self, *args: Any) -> Any:
        data_layout, kernel_layout, out_layout = self.blocked_layouts()
        x = transform_array(args[0], data_layout, "NCHW")
        w = transform_array(args[1], kernel_layout, "OIHW")
        out = self.plain().compute(x, w)
        return transform_array(out, "NCHW", out_layout)


def _unblock(shape: Sequence[int], layout: Layout, what: str) -> tuple[int, ...]:
    """A shape in a blocked layout → the shape in its primal axes (``?`` stays)."""
    if len(shape) != layout.ndim:
        raise TypeRelationError(
            f"{what} layout '{layout}' needs a rank-{layout.ndim} tensor, got shape "
            f"{shape_str(shape)}"
        )
    out: list[int] = []
    for k, a in enumerate(layout.axes):
        if not a.is_primal:
            continue
        size = shape[k]
        factor = layout.factor_of(a.letter)
        if factor > 0:
            inner = shape[layout.index_of(a.letter.lower())]
            if inner not in (factor, DYN):
                raise TypeRelationError(
                    f"{what} dimension {inner} of sub-axis '{factor}"
                    f"{a.letter.lower()}' differs from its block {factor} (layout "
                    f"'{layout}', shape {shape_str(shape)})"
                )
            size = DYN if size == DYN else size * factor
        out.append(size)
    return tuple(out)


def _block(shape: Sequence[int], layout: Layout, what: str) -> tuple[int, ...]:
    """A shape in the primal axes of ``layout`` → the shape in ``layout``."""
    extent = dict(zip(layout.primal_letters, shape, strict=True))
    out: list[int] = []
    for a in layout.axes:
        if a.factor is not None:
            out.append(a.factor)
            continue
        size = extent[a.letter]
        factor = layout.factor_of(a.letter)
        if factor > 0 and size != DYN:
            if size % factor:
                raise TypeRelationError(
                    f"the {what}'s axis {a.letter} of size {size} is not divisible by "
                    f"the block {factor} of layout '{layout}'"
                )
            size //= factor
        out.append(size)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Dense and matrix products
# ---------------------------------------------------------------------------------------


def _check_units(units: Attribute | None, n: int) -> None:
    if units is not None and get_int(units) != n:
        raise TypeRelationError(
            f"units={get_int(units)} but the weight gives {n} output units"
        )


def _dims_agree(a: int, b: int) -> bool:
    return a == b or DYN in (a, b)


@irdl_op_definition
class DenseOp(RelayOp):
    """``data @ weight.T``: ``data [..., K]``, ``weight [units, K]``, result
    ``[..., units]``."""

    name = "relay.nn.dense"
    data = operand_def(ANY_TENSOR)
    weight = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    units = opt_int_prop()
    out_dtype = opt_dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.ALWAYS

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.dense``: the weight per-tensor or per unit."""
        return fq.integer_product(
            rewrite, "relay.qnn.dense", fq.attrs_of(self, ["out_dtype"]), 0, -1
        )

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """Relay's ``DenseRel`` with an incomplete weight: ``[units, K]`` of the data's
        dtype when ``units`` is given and the data type is known."""
        data = operand_types[0]
        if not isinstance(data, TensorType) or self.units is None:
            return [None, None]
        ds = cast(TensorType[Attribute], data).get_shape()
        if not ds:
            return [None, None]
        shape = (get_int(self.units), ds[-1])
        return [None, tensor(shape, cast(TensorType[Attribute], data).element_type)]

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data, weight = (
            ranked(operand_types[0], "data"),
            ranked(operand_types[1], "weight"),
        )
        ds, ws = data.get_shape(), weight.get_shape()
        if len(ds) < 1:
            raise TypeRelationError("data must have rank >= 1, got a 0-d tensor")
        if len(ws) != 2:
            raise TypeRelationError(
                f"weight must be a matrix [units, K], got shape {shape_str(ws)}"
            )
        if not _dims_agree(ds[-1], ws[1]):
            raise TypeRelationError(
                f"data's last dimension {ds[-1]} does not match the weight's K {ws[1]}"
            )
        _check_units(self.units, ws[0])
        elem = _out_elem(self.out_dtype, [data, weight], ["data", "weight"])
        return [tensor((*ds[:-1], ws[0]), elem)]

    def compute(self, *args: Any) -> Any:
        npd = _np_out(self.out_dtype, args[0])
        x, wt = args[0].astype(npd, copy=False), args[1].astype(npd, copy=False)
        return np.matmul(x, wt.T)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``DenseInferCorrectLayout``: data and weight in ``NC``, result in
        ``NC``; N-D data keeps its original plain layout (:func:`_rows_layout`)."""
        if _ranks_are(old_types, (2, 2)):
            nc = Layout.parse("NC")
            return InferredLayouts((nc, nc), (nc,))
        data = _rows_layout(old_layouts, old_types)
        if data is None:
            return None
        return InferredLayouts((data, Layout.parse("NC")), (data,))

    def alter_layout(
        self, target: str, operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's x86 ``_alter_dense_layout``: a dense with a static weight and data
        of rank 2 or more becomes ``contrib_dense_pack`` with the weight packed as ``NC{n}n``; ``n`` comes from
        :func:`~xrelay.lowering.cpu_layout.choose_dense_packing`."""
        if not layout_policy.current().is_cpu_target(target):
            return None
        shapes = _static_shapes(operand_types)
        if shapes is None or len(shapes[0]) < 2 or len(shapes[1]) != 2:
            return None
        n = layout_policy.current().choose_dense_packing(shapes[1][0], shapes[1][1])
        if n is None:
            return None
        return self.layout_variant(DensePackOp, {"weight_layout": f"NC{n}n"})

    def split_for_layout(self, target: str) -> tuple[list[Operation], SSAValue] | None:
        """A dense with a constant weight whose units no block divides, as the
        concatenation (along the last axis) of a dense over the leading units that
        blocks hold and one over the few units after them, each with its own slice
        of the weight (constants: split once, at build time), so that
        AlterOpLayout can pack the first
        (:func:`~xrelay.lowering.cpu_layout.choose_dense_split`); the new ops
        (to insert before this one, in order) and the value replacing its result.
        ``None``: not a CPU target, shapes not static, or nothing to split."""
        weight = self.weight.owner
        shapes = _static_shapes([self.data.type, self.weight.type])
        if (
            not layout_policy.current().is_cpu_target(target)
            or not isinstance(weight, ConstantOp)
            or shapes is None
            or len(shapes[0]) < 2
            or len(shapes[1]) != 2
        ):
            return None
        array = weight.numpy()
        split = layout_policy.current().choose_dense_split(
            *shapes[1], array.dtype.itemsize
        )
        if split is None:
            return None
        ops: list[Operation] = []
        parts: list[SSAValue] = []
        for lo, hi in ((0, split), (split, shapes[1][0])):
            const = ConstantOp(np.ascontiguousarray(array[lo:hi]))
            attrs: dict[str, object] = {"out_dtype": self.out_dtype}
            if self.units is not None:
                attrs["units"] = hi - lo
            dense = DenseOp.make([self.data, const.result], attrs)
            ops += [const, dense]
            parts.append(dense.result)
        cat = ConcatenateOp.make(parts, {"axis": len(shapes[0]) - 1})
        return [*ops, cat], cat.result


@irdl_op_definition
class DensePackOp(RelayOp):
    """``data @ unpack(weight).T`` with the weight packed in ``weight_layout``
    ``NC{n}n``: ``[units/n, K, n]`` where ``unpack`` gives ``[units, K]``. ``data`` is
    ``[..., K]`` (rank 2 or more, as Relay's ``DensePackRel`` allows); the result
    ``[..., units]``. Made by AlterOpLayout on CPUs (Relay's
    ``nn.contrib_dense_pack``)."""

    name = "relay.nn.contrib_dense_pack"
    data = operand_def(ANY_TENSOR)
    weight = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    weight_layout = str_prop()
    units = opt_int_prop()
    out_dtype = opt_dtype_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.ALWAYS

    def packing(self) -> tuple[Layout, int]:
        """The weight layout and its packing factor ``n``."""
        text = get_str(self.weight_layout)
        layout = layout_of(text)
        if (
            layout is None
            or layout.ndim != 3
            or layout.axes[:2] != (LayoutAxis("N"), LayoutAxis("C"))
            or layout.axes[2].letter != "n"
        ):
            raise TypeRelationError(
                f"weight_layout '{text}' is not supported (expected NC{{n}}n, e.g. "
                "NC16n)"
            )
        return layout, layout.factor_of("n")

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data, weight = (
            ranked(operand_types[0], "data"),
            ranked(operand_types[1], "weight"),
        )
        layout, n = self.packing()
        ds, ws = data.get_shape(), weight.get_shape()
        if len(ds) < 2:
            raise TypeRelationError(
                f"data must be [..., M, K] (rank 2 or more), got {shape_str(ds)}"
            )
        if len(ws) != 3 or not _dims_agree(ws[2], n):
            raise TypeRelationError(
                f"weight must be [units/{n}, K, {n}] for weight_layout '{layout}', got "
                f"{shape_str(ws)}"
            )
        if not _dims_agree(ds[-1], ws[1]):
            raise TypeRelationError(
                f"data's last dimension {ds[-1]} does not match the weight's K {ws[1]}"
            )
        units = DYN if ws[0] == DYN else ws[0] * n
        _check_units(self.units, units)
        elem = _out_elem(self.out_dtype, [data, weight], ["data", "weight"])
        return [tensor((*ds[:-1], units), elem)]

    def compute(self, *args: Any) -> Any:
        layout, _ = self.packing()
        npd = _np_out(self.out_dtype, args[0])
        x = args[0].astype(npd, copy=False)
        wt = transform_array(args[1], layout, "NC").astype(npd, copy=False)
        return np.matmul(x, wt.T)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``DensePackInferCorrectLayout``: data in ``NC``, the weight in
        ``weight_layout``, result in ``NC``; N-D data keeps its original plain layout
        (:func:`_rows_layout`)."""
        weight = layout_of(get_str(self.weight_layout))
        if weight is None:
            return None
        if _ranks_are(old_types[:1], (2,)):
            nc = Layout.parse("NC")
            return InferredLayouts((nc, weight), (nc,))
        data = _rows_layout(old_layouts, old_types)
        if data is None:
            return None
        return InferredLayouts((data, weight), (data,))


@irdl_op_definition
class MatmulOp(RelayOp):
    """``op(a) @ op(b)`` where ``op`` transposes the last two dims when
    ``transpose_a`` / ``transpose_b`` is set; ``b`` is a matrix. The result is
    ``a.shape[:-2] + [M, N]``."""

    name = "relay.nn.matmul"
    tensor_a = operand_def(ANY_TENSOR)
    tensor_b = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    units = opt_int_prop()
    out_dtype = opt_dtype_prop()
    transpose_a = bool_prop(False)
    transpose_b = bool_prop(False)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.ALWAYS

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        a, b = (
            ranked(operand_types[0], "tensor_a"),
            ranked(operand_types[1], "tensor_b"),
        )
        sa, sb = list(a.get_shape()), b.get_shape()
        ta, tb = get_bool(self.transpose_a), get_bool(self.transpose_b)
        if len(sa) < (2 if ta else 1):
            raise TypeRelationError(
                f"tensor_a must have rank >= {2 if ta else 1}, got {shape_str(sa)}"
            )
        if len(sb) != 2:
            raise TypeRelationError(
                f"tensor_b must be a matrix, got shape {shape_str(sb)}"
            )
        ka = sa[-2] if ta else sa[-1]
        kb, nb = (sb[1], sb[0]) if tb else (sb[0], sb[1])
        if not _dims_agree(ka, kb):
            raise TypeRelationError(
                f"reduction dimensions differ: tensor_a {shape_str(sa)} gives {ka}, "
                f"tensor_b {shape_str(sb)} gives {kb}"
            )
        _check_units(self.units, nb)
        if ta:
            sa[-2] = sa[-1]
        sa[-1] = nb
        elem = _out_elem(self.out_dtype, [a, b], ["tensor_a", "tensor_b"])
        return [tensor(sa, elem)]

    def compute(self, *args: Any) -> Any:
        npd = _np_out(self.out_dtype, args[0])
        a, b = args[0].astype(npd, copy=False), args[1].astype(npd, copy=False)
        if get_bool(self.transpose_a):
            a = np.swapaxes(a, -1, -2)
        if get_bool(self.transpose_b):
            b = b.T
        return np.matmul(a, b)

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """As ``dense`` (data ``NC``, or its plain N-D layout), with ``tensor_b`` in
        ``NC`` when it is transposed and ``CN`` otherwise; none with
        ``transpose_a``."""
        if get_bool(self.transpose_a) or not _ranks_are(old_types[1:], (2,)):
            return None
        weight = Layout.parse("NC" if get_bool(self.transpose_b) else "CN")
        if _ranks_are(old_types[:1], (2,)):
            nc = Layout.parse("NC")
            return InferredLayouts((nc, weight), (nc,))
        data = _rows_layout(old_layouts, old_types)
        if data is None:
            return None
        return InferredLayouts((data, weight), (data,))

    def alter_layout(
        self, target: str, operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """``a @ b`` with static shapes, ``a`` of rank 2 or more and not transposed,
        becomes ``contrib_dense_pack`` as a dense does (``b`` packed ``NC{n}n``, from
        ``CN`` when it is not transposed)."""
        if not layout_policy.current().is_cpu_target(target) or get_bool(
            self.transpose_a
        ):
            return None
        shapes = _static_shapes(operand_types)
        if shapes is None or len(shapes[0]) < 2 or len(shapes[1]) != 2:
            return None
        k, units = shapes[1] if not get_bool(self.transpose_b) else shapes[1][::-1]
        n = layout_policy.current().choose_dense_packing(units, k)
        if n is None:
            return None
        return self.layout_variant(DensePackOp, {"weight_layout": f"NC{n}n"})


@irdl_op_definition
class BatchMatmulOp(RelayOp):
    """Batched ``op(x) @ op(y)`` on rank-3 tensors: ``x [B, M, K]`` (``[B, K, M]`` with
    ``transpose_a``), ``y [B, N, K]`` with ``transpose_b`` (the default) else
    ``[B, K, N]``; a batch of 1 broadcasts. Result ``[max(Bx, By), M, N]``."""

    name = "relay.nn.batch_matmul"
    tensor_a = operand_def(ANY_TENSOR)
    tensor_b = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    out_dtype = opt_dtype_prop()
    transpose_a = bool_prop(False)
    transpose_b = bool_prop(True)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.ALWAYS

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        """``qnn.batch_matmul``, per-tensor operands."""
        return fq.integer_product(
            rewrite,
            "relay.qnn.batch_matmul",
            fq.attrs_of(self, ["out_dtype"]),
            None,
            -1,
        )

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, y = (
            ranked(operand_types[0], "tensor_a"),
            ranked(operand_types[1], "tensor_b"),
        )
        sx, sy = x.get_shape(), y.get_shape()
        if len(sx) != 3 or len(sy) != 3:
            raise TypeRelationError(
                f"batch_matmul needs rank-3 operands, got {shape_str(sx)} and "
                f"{shape_str(sy)}"
            )
        ta, tb = get_bool(self.transpose_a), get_bool(self.transpose_b)
        m, k = (sx[2], sx[1]) if ta else (sx[1], sx[2])
        ky, n = (sy[2], sy[1]) if tb else (sy[1], sy[2])
        bx, by = sx[0], sy[0]
        if not (_dims_agree(bx, by) or bx == 1 or by == 1):
            raise TypeRelationError(f"batch dimensions {bx} and {by} do not broadcast")
        if not _dims_agree(k, ky):
            raise TypeRelationError(
                f"reduction dimensions differ: {k} (tensor_a {shape_str(sx)}) vs {ky} "
                f"(tensor_b {shape_str(sy)})"
            )
        batch = DYN if DYN in (bx, by) else max(bx, by)
        elem = _out_elem(self.out_dtype, [x, y], ["tensor_a", "tensor_b"])
        return [tensor((batch, m, n), elem)]

    def compute(self, *args: Any) -> Any:
        npd = _np_out(self.out_dtype, args[0])
        x, y = args[0].astype(npd, copy=False), args[1].astype(npd, copy=False)
        if get_bool(self.transpose_a):
            x = np.swapaxes(x, 1, 2)
        if get_bool(self.transpose_b):
            y = np.swapaxes(y, 1, 2)
        return np.matmul(x, y)


# ---------------------------------------------------------------------------------------
# Softmax family
# ---------------------------------------------------------------------------------------


class SoftmaxBase(RelayOp):
    """A normalisation along ``axis`` of a floating-point tensor; same type."""

    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(-1)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.NEVER

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        if not is_float(x.get_element_type()):
            raise TypeRelationError(f"data must be a floating-point tensor, got {x}")
        normalize_axis(get_int(self.axis), len(x.get_shape()))
        return [x]

    def shifted(self, x: Array) -> tuple[Array, int]:
        """``x - max(x)`` along the axis (so ``exp`` cannot overflow), and the axis."""
        axis = normalize_axis(get_int(self.axis), x.ndim)
        return x - np.max(x, axis=axis, keepdims=True), axis


@irdl_op_definition
class SoftmaxOp(SoftmaxBase):
    """``exp(x) / sum(exp(x))`` along ``axis`` (computed as ``exp(x - max)``)."""

    name = "relay.nn.softmax"

    def compute(self, *args: Any) -> Any:
        shifted, axis = self.shifted(args[0])
        e = np.exp(shifted)
        return e / np.sum(e, axis=axis, keepdims=True)


@irdl_op_definition
class FastSoftmaxOp(SoftmaxBase):
    """Softmax with an approximate ``exp`` (FastMath); the reference semantics are
    exact."""

    name = "relay.nn.fast_softmax"

    def compute(self, *args: Any) -> Any:
        shifted, axis = self.shifted(args[0])
        e = np.exp(shifted)
        return e / np.sum(e, axis=axis, keepdims=True)


@irdl_op_definition
class LogSoftmaxOp(SoftmaxBase):
    """``x - log(sum(exp(x)))`` along ``axis`` (computed as ``s - log(sum(exp(s)))``
    with ``s = x - max``)."""

    name = "relay.nn.log_softmax"

    def compute(self, *args: Any) -> Any:
        shifted, axis = self.shifted(args[0])
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


# ---------------------------------------------------------------------------------------
# Dropout, batch_flatten, pad
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class DropoutOp(RelayOp):
    """Dropout with probability ``rate``. Two results of the data's type: the output and
    the mask. At inference (the reference semantics) the output is ``data`` and the mask
    all ones."""

    name = "relay.nn.dropout"
    data = operand_def(ANY_TENSOR)
    output = result_def(ANY_TENSOR)
    mask = result_def(ANY_TENSOR)
    rate = float_prop(0.5)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    STATEFUL: ClassVar[bool] = True
    """Relay marks dropout stateful (training draws a random mask): FoldConstant and
    CSE leave it alone; SimplifyInference removes it for inference."""

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        rate = get_float(self.rate)
        if not 0.0 <= rate <= 1.0:
            raise TypeRelationError(f"rate must be in [0, 1], got {rate}")
        return [x, x]

    def compute(self, *args: Any) -> Any:
        x = args[0]
        return (x, np.ones_like(x))

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Element-wise: output and mask follow the input's layout."""
        return elementwise_layouts(new_layouts, old_layouts, n_outputs=2)


@irdl_op_definition
class BatchFlattenOp(RelayOp):
    """``data`` reshaped to ``[N, prod(shape[1:])]``."""

    name = "relay.nn.batch_flatten"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    RELAYOUT: ClassVar[bool] = True
    KEEPS_QUANTIZATION: ClassVar[bool] = True

    def fake_quantize(self, rewrite: fq.FakeQuantRewrite) -> fq.Quantized | None:
        return fq.same_op(rewrite, per_tensor_only=True)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        shape = x.get_shape()
        if len(shape) < 1:
            raise TypeRelationError("data must have rank >= 1, got a 0-d tensor")
        rest = shape[1:]
        flat = DYN if DYN in rest else int(np.prod(rest, dtype=np.int64))
        return [tensor((shape[0], flat), x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        x = args[0]
        return x.reshape(x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64)))


PAD_MODES = ("constant", "edge", "reflect")


@irdl_op_definition
class PadOp(RelayOp):
    """``data`` padded by ``pad_width`` (flattened ``before0, after0, before1, ...``).

    ``pad_mode``: ``constant`` fills with the 0-d ``pad_value``; ``edge`` repeats the
    border element; ``reflect`` mirrors without repeating the border (each width must
    be smaller than the dimension).
    """

    name = "relay.nn.pad"
    data = operand_def(ANY_TENSOR)
    pad_value = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    pad_width = ints_prop()
    pad_mode = str_prop("constant")
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def widths(self, rank: int) -> list[tuple[int, int]]:
        flat = get_ints(self.pad_width)
        if len(flat) != 2 * rank:
            raise TypeRelationError(
                f"pad_width has {len(flat)} values but a rank-{rank} tensor needs "
                f"{2 * rank} (a before/after pair per axis)"
            )
        if any(v < 0 for v in flat):
            raise TypeRelationError(f"pad_width must be non-negative, got {list(flat)}")
        return [(flat[2 * k], flat[2 * k + 1]) for k in range(rank)]

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        value = ranked(operand_types[1], "pad_value")
        if value.get_shape():
            raise TypeRelationError(f"pad_value must be a 0-d tensor, got {value}")
        same_elem([x, value], ["data", "pad_value"])
        mode = get_str(self.pad_mode)
        if mode not in PAD_MODES:
            raise TypeRelationError(
                f"pad_mode '{mode}' is not one of {', '.join(PAD_MODES)}"
            )
        shape = x.get_shape()
        out: list[int] = []
        for axis, (size, (before, after)) in enumerate(
            zip(shape, self.widths(len(shape)), strict=True)
        ):
            if size != DYN and mode == "reflect" and max(before, after) >= max(size, 1):
                raise TypeRelationError(
                    f"reflect padding ({before}, {after}) of axis {axis} must be smaller "
                    f"than its size {size}"
                )
            if size == 0 and mode == "edge" and before + after > 0:
                raise TypeRelationError(f"cannot edge-pad the empty axis {axis}")
            out.append(DYN if size == DYN else size + before + after)
        return [tensor(out, x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        x, value = args[0], args[1]
        if x.ndim == 0:  # nothing to pad (np.pad rejects an empty pad_width)
            return x.copy()
        widths = np.asarray(self.widths(x.ndim), dtype=np.int64)
        mode = get_str(self.pad_mode)
        if mode == "constant":
            return np.pad(x, widths, mode="constant", constant_values=np.asarray(value))
        return np.pad(x, widths, mode="edge" if mode == "edge" else "reflect")

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``PadInferCorrectLayout``: ``pad_width`` follows the axes into the
        producer's new layout, unless a padded axis is split there (then the data goes
        back to its original layout); ``pad_value`` is a scalar."""
        old = old_layouts[0]
        if old is None or not isinstance(old_types[0], TensorType):
            return None
        rank = len(old_types[0].get_shape())
        if old.ndim != rank:
            return None
        try:
            widths = self.widths(rank)
        except TypeRelationError:
            return None
        keep = InferredLayouts((old, SCALAR), (old,))
        if new_layouts is None or new_layouts[0] is None or new_layouts[0] == old:
            return keep
        new = new_layouts[0]
        by_letter = {a.letter: w for a, w in zip(old.axes, widths, strict=True)}
        new_widths: list[int] = []
        for a in new.axes:
            if a.is_primal and a.letter in by_letter:
                new_widths += by_letter[a.letter]
                continue
            width = by_letter.get(a.primal_letter)
            if width is None:
                return None
            if width != (0, 0):  # a padded axis is split: keep the original layout
                return keep
            new_widths += (0, 0)
        return InferredLayouts((new, SCALAR), (new,), {"pad_width": new_widths})


NN_OPS: list[type[RelayOp]] = [
    Conv2DOp,
    Conv2DTransposeOp,
    DenseOp,
    MatmulOp,
    BatchMatmulOp,
    SoftmaxOp,
    LogSoftmaxOp,
    FastSoftmaxOp,
    DropoutOp,
    BatchFlattenOp,
    PadOp,
]

CONTRIB_NN_OPS: list[type[RelayOp]] = [Conv2DNCHWcOp, DensePackOp]
"""Ops only AlterOpLayout (or ConvertLayout with blocked layouts) makes: Relay's
``nn.contrib_conv2d_NCHWc`` and ``nn.contrib_dense_pack``."""
