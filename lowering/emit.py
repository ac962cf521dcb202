"""``llvm`` dialect → LLVM IR, through xDSL's ``convert_module``.

Every function but the entry point gets internal linkage (so that they cannot clash
with symbols of the program loading a shared library) and ``noinline``: kernels are
optimised one by one (inlining every kernel into the entry made one huge function that
LLVM's O3 pipeline is slow on; a call per kernel costs nothing next to its loops).
Declarations (libm, intrinsics) stay external. A module with a host entry
(``xrelay_run``) gets the thread team around it, ``xrelay_entry``
(:mod:`xrelay.lowering.llvm.threads`).

A build compiled in parts (one object file each, :mod:`xrelay.lowering.parallel`)
names the functions called across parts (``shared``): they keep external linkage
with hidden visibility (linked between the objects, never exported by a shared
library), definitions and declarations alike, and stay ``noinline``. A part without
the host defines the runtime helpers its kernels declare (``xrelay_claim``...),
internal to it like the host part's own.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import IO

import llvmlite.ir as ir
from xdsl.backend.llvm.convert import convert_module
from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from xrelay.lowering.errors import LoweringError
from xrelay.lowering.llvm.threads import (
    BARRIER,
    CLAIM,
    ENTRY,
    RESET,
    RUN,
    add_barrier,
    add_chunks,
    add_clock,
    add_team,
)


def to_llvmlite(
    module: ModuleOp,
    triple: str | None = None,
    shared: Collection[str] | None = None,
) -> ir.Module:
    """The llvmlite module of an ``llvm``-dialect module; ``shared``: the module is
    one part of a build compiled in parts, and these functions are called across
    parts (see the module docstring)."""
    for op in module.ops:
        if not isinstance(op, llvm.FuncOp | llvm.GlobalOp):
            raise LoweringError(
                f"{op.name}: only llvm.func and llvm.global can be translated to LLVM IR "
                "(run relay-lower-to-llvm first)",
                op,
            )
    out = convert_module(module, fallback_target_triple=triple)
    across = frozenset(shared or ())
    for gv in out.functions:
        if gv.name in across:
            # llvmlite has no visibility field: "hidden" alone is external linkage
            # with hidden visibility in LLVM's syntax
            gv.linkage = "hidden"
            if not gv.is_declaration:
                gv.attributes.add("noinline")
        elif not gv.is_declaration and gv.name != ENTRY:
            gv.linkage = "internal"
            gv.attributes.add("noinline")
    if any(gv.name == RUN for gv in out.functions):
        add_team(out)
    elif shared is not None:
        _add_declared_runtime(out)
    return out


def _add_declared_runtime(out: ir.Module) -> None:
    """Define the thread-team helpers that ``out`` declares (a part of a build
    without the host: its kernels claim chunks of their loops)."""
    barrier = out.globals.get(BARRIER)
    if isinstance(barrier, ir.Function) and barrier.is_declaration:
        add_barrier(out)
    if any(isinstance(out.globals.get(n), ir.Function) for n in (CLAIM, RESET)):
        add_chunks(out)
    add_clock(out)


def to_llvm_ir(
    module: ModuleOp, triple: str | None = None, shared: Collection[str] | None = None
) -> str:
    """LLVM IR text of an ``llvm``-dialect module (``shared``: :func:`to_llvmlite`)."""
    return str(to_llvmlite(module, triple, shared))


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
