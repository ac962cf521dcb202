"""``llvm`` dialect → LLVM IR, through xDSL's ``convert_module``.

Every function but the entry point gets internal linkage (so that they cannot clash
with symbols of the program loading a shared library) and ``noinline``: kernels are
optimised one by one (inlining every kernel into the entry made one huge function that
LLVM's O3 pipeline is slow on; a call per kernel costs nothing next to its loops).
Declarations (libm, intrinsics) stay external. A module with a host entry
(``xrelay_run``) gets the thread team around it, ``xrelay_entry``
(:mod:`xrelay.lowering.llvm.threads`).
"""

from __future__ import annotations

from typing import IO

import llvmlite.ir as ir
from xdsl.backend.llvm.convert import convert_module
from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from xrelay.lowering.errors import LoweringError
from xrelay.lowering.llvm.threads import ENTRY, RUN, add_team


def to_llvmlite(module: ModuleOp, triple: str | None = None) -> ir.Module:
    """The llvmlite module of an ``llvm``-dialect module."""
    for op in module.ops:
        if not isinstance(op, llvm.FuncOp | llvm.GlobalOp):
            raise LoweringError(
                f"{op.name}: only llvm.func and llvm.global can be translated to LLVM IR "
                "(run relay-lower-to-llvm first)",
                op,
            )
    out = convert_module(module, fallback_target_triple=triple)
    for gv in out.functions:
        if not gv.is_declaration and gv.name != ENTRY:
            gv.linkage = "internal"
            gv.attributes.add("noinline")
    if any(gv.name == RUN for gv in out.functions):
        add_team(out)
    return out


def to_llvm_ir(module: ModuleOp, triple: str | None = None) -> str:
    """LLVM IR text of an ``llvm``-dialect module."""
    return str(to_llvmlite(module, triple))


class XRelayLLVMTarget(Target):
    """``-t llvm`` of ``xrelay-opt`` (``-t xrelay-llvm`` in stock ``xdsl-opt``): the
    LLVM IR xrelay compiles, with the thread team around a lowered host
    (:func:`to_llvm_ir`), where xDSL's own ``llvm`` target translates the ops only."""

    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print(to_llvm_ir(module), file=output)


class XRelayLLVMTargetForXDSLOpt(XRelayLLVMTarget):
    """The same target under the name stock ``xdsl-opt`` knows it by."""

    name = "xrelay-llvm"
