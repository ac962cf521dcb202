"""``arith`` → ``llvm`` (xDSL 0.74 has no such conversion), with ``index`` → ``i64``.

Mirrors MLIR's ``convert-arith-to-llvm``. Where the xDSL ``llvm`` dialect lacks an
instruction the LLVM intrinsic is called instead: ``maximumf``/``minimumf`` →
``llvm.maximum``/``llvm.minimum`` (NaN-propagating, like numpy), ``fptosi``/``fptoui``
→ ``llvm.fptosi.sat``/``llvm.fptoui.sat`` (equal to the instruction in range, no
poison outside). ``uitofp`` zero-extends to ``i64`` then uses ``sitofp`` (``i64``
values with the top bit set are halved, converted and doubled). ``floordivsi`` is
expanded to ``sdiv``/``srem`` and a correction; integer ``max``/``min`` are
``icmp`` + ``select``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from xdsl.builder import Builder
from xdsl.dialects import arith, llvm, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xrelay.lowering.llvm import fast_ops
from xrelay.lowering.llvm.common import (
    Converter,
    apply_converters,
    convert_type,
    intrinsic,
    module_ops,
    retype_index_block_args,
    type_suffix,
)
from xrelay.lowering.llvm.fptosi import saturating_fptosi

_INT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.ShRSIOp: llvm.AShrOp,
}

_FLOAT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

_INT_MINMAX: dict[type[Operation], str] = {
    arith.MaxSIOp: "sgt",
    arith.MinSIOp: "slt",
    arith.MaxUIOp: "ugt",
    arith.MinUIOp: "ult",
}


def _icmp(b: Builder, lhs: SSAValue, rhs: SSAValue, pred: str) -> SSAValue:
    flag = llvm.ICmpPredicateFlag(pred).to_int()
    return b.insert(fast_ops.icmp(lhs, rhs, flag)).results[0]


def _const(b: Builder, value: int, ty: Attribute) -> SSAValue:
    return b.insert(fast_ops.constant(fast_ops.int_attr(value, ty), ty)).results[0]


def _constant(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, arith.ConstantOp)
    value = op.value
    ty = convert_type(op.result.type)
    if isinstance(value, IntegerAttr):
        attr: Attribute = fast_ops.int_attr(value.value.data, ty)
    elif isinstance(value, FloatAttr):
        attr = value
    else:
        raise NotImplementedError(f"arith.constant {value} cannot be lowered")
    return b.insert(fast_ops.constant(attr, ty)).results


def _broadcast(op: Operation, b: Builder) -> Sequence[SSAValue]:
    """``vector.broadcast`` of a scalar: inserted into lane 0 of an undefined
    vector, then shuffled into every lane."""
    assert isinstance(op, vector.BroadcastOp)
    ty = op.vector.type
    assert isinstance(ty, VectorType)
    undef = b.insert(fast_ops.undef(ty)).res
    lane0 = _const(b, 0, i64)
    one = b.insert(fast_ops.insert_element(undef, op.source, lane0)).res
    mask = [0] * ty.get_shape()[0]
    return b.insert(fast_ops.shuffle_vector(one, undef, mask, ty)).results


def _shuffle(op: Operation, b: Builder) -> Sequence[SSAValue]:
    """``vector.shuffle`` of two 1-D vectors: ``llvm.shufflevector``."""
    assert isinstance(op, vector.ShuffleOp)
    mask = DenseArrayBase.from_list(i32, list(op.mask.get_values()))
    return b.insert(llvm.ShuffleVectorOp(op.v1, op.v2, mask, op.result.type)).results


def _reduce_add(op: Operation, b: Builder) -> Sequence[SSAValue]:
    """``vector.reduction <add>`` of a float vector onto its accumulator: the lanes
    of a power-of-two vector added pairwise, by halves (``v[:n/2] + v[n/2:]``: a
    shuffle and a vector add, down to one lane), then that lane onto the
    accumulator (LLVM's ``vector.reduce.fadd`` of a one-lane vector); other
    vectors in lane order (an ordered ``vector.reduce.fadd``: a chain of ``n``
    dependent adds)."""
    assert isinstance(op, vector.ReductionOp)
    if op.kind.data != vector.CombiningKindFlag.ADD or op.acc is None:
        raise NotImplementedError(f"vector.reduction {op.kind.data} cannot be lowered")
    value: SSAValue = op.vector
    ty = cast(VectorType[Any], value.type)
    lanes, elem = ty.get_shape()[0], ty.element_type
    while lanes > 1 and not lanes & (lanes - 1):
        half = lanes // 2
        lo, hi = (
            b.insert(
                llvm.ShuffleVectorOp(
                    value,
                    value,
                    DenseArrayBase.from_list(i32, list(range(first, first + half))),
                    VectorType(elem, [half]),
                )
            ).res
            for first in (0, half)
        )
        value = b.insert(fast_ops.binary(llvm.FAddOp, lo, hi)).results[0]
        lanes = half
    return b.insert(llvm.VectorReduceFAddOp(op.acc, value)).results


def _binary(target: type[Operation]) -> Converter:
    def conv(op: Operation, b: Builder) -> Sequence[SSAValue]:
        return b.insert(fast_ops.binary(target, op.operands[0], op.operands[1])).results

    return conv


def _minmax_int(pred: str) -> Converter:
    def conv(op: Operation, b: Builder) -> Sequence[SSAValue]:
        lhs, rhs = op.operands
        cond = _icmp(b, lhs, rhs, pred)
        return b.insert(fast_ops.select(cond, lhs, rhs)).results

    return conv


def _minmax_float(name: str) -> Converter:
    def conv(op: Operation, b: Builder) -> Sequence[SSAValue]:
        ty = op.results[0].type
        return [intrinsic(b, f"llvm.{name}.{type_suffix(ty)}", op.operands, ty)]

    return conv


def _floordivsi(op: Operation, b: Builder) -> Sequence[SSAValue]:
    lhs, rhs = op.operands
    ty = convert_type(op.results[0].type)
    q = b.insert(llvm.SDivOp(lhs, rhs)).results[0]
    r = b.insert(llvm.SRemOp(lhs, rhs)).results[0]
    zero = _const(b, 0, ty)
    nonzero = _icmp(b, r, zero, "ne")
    r_neg = _icmp(b, r, zero, "slt")
    d_neg = _icmp(b, rhs, zero, "slt")
    differ = b.insert(llvm.XOrOp(r_neg, d_neg)).results[0]
    fix = b.insert(llvm.AndOp(nonzero, differ)).results[0]
    minus = b.insert(llvm.SubOp(q, _const(b, 1, ty))).results[0]
    return b.insert(llvm.SelectOp(fix, minus, q)).results


def _cmpi(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, arith.CmpiOp)
    return b.insert(fast_ops.icmp(op.lhs, op.rhs, op.predicate.value.data)).results


def _cmpf(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, arith.CmpfOp)
    pred = IntegerAttr(op.predicate.value.data, i64)
    return b.insert(llvm.FCmpOp(op.lhs, op.rhs, pred)).results


def _select(op: Operation, b: Builder) -> Sequence[SSAValue]:
    cond, lhs, rhs = op.operands
    return b.insert(fast_ops.select(cond, lhs, rhs)).results


def _negf(op: Operation, b: Builder) -> Sequence[SSAValue]:
    return b.insert(llvm.FNegOp(op.operands[0])).results


def _width(ty: Attribute) -> int:
    if isinstance(ty, IndexType):
        return 64
    if isinstance(ty, VectorType):
        return _width(cast(VectorType[Any], ty).element_type)
    assert isinstance(ty, IntegerType)
    return ty.width.data


def _int_resize(op: Operation, b: Builder, signed: bool) -> Sequence[SSAValue]:
    src = op.operands[0]
    dst_ty = convert_type(op.results[0].type)
    sw, dw = _width(src.type), _width(dst_ty)
    if sw == dw:
        return [src]
    if dw < sw:
        return b.insert(llvm.TruncOp(src, dst_ty)).results  # pyright: ignore[reportArgumentType]
    ext = llvm.SExtOp(src, dst_ty) if signed else llvm.ZExtOp(src, dst_ty)  # pyright: ignore[reportArgumentType]
    return b.insert(ext).results


def _cast(target: type[Operation]) -> Converter:
    def conv(op: Operation, b: Builder) -> Sequence[SSAValue]:
        return b.insert(target(op.operands[0], op.results[0].type)).results  # pyright: ignore[reportCallIssue]

    return conv


def _fp_to_int(kind: str) -> Converter:
    def conv(op: Operation, b: Builder) -> Sequence[SSAValue]:
        src = op.operands[0]
        ty = op.results[0].type
        if kind == "fptosi" and isinstance(ty, IntegerType) and ty.width.data >= 32:
            return [saturating_fptosi(b, src, ty)]  # vectorises (fptosi.sat does not)
        name = f"llvm.{kind}.sat.{type_suffix(ty)}.{type_suffix(src.type)}"
        return [intrinsic(b, name, [src], ty)]

    return conv


def _uitofp(op: Operation, b: Builder) -> Sequence[SSAValue]:
    src = op.operands[0]
    ty = op.results[0].type
    width = _width(src.type)
    if width < 64:
        wide = b.insert(llvm.ZExtOp(src, i64)).results[0]
        return b.insert(llvm.SIToFPOp(wide, ty)).results
    # i64 with the top bit set: convert (x >> 1 | x & 1) and double it
    one = _const(b, 1, i64)
    half = b.insert(llvm.LShrOp(src, one)).results[0]
    low = b.insert(llvm.AndOp(src, one)).results[0]
    halved = b.insert(llvm.OrOp(half, low)).results[0]
    big = b.insert(llvm.SIToFPOp(halved, ty)).results[0]
    doubled = b.insert(llvm.FAddOp(big, big)).results[0]
    small = b.insert(llvm.SIToFPOp(src, ty)).results[0]
    neg = _icmp(b, src, _const(b, 0, i64), "slt")
    return b.insert(llvm.SelectOp(neg, doubled, small)).results


def _truncf(op: Operation, b: Builder) -> Sequence[SSAValue]:
    """``fptrunc``; ``f64 → f16`` goes through ``f32`` rounded to odd (exact: LLVM
    would call ``__truncdfhf2``, which the JIT cannot resolve)."""
    src = op.operands[0]
    ty = op.results[0].type
    if not (isinstance(src.type, Float64Type) and isinstance(ty, Float16Type)):
        return b.insert(llvm.FPTruncOp(src, ty)).results
    f32 = Float32Type()
    narrow = b.insert(llvm.FPTruncOp(src, f32)).results[0]
    back = b.insert(llvm.FPExtOp(narrow, Float64Type())).results[0]
    inexact = b.insert(
        llvm.FCmpOp(back, src, IntegerAttr(llvm.FCmpPredicateFlag.ONE.to_int(), i64))
    ).results[0]
    i32 = IntegerType(32)
    bits = b.insert(llvm.BitcastOp(narrow, i32)).results[0]
    odd = b.insert(llvm.OrOp(bits, _const(b, 1, i32))).results[0]
    chosen = b.insert(llvm.SelectOp(inexact, odd, bits)).results[0]
    rounded = b.insert(llvm.BitcastOp(chosen, f32)).results[0]
    return b.insert(llvm.FPTruncOp(rounded, ty)).results


def _table() -> dict[type[Operation], Converter]:
    table: dict[type[Operation], Converter] = {
        arith.ConstantOp: _constant,
        arith.FloorDivSIOp: _floordivsi,
        arith.CmpiOp: _cmpi,
        arith.CmpfOp: _cmpf,
        arith.SelectOp: _select,
        arith.NegfOp: _negf,
        arith.MaximumfOp: _minmax_float("maximum"),
        arith.MinimumfOp: _minmax_float("minimum"),
        arith.MaxnumfOp: _minmax_float("maxnum"),
        arith.MinnumfOp: _minmax_float("minnum"),
        arith.IndexCastOp: lambda op, b: _int_resize(op, b, True),
        arith.ExtSIOp: lambda op, b: _int_resize(op, b, True),
        arith.ExtUIOp: lambda op, b: _int_resize(op, b, False),
        arith.TruncIOp: lambda op, b: _int_resize(op, b, False),
        arith.ExtFOp: _cast(llvm.FPExtOp),
        arith.TruncFOp: _truncf,
        arith.SIToFPOp: _cast(llvm.SIToFPOp),
        arith.BitcastOp: _cast(llvm.BitcastOp),
        arith.UIToFPOp: _uitofp,
        arith.FPToSIOp: _fp_to_int("fptosi"),
        arith.FPToUIOp: _fp_to_int("fptoui"),
        vector.BroadcastOp: _broadcast,
        vector.ShuffleOp: _shuffle,
        vector.BitcastOp: _cast(llvm.BitcastOp),
        vector.ReductionOp: _reduce_add,
    }
    for src, dst in _INT_BINARY.items():
        table[src] = _binary(dst)
    for src, dst in _FLOAT_BINARY.items():
        table[src] = _binary(dst)
    for src, pred in _INT_MINMAX.items():
        table[src] = _minmax_int(pred)
    return table


def convert_arith_to_llvm(
    module: ModuleOp,
    others: Mapping[type[Operation], Converter] | None = None,
    ops: Sequence[Operation] | None = None,
) -> None:
    """Convert every ``arith`` op of ``module`` (and ``index`` block arguments);
    ``others``: converters of other dialects' ops, run in the same walk (one walk
    of the module fewer per dialect; they must not read operand types that
    ``arith`` ops still have to change, nor build ops of a type converted here);
    ``ops``: the ops of ``module`` (:func:`~.common.module_ops`), listed already."""
    # one list for the three steps: the converters build ``llvm`` ops only (none of
    # them converted here), and the constants erased by the first pass are of no
    # type the second converts
    if ops is None:
        ops = module_ops(module)
    retype_index_block_args(module, ops)
    table = _table()
    # constants first: every other op then sees operands of the final types (uses
    # follow definitions in block order after scf-to-cf)
    apply_converters(module, {arith.ConstantOp: table.pop(arith.ConstantOp)}, ops)
    apply_converters(module, {**table, **(others or {})}, ops)
