"""Kernels of the bitwise ops (dialects/relay/bitwise.py): ``arith`` and/or/xor, and
shifts guarded so that an amount outside ``[0, bits)`` gives the dialect's result
instead of LLVM's poison."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from xrelay.dialects.relay import bitwise as bw
from xrelay.lowering.builder import Index
from xrelay.lowering.kernels import OpContext, broadcast_index, pointwise
from xrelay.lowering.scalar_types import is_signed


def _read(cx: OpContext, k: int, idx: list[Index]) -> SSAValue:
    src = cx.operand(k)
    return src.at(broadcast_index(idx, src.shape, len(idx)))


@pointwise(bw.BitwiseAndOp, bw.BitwiseOrOp, bw.BitwiseXorOp)
def _logic(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    a, b = _read(cx, 0, idx), _read(cx, 1, idx)
    if isinstance(cx.op, bw.BitwiseAndOp):
        return cx.kb.result(arith.AndIOp(a, b))
    if isinstance(cx.op, bw.BitwiseOrOp):
        return cx.kb.result(arith.OrIOp(a, b))
    return cx.kb.result(arith.XOrIOp(a, b))


@pointwise(bw.BitwiseNotOp)
def _not(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    x = _read(cx, 0, idx)
    dt = cx.operand(0).dtype
    ones = cx.kb.const(True, dt) if dt.kind == "b" else cx.kb.const(-1, dt)
    return cx.kb.result(arith.XOrIOp(x, ones))


@pointwise(bw.LeftShiftOp, bw.RightShiftOp)
def _shift(cx: OpContext, r: int, idx: list[Index]) -> SSAValue:
    kb = cx.kb
    dt = cx.operand(0).dtype
    a, b = _read(cx, 0, idx), _read(cx, 1, idx)
    bits = kb.const(dt.itemsize * 8, dt)
    zero = kb.zero(dt)
    # unsigned compare: a negative amount is a huge unsigned one, so it is outside too
    inside = kb.result(arith.CmpiOp(b, bits, "ult"))
    safe = kb.select(inside, b, zero)
    if isinstance(cx.op, bw.LeftShiftOp):
        return kb.select(inside, kb.result(arith.ShLIOp(a, safe)), zero)
    if is_signed(dt):
        shifted = kb.result(arith.ShRSIOp(a, safe))
        fill = kb.select(kb.cmp("lt", a, zero, dt), kb.const(-1, dt), zero)
    else:
        shifted = kb.result(arith.ShRUIOp(a, safe))
        fill = zero
    return kb.select(inside, shifted, fill)
