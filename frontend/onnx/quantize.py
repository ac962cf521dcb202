"""Converters of ONNX's linear (de)quantizers: ``QuantizeLinear``, ``DequantizeLinear``
(per tensor, per axis and blocked) and ``DynamicQuantizeLinear``.

Where the QNN ops cover the form (float32 data and scales; ``int8``, ``uint8`` or
``int16`` quantized values, ``int32`` too for the dequantizer; per-tensor or per-axis
parameters) they become ``qnn.quantize`` / ``qnn.dequantize`` (zero points as
``int32``), whose arithmetic is onnxruntime's; a dequantized weight is not folded, so
that ``FakeQuantizationToInteger`` finds the integer weight. The other forms (blocked
parameters, ``uint16``, float16 or float64 data, ``precision``) are composed from relay
ops as TVM's QNN canonicalisation does:

Quantizing is ``saturate(rint(x / scale) + zero_point)``: the division in the dtype
of ``x`` (or ``precision``), halves rounded to even, the sum and the clamp to the
range of the integer type in a float type wide enough to hold every integer of that
range exactly (out-of-range values, infinities included, saturate), then one cast.
Dequantizing is ``(x - zero_point) * scale`` in ``float32`` (``float64`` for
``int32`` data), then a cast to the output dtype, as the ONNX reference computes it.
Only integer types relay has (``int8``, ``uint8``, ``int16``, ``uint16``; ``int32``
data for the dequantizer) are supported; the 2- and 4-bit and float8 forms are not
relay dtypes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import helper
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter
from xrelay.frontend.onnx.math_ops import round_half_even

QUANT_TYPES: dict[str, tuple[int, int]] = {
    "uint8": (0, 255),
    "int8": (-128, 127),
    "uint16": (0, 65535),
    "int16": (-32768, 32767),
}
"""The integer types the quantizers produce, with their ranges."""


def quant_range(dtype: np.dtype[Any], what: str) -> tuple[int, int]:
    """The range of quantized type ``dtype`` (an error for other types)."""
    found = QUANT_TYPES.get(str(dtype))
    if found is None:
        raise ConversionError(
            f"{what} has the type {dtype}; the quantized types supported are "
            f"{', '.join(QUANT_TYPES)}"
        )
    return found


def broadcast_param(
    node: Node,
    value: SSAValue,
    shape: tuple[int, ...],
    axis: int,
    block_size: int,
    what: str,
) -> SSAValue:
    """A scale or zero point made to broadcast against data of ``shape``, as ONNX
    reads it: a scalar or one element for the whole tensor; a vector along ``axis``
    (per axis); or, with ``block_size``, a tensor of the data's shape except along
    ``axis``, where each element covers ``block_size`` consecutive positions (the
    last block may be shorter)."""
    vshape = node.shape(value)
    size = int(np.prod(vshape, dtype=np.int64))
    if size == 1 and (not block_size or len(vshape) <= 1):
        return node.reshape(value, [])
    axis = node.axis(axis, len(shape))
    if not block_size:
        if len(vshape) != 1:
            raise ConversionError(
                f"{what} must be a scalar or a vector along the axis, got shape "
                f"{list(vshape)}"
            )
        if vshape[0] != shape[axis]:
            raise ConversionError(
                f"{what} has {vshape[0]} elements for axis {axis} of size {shape[axis]}"
            )
        dims = [1] * len(shape)
        dims[axis] = vshape[0]
        return node.reshape(value, dims)
    if block_size < 0:
        raise ConversionError(f"block_size must be positive, got {block_size}")
    want = [*shape[:axis], -(-shape[axis] // block_size), *shape[axis + 1 :]]
    if list(vshape) != want:
        raise ConversionError(
            f"{what} has shape {list(vshape)}; blocks of {block_size} along axis "
            f"{axis} of data {list(shape)} need {want}"
        )
    out = node.op("repeat", [value], repeats=block_size, axis=axis)
    if node.shape(out)[axis] != shape[axis]:
        end = list(node.shape(out))
        end[axis] = shape[axis]
        out = node.op(
            "strided_slice", [out], begin=[0] * len(shape), end=end, strides=[1]
        )
    return out


def _quant_params(node: Node) -> tuple[int, int]:
    """``axis`` and ``block_size`` of a (de)quantizer."""
    return node.attr_int("axis", 1), node.attr_int("block_size", 0)


def _float_for(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """A float type holding every value of integer type ``dtype`` exactly."""
    return np.dtype(np.float64 if dtype.itemsize >= 4 else np.float32)


def quantize(
    node: Node,
    scaled: SSAValue,
    zero_point: SSAValue | None,
    out_dtype: np.dtype[Any],
) -> SSAValue:
    """``saturate(rint(scaled) + zero_point)`` as ``out_dtype`` (a quantized type):
    the rounding in the dtype of ``scaled``, the sum and the clamp in a float type
    that holds the range exactly (``float32``, or ``float64`` when ``scaled`` is)."""
    lo, hi = quant_range(out_dtype, "the output")
    wide = np.dtype(np.float64 if node.dtype(scaled) == np.float64 else np.float32)
    q = round_half_even(node, scaled)
    if node.dtype(q) != wide:
        q = node.op("cast", [q], dtype=str(wide))
    if zero_point is not None:
        q = node.op("add", [q, node.op("cast", [zero_point], dtype=str(wide))])
    q = node.op("clip", [q], a_min=float(lo), a_max=float(hi))
    return node.op("cast", [q], dtype=str(out_dtype))


def _out_dtype(node: Node, zero_point: SSAValue | None) -> np.dtype[Any]:
    """The quantized type: the zero point's, else ``output_dtype``, else ``uint8``."""
    attr = node.attr_int("output_dtype", 0)
    named = np.dtype(helper.tensor_dtype_to_np_dtype(attr)) if attr else None
    if zero_point is not None:
        zp_dtype = node.dtype(zero_point)
        if named is not None and named != zp_dtype:
            raise ConversionError(
                f"output_dtype {named} differs from the zero point's type {zp_dtype}"
            )
        return zp_dtype
    return named if named is not None else np.dtype(np.uint8)


QNN_QUANTIZED = ("int8", "uint8", "int16")
"""The quantized types the QNN ops take from ONNX's (de)quantizers (``int32`` too for
the dequantizer)."""


def qnn_param(
    node: Node, value: SSAValue, shape: tuple[int, ...], axis: int
) -> SSAValue | None:
    """A scale or zero point in the QNN ops' form: 0-d (per tensor) or a vector along
    ``axis`` of data of ``shape``; ``None`` for other forms."""
    vshape = node.shape(value)
    if int(np.prod(vshape, dtype=np.int64)) == 1 and len(vshape) <= 1:
        return node.reshape(value, [])
    if len(vshape) == 1 and shape and vshape[0] == shape[axis]:
        return value
    return None


def qnn_zero_point(node: Node, zero_point: SSAValue | None) -> SSAValue:
    """The zero point as ``int32`` (0 when absent)."""
    if zero_point is None:
        return node.const(np.int32(0))
    return node.op("cast", [zero_point], dtype="int32")


def qnn_params(
    node: Node,
    shape: tuple[int, ...],
    scale: SSAValue,
    zero_point: SSAValue | None,
) -> tuple[int, SSAValue, SSAValue] | None:
    """``(axis, scale, int32 zero point)`` for a QNN (de)quantizer of data of
    ``shape``, or ``None`` when the node's parameters are not in a QNN form."""
    axis, block = _quant_params(node)
    if block or node.dtype(scale) != np.float32:
        return None
    per_tensor = all(
        int(np.prod(node.shape(v), dtype=np.int64)) == 1
        for v in (scale, zero_point)
        if v is not None
    )
    axis = -1 if per_tensor else node.axis(axis, len(shape))
    qscale = qnn_param(node, scale, shape, axis)
    qzp = None if zero_point is None else qnn_param(node, zero_point, shape, axis)
    if qscale is None or (zero_point is not None and qzp is None):
        return None
    return axis, qscale, qnn_zero_point(node, qzp)


@converter("QuantizeLinear")
def quantize_linear(node: Node) -> Outputs:
    x, scale = node.input(0, "x"), node.input(1, "y_scale")
    zp = node.optional_input(2)
    shape = node.shape(x)
    out_dtype = _out_dtype(node, zp)
    quant_range(out_dtype, "the output")
    if node.has_attr("saturate") and not node.attr_int("saturate"):
        raise ConversionError("saturate=0 applies to float8 outputs only")
    precision = node.attr_int("precision", 0)
    fits = node.dtype(x) == np.float32 and str(out_dtype) in QNN_QUANTIZED
    found = qnn_params(node, shape, scale, zp) if fits and not precision else None
    if found is not None:
        q_axis, q_scale, q_zp = found
        return node.op(
            "qnn.quantize", [x, q_scale, q_zp], axis=q_axis, out_dtype=str(out_dtype)
        )
    axis, block = _quant_params(node)
    scale = broadcast_param(node, scale, shape, axis, block, "y_scale")
    if zp is not None:
        zp = broadcast_param(node, zp, shape, axis, block, "y_zero_point")
    if precision:
        ctype = np.dtype(helper.tensor_dtype_to_np_dtype(precision))
    else:
        ctype = np.result_type(node.dtype(x), node.dtype(scale))
    if ctype.kind != "f":
        raise ConversionError(f"x and y_scale must be floats, got {ctype}")
    if node.dtype(x) != ctype:
        x = node.op("cast", [x], dtype=str(ctype))
    if node.dtype(scale) != ctype:
        scale = node.op("cast", [scale], dtype=str(ctype))
    return quantize(node, node.op("divide", [x, scale]), zp, out_dtype)


@converter("DequantizeLinear")
def dequantize_linear(node: Node) -> Outputs:
    x, scale = node.input(0, "x"), node.input(1, "x_scale")
    zp = node.optional_input(2)
    shape = node.shape(x)
    xtype = node.dtype(x)
    if str(xtype) not in QUANT_TYPES and xtype != np.int32:
        raise ConversionError(
            f"x has the type {xtype}; the quantized types supported are "
            f"{', '.join([*QUANT_TYPES, 'int32'])}"
        )
    attr = node.attr_int("output_dtype", 0)
    out_dtype = (
        np.dtype(helper.tensor_dtype_to_np_dtype(attr)) if attr else node.dtype(scale)
    )
    if out_dtype.kind != "f":
        raise ConversionError(f"the output type must be a float, got {out_dtype}")
    if zp is not None and node.dtype(zp) != xtype:
        raise ConversionError(
            f"x_zero_point has the type {node.dtype(zp)}, x the type {xtype}"
        )
    # int32 data only without a zero point (a bias): qnn.dequantize subtracts in
    # int32, which wraps where ONNX's difference does not
    zp_value = None if zp is None else node.b.value(zp)
    no_offset = zp is None or (zp_value is not None and not np.any(zp_value))
    fits = out_dtype == np.float32 and (
        str(xtype) in QNN_QUANTIZED or (xtype == np.int32 and no_offset)
    )
    found = qnn_params(node, shape, scale, zp) if fits else None
    if found is not None:
        q_axis, q_scale, q_zp = found
        return node.unfolded("qnn.dequantize", [x, q_scale, q_zp], axis=q_axis)
    axis, block = _quant_params(node)
    wide = _float_for(xtype)
    y = node.op("cast", [x], dtype=str(wide))
    if zp is not None:
        zp = broadcast_param(node, zp, shape, axis, block, "x_zero_point")
        y = node.op("subtract", [y, node.op("cast", [zp], dtype=str(wide))])
    scale = broadcast_param(node, scale, shape, axis, block, "x_scale")
    if node.dtype(scale) != wide:
        scale = node.op("cast", [scale], dtype=str(wide))
    y = node.op("multiply", [y, scale])
    if node.dtype(y) != out_dtype:
        y = node.op("cast", [y], dtype=str(out_dtype))
    return y


@converter("DynamicQuantizeLinear")
def dynamic_quantize_linear(node: Node) -> Outputs:
    """``uint8`` quantization over the range of ``x`` widened to hold 0: ``scale =
    (max - min) / 255`` (1 / 255 when the range is empty), ``zero_point =
    rint(clamp(-min / scale, 0, 255))``."""
    x = node.input(0, "x")
    if node.dtype(x) != np.float32:
        raise ConversionError(f"x must be float32, got {node.dtype(x)}")
    zero = node.scalar(0.0, x)
    hi = node.op("maximum", [node.op("max", [x]), zero])
    lo = node.op("minimum", [node.op("min", [x]), zero])
    width = node.op("subtract", [hi, lo])
    empty = node.op("equal", [hi, lo])
    width = node.op("where", [empty, node.scalar(1.0, x), width])
    scale = node.op("divide", [width, node.scalar(255.0, x)])
    initial = node.op("subtract", [zero, node.op("divide", [lo, scale])])
    zp = node.op(
        "cast",
        [round_half_even(node, node.op("clip", [initial], a_min=0.0, a_max=255.0))],
        dtype="uint8",
    )
    y = node.op("qnn.quantize", [x, scale, qnn_zero_point(node, zp)], out_dtype="uint8")
    return [y, scale, zp]
