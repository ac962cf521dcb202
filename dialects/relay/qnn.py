"""Relay's QNN dialect as ``relay.qnn.*`` ops: quantize, dequantize, requantize, the
integer convolution / dense / batch_matmul, the quantized add / subtract / mul, and
the quantized concatenate and average pooling (:data:`QNN_OPS`).

As in TVM, scales and zero points are *operands*: a scale is a float32 tensor, a zero
point an int32 tensor, each either per-tensor (a 0-d tensor, or a 1-D tensor of one
element) or per-channel (a 1-D tensor as long as the channel axis, ``axis``, of the
tensor it describes). Quantized tensors are ``int8``, ``uint8``, ``int16`` or
``int32``.

The numerics are onnxruntime's integer arithmetic (see
:mod:`~xrelay.dialects.relay.qnn_numerics` and ``docs/decisions.md``): quantize is
``saturate(round_half_even(x / scale) + zero_point)`` in float32 (ONNX
``QuantizeLinear``); the integer convolution / products accumulate ``(x - zp_x) * (w -
zp_w)`` in int32 (padding contributes zero, as padding with the input zero point does);
requantize is ``saturate(round_half_even(float32(x - zp_in) * float32(s_in / s_out)) +
zp_out)``, the float multiplier rule of onnxruntime's ``QLinearConv`` /
``QLinearMatMul`` (``MlasRequantizeOutput``), not TVM's fixed-point multiply: the
reference the models are checked against is onnxruntime, and a QDQ model's
``DequantizeLinear -> op -> QuantizeLinear`` is defined in float32.

The ops are ``OPAQUE`` for fusion: ``relay.qnn.transform.CanonicalizeOps`` (run by
``xrelay.build``) rewrites them into integer and float relay ops before FuseOps, as
Relay's ``QnnCanonicalize``. :class:`QnnOp` marks them (FoldConstant folds them only
with ``fold_qnn=True``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)

from xrelay.dialects.relay import dtypes
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
    get_int,
    get_str,
    int_prop,
    ints_prop,
    normalize_axis,
    opt_int_prop,
    opt_ints_prop,
    ranked,
    shape_str,
    str_prop,
    tensor,
)
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    LayoutConversionError,
    MaybeLayout,
    broadcast_layouts,
)
from xrelay.dialects.relay.nn import (
    BatchMatmulOp,
    Conv2DOp,
    Conv2DTransposeOp,
    DenseOp,
    PaddedOp,
)
from xrelay.dialects.relay.pooling import AvgPool2DOp
from xrelay.dialects.relay.qnn_canonical import (
    GENERAL,
    QnnBuilder,
    bounded_plan,
    properties_of,
    quantize_plan,
)
from xrelay.dialects.relay.qnn_correction import corrected_product
from xrelay.dialects.relay.qnn_layout import (
    axis_following,
    binary_axes,
    head,
    with_params,
)
from xrelay.dialects.relay.qnn_numerics import (
    ROUNDING_MODES,
    along,
    centered,
    requantize_values,
    saturate_round,
    scale_ratio,
)
from xrelay.dialects.relay.transform import ConcatenateOp

QUANTIZED_DTYPES = ("int8", "uint8", "int16", "int32")
"""The element types of quantized tensors."""

MULTIPLY_DTYPES = ("int8", "uint8", "int16")
"""The operand types of the integer convolution and products (int32 accumulation)."""

I32 = IntegerType(32)


def dtype_default(name: str) -> TypeAttribute:
    """An element-type attribute with a default (``out_dtype = i8``)."""
    return prop_def(TypeAttribute, cast(TypeAttribute, dtypes.element_type(name)))


def elem_name(ty: TensorType) -> str:
    return dtypes.dtype_name(ty.get_element_type())


def check_dtype(ty: TensorType, allowed: Sequence[str], what: str) -> str:
    """The dtype name of ``ty``; raise unless it is one of ``allowed``."""
    name = elem_name(ty)
    if name not in allowed:
        raise TypeRelationError(
            f"{what} must be {_one_of(allowed)}, got {ty.get_element_type()}"
        )
    return name


def check_out_dtype(out: Attribute, allowed: Sequence[str]) -> str:
    name = dtypes.dtype_name(out)
    if name not in allowed:
        raise TypeRelationError(f"out_dtype must be {_one_of(allowed)}, got {out}")
    return name


def _one_of(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def check_param(
    ty: Attribute,
    what: str,
    dtype: str,
    channels: int | None = None,
    where: str = "",
) -> int:
    """Check a scale (``dtype="float32"``) or zero point (``"int32"``) operand.

    It must be a 0-d tensor or a 1-D tensor of one element (per-tensor) or, when
    ``channels`` is given, of ``channels`` elements (per-channel along ``where``).
    Returns its length (1 for per-tensor).
    """
    t = ranked(ty, what)
    if elem_name(t) != dtype:
        raise TypeRelationError(f"{what} must be {dtype}, got {t.get_element_type()}")
    shape = t.get_shape()
    if not shape:
        return 1
    if len(shape) != 1:
        kind = "a scalar or a 1-D tensor" if channels is not None else "a scalar"
        raise TypeRelationError(f"{what} must be {kind}, got shape {shape_str(shape)}")
    n = shape[0]
    if n == 1:
        return 1
    if channels is None:
        raise TypeRelationError(
            f"{what} must be a scalar (per-tensor), got shape {shape_str(shape)}"
        )
    if DYN not in (n, channels) and n != channels:
        raise TypeRelationError(
            f"{what} has {n} elements but {where} has {channels} channels"
        )
    return n


def channel_count(shape: Sequence[int], axis: int, what: str) -> tuple[int, int]:
    """``(axis in [0, rank), its extent)`` of a tensor described per channel."""
    if not shape:
        raise TypeRelationError(f"{what} is a 0-d tensor: it has no channel axis")
    k = normalize_axis(axis, len(shape))
    return k, shape[k]


class QnnOp(RelayOp):
    """Base class of the QNN ops (see the module docstring)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    assembly_format = FORMAT
    LOWERING_HINT: ClassVar[str] = (
        "run qnn-canonicalize (relay.qnn.transform.CanonicalizeOps) first, as "
        "xrelay.build does"
    )

    def params_per_axis(
        self,
        data: TensorType,
        axis: int,
        params: Sequence[tuple[Attribute, str, str]],
    ) -> None:
        """Check ``(type, name, dtype)`` parameters that may be per-channel along
        ``axis`` of ``data``."""
        shape = data.get_shape()
        if not shape:  # a 0-d tensor: per-tensor parameters only
            for ty, what, dtype in params:
                check_param(ty, what, dtype)
            return
        k, c = channel_count(shape, axis, "data")
        for ty, what, dtype in params:
            check_param(ty, what, dtype, c, f"axis {k} of data")

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        """This op as integer and float relay ops inserted before it by ``b``
        (Relay's ``FTVMQnnCanonicalize``), computing exactly what :meth:`compute`
        does; returns the value replacing the result. The operand types are
        known (ranked)."""
        raise NotImplementedError(f"{self.name} has no canonical form")

    def legalize(self, b: QnnBuilder) -> SSAValue | None:
        """This op rewritten into the form the kernels run fastest (Relay's
        ``FTVMQnnLegalize``), inserted before it by ``b``; ``None``: left as it is.
        The integer convolution and products center 8-bit operands into int16
        (``relay.qnn.transform.Legalize``)."""
        return None

    def along_axis(
        self, b: QnnBuilder, data: SSAValue, axis: int, params: Sequence[SSAValue]
    ) -> list[SSAValue]:
        rank = len(b.shape_of(data))
        return [b.along(p, rank, axis) for p in params]


# ---------------------------------------------------------------------------------------
# quantize, dequantize, requantize
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class QuantizeOp(QnnOp):
    """``saturate(round_half_even(data / output_scale) + output_zero_point)``, the
    float32 division and the rounding of ONNX ``QuantizeLinear`` (onnxruntime's
    ``MlasQuantizeLinear``): ``2.5 -> 2``, ``3.5 -> 4``. ``data`` is float32; the scale
    and zero point are per-tensor or per-channel along ``axis``; the result is
    ``out_dtype`` (int8, uint8, int16 or int32)."""

    name = "relay.qnn.quantize"
    data = operand_def(ANY_TENSOR)
    output_scale = operand_def(ANY_TENSOR)
    output_zero_point = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(-1)
    out_dtype = dtype_default("int8")

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data = ranked(operand_types[0], "data")
        check_dtype(data, ("float32",), "data")
        out = check_out_dtype(self.out_dtype, QUANTIZED_DTYPES)
        self.params_per_axis(
            data,
            get_int(self.axis),
            [
                (operand_types[1], "output_scale", "float32"),
                (operand_types[2], "output_zero_point", "int32"),
            ],
        )
        return [tensor(data.get_shape(), dtypes.element_type(out))]

    def compute(self, *args: Any) -> Any:
        x = np.asarray(args[0], np.float32)
        rank, axis = x.ndim, get_int(self.axis)
        scale = along(args[1], rank, axis).astype(np.float32)
        zp = along(args[2], rank, axis)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            v = x / scale
        return saturate_round(v, zp, dtypes.numpy_dtype(self.out_dtype))

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        scale, zp = self.along_axis(
            b,
            self.data,
            get_int(self.axis),
            [self.output_scale, self.output_zero_point],
        )
        v = b.divide(self.data, scale)
        dtype = dtypes.dtype_name(self.out_dtype)
        plan = quantize_plan(dtype, b.int_range(zp))
        return b.saturate_round(v, zp, dtype, plan=plan)


@irdl_op_definition
class DequantizeOp(QnnOp):
    """``float32(data - input_zero_point) * input_scale`` (ONNX ``DequantizeLinear``:
    the difference in int32, then one float32 multiply). The scale and zero point are
    per-tensor or per-channel along ``axis``; ``out_dtype`` is float32."""

    name = "relay.qnn.dequantize"
    data = operand_def(ANY_TENSOR)
    input_scale = operand_def(ANY_TENSOR)
    input_zero_point = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(-1)
    out_dtype = dtype_default("float32")

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data = ranked(operand_types[0], "data")
        check_dtype(data, QUANTIZED_DTYPES, "data")
        out = check_out_dtype(self.out_dtype, ("float32",))
        self.params_per_axis(
            data,
            get_int(self.axis),
            [
                (operand_types[1], "input_scale", "float32"),
                (operand_types[2], "input_zero_point", "int32"),
            ],
        )
        return [tensor(data.get_shape(), dtypes.element_type(out))]

    def compute(self, *args: Any) -> Any:
        x = np.asarray(args[0])
        rank, axis = x.ndim, get_int(self.axis)
        diff = centered(x, along(args[2], rank, axis))
        return diff.astype(np.float32) * along(args[1], rank, axis).astype(np.float32)

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        scale, zp = self.along_axis(
            b, self.data, get_int(self.axis), [self.input_scale, self.input_zero_point]
        )
        return b.multiply(b.cast(b.centered(self.data, zp), "float32"), scale)


@irdl_op_definition
class RequantizeOp(QnnOp):
    """``data`` from ``(input_scale, input_zero_point)`` to ``(output_scale,
    output_zero_point)`` in ``out_dtype``: ``saturate(round(float32(data -
    input_zero_point) * float32(input_scale / output_scale)) + output_zero_point)``,
    onnxruntime's ``MlasRequantizeOutput`` with the multiplier computed in float32
    (``QLinearConv``'s ``x_scale * w_scale / y_scale`` when ``input_scale`` is the
    product of the two). ``rounding`` ``"None"`` (the default) rounds ties to even as
    onnxruntime; ``"UPWARD"`` rounds ties toward +inf and ``"TONEAREST"`` away from zero
    (TVM's names). Every parameter is per-tensor or per-channel along ``axis``."""

    name = "relay.qnn.requantize"
    data = operand_def(ANY_TENSOR)
    input_scale = operand_def(ANY_TENSOR)
    input_zero_point = operand_def(ANY_TENSOR)
    output_scale = operand_def(ANY_TENSOR)
    output_zero_point = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(-1)
    rounding = str_prop("None")
    out_dtype = dtype_default("int8")

    def rounding_mode(self) -> str:
        mode = get_str(self.rounding)
        if mode not in ROUNDING_MODES:
            raise TypeRelationError(
                f"rounding must be {_one_of([repr(m) for m in ROUNDING_MODES])}, got "
                f"{mode!r}"
            )
        return mode

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data = ranked(operand_types[0], "data")
        check_dtype(data, QUANTIZED_DTYPES, "data")
        out = check_out_dtype(self.out_dtype, QUANTIZED_DTYPES)
        self.rounding_mode()
        self.params_per_axis(
            data,
            get_int(self.axis),
            [
                (operand_types[1], "input_scale", "float32"),
                (operand_types[2], "input_zero_point", "int32"),
                (operand_types[3], "output_scale", "float32"),
                (operand_types[4], "output_zero_point", "int32"),
            ],
        )
        return [tensor(data.get_shape(), dtypes.element_type(out))]

    def compute(self, *args: Any) -> Any:
        x = np.asarray(args[0])
        rank, axis = x.ndim, get_int(self.axis)
        p = [along(a, rank, axis) for a in args[1:]]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return requantize_values(
                centered(x, p[1]),
                scale_ratio(p[0], p[2]),
                p[3],
                dtypes.numpy_dtype(self.out_dtype),
                self.rounding_mode(),
            )

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``RequantizeInferCorrectLayout``: the data follows its producer
        and ``axis`` moves with it (see
        :func:`~xrelay.dialects.relay.qnn_layout.axis_following`)."""
        return axis_following(
            new_layouts, old_layouts, old_types[0], get_int(self.axis), old_types[1:]
        )

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        s_in, z_in, s_out, z_out = self.along_axis(
            b, self.data, get_int(self.axis), self.operands[1:]
        )
        return b.requantize(
            b.centered(self.data, z_in),
            b.divide(s_in, s_out),
            z_out,
            dtypes.dtype_name(self.out_dtype),
            self.rounding_mode(),
        )


# ---------------------------------------------------------------------------------------
# Integer convolution and products
# ---------------------------------------------------------------------------------------


def _int32_like(ty: TensorType) -> TensorType:
    return tensor(ty.get_shape(), I32)


def _check_multiply_operands(
    a: TensorType, b: TensorType, names: tuple[str, str]
) -> None:
    check_dtype(a, MULTIPLY_DTYPES, names[0])
    check_dtype(b, MULTIPLY_DTYPES, names[1])


def _check_int32_out(out: Attribute) -> None:
    check_out_dtype(out, ("int32",))


class QnnProductOp(QnnOp):
    """A product of two integer operands (operands 0 and 1) centered by their zero
    points (operands 2 and 3), accumulated in ``out_dtype`` by the relay op
    :attr:`PRODUCT`, whose attributes this op shares."""

    PRODUCT: ClassVar[type[RelayOp]]

    def product(self) -> RelayOp:
        """The :attr:`PRODUCT` op (detached, no operands) this op accumulates with."""
        return self.layout_variant(self.PRODUCT)

    def compute(self, *args: Any) -> Any:
        a = centered(np.asarray(args[0]), np.asarray(args[2]).reshape(()))
        b = centered(np.asarray(args[1]), np.asarray(args[3]).reshape(()))
        return self.product().compute(a, b)

    def legalize(self, b: QnnBuilder) -> SSAValue | None:
        corrected = corrected_product(b, self)
        if corrected is not None:
            return corrected
        return b.legalize_product(self, (0, 1))

    def weight_sums(self, weight: Array) -> Array | None:
        """The sums of the constant operand 1 (``weight``, its zero point
        subtracted) over the reduction axis, shaped to broadcast against the result
        (the correction of a run-time zero point of operand 0:
        :mod:`~xrelay.dialects.relay.qnn_correction`); ``None`` when the product
        cannot take that correction."""
        return None

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        lhs = b.product_operand(self.operands[0], b.scalar(self.operands[2]))
        rhs = b.product_operand(self.operands[1], b.scalar(self.operands[3]))
        attrs = properties_of(self, self.PRODUCT)
        if b.dtype_of(lhs) != "int32" or b.dtype_of(rhs) != "int32":
            attrs["out_dtype"] = self.properties["out_dtype"]
        return b.emit(self.PRODUCT, [lhs, rhs], attrs)


class QnnConvOp(QnnProductOp, PaddedOp):
    """The integer 2-D convolutions: :attr:`PRODUCT` (``nn.conv2d`` or
    ``nn.conv2d_transpose``, whose attributes the op has) of ``data -
    input_zero_point`` with ``kernel - kernel_zero_point``, accumulated in int32
    (``out_dtype``). Padding contributes zero (the input zero point, centered). The
    zero points are per-tensor; ``input_scale`` is per-tensor and ``kernel_scale``
    per-tensor or per output channel: they do not change the result, they tell the
    requantize that follows (``input_scale * kernel_scale``). Data and kernel are
    int8, uint8 or int16 (they may differ: u8 x s8)."""

    data = operand_def(ANY_TENSOR)
    kernel = operand_def(ANY_TENSOR)
    input_zero_point = operand_def(ANY_TENSOR)
    kernel_zero_point = operand_def(ANY_TENSOR)
    input_scale = operand_def(ANY_TENSOR)
    kernel_scale = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    strides = ints_prop((1, 1))
    padding = ints_prop((0, 0, 0, 0))
    dilation = ints_prop((1, 1))
    groups = int_prop(1)
    channels = opt_int_prop()
    kernel_size = opt_ints_prop()
    data_layout = str_prop("NCHW")
    out_layout = str_prop("")
    out_dtype = dtype_default("int32")
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data", "kernel")

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data = ranked(operand_types[0], "data")
        kernel = ranked(operand_types[1], "kernel")
        _check_multiply_operands(data, kernel, ("data", "kernel"))
        _check_int32_out(self.out_dtype)
        conv = self.product()
        out = cast(
            TensorType,
            conv.type_relation([_int32_like(data), _int32_like(kernel)])[0],
        )
        c_axis = (get_str(self.out_layout) or get_str(self.data_layout)).index("C")
        channels = out.get_shape()[c_axis]
        check_param(operand_types[2], "input_zero_point", "int32")
        check_param(operand_types[3], "kernel_zero_point", "int32")
        check_param(operand_types[4], "input_scale", "float32")
        check_param(operand_types[5], "kernel_scale", "float32", channels, "the output")
        return [out]

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``QnnConvInferCorrectLayout``: the float convolution's rule for
        data and kernel, ``C`` for the zero points and scales."""
        conv = self.product().infer_correct_layout(
            head(new_layouts, 2), old_layouts[:2], old_types[:2]
        )
        return with_params(conv, 4)

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``convert_qnn_conv2d`` / ``convert_qnn_conv2d_transpose``: as the
        float convolution (``"default"`` kernel layouts included); blocked layouts
        are not taken."""
        conv = self.product().convert_layout(desired, operand_types[:2])
        if conv is None:
            return None
        if type(conv) is not self.PRODUCT:
            raise LayoutConversionError(
                f"{self.name} cannot take the blocked data layout '{desired[0]}' "
                "(expected a permutation of NCHW)"
            )
        return self.layout_variant(
            updates={
                "data_layout": conv.properties["data_layout"],
                "kernel_layout": conv.properties["kernel_layout"],
            }
        )


@irdl_op_definition
class QnnConv2DOp(QnnConvOp):
    """``nn.conv2d`` of the centered operands in int32 (ONNX ``ConvInteger``, the
    accumulation of ``QLinearConv``; see :class:`QnnConvOp`)."""

    name = "relay.qnn.conv2d"
    kernel_layout = str_prop("OIHW")
    PRODUCT: ClassVar[type[RelayOp]] = Conv2DOp


@irdl_op_definition
class QnnConv2DTransposeOp(QnnConvOp):
    """``nn.conv2d_transpose`` of the centered operands in int32 (ONNX
    ``ConvTranspose`` between ``DequantizeLinear`` and ``QuantizeLinear``, as
    integers; see :class:`QnnConvOp`). The kernel is ``IOHW`` by default, the
    attributes are ``nn.conv2d_transpose``'s."""

    name = "relay.qnn.conv2d_transpose"
    kernel_layout = str_prop("IOHW")
    output_padding = ints_prop((0, 0))
    PRODUCT: ClassVar[type[RelayOp]] = Conv2DTransposeOp


@irdl_op_definition
class QnnDenseOp(QnnProductOp):
    """``nn.dense`` of ``data - input_zero_point`` with ``weight - kernel_zero_point``
    in int32 (ONNX ``MatMulInteger`` with a transposed ``B``). Zero points and
    ``input_scale`` are per-tensor, ``kernel_scale`` per-tensor or per unit."""

    name = "relay.qnn.dense"
    data = operand_def(ANY_TENSOR)
    weight = operand_def(ANY_TENSOR)
    input_zero_point = operand_def(ANY_TENSOR)
    kernel_zero_point = operand_def(ANY_TENSOR)
    input_scale = operand_def(ANY_TENSOR)
    kernel_scale = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    units = opt_int_prop()
    out_dtype = dtype_default("int32")
    PRODUCT: ClassVar[type[RelayOp]] = DenseOp

    def weight_sums(self, weight: Array) -> Array | None:
        return weight.sum(axis=-1) if weight.ndim == 2 else None

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data = ranked(operand_types[0], "data")
        weight = ranked(operand_types[1], "weight")
        _check_multiply_operands(data, weight, ("data", "weight"))
        _check_int32_out(self.out_dtype)
        out = cast(
            TensorType,
            self.product().type_relation([_int32_like(data), _int32_like(weight)])[0],
        )
        check_param(operand_types[2], "input_zero_point", "int32")
        check_param(operand_types[3], "kernel_zero_point", "int32")
        check_param(operand_types[4], "input_scale", "float32")
        check_param(
            operand_types[5], "kernel_scale", "float32", out.get_shape()[-1], "units"
        )
        return [out]


@irdl_op_definition
class QnnBatchMatmulOp(QnnProductOp):
    """``nn.batch_matmul`` of ``x - x_zero_point`` with ``y - y_zero_point`` in int32
    (``transpose_b`` by default, as Relay). Zero points and scales are per-tensor."""

    name = "relay.qnn.batch_matmul"
    x = operand_def(ANY_TENSOR)
    y = operand_def(ANY_TENSOR)
    x_zero_point = operand_def(ANY_TENSOR)
    y_zero_point = operand_def(ANY_TENSOR)
    x_scale = operand_def(ANY_TENSOR)
    y_scale = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    out_dtype = dtype_default("int32")
    transpose_a = bool_prop(False)
    transpose_b = bool_prop(True)
    PRODUCT: ClassVar[type[RelayOp]] = BatchMatmulOp

    def weight_sums(self, weight: Array) -> Array | None:
        if weight.ndim != 3:
            return None
        axis = 2 if get_bool(self.transpose_b) else 1
        return np.expand_dims(weight.sum(axis=axis), 1)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x, y = ranked(operand_types[0], "x"), ranked(operand_types[1], "y")
        _check_multiply_operands(x, y, ("x", "y"))
        _check_int32_out(self.out_dtype)
        out = self.product().type_relation([_int32_like(x), _int32_like(y)])
        check_param(operand_types[2], "x_zero_point", "int32")
        check_param(operand_types[3], "y_zero_point", "int32")
        check_param(operand_types[4], "x_scale", "float32")
        check_param(operand_types[5], "y_scale", "float32")
        return out


# ---------------------------------------------------------------------------------------
# Quantized elementwise arithmetic
# ---------------------------------------------------------------------------------------


class QnnBinaryOp(QnnOp):
    """``lhs`` and ``rhs`` (same quantized dtype, broadcasting) combined and requantized
    to ``(output_scale, output_zero_point)`` in their dtype. The input parameters are
    per-tensor or per-channel along ``lhs_axis`` / ``rhs_axis`` of their operand; the
    output parameters are per-tensor."""

    lhs = operand_def(ANY_TENSOR)
    rhs = operand_def(ANY_TENSOR)
    lhs_scale = operand_def(ANY_TENSOR)
    lhs_zero_point = operand_def(ANY_TENSOR)
    rhs_scale = operand_def(ANY_TENSOR)
    rhs_zero_point = operand_def(ANY_TENSOR)
    output_scale = operand_def(ANY_TENSOR)
    output_zero_point = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    lhs_axis = int_prop(-1)
    rhs_axis = int_prop(-1)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        lhs, rhs = ranked(operand_types[0], "lhs"), ranked(operand_types[1], "rhs")
        name = check_dtype(lhs, QUANTIZED_DTYPES, "lhs")
        if elem_name(rhs) != name:
            raise TypeRelationError(
                f"rhs has element type {rhs.get_element_type()} but lhs has "
                f"{lhs.get_element_type()}"
            )
        shape = broadcast_shapes(lhs.get_shape(), rhs.get_shape())
        for side, ty, axis in (
            ("lhs", lhs, self.lhs_axis),
            ("rhs", rhs, self.rhs_axis),
        ):
            k = 2 if side == "lhs" else 4
            self.params_per_axis_of(ty, get_int(axis), side, operand_types[k : k + 2])
        check_param(operand_types[6], "output_scale", "float32")
        check_param(operand_types[7], "output_zero_point", "int32")
        return [tensor(shape, lhs.get_element_type())]

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``QnnBinaryBroadcastLayout``: the broadcast rule for ``lhs`` and
        ``rhs``, ``C`` for the scales and zero points; a side with per-channel
        parameters moves its axis with its layout."""
        shapes = [
            tuple(t.get_shape()) if isinstance(t, TensorType) else ()
            for t in old_types[:2]
        ]
        inferred = broadcast_layouts(head(new_layouts, 2), old_layouts[:2], shapes)
        axes = (get_int(self.lhs_axis), get_int(self.rhs_axis))
        return binary_axes(inferred, old_layouts, old_types, axes)

    def params_per_axis_of(
        self, ty: TensorType, axis: int, side: str, params: Sequence[Attribute]
    ) -> None:
        shape = ty.get_shape()
        names = (f"{side}_scale", f"{side}_zero_point")
        dts = ("float32", "int32")
        if not shape:
            for p, what, dt in zip(params, names, dts, strict=True):
                check_param(p, what, dt)
            return
        k, c = channel_count(shape, axis, side)
        for p, what, dt in zip(params, names, dts, strict=True):
            check_param(p, what, dt, c, f"axis {k} of {side}")

    def operand_params(self, args: Sequence[Any], side: int) -> tuple[Array, Array]:
        """``(centered value, scale)`` of ``lhs`` (0) or ``rhs`` (1) broadcastable
        against it."""
        x = np.asarray(args[side])
        axis = get_int(self.lhs_axis if side == 0 else self.rhs_axis)
        scale = along(args[2 + 2 * side], max(x.ndim, 1), axis)
        zp = along(args[3 + 2 * side], max(x.ndim, 1), axis)
        if x.ndim == 0:
            scale, zp = scale.reshape(()), zp.reshape(())
        return centered(x, zp), scale

    def combine(self, args: Sequence[Any]) -> Array:
        """The float32 value to quantize with the output zero point."""
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            v = self.combine(args)
        return saturate_round(v, np.asarray(args[7]).reshape(()), args[0].dtype)

    def side(self, b: QnnBuilder, side: int) -> tuple[SSAValue, SSAValue]:
        """The canonical ``(centered value, scale)`` of ``lhs`` (0) or ``rhs`` (1)."""
        x = self.operands[side]
        axis = get_int(self.lhs_axis if side == 0 else self.rhs_axis)
        scale, zp = self.operands[2 + 2 * side], self.operands[3 + 2 * side]
        if not b.shape_of(x):
            scale, zp = b.scalar(scale), b.scalar(zp)
        else:
            scale, zp = self.along_axis(b, x, axis, [scale, zp])
        return b.centered(x, zp), scale

    def combine_canonical(self, b: QnnBuilder, out_scale: SSAValue) -> SSAValue:
        """The canonical form of :meth:`combine`."""
        raise NotImplementedError

    def value_bound(self, b: QnnBuilder) -> float | None:
        """A bound of ``|combine|`` over every value of the operands' type when the
        scales and zero points are constants (``None`` otherwise: the general
        rounding)."""
        return None

    def side_bound(self, b: QnnBuilder, side: int) -> tuple[float, Array] | None:
        """``(largest |x - zero_point|, |scale|)`` of ``lhs`` (0) or ``rhs`` (1) with
        constant parameters (``None`` otherwise)."""
        x = self.operands[side]
        span = b.centered_span(x, self.operands[3 + 2 * side])
        scale = b.constant_of(self.operands[2 + 2 * side])
        if span is None or scale is None or scale.size == 0:
            return None
        return span, np.abs(np.asarray(scale, np.float32))

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        v = self.combine_canonical(b, b.scalar(self.output_scale))
        dtype = b.dtype_of(self.lhs)
        zero_point = b.scalar(self.output_zero_point)
        plan = GENERAL
        bound = self.value_bound(b)
        if bound is not None and np.isfinite(bound):
            plan = bounded_plan(bound, b.constant_of(zero_point))
        return b.saturate_round(v, zero_point, dtype, plan=plan)


class QnnAddLikeOp(QnnBinaryOp):
    """Add or subtract: each side rescaled to the output scale in float32, combined
    once and rounded once (onnxruntime's ``QLinearAdd`` rule: ``round((s_a (a - z_a) +
    s_b (b - z_b)) / s_c)`` with the ratios ``s_a / s_c`` and ``s_b / s_c``)."""

    SIGN: ClassVar[float] = 1.0

    def combine(self, args: Sequence[Any]) -> Array:
        out_scale = np.asarray(args[6], np.float32).reshape(())
        a, sa = self.operand_params(args, 0)
        b, sb = self.operand_params(args, 1)
        va = a.astype(np.float32) * scale_ratio(sa, out_scale)
        vb = b.astype(np.float32) * scale_ratio(sb, out_scale)
        return va + vb if self.SIGN > 0 else va - vb

    def value_bound(self, b: QnnBuilder) -> float | None:
        out = b.constant_of(self.output_scale)
        sides = [self.side_bound(b, 0), self.side_bound(b, 1)]
        if out is None or out.size == 0:
            return None
        total = 0.0
        for found in sides:
            if found is None:
                return None
            span, scale = found
            total += span * float(np.max(scale_ratio(scale, np.abs(out))))
        return total

    def combine_canonical(self, b: QnnBuilder, out_scale: SSAValue) -> SSAValue:
        (a, sa), (c, sc) = self.side(b, 0), self.side(b, 1)
        va = b.multiply(b.cast(a, "float32"), b.divide(sa, out_scale))
        vc = b.multiply(b.cast(c, "float32"), b.divide(sc, out_scale))
        return b.add(va, vc) if self.SIGN > 0 else b.subtract(va, vc)


@irdl_op_definition
class QnnAddOp(QnnAddLikeOp):
    """Quantized ``lhs + rhs``: ``saturate(round(float32(lhs - z_l) * (s_l / s_o) +
    float32(rhs - z_r) * (s_r / s_o)) + z_o)`` (see :class:`QnnAddLikeOp`)."""

    name = "relay.qnn.add"


@irdl_op_definition
class QnnSubtractOp(QnnAddLikeOp):
    """Quantized ``lhs - rhs``, as :class:`QnnAddOp` with the difference."""

    name = "relay.qnn.subtract"
    SIGN: ClassVar[float] = -1.0


@irdl_op_definition
class QnnMulOp(QnnBinaryOp):
    """Quantized ``lhs * rhs``: the int32 product ``(lhs - z_l) * (rhs - z_r)``
    requantized with the multiplier ``float32(s_l * s_r) / s_o`` (as
    ``qnn.requantize``)."""

    name = "relay.qnn.mul"

    def combine(self, args: Sequence[Any]) -> Array:
        out_scale = np.asarray(args[6], np.float32).reshape(())
        a, sa = self.operand_params(args, 0)
        b, sb = self.operand_params(args, 1)
        product = a * b  # int32
        ratio = scale_ratio(np.asarray(sa, np.float32) * sb, out_scale)
        return product.astype(np.float32) * ratio

    def value_bound(self, b: QnnBuilder) -> float | None:
        out = b.constant_of(self.output_scale)
        lhs, rhs = self.side_bound(b, 0), self.side_bound(b, 1)
        if out is None or out.size == 0 or lhs is None or rhs is None:
            return None
        scales = np.max(lhs[1]) * np.max(rhs[1])  # float32, as the kernels
        ratio = float(np.max(scale_ratio(scales, np.abs(out))))
        return lhs[0] * rhs[0] * ratio

    def combine_canonical(self, b: QnnBuilder, out_scale: SSAValue) -> SSAValue:
        (a, sa), (c, sc) = self.side(b, 0), self.side(b, 1)
        ratio = b.divide(b.multiply(sa, sc), out_scale)
        return b.multiply(b.cast(b.multiply(a, c), "float32"), ratio)


# ---------------------------------------------------------------------------------------
# Concatenate and average pooling
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class QnnConcatenateOp(QnnOp):
    """The inputs, each requantized to ``(output_scale, output_zero_point)`` (an input
    with the output's parameters is copied unchanged), joined along ``axis``.

    Relay's tuple arguments are flattened into the operands: ``n`` inputs, their ``n``
    scales, their ``n`` zero points, then the output scale and zero point (``3n + 2``
    operands). All parameters are per-tensor.
    """

    name = "relay.qnn.concatenate"
    data = var_operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    axis = int_prop(0)

    @staticmethod
    def count(n_operands: int) -> int:
        if n_operands < 5 or (n_operands - 2) % 3:
            raise TypeRelationError(
                f"expected 3n + 2 operands (n inputs, n scales, n zero points, the "
                f"output scale and zero point) with n >= 1, got {n_operands}"
            )
        return (n_operands - 2) // 3

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        n = self.count(len(operand_types))
        inputs = [ranked(t, f"input #{i}") for i, t in enumerate(operand_types[:n])]
        name = check_dtype(inputs[0], QUANTIZED_DTYPES, "input #0")
        for i, ty in enumerate(inputs[1:], 1):
            if elem_name(ty) != name:
                raise TypeRelationError(
                    f"input #{i} has element type {ty.get_element_type()} but input #0 "
                    f"has {inputs[0].get_element_type()}"
                )
        for i in range(n):
            check_param(operand_types[n + i], f"input_scales #{i}", "float32")
            check_param(operand_types[2 * n + i], f"input_zero_points #{i}", "int32")
        check_param(operand_types[3 * n], "output_scale", "float32")
        check_param(operand_types[3 * n + 1], "output_zero_point", "int32")
        concat = self.layout_variant(ConcatenateOp)
        return concat.type_relation(inputs)

    def compute(self, *args: Any) -> Any:
        n = self.count(len(args))
        out_scale = np.asarray(args[3 * n], np.float32).reshape(())
        out_zp = np.asarray(args[3 * n + 1]).reshape(())
        dtype = np.asarray(args[0]).dtype
        parts: list[Array] = []
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for i in range(n):
                if self.is_copied(i, n):
                    parts.append(np.asarray(args[i]))
                    continue
                zp = np.asarray(args[2 * n + i]).reshape(())
                ratio = scale_ratio(np.asarray(args[n + i]).reshape(()), out_scale)
                acc = centered(np.asarray(args[i]), zp)
                parts.append(requantize_values(acc, ratio, out_zp, dtype, "None"))
        return np.concatenate(parts, axis=get_int(self.axis))

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``QnnConcatenateLayout``: ``concatenate``'s rule for the inputs
        (``axis`` follows them), ``C`` for the per-tensor scales and zero points."""
        try:
            n = self.count(len(old_types))
        except TypeRelationError:
            return None
        concat = self.layout_variant(ConcatenateOp).infer_correct_layout(
            head(new_layouts, n), old_layouts[:n], old_types[:n]
        )
        return with_params(concat, 2 * n + 2)

    def is_copied(self, i: int, n: int) -> bool:
        """Whether input ``i`` has the output's scale and zero point (the same
        values): it is then copied, not requantized."""
        ops = self.operands
        if len(ops) != 3 * n + 2:  # a detached op evaluated on its own
            return False
        return ops[n + i] is ops[3 * n] and ops[2 * n + i] is ops[3 * n + 1]

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        ops = self.operands
        n = self.count(len(ops))
        out_scale, out_zp = b.scalar(ops[3 * n]), b.scalar(ops[3 * n + 1])
        parts: list[SSAValue] = []
        for i in range(n):
            if self.is_copied(i, n):
                parts.append(ops[i])
                continue
            acc = b.centered(ops[i], b.scalar(ops[2 * n + i]))
            ratio = b.divide(b.scalar(ops[n + i]), out_scale)
            parts.append(b.requantize(acc, ratio, out_zp, b.dtype_of(ops[i])))
        return b.emit(ConcatenateOp, parts, {"axis": self.axis})


@irdl_op_definition
class QnnAvgPool2DOp(QnnOp, PaddedOp):
    """``nn.avg_pool2d`` (same attributes) of ``float32(data - input_zero_point)``,
    requantized to ``(output_scale, output_zero_point)``: ``saturate(round(avg *
    float32(input_scale / output_scale)) + output_zero_point)`` with ``avg`` the
    float32 window sum (exact) divided by the window count. Padding counts as the
    input zero point. Parameters are per-tensor; data is int8 or uint8 and so is the
    result."""

    name = "relay.qnn.avg_pool2d"
    data = operand_def(ANY_TENSOR)
    input_scale = operand_def(ANY_TENSOR)
    input_zero_point = operand_def(ANY_TENSOR)
    output_scale = operand_def(ANY_TENSOR)
    output_zero_point = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    pool_size = ints_prop((1, 1))
    strides = ints_prop((1, 1))
    dilation = ints_prop((1, 1))
    padding = ints_prop((0, 0, 0, 0))
    layout = str_prop("NCHW")
    out_layout = str_prop("")
    ceil_mode = bool_prop(False)
    count_include_pad = bool_prop(False)
    PAIR_ATTRS: ClassVar[tuple[str, ...]] = ("pool_size", "strides", "dilation")
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ("data",)

    def pool(self) -> AvgPool2DOp:
        return cast(AvgPool2DOp, self.layout_variant(AvgPool2DOp))

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """``nn.avg_pool2d``'s rule for the data, ``C`` for the scales and zero
        points (Relay's ``QnnAvgPoolInferCorrectLayout``)."""
        pool = self.pool().infer_correct_layout(
            head(new_layouts, 1), old_layouts[:1], old_types[:1]
        )
        return with_params(pool, 4)

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """As ``nn.avg_pool2d``: ``layout`` and ``out_layout`` become
        ``desired[0]``."""
        pool = self.pool().convert_layout(desired, operand_types[:1])
        if pool is None:
            return None
        return self.layout_variant(
            updates={
                "layout": pool.properties["layout"],
                "out_layout": pool.properties["out_layout"],
            }
        )

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        data = ranked(operand_types[0], "data")
        check_dtype(data, ("int8", "uint8"), "data")
        out = self.pool().type_relation([data])
        check_param(operand_types[1], "input_scale", "float32")
        check_param(operand_types[2], "input_zero_point", "int32")
        check_param(operand_types[3], "output_scale", "float32")
        check_param(operand_types[4], "output_zero_point", "int32")
        return out

    def compute(self, *args: Any) -> Any:
        x = np.asarray(args[0])
        centered_x = centered(x, np.asarray(args[2]).reshape(())).astype(np.float32)
        avg = np.asarray(self.pool().compute(centered_x), np.float32)
        ratio = scale_ratio(
            np.asarray(args[1]).reshape(()), np.asarray(args[3]).reshape(())
        )
        with np.errstate(invalid="ignore", over="ignore"):
            return saturate_round(
                avg * ratio, np.asarray(args[4]).reshape(()), x.dtype, "None"
            )

    def canonicalize(self, b: QnnBuilder) -> SSAValue:
        x = b.cast(b.centered(self.data, b.scalar(self.input_zero_point)), "float32")
        avg = b.emit(AvgPool2DOp, [x], properties_of(self, AvgPool2DOp))
        ratio = b.divide(b.scalar(self.input_scale), b.scalar(self.output_scale))
        return b.saturate_round(
            b.multiply(avg, ratio),
            b.scalar(self.output_zero_point),
            b.dtype_of(self.data),
        )


QNN_OPS: list[type[RelayOp]] = [
    QuantizeOp,
    DequantizeOp,
    RequantizeOp,
    QnnConv2DOp,
    QnnConv2DTransposeOp,
    QnnDenseOp,
    QnnBatchMatmulOp,
    QnnAddOp,
    QnnSubtractOp,
    QnnMulOp,
    QnnConcatenateOp,
    QnnAvgPool2DOp,
]
"""The QNN ops of the dialect."""
