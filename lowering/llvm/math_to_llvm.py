"""``math`` → ``llvm`` (xDSL 0.74 has no such conversion).

Mirrors MLIR's ``convert-math-to-llvm``: each function becomes a call of its LLVM
intrinsic (``llvm.exp.f32``, ``llvm.tanh.f32``, ``llvm.round.f32``...), which LLVM
expands inline or turns into a call of the C library (``expf``, ``tanhf``...).
``rsqrt`` is ``1 / sqrt``; ``erf`` has no intrinsic and calls libm's ``erff`` /
``erf`` (``f16`` goes through ``f32``). The JIT and the shared library resolve the libm
symbols.

``exp``, ``log``, ``tanh`` and ``erf`` on ``f32`` and ``f16`` are instead expanded
inline into polynomials and rational functions (:mod:`.math_polynomial`), which LLVM
vectorises; ``f64`` keeps the library calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from xdsl.builder import Builder
from xdsl.dialects import llvm
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    ModuleOp,
)
from xdsl.ir import Operation, SSAValue

from xrelay.lowering.llvm import math_polynomial
from xrelay.lowering.llvm.common import (
    Converter,
    apply_converters,
    declare_function,
    intrinsic,
    type_suffix,
)

_INTRINSICS: dict[type[Operation], str] = {
    xmath.ExpOp: "exp",
    xmath.Exp2Op: "exp2",
    xmath.LogOp: "log",
    xmath.Log2Op: "log2",
    xmath.Log10Op: "log10",
    xmath.SqrtOp: "sqrt",
    xmath.SinOp: "sin",
    xmath.CosOp: "cos",
    xmath.TanOp: "tan",
    xmath.TanhOp: "tanh",
    xmath.AbsFOp: "fabs",
    xmath.FloorOp: "floor",
    xmath.CeilOp: "ceil",
    xmath.RoundOp: "round",
    xmath.RoundEvenOp: "roundeven",
    xmath.TruncOp: "trunc",
    xmath.PowFOp: "pow",
    xmath.CopySignOp: "copysign",
    xmath.FmaOp: "fma",
}


POLYNOMIAL: dict[type[Operation], str] = {
    xmath.ExpOp: "exp",
    xmath.LogOp: "log",
    xmath.TanhOp: "tanh",
    xmath.ErfOp: "erf",
}
"""The functions expanded inline for ``f32`` / ``f16``."""


def _intrinsic(name: str) -> Converter:
    def conv(op: Operation, b: Builder) -> Sequence[SSAValue]:
        ty = op.results[0].type
        return [intrinsic(b, f"llvm.{name}.{type_suffix(ty)}", op.operands, ty)]

    return conv


def _rsqrt(op: Operation, b: Builder) -> Sequence[SSAValue]:
    ty = op.results[0].type
    root = intrinsic(b, f"llvm.sqrt.{type_suffix(ty)}", op.operands, ty)
    one = b.insert(llvm.ConstantOp(FloatAttr(1.0, cast(Any, ty)), ty)).results[0]
    return b.insert(llvm.FDivOp(one, root)).results


def _libm(module: ModuleOp, f32_name: str, f64_name: str) -> Converter:
    def conv(op: Operation, b: Builder) -> Sequence[SSAValue]:
        ty = op.results[0].type
        x = op.operands[0]
        if isinstance(ty, Float64Type):
            declare_function(module, f64_name, [ty], ty)
            return b.insert(llvm.CallOp(f64_name, x, return_type=ty)).results
        f32 = Float32Type()
        if isinstance(ty, Float16Type):
            x = b.insert(llvm.FPExtOp(x, f32)).results[0]
        declare_function(module, f32_name, [f32], f32)
        y = b.insert(llvm.CallOp(f32_name, x, return_type=f32)).results[0]
        if isinstance(ty, Float16Type):
            y = b.insert(llvm.FPTruncOp(y, ty)).results[0]
        return [y]

    return conv


def _polynomial(name: str, fallback: Converter) -> Converter:
    """The inline expansion for ``f32`` / ``f16`` (through ``f32``), else
    ``fallback``."""

    def conv(op: Operation, b: Builder) -> Sequence[SSAValue] | None:
        ty = op.results[0].type
        if not isinstance(ty, Float32Type | Float16Type):
            return fallback(op, b)
        x = op.operands[0]
        if isinstance(ty, Float16Type):
            x = b.insert(llvm.FPExtOp(x, Float32Type())).results[0]
        y = math_polynomial.expand(name, b, x)
        if isinstance(ty, Float16Type):
            y = b.insert(llvm.FPTruncOp(y, ty)).results[0]
        return [y]

    return conv


def math_converters(module: ModuleOp) -> dict[type[Operation], Converter]:
    """The converters of the ``math`` ops (libm calls are declared in ``module``)."""
    table: dict[type[Operation], Converter] = {
        cls: _intrinsic(name) for cls, name in _INTRINSICS.items()
    }
    table[xmath.RsqrtOp] = _rsqrt
    table[xmath.ErfOp] = _libm(module, "erff", "erf")
    for cls, name in POLYNOMIAL.items():
        table[cls] = _polynomial(name, table[cls])
    table[xmath.ExpM1Op] = _libm(module, "expm1f", "expm1")
    table[xmath.Log1pOp] = _libm(module, "log1pf", "log1p")
    for cls, fn in (
        (xmath.AcosOp, "acos"),
        (xmath.AsinOp, "asin"),
        (xmath.AtanOp, "atan"),
        (xmath.AcoshOp, "acosh"),
        (xmath.AsinhOp, "asinh"),
        (xmath.AtanhOp, "atanh"),
    ):
        table[cls] = _libm(module, fn + "f", fn)
    return table


def convert_math_to_llvm(module: ModuleOp) -> None:
    """Convert every ``math`` op of ``module``."""
    apply_converters(module, math_converters(module))
