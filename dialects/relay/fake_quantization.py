"""What ``relay.transform.FakeQuantizationToInteger`` gives an op to find its integer
form (the op's :meth:`~xrelay.dialects.relay.base.RelayOp.fake_quantize` hook, Relay's
``FTVMFakeQuantizationToInteger``).

A region is ``qnn.dequantize -> float ops -> qnn.quantize``. Inside it every float
tensor has a quantized twin: an integer tensor with an :class:`AffineType`
(``real = scale * (q - zero_point)``, the scale and zero point per-tensor or
per-channel along ``axis``). An op's hook receives a :class:`FakeQuantRewrite`, asks it
for the quantized twins of its operands (:meth:`FakeQuantRewrite.input`) and the type
its consumer wants (:attr:`FakeQuantRewrite.hint`, the quantize's type when the op
feeds it, through ops that keep their operand's type), emits integer ops with
:meth:`FakeQuantRewrite.emit` and returns its own twin, or ``None`` when it has no
integer form for these operands (the region then stays float).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import TypeRelationError

if TYPE_CHECKING:
    from xrelay.dialects.relay.base import RelayOp

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class AffineType:
    """How a quantized tensor maps to reals: ``scale * (q - zero_point)`` with ``q`` of
    ``dtype``; ``scale`` (float32) and ``zero_point`` (int32) are values of the IR, 0-d
    or one-element (per-tensor) or 1-D along ``axis`` of the tensor (per-channel;
    ``axis`` is non-negative)."""

    scale: SSAValue
    zero_point: SSAValue
    dtype: str
    axis: int = -1


class Quantized(NamedTuple):
    """A quantized tensor and its :class:`AffineType`."""

    value: SSAValue
    type: AffineType


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tuple(cast(TensorType[Attribute], value.type).get_shape())


def dtype_of(value: SSAValue) -> str:
    return dtypes.dtype_name(cast(TensorType[Attribute], value.type).element_type)


def constant_value(value: SSAValue) -> Array | None:
    """The array of a ``relay.constant``, else ``None``."""
    from xrelay.dialects.relay.structural import ConstantOp

    owner = value.owner
    if isinstance(owner, ConstantOp):
        return owner.numpy()
    return None


def size_of(value: SSAValue) -> int:
    return int(np.prod(shape_of(value), dtype=np.int64))


def is_per_tensor(t: AffineType) -> bool:
    return size_of(t.scale) == 1 and size_of(t.zero_point) == 1


class FakeQuantRewrite:
    """One op of a region being given its integer form: the quantized twins of its
    operands (``None`` for an operand outside the region: a constant, an argument),
    the type its consumer wants (``hint``), and a builder inserting before ``anchor``
    (the region's quantize, which every value the region reads dominates); the ops
    it makes are recorded in ``created``."""

    def __init__(
        self,
        op: Operation,
        inputs: Sequence[Quantized | None],
        hint: AffineType | None,
        created: list[Operation],
        anchor: Operation | None = None,
    ):
        self.op = op
        self.inputs = list(inputs)
        self.hint = hint
        self.created = created
        self.anchor = anchor or op

    # -- queries --------------------------------------------------------------------------

    def input(self, i: int) -> Quantized | None:
        return self.inputs[i] if i < len(self.inputs) else None

    def all_inputs(self) -> list[Quantized] | None:
        """Every operand's twin, or ``None`` when one is outside the region."""
        found = [q for q in self.inputs if q is not None]
        return found if len(found) == len(self.inputs) else None

    @staticmethod
    def same_type(a: AffineType, b: AffineType) -> bool:
        """Whether ``a`` and ``b`` describe the same mapping (the same values, or equal
        constants) in the same dtype."""
        if a.dtype != b.dtype:
            return False
        return FakeQuantRewrite.same_param(
            a.scale, b.scale
        ) and FakeQuantRewrite.same_param(a.zero_point, b.zero_point)

    @staticmethod
    def same_param(a: SSAValue, b: SSAValue) -> bool:
        if a is b:
            return True
        va, vb = constant_value(a), constant_value(b)
        if va is None or vb is None or va.size != vb.size:
            return False
        return bool(np.array_equal(va.reshape(-1), vb.reshape(-1)))

    # -- emitting -------------------------------------------------------------------------

    def emit(
        self,
        cls: type[RelayOp] | str,
        operands: Sequence[SSAValue],
        attrs: dict[str, object] | None = None,
    ) -> SSAValue:
        """Relay op ``cls`` (a class or its name, ``"relay.qnn.conv2d"``) inserted
        before the anchor; raises :class:`TypeRelationError` when the operands do
        not fit (the region then stays float)."""
        if isinstance(cls, str):
            from xrelay.dialects.relay import OPS_BY_NAME

            cls = OPS_BY_NAME[cls]
        op = cls.make(list(operands), attrs or {})
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        self.created.append(op)
        return op.results[0]

    def constant(self, array: Any, dtype: str | None = None) -> SSAValue:
        from xrelay.dialects.relay.structural import ConstantOp

        op = ConstantOp.from_numpy(np.asarray(array, dtype=dtype))
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        self.created.append(op)
        return op.result

    def scalar_zero_point(self, t: AffineType) -> SSAValue | None:
        """``t``'s zero point as a per-tensor value (the integer products take one):
        itself when per-tensor, one constant when its channels all agree, else
        ``None``."""
        if size_of(t.zero_point) == 1:
            return t.zero_point
        value = constant_value(t.zero_point)
        if value is None or value.size == 0 or not np.all(value == value.flat[0]):
            return None
        return self.constant(np.int32(value.flat[0]), "int32")

    def product_scale(self, a: AffineType, b: AffineType) -> SSAValue:
        """``a.scale * b.scale`` in float32 (the scale of an int32 product)."""
        sa, sb = a.scale, b.scale
        if size_of(sa) == 1 and shape_of(sa):
            sa = self.emit("relay.reshape", [sa], {"newshape": []})
        if size_of(sb) == 1 and shape_of(sb):
            sb = self.emit("relay.reshape", [sb], {"newshape": []})
        return self.emit("relay.multiply", [sa, sb])

    def zero(self) -> SSAValue:
        return self.constant(np.int32(0), "int32")

    def requantize(self, x: Quantized, to: AffineType) -> SSAValue | None:
        """``x`` in type ``to`` (``x`` itself when the types agree); ``None`` when their
        channel axes differ."""
        if self.same_type(x.type, to):
            return x.value
        axes = {t.axis for t in (x.type, to) if not is_per_tensor(t)}
        if len(axes) > 1:
            return None
        axis = axes.pop() if axes else -1
        return self.emit(
            "relay.qnn.requantize",
            [x.value, x.type.scale, x.type.zero_point, to.scale, to.zero_point],
            {"axis": axis, "out_dtype": to.dtype},
        )

    def quantize(self, value: SSAValue, to: AffineType) -> SSAValue:
        """The float ``value`` quantized to ``to``."""
        return self.emit(
            "relay.qnn.quantize",
            [value, to.scale, to.zero_point],
            {"axis": to.axis if not is_per_tensor(to) else -1, "out_dtype": to.dtype},
        )

    def quantized_bounds(
        self, t: AffineType, lo: float, hi: float
    ) -> tuple[float, float] | None:
        """The integer bounds of ``t`` for the real bounds ``[lo, hi]`` (constant
        per-tensor parameters only), within the range of ``t.dtype``."""
        if not is_per_tensor(t):
            return None
        scale, zp = constant_value(t.scale), constant_value(t.zero_point)
        if scale is None or zp is None:
            return None
        from xrelay.dialects.relay.qnn_numerics import saturate_round

        s = np.float32(scale.reshape(()))
        z = zp.reshape(())
        np_dtype = np.dtype(t.dtype)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            q = saturate_round(np.array([lo, hi], np.float32) / s, z, np_dtype)
        return float(q[0]), float(q[1])


# ---------------------------------------------------------------------------------------
# Integer forms shared by several ops (each op's hook picks one)
# ---------------------------------------------------------------------------------------


def attrs_of(op: Operation, drop: Sequence[str] = ()) -> dict[str, object]:
    """``op``'s properties without ``drop`` (to build its integer twin)."""
    return {k: v for k, v in op.properties.items() if k not in drop}


def integer_product(
    rewrite: FakeQuantRewrite,
    qnn_name: str,
    attrs: dict[str, object],
    weight_axis: int | None,
    out_axis: int,
) -> Quantized | None:
    """A convolution or matrix product of two dequantized operands as ``qnn_name``
    (int32 accumulation, scale ``s_data * s_weight``, zero point 0). The data is
    per-tensor; the weight per-tensor or per-channel along ``weight_axis`` (``None``:
    per-tensor only), which gives a result per-channel along ``out_axis``."""
    x, w = rewrite.input(0), rewrite.input(1)
    if x is None or w is None or not is_per_tensor(x.type):
        return None
    per_channel = not is_per_tensor(w.type)
    if per_channel and (weight_axis is None or w.type.axis != weight_axis):
        return None
    x_zp, w_zp = rewrite.scalar_zero_point(x.type), rewrite.scalar_zero_point(w.type)
    if x_zp is None or w_zp is None:
        return None
    acc = rewrite.emit(
        qnn_name,
        [x.value, w.value, x_zp, w_zp, x.type.scale, w.type.scale],
        {**attrs, "out_dtype": "int32"},
    )
    scale = rewrite.product_scale(x.type, w.type)
    axis = out_axis % len(shape_of(acc)) if per_channel else -1
    return Quantized(acc, AffineType(scale, rewrite.zero(), "int32", axis))


def same_op(rewrite: FakeQuantRewrite, per_tensor_only: bool) -> Quantized | None:
    """The float op itself on its operand's integer twin, keeping its type (layout-only
    ops, max pooling). ``per_tensor_only``: the op moves elements across channels."""
    x = rewrite.input(0)
    if x is None or (per_tensor_only and not is_per_tensor(x.type)):
        return None
    op = rewrite.op
    cls = type(op)
    from xrelay.dialects.relay.base import RelayOp

    assert issubclass(cls, RelayOp)
    return Quantized(rewrite.emit(cls, [x.value], attrs_of(op)), x.type)


def as_accumulator_type(
    rewrite: FakeQuantRewrite, acc: Quantized, other: int, axis: int | None
) -> SSAValue | None:
    """Operand ``other`` (a bias) in the type of the int32 accumulator ``acc``: its
    twin requantized, or the float constant quantized. ``axis`` is the axis of the
    bias that lies along ``acc``'s channel axis (``None`` when none does)."""
    zp = constant_value(acc.type.zero_point)
    if acc.type.dtype != "int32" or zp is None or np.any(zp != 0):
        return None
    per_channel = not is_per_tensor(acc.type)
    if per_channel and axis is None:
        return None
    along = axis if per_channel and axis is not None else -1
    target = AffineType(acc.type.scale, acc.type.zero_point, "int32", along)
    twin = rewrite.input(other)
    if twin is not None:
        if not is_per_tensor(twin.type) and twin.type.axis != axis:
            return None
        return rewrite.requantize(twin, target)
    value = rewrite.op.operands[other]
    if constant_value(value) is None or dtype_of(value) != "float32":
        return None
    return rewrite.quantize(value, target)


def quantized_add(rewrite: FakeQuantRewrite, qnn_name: str) -> Quantized | None:
    """``qnn.add`` / ``qnn.subtract`` of two twins, giving the wanted type (or the
    left operand's); for ``add``, an int32 accumulator plus a bias stays an int32
    addition in the accumulator's type."""
    lhs, rhs = rewrite.input(0), rewrite.input(1)
    if qnn_name == "relay.qnn.add":
        for acc_i, other_i in ((0, 1), (1, 0)):
            acc = rewrite.input(acc_i)
            if acc is None or acc.type.dtype != "int32":
                continue
            other = rewrite.op.operands[other_i]
            offset = len(shape_of(acc.value)) - len(shape_of(other))
            axis = acc.type.axis - offset if not is_per_tensor(acc.type) else -1
            if not is_per_tensor(acc.type) and (
                axis < 0 or shape_of(other)[axis] != shape_of(acc.value)[acc.type.axis]
            ):
                return None
            bias = as_accumulator_type(rewrite, acc, other_i, axis)
            if bias is None:
                return None
            pair = [acc.value, bias] if acc_i == 0 else [bias, acc.value]
            return Quantized(rewrite.emit("relay.add", pair), acc.type)
    return binary(rewrite, qnn_name, lhs, rhs)


def binary(
    rewrite: FakeQuantRewrite,
    qnn_name: str,
    lhs: Quantized | None,
    rhs: Quantized | None,
) -> Quantized | None:
    """A quantized binary op of two 8/16-bit twins of one dtype, giving the wanted
    per-tensor type of that dtype. Without one the region stays float: no operand's
    type holds the result's range."""
    if lhs is None or rhs is None or lhs.type.dtype != rhs.type.dtype:
        return None
    out = rewrite.hint
    if lhs.type.dtype == "int32" or out is None:
        return None
    if out.dtype != lhs.type.dtype or not is_per_tensor(out):
        return None
    value = rewrite.emit(
        qnn_name,
        [
            lhs.value,
            rhs.value,
            lhs.type.scale,
            lhs.type.zero_point,
            rhs.type.scale,
            rhs.type.zero_point,
            out.scale,
            out.zero_point,
        ],
        {"lhs_axis": lhs.type.axis, "rhs_axis": rhs.type.axis},
    )
    return Quantized(value, AffineType(out.scale, out.zero_point, out.dtype))


def per_tensor_output(rewrite: FakeQuantRewrite, x: Quantized) -> AffineType | None:
    """The wanted type when per-tensor and of ``x``'s dtype, else ``x``'s own type
    (``None`` when that is per-channel)."""
    out = rewrite.hint
    if out is not None and out.dtype == x.type.dtype and is_per_tensor(out):
        return AffineType(out.scale, out.zero_point, out.dtype)
    return x.type if is_per_tensor(x.type) else None


def quantized_concatenate(rewrite: FakeQuantRewrite, axis: int) -> Quantized | None:
    """``qnn.concatenate`` of per-tensor twins of one dtype, giving the wanted type,
    or without one the inputs' type when they all have the same (else no integer
    form: one input's type need not hold the others' ranges)."""
    inputs = rewrite.all_inputs()
    if not inputs or any(not is_per_tensor(q.type) for q in inputs):
        return None
    if len({q.type.dtype for q in inputs}) != 1 or inputs[0].type.dtype == "int32":
        return None
    first = inputs[0].type
    if rewrite.hint is None and not all(
        rewrite.same_type(q.type, first) for q in inputs
    ):
        return None
    out = per_tensor_output(rewrite, inputs[0])
    assert out is not None
    operands = [
        *(q.value for q in inputs),
        *(q.type.scale for q in inputs),
        *(q.type.zero_point for q in inputs),
        out.scale,
        out.zero_point,
    ]
    value = rewrite.emit("relay.qnn.concatenate", operands, {"axis": axis})
    return Quantized(value, out)


def quantized_avg_pool(
    rewrite: FakeQuantRewrite, attrs: dict[str, object]
) -> Quantized | None:
    """``qnn.avg_pool2d`` (``attrs``: ``nn.avg_pool2d``'s) of a per-tensor 8-bit
    twin."""
    x = rewrite.input(0)
    if x is None or x.type.dtype not in ("int8", "uint8"):
        return None
    out = per_tensor_output(rewrite, x)
    if out is None:
        return None
    value = rewrite.emit(
        "relay.qnn.avg_pool2d",
        [x.value, x.type.scale, x.type.zero_point, out.scale, out.zero_point],
        attrs,
    )
    return Quantized(value, out)


def quantized_relu(rewrite: FakeQuantRewrite) -> Quantized | None:
    """``max(q, zero_point)``: real zero is the zero point."""
    x = rewrite.input(0)
    if x is None:
        return None
    zp = x.type.zero_point
    rank = len(shape_of(x.value))
    if size_of(zp) == 1:
        if shape_of(zp):
            zp = rewrite.emit("relay.reshape", [zp], {"newshape": []})
    elif rank:
        shape = [1] * rank
        shape[x.type.axis] = size_of(zp)
        zp = rewrite.emit("relay.reshape", [zp], {"newshape": shape})
    if dtype_of(zp) != x.type.dtype:
        zp = rewrite.emit("relay.cast", [zp], {"dtype": x.type.dtype})
    return Quantized(rewrite.emit("relay.maximum", [x.value, zp]), x.type)


def quantized_clip(rewrite: FakeQuantRewrite, lo: float, hi: float) -> Quantized | None:
    """``clip`` to the integers of ``[lo, hi]`` (constant per-tensor parameters)."""
    x = rewrite.input(0)
    if x is None:
        return None
    bounds = rewrite.quantized_bounds(x.type, lo, hi)
    if bounds is None:
        return None
    value = rewrite.emit(
        "relay.clip", [x.value], {"a_min": bounds[0], "a_max": bounds[1]}
    )
    return Quantized(value, x.type)


def keeps_type(op: Operation) -> bool:
    """Whether ``op``'s integer form keeps its (first) operand's quantized type, so
    that the type wanted of its result is wanted of that operand too."""
    from xrelay.dialects.relay.base import RelayOp

    return isinstance(op, RelayOp) and op.KEEPS_QUANTIZATION


def try_integer_form(op: RelayOp, rewrite: FakeQuantRewrite) -> Quantized | None:
    """``op``'s hook, with a type relation failure counted as no integer form."""
    try:
        return op.fake_quantize(rewrite)
    except TypeRelationError:
        return None
