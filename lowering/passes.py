"""The lowering steps as xrelay passes (usable in ``Sequential`` and in ``-p``):

* ``RelayToKernels`` (``relay-to-kernels``): relay functions → kernels on memrefs and
  a host function calling them (:mod:`xrelay.lowering.graph`);
* ``PlanMemory`` (``plan-memory``): the host's allocations → offsets in one arena
  (:mod:`xrelay.lowering.memory_plan`);
* ``LowerToLLVM`` (``lower-to-llvm``): memrefs, loops and arithmetic → the ``llvm``
  dialect (:mod:`xrelay.lowering.llvm`);
* ``RelayLowerToLLVM`` (``relay-lower-to-llvm``): the three in order, so that
  ``xrelay-opt model.mlir -p relay-lower-to-llvm -t llvm`` prints LLVM IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xrelay.pass_manager import Pass, PassContext, PassInfo, Sequential, register_pass
from xrelay.pass_manager.options import argument, option, set_info


@register_pass("RelayToKernels")
@dataclass(frozen=True, eq=False, repr=False)
class RelayToKernels(Pass):
    """Lower the relay functions to kernels on memrefs (one per fused primitive
    function, or per op) and a host function calling them; weights become
    ``memref.global`` constants. Types are inferred first. (Relay's
    ``LowerTE`` + graph executor codegen.) ``profile``: time every kernel call
    (the host of a profiled build, :mod:`xrelay.runtime.profile`)."""

    entry: str = option("main", "the function to lower")
    profile: bool = option(False, "time every kernel call")

    def __post_init__(self) -> None:
        set_info(self, PassInfo(0, "RelayToKernels"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        from xrelay.lowering.pipeline import relay_to_kernels

        relay_to_kernels(op, self.entry, self.profile)
        return op


@register_pass("PlanMemory")
@dataclass(frozen=True, eq=False, repr=False)
class PlanMemory(Pass):
    """Plan the host function's intermediate buffers statically into one arena,
    reusing memory between buffers whose lifetimes do not overlap (TVM's graph memory
    planner)."""

    def __post_init__(self) -> None:
        set_info(self, PassInfo(0, "PlanMemory"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        from xrelay.lowering.memory_plan import plan_memory

        plan_memory(op)
        return op


@register_pass("LowerToLLVM")
@dataclass(frozen=True, eq=False, repr=False)
class LowerToLLVM(Pass):
    """Lower planned memref-level kernels and host to the ``llvm`` dialect (scf → cf,
    memref → pointers, arith/math/cf/func → llvm) with ``xrelay_run(args, tid,
    nthreads, team)``, one thread's entry; weights and the arena are passed by
    pointer. The translation to LLVM IR (``-t llvm``) adds the thread team and
    ``xrelay_entry(args, nthreads)``."""

    def __post_init__(self) -> None:
        set_info(self, PassInfo(0, "LowerToLLVM"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        from xrelay.lowering.llvm import lower_to_llvm

        lower_to_llvm(op)
        return op


@register_pass("RelayLowerToLLVM")
@dataclass(frozen=True, eq=False, repr=False)
class RelayLowerToLLVM(Sequential):
    """The whole lowering: RelayToKernels, PlanMemory, LowerToLLVM."""

    entry: str = argument("main")

    def __post_init__(self) -> None:
        super().__init__(
            [RelayToKernels(self.entry), PlanMemory(), LowerToLLVM()],
            opt_level=0,
            name="RelayLowerToLLVM",
        )
