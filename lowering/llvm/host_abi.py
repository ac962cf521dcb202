"""The calling convention of compiled models: weights and the arena by pointer.

Before memrefs become pointers, the host function's globals are replaced:

* ``memref.get_global @xrelay_weight_<k>`` → the ``k``-th pointer of a weight table
  passed to the host (a new argument): weights are bound once at build time by the
  runtime, never written into the LLVM IR;
* ``memref.get_global @xrelay_arena`` → the arena pointer passed to the host (a new
  argument, so that several executors can share one compiled model);
* ``memref.view %arena[%offset]`` → the arena pointer plus ``%offset`` bytes;
* ``memref.get_global @xrelay_status`` (the run's status block, :mod:`xrelay.status`)
  → the arena pointer plus the arena's size: the executor's arena buffer has
  :data:`~xrelay.status.STATUS_BYTES` more bytes for it;
* ``memref.get_global @xrelay_profile`` (a profiled build's timing buffer) → the
  arena pointer plus the arena's size plus ``STATUS_BYTES``.

The ``memref.global`` ops disappear. After the conversion to ``llvm``,
:func:`add_entry_point` adds ``xrelay_run(void **args, tid, nthreads, team)``, one
thread's share of a run, ``args`` holding the input, output, weight-table and arena
pointers in the host's argument order (after its three thread arguments); the
translation to LLVM IR wraps it in ``void xrelay_entry(void **args, int64_t
nthreads)``, the one native call per run (:mod:`xrelay.lowering.llvm.threads`).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, llvm, memref, ptr
from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.lowering.errors import LoweringError
from xrelay.lowering.graph import HOST_ATTR, PROFILE, STATUS, WEIGHT_PREFIX
from xrelay.lowering.llvm import fast_ops
from xrelay.lowering.llvm.threads import ENTRY, RUN
from xrelay.lowering.memory_plan import ARENA, arena_size, host_function
from xrelay.lowering.share_out import THREAD_ARGS
from xrelay.status import STATUS_BYTES


def weight_globals(module: ModuleOp) -> list[memref.GlobalOp]:
    """The weight globals in table order (their order in the module)."""
    return [
        op
        for op in module.ops
        if isinstance(op, memref.GlobalOp)
        and op.sym_name.data.startswith(WEIGHT_PREFIX)
    ]


def _from_llvm_pointer(b: Builder, value: SSAValue, ty: MemRefType) -> SSAValue:
    cast = b.insert(UnrealizedConversionCastOp.get([value], [ptr.PtrType()]))
    return b.insert(ptr.FromPtrOp(cast.results[0], ty)).res


def lower_host_abi(module: ModuleOp) -> None:
    """Replace the host's globals by pointer arguments (see the module docstring)."""
    host = host_function(module)
    if host is None:
        raise LoweringError(
            "lower-to-llvm: no host function (run relay-to-kernels first)"
        )
    weights = {g.sym_name.data: k for k, g in enumerate(weight_globals(module))}
    status_offset = arena_size(module)
    block = host.body.block
    pointer = llvm.LLVMPointerType()
    table = block.insert_arg(pointer, len(block.args))
    table.name_hint = "weights"
    arena = block.insert_arg(pointer, len(block.args))
    arena.name_hint = "arena"
    inputs = [*host.function_type.inputs.data, pointer, pointer]
    host.function_type = FunctionType.from_lists(inputs, [])

    for op in list(block.ops):
        if isinstance(op, memref.GetGlobalOp):
            name = op.name_.root_reference.data
            ty = op.memref.type
            assert isinstance(ty, MemRefType)
            b = Builder(InsertPoint.before(op))
            if name == ARENA:
                value = _from_llvm_pointer(b, arena, ty)
            elif name in (STATUS, PROFILE):
                cast = b.insert(
                    UnrealizedConversionCastOp.get([arena], [ptr.PtrType()])
                )
                at = status_offset + (STATUS_BYTES if name == PROFILE else 0)
                offset = b.insert(arith.ConstantOp.from_int_and_width(at, IndexType()))
                moved = b.insert(ptr.PtrAddOp(cast.results[0], offset.result)).result
                value = b.insert(ptr.FromPtrOp(moved, ty)).res
            elif name in weights:
                gep = fast_ops.gep_constant(table, pointer, weights[name])
                slot = b.insert(gep).result
                loaded = b.insert(fast_ops.load(slot, pointer)).dereferenced_value
                value = _from_llvm_pointer(b, loaded, ty)
            else:
                raise LoweringError(f"{op.name}: unknown global @{name}", op)
            Rewriter.replace_op(op, [], [value])
        elif isinstance(op, memref.ViewOp):
            b = Builder(InsertPoint.before(op))
            base = b.insert(ptr.ToPtrOp(op.source)).res
            moved = b.insert(ptr.PtrAddOp(base, op.byte_shift)).result
            value = b.insert(ptr.FromPtrOp(moved, op.result.type)).res
            Rewriter.replace_op(op, [], [value])
    for op in list(module.ops):
        if isinstance(op, memref.GlobalOp):
            Rewriter.erase_op(op)


def add_entry_point(module: ModuleOp, host_name: str) -> None:
    """Add ``xrelay_run(args, tid, nthreads, team)``: one thread's call of the
    (converted) host, its buffers read from ``args`` (the thread team around it,
    ``xrelay_entry``, is added with the translation to LLVM IR:
    :mod:`xrelay.lowering.llvm.threads`)."""
    host = None
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.sym_name.data == host_name:
            host = op
    if host is None:
        raise LoweringError(f"lower-to-llvm: no converted host function @{host_name}")
    pointer = llvm.LLVMPointerType()
    n_args = len(host.function_type.inputs.data) - THREAD_ARGS
    block = Block(arg_types=[pointer, i64, i64, pointer])
    b = Builder(InsertPoint.at_end(block))
    args: list[SSAValue] = list(block.args[1:])
    for k in range(n_args):
        slot = b.insert(llvm.GEPOp(block.args[0], [k], pointer)).result
        args.append(b.insert(llvm.LoadOp(slot, pointer)).dereferenced_value)
    b.insert(llvm.CallOp(host_name, *args))
    b.insert(llvm.ReturnOp())
    run = llvm.FuncOp(
        RUN,
        llvm.LLVMFunctionType([pointer, i64, i64, pointer]),
        linkage=llvm.LinkageAttr("external"),
        body=Region(block),
    )
    module.body.block.add_op(run)


__all__ = ["ENTRY", "HOST_ATTR", "add_entry_point", "lower_host_abi", "weight_globals"]
