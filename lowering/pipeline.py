"""The whole lowering of a relay module, as functions (the passes in
:mod:`xrelay.lowering.passes` wrap the same steps)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)

from xrelay.dialects.relay.structural import numpy_from_dense
from xrelay.lowering.collector import stage_boundary
from xrelay.lowering.emit import to_llvm_ir
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.graph import (
    INPUT_TYPES_ATTR,
    INPUTS_ATTR,
    OUTPUT_TYPES_ATTR,
    OUTPUTS_ATTR,
    PROFILE_ATTR,
    WORK_ATTR,
    lower_graph,
)
from xrelay.lowering.llvm import lower_to_llvm
from xrelay.lowering.llvm.host_abi import weight_globals
from xrelay.lowering.memory_plan import arena_size, host_function, plan_memory
from xrelay.lowering.object_code import join_parts
from xrelay.lowering.parallel import lower_in_parts, plan_parts, requested_jobs
from xrelay.lowering.scalar_types import tensor_info
from xrelay.lowering.spec import KernelCall, ModelSpec, TensorSpec, interface_global
from xrelay.lowering.stages import stage
from xrelay.lowering.unblock import unblock_layouts
from xrelay.lowering.work_bound import check_work


def relay_to_kernels(
    module: ModuleOp, entry: str = "main", profile: bool = False
) -> None:
    """relay → kernels and a host function on memrefs, in place (types are inferred
    first); ``profile``: time every kernel call (a profiled build)."""
    from xrelay.transforms.infer_type import infer_types

    infer_types(module)
    unblock_layouts(module)
    lower_graph(module, entry, profile)


def model_spec(module: ModuleOp) -> ModelSpec:
    """The interface of a planned memref-level module: inputs, outputs, arena size and
    the weights (numpy views of the constants, in table order)."""
    host = host_function(module)
    if host is None:
        raise LoweringError("no host function (run relay-to-kernels first)")

    def tensors(names_attr: str, types_attr: str) -> list[TensorSpec]:
        names = cast(ArrayAttr[StringAttr], host.attributes[names_attr])
        types = cast(ArrayAttr[TensorType], host.attributes[types_attr])
        out: list[TensorSpec] = []
        for name, ty in zip(names.data, types.data, strict=True):
            shape, dt = tensor_info(ty, name.data)
            out.append(TensorSpec(name.data, shape, dt.name))
        return out

    weights = []
    for glob in weight_globals(module):
        value = glob.initial_value
        weights.append(numpy_from_dense(value))  # pyright: ignore[reportArgumentType]
    work = host.attributes.get(WORK_ATTR)
    calls = host.attributes.get(PROFILE_ATTR)
    profile = (
        [KernelCall.from_json(c) for c in json.loads(calls.data)]
        if isinstance(calls, StringAttr)
        else None
    )
    return ModelSpec(
        tensors(INPUTS_ATTR, INPUT_TYPES_ATTR),
        tensors(OUTPUTS_ATTR, OUTPUT_TYPES_ATTR),
        arena_size(module),
        weights,
        work=work.value.data if isinstance(work, IntegerAttr) else 0,
        profile=profile,
    )


@dataclass
class LoweredModel:
    """A relay module lowered to LLVM IR, with its interface."""

    spec: ModelSpec
    llvm_ir: str
    """The LLVM IR; of a build lowered in parts, the parts one after another
    (:func:`xrelay.runtime.jit.split_parts`)."""
    memref_ir: str | None = None
    """The planned memref-level module as text, when asked for."""
    objects: list[bytes] | None = None
    """The object code of every part of ``llvm_ir``, with the interface global
    (:func:`~xrelay.runtime.artifact.interface_global`), when the lowering compiled
    it already (a build in parts: :mod:`xrelay.lowering.parallel`)."""


def lower_model(
    module: ModuleOp,
    entry: str = "main",
    keep_mlir: bool = False,
    in_place: bool = False,
    profile: bool = False,
    jobs: int | None = None,
) -> LoweredModel:
    """Lower a copy of ``module`` (left as it was) to LLVM IR; ``in_place``: lower
    ``module`` itself (no copy: for a module nobody else holds); ``profile``: a
    profiled build (every kernel call timed, :mod:`xrelay.runtime.profile`);
    ``jobs``: the processes the kernels may be lowered and compiled in (default
    ``$XRELAY_COMPILE_JOBS`` or the CPUs; small modules use one:
    :mod:`xrelay.lowering.parallel`)."""
    if jobs is None:
        jobs = requested_jobs()
    check_work(module)  # a run of hours (a huge broadcast) is refused here
    work = module if in_place else module.clone()
    stage_boundary()
    with stage("relay->kernels"):
        relay_to_kernels(work, entry, profile)
    with stage("memory planning"):
        plan_memory(work)
        spec = model_spec(work)
    memref_ir = str(work) if keep_mlir else None
    plan = plan_parts(work, jobs)
    if plan is not None:
        texts, objects = lower_in_parts(work, plan, interface_global(spec.to_json()))
        return LoweredModel(spec, join_parts(texts), memref_ir, objects)
    stage_boundary()
    with stage("llvm dialect"):
        lower_to_llvm(work)
    stage_boundary()
    with stage("LLVM IR text"):
        llvm_ir = to_llvm_ir(work)
    return LoweredModel(spec, llvm_ir, memref_ir)
