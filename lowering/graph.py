"""relay → kernels: the graph of a relay module becomes a host function calling one
kernel per fused group (or per op), on memrefs.

The result replaces the module's functions:

* one kernel ``func.func`` per distinct group (:mod:`xrelay.lowering.group`), shared by
  groups that lower to the same code;
* ``memref.global "private" constant`` for every weight (a constant with more than
  one element), holding the constant's bytes (numpy-backed, never copied);
* the host function, named like the entry (``@main``), taking the graph inputs then
  the graph outputs as memrefs (``func.func @main(%in..., %out...)``): it reads the
  weights with ``memref.get_global``, allocates every intermediate with
  ``memref.alloc`` and frees it with ``memref.dealloc`` after its last use (PlanMemory
  turns these into offsets in one arena), and calls the kernels in order. Kernels write
  the graph outputs directly into the output buffers.

Reshapes (``reshape``, ``reshape_like``, ``contrib_reverse_reshape``,
``batch_flatten``, ``squeeze``, ``expand_dims``), ``copy`` and
``annotation.stop_fusion`` are views: a ``memref.reinterpret_cast`` of their operand,
no kernel. Calls of other (non-primitive) functions are inlined. The host function
carries the names and relay types of the inputs and outputs as attributes
(``xrelay.inputs``, ``xrelay.input_types``, ``xrelay.outputs``,
``xrelay.output_types``), read by the runtime.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    TupleType,
    UnitAttr,
    i64,
)
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from xrelay.dialects.relay import dtypes, nn, transform
from xrelay.dialects.relay import elementwise as ew
from xrelay.dialects.relay.annotation import StopFusionOp
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.structural import (
    PRIMITIVE,
    ConstantOp,
    IfOp,
    TupleGetItemOp,
    TupleOp,
    YieldOp,
    dense_from_numpy,
)
from xrelay.lowering.builder import DYNAMIC, INDEX, Buffer, KernelBuilder
from xrelay.lowering.concat_placement import ConcatNode, Placement, plan_concats
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.group import (
    Group,
    Kernel,
    channel_blocks,
    check_types,
    group_key,
    is_compute,
    lower_group,
)
from xrelay.lowering.kernels.int16 import prepack_weights
from xrelay.lowering.scalar_types import DType, memory_type, memref_type, tensor_info
from xrelay.lowering.share_out import (
    BARRIER,
    RESET,
    SOLO_TEAM,
    THREAD_ARGS,
    CallSite,
    insert_deallocs,
    share_out,
)
from xrelay.lowering.stages import stage
from xrelay.lowering.work import kernel_ns, op_work, overlap_settings, share_min_ns
from xrelay.names import decode_name, encode_name
from xrelay.status import STATUS_WORDS

VIEW_OPS: tuple[type[RelayOp], ...] = (
    transform.ReshapeOp,
    transform.ReshapeLikeOp,
    transform.ReverseReshapeOp,
    transform.ExpandDimsOp,
    transform.SqueezeOp,
    nn.BatchFlattenOp,
    ew.CopyOp,
    StopFusionOp,
)
"""Ops whose result is operand 0 with another shape (row-major): views, no kernel."""

INPUTS_ATTR = "xrelay.inputs"
OUTPUTS_ATTR = "xrelay.outputs"
INPUT_TYPES_ATTR = "xrelay.input_types"
OUTPUT_TYPES_ATTR = "xrelay.output_types"
HOST_ATTR = "xrelay.host"
WORK_ATTR = "xrelay.work"
"""Estimated multiply-adds of one run (the runtime sizes its thread team by it)."""
WEIGHT_PREFIX = "xrelay_weight_"
STATUS = "xrelay_status"
"""The global standing for the run's status block (:mod:`xrelay.status`)."""
PROFILE = "xrelay_profile"
"""The global standing for the profile buffer of a profiled build (after the status
block): ``i64[MAX_TEAM][calls + 1][2]``, the clock before and after each kernel
call by each thread, the last row the thread's whole host."""
CLOCK = "xrelay_clock"
"""``int64_t xrelay_clock(void)``: monotonic nanoseconds (profiled builds only,
:mod:`xrelay.lowering.llvm.threads`)."""
PROFILE_ATTR = "xrelay.profile"
"""A profiled host: JSON list describing each timed kernel call, in buffer order."""


@dataclass
class HostValue:
    """A tensor in the host function: a memref (an input, an output, an allocation or
    a view of one) or a constant."""

    shape: tuple[int, ...]
    dtype: DType
    memref: SSAValue | None = None
    const: ConstantOp | None = None
    root: SSAValue | None = None
    """The ``memref.alloc`` this value lives in (``None``: an input, output or weight)."""
    relay_value: SSAValue | None = None


def _short(name: str) -> str:
    return name.removeprefix("relay.").replace(".", "_")


class GraphLowering:
    """Lower one module (see the module docstring)."""

    place_concats = True
    """Lower concatenations in place (:mod:`xrelay.lowering.concat_placement`);
    off, every concatenate is a kernel copying its operands (for comparisons)."""

    def __init__(self, module: ModuleOp, entry: str = "main", profile: bool = False):
        self.module = module
        self.entry = entry
        self.profile = profile
        self.call_info: dict[func.CallOp, dict[str, Any]] = {}
        """What each kernel call runs (for the profile): kernel, relay ops, shapes."""
        self.funcs = {
            op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)
        }
        self.new_ops: list[Operation] = []
        self.kernels: dict[str, tuple[str, Kernel]] = {}
        self.weight_globals: dict[int, memref.GlobalOp] = {}
        self.weight_refs: dict[int, SSAValue] = {}
        self.prepacked: dict[int, ConstantOp] = {}
        """Weights repacked for their kernels, by the original constant's id."""
        self.active: list[str] = []
        self.anchor: Operation | None = None
        """The top-level host op being built (a ``scf.if``), where buffers go."""
        self.externs: dict[str, FunctionType] = {}
        self.block_bounds: dict[str, int] = {}
        """Per class of convolutions that differ only in their count of input-channel
        blocks (:meth:`_block_classes`), when it holds several counts: the largest."""
        self.work = 0
        """Estimated multiply-adds of a run (:func:`op_work` summed)."""
        self.share_min_ns = share_min_ns()
        self.solo_calls: set[func.CallOp] = set()
        """Kernel calls too small to share between threads (run by thread 0 alone:
        :func:`~xrelay.lowering.work.worth_sharing`)."""
        self.call_sites: dict[func.CallOp, CallSite] = {}
        """Each kernel call's estimated time and the buffers it writes (for
        :func:`~xrelay.lowering.share_out.share_out`)."""
        self._status: SSAValue | None = None
        self.placement = Placement()
        """Concatenations lowered in place and the homes of values
        (:mod:`xrelay.lowering.concat_placement`)."""
        self.written_home: set[SSAValue] = set()
        """The values written at their homes so far (checked by the
        concatenations that count on them)."""
        self.root_buffers: dict[SSAValue, SSAValue] = {}
        """The byte buffer (``memref.alloc``) of each root of :attr:`placement`,
        allocated where the first of its parts is needed."""

    # -- entry ----------------------------------------------------------------------------

    def lower(self) -> None:
        main = self.funcs.get(self.entry)
        if main is None or not main.body.blocks:
            known = ", ".join(sorted(self.funcs)) or "none"
            raise LoweringError(
                f"no function @{self.entry} with a body to lower (functions: {known})"
            )
        block = main.body.block
        # ops first, so that a type that cannot be lowered is reported at its op
        for op in main.walk():
            if is_compute(op):
                check_types(op)
        in_infos: list[tuple[tuple[int, ...], DType]] = []
        for i, arg in enumerate(block.args):
            if not isinstance(arg.type, TensorType):
                raise LoweringError(
                    f"@{self.entry}: parameter #{i} has type {arg.type}; only tensor "
                    "parameters can be lowered",
                    main,
                )
            in_infos.append(tensor_info(arg.type, f"@{self.entry} parameter #{i}"))
        ret = block.last_op
        assert isinstance(ret, func.ReturnOp)
        out_leaves = self._flat_return(main, ret)
        out_infos = [tensor_info(v.type, f"@{self.entry} result") for v in out_leaves]

        arg_types = [memref_type(s, d) for s, d in in_infos + out_infos]
        self.kb = KernelBuilder.new_function(
            self.entry, [INDEX, INDEX, LLVMPointerType(), *arg_types]
        )
        host = self.kb.function
        tid, count, team = self.kb.args[:THREAD_ARGS]
        tid.name_hint, count.name_hint, team.name_hint = "tid", "nthreads", "team"
        in_args = self.kb.args[THREAD_ARGS : THREAD_ARGS + len(in_infos)]
        out_args = self.kb.args[THREAD_ARGS + len(in_infos) :]
        # graph outputs: the first kernel that produces an output value writes it
        self.output_slots: dict[SSAValue, list[int]] = {}
        for k, v in enumerate(out_leaves):
            self.output_slots.setdefault(v, []).append(k)
        self.out_args = list(out_args)
        self.out_infos = out_infos
        self.filled: set[int] = set()

        self._block_classes()
        if self.place_concats:
            self.placement = plan_concats(
                list(block.ops), self.funcs, self._kernel_values(block), out_leaves
            )
        env: dict[SSAValue, list[HostValue]] = {}
        for arg, hv_arg, (shape, dt) in zip(block.args, in_args, in_infos, strict=True):
            env[arg] = [HostValue(shape, dt, memref=hv_arg, relay_value=arg)]
        self._run_block(main, env)

        # outputs not written by a kernel (inputs, constants, views, repeats): copy
        for k, v in enumerate(out_leaves):
            if k in self.filled:
                continue
            (hv,) = env[v]
            self._copy_into(hv, k)

        self.kb.finish()
        parallel = {name: k.parallel for name, k in self.kernels.values()}
        shared = share_out(
            self.kb,
            parallel,
            self.solo_calls,
            self.call_sites,
            overlap_settings(self.share_min_ns),
        )
        insert_deallocs(host, shared.segments)
        team_only = FunctionType.from_lists([LLVMPointerType()], [])
        if shared.barriers:
            self.externs[BARRIER] = team_only
        if shared.resets:
            self.externs[RESET] = team_only
        if shared.solo_teams:
            self.externs[SOLO_TEAM] = FunctionType.from_lists(
                [LLVMPointerType(), INDEX], [LLVMPointerType()]
            )
        if self.profile:
            self._add_timing()
        names = [
            decode_name(a.name_hint) if a.name_hint else f"input{i}"
            for i, a in enumerate(block.args)
        ]
        host.attributes[INPUTS_ATTR] = ArrayAttr([StringAttr(n) for n in names])
        host.attributes[OUTPUTS_ATTR] = ArrayAttr(
            [StringAttr(f"output{k}") for k in range(len(out_leaves))]
        )
        host.attributes[INPUT_TYPES_ATTR] = ArrayAttr([a.type for a in block.args])
        host.attributes[OUTPUT_TYPES_ATTR] = ArrayAttr([v.type for v in out_leaves])
        host.attributes[HOST_ATTR] = UnitAttr()
        host.attributes[WORK_ATTR] = IntegerAttr(self.work, i64)
        for arg, name in zip(in_args, names, strict=True):
            arg.name_hint = encode_name(name)
        for k, arg in enumerate(out_args):
            arg.name_hint = f"output{k}"

        # replace the relay functions by the lowered ones
        for op in list(self.module.ops):
            op.detach()
            op.erase(safe_erase=False)
        for name, ty in sorted(self.externs.items()):
            decl = func.FuncOp.external(
                name, list(ty.inputs.data), list(ty.outputs.data)
            )
            self.module.body.block.add_op(decl)
        for op in [*self.weight_globals.values(), *self.new_ops, host]:
            self.module.body.block.add_op(op)

    def _flat_return(self, fn: func.FuncOp, ret: func.ReturnOp) -> list[SSAValue]:
        leaves: list[SSAValue] = []

        def flatten(v: SSAValue) -> None:
            owner = v.owner
            if isinstance(owner, TupleOp):
                for f in owner.operands:
                    flatten(f)
            else:
                leaves.append(v)

        for v in ret.operands:
            flatten(v)
        return leaves

    # -- the body ---------------------------------------------------------------------------

    def _run_block(
        self, fn: func.FuncOp, env: dict[SSAValue, list[HostValue]]
    ) -> list[list[HostValue]]:
        name = fn.sym_name.data
        if name in self.active:
            raise LoweringError(f"@{name}: recursive functions cannot be lowered", fn)
        self.active.append(name)
        block = fn.body.block
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                self.active.pop()
                return [env[v] for v in op.operands]
            self._run_op(op, env)
        raise LoweringError(f"@{name}: the body does not end in func.return", fn)

    def _run_op(self, op: Operation, env: dict[SSAValue, list[HostValue]]) -> None:
        if isinstance(op, ConstantOp):
            shape, dt = tensor_info(op.result.type, op.name)
            env[op.result] = [HostValue(shape, dt, const=op, relay_value=op.result)]
        elif isinstance(op, TupleOp):
            env[op.result] = [hv for v in op.operands for hv in env[v]]
        elif isinstance(op, TupleGetItemOp):
            fields = env[op.tuple]
            index = op.index.value.data
            # a tuple of tuples is flattened: find the field's leaves by type
            tup_type = op.tuple.type
            sizes = [_leaf_count(t) for t in tup_type.types.data]  # pyright: ignore[reportAttributeAccessIssue]
            start = sum(sizes[:index])
            env[op.result] = fields[start : start + sizes[index]]
        elif isinstance(op, IfOp):
            self._if(op, env)
        elif isinstance(op, VIEW_OPS):
            self._view(op, env)
        elif op in self.placement.nodes:
            self._concat_in_place(self.placement.nodes[op], env)
        elif isinstance(op, func.CallOp):
            self._call(op, env)
        elif isinstance(op, RelayOp):
            operands = list(op.operands)
            self._kernel(
                _short(op.name),
                [op],
                operands,
                list(op.results),
                env,
                op.results,
                label=op.name.removeprefix("relay."),
            )
        else:
            raise LoweringError(
                f"{op.name}: cannot lower this op in a relay function", op
            )

    def _view(self, op: RelayOp, env: dict[SSAValue, list[HostValue]]) -> None:
        (src,) = env[op.operands[0]]
        env[op.results[0]] = [self._view_of(src, op.results[0])]

    def _view_of(self, src: HostValue, result: SSAValue) -> HostValue:
        """``src`` seen with the type of ``result`` (same elements, row-major)."""
        shape, dt = tensor_info(result.type, "reshape")
        if src.const is not None:
            array = src.const.numpy().reshape(shape)
            return HostValue(shape, dt, const=ConstantOp(dense_from_numpy(array)))
        assert src.memref is not None
        strides: list[int] = []
        acc = 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d
        cast_op = memref.ReinterpretCastOp.from_dynamic(
            src.memref, [0], list(shape), strides[::-1], memref_type(shape, dt)
        )
        self.kb.insert(cast_op)
        return HostValue(
            shape, dt, memref=cast_op.result, root=src.root, relay_value=result
        )

    def _call(self, op: func.CallOp, env: dict[SSAValue, list[HostValue]]) -> None:
        name = op.callee.string_value()
        callee = self.funcs.get(name)
        if callee is None or not callee.body.blocks:
            raise LoweringError(f"func.call: @{name} has no body to lower", op)
        block = callee.body.block
        if PRIMITIVE in callee.attributes:
            ret = block.last_op
            assert isinstance(ret, func.ReturnOp)
            ops = [o for o in block.ops if o is not ret]
            if _is_view_chain(ops, ret) and len(op.results) == 1:
                # a fused reshape (or chain of them) is a view too
                (src,) = env[op.operands[0]]
                env[op.results[0]] = [self._view_of(src, op.results[0])]
                return
            callee_env: dict[SSAValue, list[HostValue]] = {
                a: env[v] for a, v in zip(block.args, op.operands, strict=True)
            }
            self._kernel(
                name,
                ops,
                list(block.args),
                list(ret.operands),
                callee_env,
                op.results,
                outer=env,
            )
            return
        inner: dict[SSAValue, list[HostValue]] = {
            a: env[v] for a, v in zip(block.args, op.operands, strict=True)
        }
        results = self._run_block(callee, inner)
        for res, hvs in zip(op.results, results, strict=True):
            env[res] = hvs

    # -- concatenations in place -----------------------------------------------------------

    def _kernel_values(self, block: Block) -> set[SSAValue]:
        """The values of the entry function's top-level ``block`` that a kernel
        writes into a fresh buffer (those that can be given a home in a
        concatenation): results of relay ops and of calls of fused functions, but
        not views, constants, tuples, branches or inlined functions' values."""
        values: set[SSAValue] = set()
        for op in block.ops:
            if isinstance(op, func.CallOp):
                callee = self.funcs.get(op.callee.string_value())
                if callee is None or PRIMITIVE not in callee.attributes:
                    continue
                if not callee.body.blocks:
                    continue
                ret = callee.body.block.last_op
                if not isinstance(ret, func.ReturnOp):
                    continue
                body = [o for o in callee.body.block.ops if o is not ret]
                if _is_view_chain(body, ret):
                    continue
            elif not is_compute(op) or isinstance(op, (*VIEW_OPS, IfOp)):
                continue
            for r in op.results:
                if isinstance(r.type, TensorType):
                    values.add(r)
        return values

    def _part(
        self, root: SSAValue, offset: int, shape: tuple[int, ...], dt: DType
    ) -> tuple[SSAValue, SSAValue]:
        """A view of ``shape`` at byte ``offset`` of the buffer of ``root`` (a
        concatenation lowered in place; allocated on first use), and that buffer."""
        buf = self.root_buffers.get(root)
        if buf is None:
            size = self.placement.sizes[root]
            alloc = memref.AllocOp(
                [], [], MemRefType(IntegerType(8), [size]), IntegerAttr(64, i64)
            )
            self.kb.insert(alloc)
            buf = self.root_buffers[root] = alloc.memref
        view = memref.ViewOp(buf, self.kb.index(offset), [], memref_type(shape, dt))
        self.kb.insert(view)
        return view.result, buf

    def _at_home(
        self, value: SSAValue, shape: tuple[int, ...], dt: DType
    ) -> tuple[SSAValue, SSAValue]:
        home = self.placement.homes[value]
        return self._part(home.root, home.offset, shape, dt)

    def _concat_in_place(
        self, node: ConcatNode, env: dict[SSAValue, list[HostValue]]
    ) -> None:
        """A concatenation whose operands are (mostly) in their slices already: copy
        the others in; the concatenation is a view of its buffer, read by the rest
        of its fused group (when there is one) as an input."""
        shape, dt = tensor_info(node.concat.results[0].type, node.concat.name)
        home = self.placement.homes[node.value]
        view, root = self._part(home.root, home.offset, shape, dt)
        for i in node.copies:
            (hv,) = env[node.operands[i]]
            dest, _ = self._part(
                home.root, home.offset + node.offsets[i], hv.shape, hv.dtype
            )
            self._copy(hv, dest)
        for i, v in enumerate(node.operands):
            empty = any(d == 0 for d in env[v][0].shape)
            if i not in node.copies and not empty and v not in self.written_home:
                raise LoweringError(
                    f"{node.concat.name}: operand #{i} was not written in its slice "
                    "(an internal error of the concatenation placement)",
                    node.op,
                )
        placed = HostValue(shape, dt, memref=view, root=root, relay_value=node.value)
        self.written_home.add(node.value)
        op = node.op
        if node.pure:
            env[op.results[0]] = [placed]
            return
        assert isinstance(op, func.CallOp)
        name = op.callee.string_value()
        callee = self.funcs[name]
        block = callee.body.block
        ret = block.last_op
        assert isinstance(ret, func.ReturnOp)
        ops = [o for o in block.ops if o is not ret and o is not node.concat]
        callee_env: dict[SSAValue, list[HostValue]] = {
            a: env[v] for a, v in zip(block.args, op.operands, strict=True)
        }
        callee_env[node.value] = [placed]
        used = {v for o in ops for v in o.operands}
        inputs = [node.value, *(a for a in block.args if a in used)]
        self._kernel(
            name.replace("concatenate_", "", 1),
            ops,
            inputs,
            list(ret.operands),
            callee_env,
            op.results,
            outer=env,
            label=name,
        )

    # -- kernels ---------------------------------------------------------------------------

    def _kernel(
        self,
        name: str,
        ops: list[Operation],
        inputs: list[SSAValue],
        outputs: list[SSAValue],
        env: dict[SSAValue, list[HostValue]],
        results: Sequence[SSAValue],
        outer: dict[SSAValue, list[HostValue]] | None = None,
        label: str | None = None,
    ) -> None:
        """Lower ``ops`` (reading ``inputs``, writing ``outputs``) as one kernel and
        call it; bind ``results`` (values of the enclosing function) to the buffers.
        ``label``: the group's name in the relay graph (default ``name``)."""
        constants: dict[SSAValue, ConstantOp] = {}
        input_hvs: list[HostValue] = []
        for v in inputs:
            hvs = env[v]
            if len(hvs) != 1:
                raise LoweringError(
                    f"{name}: tuple-typed kernel inputs cannot be lowered yet"
                )
            if hvs[0].const is not None:
                constants[v] = hvs[0].const
            input_hvs.append(hvs[0])
        constants.update(prepack_weights(ops, constants, self.prepacked))
        group = Group(name, ops, inputs, outputs, constants)
        kname, kernel = self._get_kernel(group)
        self.work += sum(op_work(op) for op in ops)

        args: list[SSAValue] = []
        for i in kernel.inputs:
            hv = input_hvs[i]
            assert hv.memref is not None
            args.append(hv.memref)
        for const in kernel.weight_ops(group):
            args.append(self._weight(const))

        # outputs: write graph outputs in place, allocate the rest
        flat_results = [leaf for v in outputs for leaf in _leaves_of(v, ops)]
        outer_results = list(results)
        out_hvs: list[HostValue] = []
        for k, leaf in enumerate(flat_results):
            shape, dt = tensor_info(leaf.type, name)
            relay_value = (
                outer_results[k] if len(outer_results) == len(flat_results) else None
            )
            slot = self._free_output_slot(relay_value)
            if slot is not None:
                hv = HostValue(
                    shape, dt, memref=self.out_args[slot], relay_value=relay_value
                )
                self.filled.add(slot)
            elif relay_value is not None and relay_value in self.placement.homes:
                # written straight into its slice of a concatenation
                view, root = self._at_home(relay_value, shape, dt)
                self.written_home.add(relay_value)
                hv = HostValue(
                    shape, dt, memref=view, root=root, relay_value=relay_value
                )
            else:
                alloc = self._alloc(shape, dt)
                hv = HostValue(
                    shape, dt, memref=alloc, root=alloc, relay_value=relay_value
                )
            out_hvs.append(hv)
            args.append(cast(SSAValue, hv.memref))
        scratch: list[SSAValue] = []
        for shape, dt in kernel.scratch:
            scratch.append(self._alloc(shape, dt))
        args += scratch
        if kernel.blocks:
            count = self._pass_blocks(args, kernel.blocks)
            args.append(self.kb.index(count))
        if kernel.status:
            args.append(self._status_block())
        call = func.CallOp(kname, args, [])
        self.kb.insert(call)
        ns = kernel_ns(ops)
        if ns < self.share_min_ns:
            self.solo_calls.add(call)
        writes = [cast(SSAValue, hv.memref) for hv in out_hvs]
        self.call_sites[call] = CallSite(ns, (*writes, *scratch))
        if self.profile:
            self.call_info[call] = _call_info(
                kname, label or name, ops, input_hvs, out_hvs
            )

        target = outer if outer is not None else env
        if len(outer_results) == len(flat_results):
            for res, hv in zip(outer_results, out_hvs, strict=True):
                target[res] = [hv]
        else:  # one tuple-typed result
            (res,) = outer_results
            target[res] = out_hvs

    def _block_classes(self) -> None:
        """Fill :attr:`block_bounds`: the fused functions whose kernels could take
        their count of input-channel blocks at run time (:func:`channel_blocks`),
        classed by their code with that count unknown (and every input taken for a
        buffer: the classes of the kernels are finer, never coarser), and the
        largest count of each class that holds several. Only those take the count
        at run time: a convolution alone in its class keeps its static kernel."""
        counts: dict[str, set[int]] = {}
        for fn in self.funcs.values():
            if PRIMITIVE not in fn.attributes or not fn.body.blocks:
                continue
            block = fn.body.block
            ret = block.last_op
            if not isinstance(ret, func.ReturnOp):
                continue
            ops = [o for o in block.ops if o is not ret]
            group = Group("", ops, list(block.args), list(ret.operands))
            blocks = channel_blocks(group)
            if blocks is not None:
                counts.setdefault(group_key(group, blocks), set()).add(blocks.count)
        self.block_bounds = {k: max(c) for k, c in counts.items() if len(c) > 1}

    def _get_kernel(self, group: Group) -> tuple[str, Kernel]:
        """The kernel of ``group``: an existing one with the same code, or a new one
        (with its count of input-channel blocks at run time when its class holds
        several: :meth:`_block_classes`)."""
        blocks = channel_blocks(group)
        bound = 0
        if blocks is not None:
            coarse = Group("", group.ops, group.inputs, group.outputs)
            bound = self.block_bounds.get(group_key(coarse, blocks), 0)
            if not bound:
                blocks = None
        key = group_key(group, blocks)
        found = self.kernels.get(key)
        if found is not None:
            return found
        kname = f"k{len(self.kernels)}_{group.name}"
        group.name = kname if kname.isidentifier() else f"k{len(self.kernels)}"
        with stage("kernel IR"):
            kernel = lower_group(group, blocks, bound)
        kernel.function.arg_attrs = ArrayAttr(
            [
                DictionaryAttr(
                    {"llvm.noalias": UnitAttr()}
                    if isinstance(a.type, MemRefType)
                    else {}
                )
                for a in kernel.function.args
            ]
        )
        self.kernels[key] = (group.name, kernel)
        self.new_ops.append(kernel.function)
        self.externs.update(kernel.externs)
        return group.name, kernel

    def _pass_blocks(self, args: list[SSAValue], positions: Sequence[int]) -> int:
        """Pass the buffers ``args[positions]`` to a kernel that takes their count of
        input-channel blocks (axis 1) at run time: as ``memref<Nx?x...>`` views (a
        ``memref.reinterpret_cast``, the same pointer). Gives the count."""
        counts: set[int] = set()
        for k in positions:
            ty = args[k].type
            assert isinstance(ty, MemRefType)
            shape = list(ty.get_shape())
            counts.add(shape[1])
            strides, step = [], 1
            for d in reversed(shape):
                strides.append(step)
                step *= d
            dynamic = MemRefType(ty.element_type, [shape[0], DYNAMIC, *shape[2:]])
            sizes: list[SSAValue | int] = list(shape)
            sizes[1] = self.kb.index(shape[1])
            view = memref.ReinterpretCastOp.from_dynamic(
                args[k], [0], sizes, strides[::-1], dynamic
            )
            self.kb.insert(view)
            args[k] = view.result
        assert len(counts) == 1, counts
        return counts.pop()

    def _add_timing(self) -> None:
        """Profiled build: read :data:`CLOCK` before and after every kernel call and
        store both in :data:`PROFILE` at ``[tid, call, 0/1]``; the host's own start
        and end in the last row. The order of the calls is recorded in
        :data:`PROFILE_ATTR`."""
        # the package lowering.llvm imports this module
        from xrelay.lowering.llvm.thread_pool import MAX_TEAM

        kb = self.kb
        host = kb.function
        tid = kb.args[0]
        calls = [
            op
            for op in host.walk()
            if isinstance(op, func.CallOp) and op in self.call_info
        ]
        ty = memref_type((MAX_TEAM, len(calls) + 1, 2), np.dtype(np.int64))
        self.new_ops.insert(0, memref.GlobalOp.get(StringAttr(PROFILE), ty, UnitAttr()))
        self.externs[CLOCK] = FunctionType.from_lists([], [i64])
        rows = [kb.index(k) for k in range(len(calls) + 1)]
        sides = [kb.index(0), kb.index(1)]
        get = memref.GetGlobalOp(PROFILE, ty)
        kb.builder.insert(get, InsertPoint.at_start(kb.entry))
        buffer = get.memref

        def stamp(point: InsertPoint, row: int, side: int) -> None:
            clock = func.CallOp(CLOCK, [], [i64])
            store = memref.StoreOp.get(
                clock.results[0], buffer, [tid, rows[row], sides[side]]
            )
            kb.builder.insert(clock, point)
            kb.builder.insert(store, InsertPoint.after(clock))

        for k, call in enumerate(calls):
            stamp(InsertPoint.before(call), k, 0)
            stamp(InsertPoint.after(call), k, 1)
        block = kb.entry
        first = next(
            op
            for op in block.ops
            if not isinstance(op, arith.ConstantOp | memref.GetGlobalOp)
        )
        stamp(InsertPoint.before(first), len(calls), 0)
        last = block.last_op
        assert last is not None
        stamp(InsertPoint.before(last), len(calls), 1)
        host.attributes[PROFILE_ATTR] = StringAttr(
            json.dumps([self.call_info[c] for c in calls])
        )

    def _status_block(self) -> SSAValue:
        """The run's status block (:mod:`xrelay.status`): ``memref.get_global
        @xrelay_status``, made once at the start of the host (the host ABI places it
        after the arena)."""
        if self._status is None:
            ty = memref_type((STATUS_WORDS,), np.dtype(np.int64))
            glob = memref.GlobalOp.get(StringAttr(STATUS), ty, UnitAttr())
            self.new_ops.insert(0, glob)
            get = memref.GetGlobalOp(STATUS, ty)
            self.kb.builder.insert(get, InsertPoint.at_start(self.kb.entry))
            self._status = get.memref
        return self._status

    def _free_output_slot(self, value: SSAValue | None) -> int | None:
        if value is None:
            return None
        for slot in self.output_slots.get(value, []):
            if slot not in self.filled:
                return slot
        return None

    def _alloc(self, shape: tuple[int, ...], dt: DType) -> SSAValue:
        """A new buffer: ``memref.alloc`` in the host's top-level block (before the
        ``scf.if`` being built, inside a branch)."""
        op = memref.AllocOp([], [], memref_type(shape, dt), IntegerAttr(64, i64))
        if self.anchor is not None:
            self.kb.builder.insert(op, InsertPoint.before(self.anchor))
        else:
            self.kb.insert(op)
        return op.memref

    def _weight(self, const: ConstantOp) -> SSAValue:
        key = id(const.value)
        ref = self.weight_refs.get(key)
        if ref is not None:
            return ref
        glob = self.weight_globals.get(key)
        shape, dt = tensor_info(const.result.type, const.name)
        mtype = memref_type(shape, dt)
        if glob is None:
            value = const.value
            elem = memory_type(dt)
            if value.get_element_type() != elem:  # bool and unsigned: same bytes
                retyped: Any = TensorType(elem, list(shape))
                value = DenseIntOrFPElementsAttr(retyped, value.data)
            glob = memref.GlobalOp.get(
                StringAttr(f"{WEIGHT_PREFIX}{len(self.weight_globals)}"),
                mtype,
                value,
                constant=UnitAttr(),
                alignment=64,
            )
            self.weight_globals[key] = glob
        get = memref.GetGlobalOp(glob.sym_name.data, mtype)
        # at the top of the host: every use is dominated, and it is read once
        self.kb.builder.insert(get, InsertPoint.at_start(self.kb.entry))
        self.weight_refs[key] = get.memref
        return get.memref

    def _copy_into(self, hv: HostValue, slot: int) -> None:
        """Copy a value into graph output ``slot`` with a copy kernel."""
        self._copy(hv, self.out_args[slot])
        self.filled.add(slot)

    def _copy(self, hv: HostValue, dest: SSAValue) -> None:
        """Copy a value (a buffer or a constant) into the buffer ``dest``."""
        tensor_ty = TensorType(_elem_of(hv), list(hv.shape))
        block = Block(arg_types=[tensor_ty])
        src = block.args[0]
        copy = ew.CopyOp.make([src])
        constants: dict[SSAValue, ConstantOp] = {}
        if hv.const is not None:
            constants[src] = hv.const
        group = Group("copy", [copy], [src], [copy.results[0]], constants)
        kname, kernel = self._get_kernel(group)
        args: list[SSAValue] = []
        if kernel.inputs:
            assert hv.memref is not None
            args.append(hv.memref)
        for const in kernel.weight_ops(group):
            args.append(self._weight(const))
        args.append(dest)
        call = func.CallOp(kname, args, [])
        self.kb.insert(call)
        self.call_sites[call] = CallSite(kernel_ns([copy]), (dest,))
        if self.profile:
            self.call_info[call] = _call_info(kname, "copy", [], [hv], [hv])

    # -- relay.if --------------------------------------------------------------------------

    def _if(self, op: IfOp, env: dict[SSAValue, list[HostValue]]) -> None:
        """``relay.if`` → ``scf.if`` on the condition's byte; each branch runs its
        kernels and copies the values it yields into the result buffers (allocated
        before the ``scf.if``, like every buffer a branch allocates)."""
        (cond,) = env[op.condition]
        if cond.const is not None:  # a constant condition picks its branch now
            region = (
                op.then_region
                if bool(cond.const.numpy().reshape(-1)[0])
                else op.else_region
            )
            values = self._run_region(region, dict(env))
            for res, hvs in zip(op.results, values, strict=True):
                env[res] = hvs
            return
        assert cond.memref is not None
        results: list[list[HostValue]] = []
        for res in op.results:
            leaves: list[HostValue] = []
            for ty in _leaf_types(res.type):
                shape, dt = tensor_info(ty, op.name)
                buf = self._alloc(shape, dt)
                leaves.append(HostValue(shape, dt, memref=buf, root=buf))
            results.append(leaves)
        flag = self.kb.load(Buffer(cond.memref, (), np.dtype(np.bool_)), [])
        then_block, else_block = Block(), Block()
        if_op = scf.IfOp(flag, [], Region(then_block), Region(else_block))
        self.kb.insert(if_op)
        for region, block in (
            (op.then_region, then_block),
            (op.else_region, else_block),
        ):
            saved = self.anchor
            self.anchor = self.anchor or if_op
            with self.kb.at(InsertPoint.at_end(block)):
                values = self._run_region(region, dict(env))
                for hvs, dests in zip(values, results, strict=True):
                    for hv, dest in zip(hvs, dests, strict=True):
                        assert dest.memref is not None
                        self._copy(hv, dest.memref)
                self.kb.insert(scf.YieldOp())
            self.anchor = saved
        for res, hvs in zip(op.results, results, strict=True):
            env[res] = hvs

    def _run_region(
        self, region: Region, env: dict[SSAValue, list[HostValue]]
    ) -> list[list[HostValue]]:
        block = region.block
        for inner in block.ops:
            if isinstance(inner, YieldOp):
                return [env[v] for v in inner.operands]
            self._run_op(inner, env)
        raise LoweringError("relay.if: a region does not end in relay.yield")


def _call_info(
    kernel: str,
    label: str,
    ops: Sequence[Operation],
    inputs: Sequence[HostValue],
    outputs: Sequence[HostValue],
) -> dict[str, Any]:
    """One timed call for the profile: the kernel, the group's relay name, its ops,
    its output shapes, its multiply-adds (:func:`op_work` of the contracting ops, 0
    for a group without one) and the bytes it reads and writes."""
    contracting = (
        nn.Conv2DOp | nn.Conv2DNCHWcOp | nn.DenseOp | nn.DensePackOp,
        nn.BatchMatmulOp | nn.MatmulOp,
    )
    macs = sum(
        op_work(op) for op in ops if isinstance(op, contracting[0] | contracting[1])
    )
    nbytes = sum(
        int(np.prod(hv.shape, dtype=np.int64)) * np.dtype(hv.dtype).itemsize
        for hv in [*inputs, *outputs]
    )
    return {
        "kernel": kernel,
        "group": label,
        "ops": [op.name.removeprefix("relay.") for op in ops],
        "shapes": ["x".join(str(d) for d in hv.shape) for hv in outputs],
        "macs": macs,
        "bytes": nbytes,
    }


def _elem_of(hv: HostValue) -> Attribute:
    return dtypes.element_type(hv.dtype)


def _is_view_chain(ops: Sequence[Operation], ret: func.ReturnOp) -> bool:
    """Whether a function body is a chain of views from its first argument to its
    result."""
    block = ret.parent_block()
    if block is None or not ops or len(ret.operands) != 1 or not block.args:
        return False
    current: SSAValue = block.args[0]
    for op in ops:
        if not isinstance(op, VIEW_OPS) or op.operands[0] is not current:
            return False
        current = op.results[0]
    return ret.operands[0] is current


def _leaf_types(ty: Attribute) -> list[Attribute]:
    if isinstance(ty, TupleType):
        return [leaf for t in ty.types.data for leaf in _leaf_types(t)]
    return [ty]


def _leaf_count(ty: object) -> int:
    if isinstance(ty, TupleType):
        return sum(_leaf_count(t) for t in ty.types.data)
    return 1


def _leaves_of(v: SSAValue, ops: Sequence[Operation]) -> list[SSAValue]:
    """The tensor leaves of a value returned by a group (a tuple built in the group
    is flattened)."""
    owner = v.owner
    if isinstance(owner, TupleOp) and owner in ops:
        return [leaf for f in owner.operands for leaf in _leaves_of(f, ops)]
    return [v]


def lower_graph(module: ModuleOp, entry: str = "main", profile: bool = False) -> None:
    """Replace the relay functions of ``module`` (types inferred) by kernels and a
    host function, in place; ``profile``: time every kernel call (:func:`_add_timing`;
    without it the host has no clock calls)."""
    GraphLowering(module, entry, profile).lower()
