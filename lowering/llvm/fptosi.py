"""``llvm.fptosi`` (float to signed integer, truncating; poison out of range), which
xDSL's ``llvm`` dialect and its LLVM IR backend lack: an op class, and its entry in
the backend's table of casts (registered when this module is imported).

:func:`saturating_fptosi` builds numpy's cast from it (NaN is 0, out of range the
type's minimum or maximum) with compares and selects, which LLVM's vectorisers
turn into vector code (``vcvttps2dq`` and blends); ``llvm.fptosi.sat``, the
intrinsic with the same meaning, stayed scalar inside vectorised loops (its cost
on x86 is modelled as a call per lane), which made a requantize epilogue run lane
by lane.
"""

from __future__ import annotations

from typing import Any, cast

from xdsl.backend.llvm import convert_op
from xdsl.builder import Builder
from xdsl.dialects import llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition

from xrelay.lowering.llvm import fast_ops


@irdl_op_definition
class FPToSIOp(llvm.GenericCastOp):
    """``llvm.fptosi``: truncates toward zero; poison when out of range."""

    name = "llvm.fptosi"


convert_op._CAST_OP_NAMES[FPToSIOp] = "fptosi"  # pyright: ignore[reportPrivateUsage]

_OGE, _OLT, _UNO = 3, 4, 14
"""``llvm.fcmp`` predicates (as ``arith.cmpf``'s numbers)."""


def saturating_fptosi(b: Builder, value: SSAValue, ty: IntegerType) -> SSAValue:
    """numpy's cast of the scalar float ``value`` to the signed ``ty`` (NaN is 0,
    out of range the minimum or maximum), as ``fptosi`` and three selects."""
    width = ty.width.data
    fty = value.type

    def fconst(v: float) -> SSAValue:
        return b.insert(fast_ops.constant(FloatAttr(v, cast(Any, fty)), fty)).results[0]

    def iconst(v: int) -> SSAValue:
        return b.insert(fast_ops.constant(IntegerAttr(v, ty), ty)).results[0]

    def fcmp(pred: int, a: SSAValue, c: SSAValue) -> SSAValue:
        return b.insert(llvm.FCmpOp(a, c, IntegerAttr(pred, i64))).results[0]

    converted = b.insert(FPToSIOp(value, cast(Attribute, ty))).results[0]
    top = fconst(2.0 ** (width - 1))  # exact: a power of two
    result = b.insert(
        fast_ops.select(fcmp(_OGE, value, top), iconst(2 ** (width - 1) - 1), converted)
    ).results[0]
    bottom = fconst(-(2.0 ** (width - 1)))
    result = b.insert(
        fast_ops.select(fcmp(_OLT, value, bottom), iconst(-(2 ** (width - 1))), result)
    ).results[0]
    return b.insert(
        fast_ops.select(fcmp(_UNO, value, value), iconst(0), result)
    ).results[0]
