"""One kernel from a group of relay ops: a function fused by FuseOps
(``relay.primitive``) or a single op.

The kernel is a ``func.func`` on memrefs whose arguments are, in order: the group's
inputs, the weights (constants with more than one element, passed by pointer), the
group's outputs, and scratch buffers for the intermediate values that must be stored.
Constants with one element are inlined as ``arith.constant``, except in a kernel of
a quantized model's integer form (:func:`runtime_scalars`: the requantize
epilogues, the zero points), which takes them as weights, so that layers of one
shape whose scales and zero points differ share one kernel.

A kernel with *channel blocks at run time* (:func:`channel_blocks`: a blocked
convolution whose calls differ only in their count of input-channel blocks, the 1x1
bottlenecks of DenseNet whose inputs grow every layer) types the channel-block axis
of its data and kernel as ``?`` and takes the count as an ``index`` argument after
the buffers: one kernel for all of them.

Inside the group, the result of a *cheap* pointwise op (elementwise, broadcast,
injective) is never stored: it is computed where its consumer reads it (TVM's
compute-inline). Every other intermediate is stored in a scratch buffer by its op's
emitter. The group's outputs are written by their producer's emitter, or by a loop nest
over the output evaluating the inlined expression.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, TensorType
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Operation, SSAValue

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.structural import ConstantOp, TupleGetItemOp, TupleOp
from xrelay.lowering.builder import DYNAMIC, INDEX, Buffer, Index, KernelBuilder
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.kernels import (
    BufferSource,
    InlineSource,
    LoadedScalarSource,
    OpContext,
    OpLowering,
    ScalarSource,
    Source,
    lowering_for,
    reads_at_output_index,
)
from xrelay.lowering.kernels.int16 import is_prepacked
from xrelay.lowering.scalar_types import DType, memref_type, tensor_info

Leaf = SSAValue
"""A tensor-typed relay value."""


def is_scalar_constant(op: ConstantOp) -> bool:
    """A constant with one element: inlined into kernels as an ``arith.constant``."""
    return int(np.prod(cast(TensorType, op.value.get_type()).get_shape())) == 1


def is_quantized(group: Group) -> bool:
    """Whether ``group`` computes int16 values: the integer form
    ``relay.qnn.transform.Legalize`` gives 8-bit operands (``int16(x) - zero
    point``), read by the integer convolutions and products (int32 sums) and
    written by the requantize epilogues and the centering kernels before them."""
    for op in group.ops:
        for v in (*op.operands, *op.results):
            ty = v.type
            if isinstance(ty, TensorType) and str(ty.get_element_type()) == "i16":
                return True
    return False


def runtime_scalars(group: Group) -> set[SSAValue]:
    """The scalar constants (one element) of ``group`` its kernel takes as weights
    (by pointer, read once at its top) instead of inlining them: in a quantized
    group (:func:`is_quantized`), those whose every reader in
    the group emits the same code for any value
    (:attr:`~xrelay.lowering.kernels.OpLowering.scalars_at_run_time`: add,
    multiply, ...). The quantized layers of one shape then differ only in the
    weights they pass (zero points, requantize multipliers): one kernel serves them
    all, as one float kernel serves same-shaped float layers. Float kernels keep
    their constants inline (nothing changes there)."""
    if not is_quantized(group):
        return set()
    members = set(group.ops)
    candidates: list[SSAValue] = [
        v for v, c in group.constants.items() if is_scalar_constant(c)
    ]
    candidates += [
        op.result
        for op in group.ops
        if isinstance(op, ConstantOp) and is_scalar_constant(op)
    ]
    out: set[SSAValue] = set()
    for v in candidates:
        readers = [u.operation for u in v.uses if u.operation in members]
        if readers and all(_reads_scalars_at_run_time(r) for r in readers):
            out.add(v)
    return out


def _reads_scalars_at_run_time(op: Operation) -> bool:
    low = lowering_for(op)
    return low is not None and low.scalars_at_run_time


@dataclass
class Group:
    """The ops of one kernel, in order, with its inputs and outputs (relay values).

    ``inputs`` are values defined outside the group (graph values, or constants bound
    by the caller); ``outputs`` are the values the kernel writes, tensor leaves only.
    """

    name: str
    ops: list[Operation]
    inputs: list[SSAValue]
    outputs: list[SSAValue]
    constants: dict[SSAValue, ConstantOp] = field(
        default_factory=dict[SSAValue, ConstantOp]
    )
    """Inputs that are constants (folded into the kernel, not read from a buffer)."""


@dataclass
class Kernel:
    """A lowered group."""

    function: func.FuncOp
    inputs: list[int]
    """Positions in ``group.inputs`` of the inputs passed as buffers (constants are
    not among them)."""
    weights: list[tuple[str, int]]
    """Where the constants passed by pointer (after the inputs) come from:
    ``("input", i)`` for ``group.inputs[i]``, ``("op", j)`` for ``group.ops[j]``."""
    scratch: list[tuple[tuple[int, ...], DType]]
    """Scratch buffers passed last, after the outputs."""
    externs: dict[str, FunctionType] = field(default_factory=dict[str, FunctionType])
    """External (libm) functions the kernel calls, to declare in the module."""
    parallel: bool = False
    """Whether several threads may run the kernel together (each passing its thread
    id, the thread count and the team, the arguments that end every kernel's
    argument list); otherwise one thread runs it with ``(0, 1, team)``."""
    shared_nests: int = 0
    """How many loop nests claim their iterations from the team (1 when
    :attr:`parallel`; 0 for a kernel run by one thread)."""
    status: bool = False
    """Whether the kernel checks data and takes the run's status block
    (:mod:`xrelay.status`) as an argument, after the scratch buffers."""
    blocks: tuple[int, ...] = ()
    """The buffer arguments (positions) whose channel-block axis (axis 1) is sized
    at run time (:func:`channel_blocks`): the caller passes them as ``memref<Nx?x
    ...>`` and their count as an ``index`` argument after the scratch buffers
    (before the status block)."""

    def weight_ops(self, group: Group) -> list[ConstantOp]:
        """The constants of ``group`` (one with this kernel's key) passed by pointer."""
        out: list[ConstantOp] = []
        for kind, i in self.weights:
            if kind == "input":
                out.append(group.constants[group.inputs[i]])
            else:
                out.append(cast(ConstantOp, group.ops[i]))
        return out


def _value_key(value: SSAValue, numbering: dict[SSAValue, int]) -> str:
    return f"%{numbering[value]}"


@dataclass(frozen=True)
class ChannelBlocks:
    """A group whose kernel can take its count of input-channel blocks at run time
    (:func:`channel_blocks`)."""

    values: tuple[SSAValue, SSAValue]
    """The convolution's data and kernel (group inputs or a constant of the group):
    nothing else in the group reads them."""
    count: int
    """This group's count (axis 1 of both)."""


def channel_blocks(group: Group) -> ChannelBlocks | None:
    """The group's input-channel blocks, when its kernel can take their count at
    run time: the group holds one ungrouped ``contrib_conv2d_NCHWc`` of floats
    whose data is a group input and whose kernel an input or constant of the group
    (not inlined), both read by the convolution only, so that no other value of
    the group depends on the count; the convolution's kernel
    (:func:`~xrelay.lowering.kernels.conv.conv2d_nchwc`) reads them through their
    1-D views, so the count only changes strides and loop bounds."""
    conv: nn.Conv2DNCHWcOp | None = None
    for op in group.ops:
        if isinstance(op, nn.Conv2DNCHWcOp):
            if conv is not None:
                return None
            conv = op
    if conv is None or conv.conv_params()[3] != 1:
        return None
    data, weight = conv.operands[0], conv.operands[1]
    if data not in group.inputs or data in group.constants:
        return None
    const = group.constants.get(weight)
    if const is None and isinstance(weight.owner, ConstantOp):
        const = weight.owner
    if weight not in group.inputs and const is None:
        return None
    if const is not None and is_scalar_constant(const):
        return None
    shapes: list[tuple[int, ...]] = []
    for v in (data, weight):
        ty = v.type
        if sum(1 for _ in v.uses) != 1 or group.inputs.count(v) > 1:
            return None
        if not isinstance(ty, TensorType):
            return None
        if str(ty.get_element_type()) not in ("f32", "f64"):
            return None
        shapes.append(tuple(ty.get_shape()))
    if len(shapes[0]) != 5 or len(shapes[1]) != 6 or shapes[0][1] != shapes[1][1]:
        return None
    return ChannelBlocks((data, weight), shapes[0][1])


def _type_text(v: SSAValue, runtime: ChannelBlocks | None) -> str:
    """``v``'s type in a key: a channel-block axis sized at run time as ``?``."""
    if runtime is None or v not in runtime.values:
        return str(v.type)
    ty = cast(TensorType, v.type)
    shape = list(ty.get_shape())
    shape[1] = DYNAMIC
    return str(TensorType(ty.get_element_type(), shape))


def group_key(group: Group, runtime: ChannelBlocks | None = None) -> str:
    """A string equal for groups that lower to the same kernel (so kernels are
    shared): the ops, attributes and types, with weights by type only; with
    ``runtime`` (:func:`channel_blocks` of ``group``), its values' channel-block
    count as ``?``."""
    numbering: dict[SSAValue, int] = {}
    parts: list[str] = []

    def number(v: SSAValue) -> None:
        numbering.setdefault(v, len(numbering))

    if runtime is not None:
        parts.append("channel blocks at run time")
    passed = runtime_scalars(group)
    for v in group.inputs:
        number(v)
        const = group.constants.get(v)
        if const is None:
            parts.append(f"in {_type_text(v, runtime)}")
        elif is_scalar_constant(const) and v not in passed:
            parts.append(f"scalar {v.type} {const.numpy().reshape(-1)[0]!r}")
        else:
            parts.append(f"weight {_type_text(v, runtime)}")
    for op in group.ops:
        if isinstance(op, ConstantOp):
            if is_scalar_constant(op) and op.result not in passed:
                desc = f"scalar {op.result.type} {op.numpy().reshape(-1)[0]!r}"
            else:
                desc = f"weight {_type_text(op.result, runtime)}"
        else:
            props = ", ".join(f"{k}={v}" for k, v in sorted(op.properties.items()))
            operands = ", ".join(_value_key(v, numbering) for v in op.operands)
            types = ", ".join(str(r.type) for r in op.results)
            desc = f"{op.name}({operands}) {{{props}}} -> {types}"
        for r in op.results:
            number(r)
        parts.append(desc)
    parts.append("out " + ", ".join(_value_key(v, numbering) for v in group.outputs))
    return "\n".join(parts)


@dataclass
class _CurrentValue:
    """The value of an epilogue producer at the index being written: what its
    consumers read inside the epilogue (only ever at that index)."""

    shape: tuple[int, ...]
    dtype: DType
    current: SSAValue | None = None

    @property
    def buffer(self) -> Buffer | None:
        return None

    def at(self, idx: object) -> SSAValue:
        assert self.current is not None
        return self.current


class _GroupLowering:
    def __init__(self, group: Group, blocks: ChannelBlocks | None, bound: int):
        self.group = group
        self.blocks = blocks
        self.bound = bound
        self.tuples: dict[SSAValue, list[SSAValue]] = {}
        self.constants: dict[SSAValue, ConstantOp] = dict(group.constants)
        self.producer: dict[SSAValue, tuple[Operation, int]] = {}
        self.uses: dict[SSAValue, int] = {}

    # -- structure -----------------------------------------------------------------------

    def leaves(self, value: SSAValue) -> list[SSAValue]:
        """The tensor values a (possibly tuple-typed) value stands for."""
        return self.tuples.get(value, [value])

    def analyse(self) -> None:
        for op in self.group.ops:
            if isinstance(op, ConstantOp):
                self.constants[op.result] = op
            elif isinstance(op, TupleOp):
                self.tuples[op.result] = [
                    leaf for v in op.operands for leaf in self.leaves(v)
                ]
            elif isinstance(op, TupleGetItemOp):
                fields = self.tuples.get(op.tuple)
                if fields is None:
                    raise LoweringError(
                        f"{op.name}: cannot lower a projection of a tuple that is not "
                        "built in the same function",
                        op,
                    )
                self.tuples[op.result] = self.leaves(fields[op.index.value.data])
            elif is_compute(op):
                check_types(op)
                for r, res in enumerate(op.results):
                    self.producer[res] = (op, r)
                for v in op.operands:
                    for leaf in self.leaves(v):
                        self.uses[leaf] = self.uses.get(leaf, 0) + 1
            else:
                raise LoweringError(
                    f"{op.name}: cannot lower this op inside a kernel", op
                )

    def lowering(self, op: Operation) -> OpLowering:
        found = lowering_for(op)
        if found is None:
            hint = op.LOWERING_HINT if isinstance(op, RelayOp) else ""
            raise LoweringError(
                f"{op.name}: no lowering for this op yet{hint and '; ' + hint}", op
            )
        return found

    def is_inlined(self, op: Operation) -> bool:
        low = self.lowering(op)
        return low.value_at is not None and low.cheap

    def find_epilogue(
        self, outputs: list[SSAValue]
    ) -> tuple[Operation, SSAValue] | None:
        """``(producer, output)`` when the group's single output is computed by inlined
        ops from the result of one producer that can apply an epilogue, every op on
        the way reading it at the output index: the producer then writes the output,
        applying those ops as its epilogue (while the element is hot)."""
        if len(outputs) != 1:
            return None
        out = outputs[0]
        found = self.producer.get(out)
        if found is None or not self.is_inlined(found[0]):
            return None
        out_type = out.type
        out_shape = _shape_of(out_type)
        anchor: SSAValue | None = None
        depends: dict[SSAValue, bool] = {}

        def casts(op: Operation) -> bool:
            """Whether ``op``'s epilogue may store another dtype than its result."""
            hook = self.lowering(op).epilogue_casts
            return hook is not None and hook(cast(RelayOp, op))

        def visit(v: SSAValue) -> bool | None:
            """Whether ``v`` depends on the anchor; ``None``: no epilogue possible."""
            nonlocal anchor
            prod = self.producer.get(v)
            if prod is None:
                return False
            op = prod[0]
            if not self.is_inlined(op):
                low = self.lowering(op)
                if (
                    anchor is None
                    and low.with_epilogue is not None
                    and len(op.results) == 1
                    and (
                        v.type == out_type
                        or (_shape_of(v.type) == out_shape and casts(op))
                    )
                ):
                    anchor = v
                return v is anchor
            if v in depends:
                return depends[v]
            dep = False
            for k, operand in enumerate(op.operands):
                d = visit(operand)
                if d is None:
                    return None
                if d:
                    if _shape_of(
                        operand.type
                    ) != out_shape or not reads_at_output_index(op, k):
                        return None
                    dep = True
            depends[v] = dep
            return dep

        if not visit(out) or anchor is None:
            return None
        # every value computed from the producer's is only used inside the epilogue
        chain = {v for v, d in depends.items() if d}
        for v in (anchor, *chain):
            for use in v.uses:
                user = use.operation
                if user in self.group.ops and not any(r in chain for r in user.results):
                    return None
        return self.producer[anchor][0], out

    # -- emission ----------------------------------------------------------------------

    def lower(self, threads: bool = True) -> Kernel:
        """The kernel; ``threads``: its parallel nest (if any) shares iterations out
        (otherwise every nest is an ordinary loop nest)."""
        self.analyse()
        group = self.group
        outputs = [leaf for v in group.outputs for leaf in self.leaves(v)]

        inputs = [v for v in group.inputs if v not in self.constants]
        for v in inputs:
            if v in self.tuples or not hasattr(v.type, "get_shape"):
                raise LoweringError(
                    f"{group.name}: cannot lower the tuple-typed input {v.type}"
                )
        weights: list[ConstantOp] = []
        locators: list[tuple[str, int]] = []
        seen_weights: set[int] = set()
        candidates = [("input", i, v) for i, v in enumerate(group.inputs)] + [
            ("op", j, op.results[0])
            for j, op in enumerate(group.ops)
            if isinstance(op, ConstantOp)
        ]
        passed = runtime_scalars(
            Group(group.name, group.ops, group.inputs, group.outputs, self.constants)
        )
        for kind, i, v in candidates:
            const = self.constants.get(v)
            if const is None or id(const) in seen_weights:
                continue
            if is_scalar_constant(const) and v not in passed:
                continue
            seen_weights.add(id(const))
            weights.append(const)
            locators.append((kind, i))

        # a conv followed by elementwise ops writes the output with an epilogue
        epilogue = self.find_epilogue(outputs)
        # stored intermediates: results of ops that are not inlined and not outputs
        out_set = set(outputs)
        scratch_values: list[SSAValue] = []
        for op in group.ops:
            if is_compute(op) and not self.is_inlined(op):
                if epilogue is not None and op is epilogue[0]:
                    continue
                for res in op.results:
                    if res not in out_set:
                        scratch_values.append(res)

        def info(v: SSAValue, what: str) -> tuple[tuple[int, ...], DType]:
            return tensor_info(v.type, what)

        # scratch buffers the emitters ask for (e.g. a repacked weight)
        op_scratch: dict[int, list[tuple[tuple[int, ...], DType]]] = {}
        for op in group.ops:
            if not is_compute(op) or self.is_inlined(op):
                continue
            hook = self.lowering(op).scratch
            if hook is None or not all(
                hasattr(v.type, "get_shape") for v in op.operands
            ):
                continue
            wanted = hook(
                cast(RelayOp, op),
                [info(v, op.name) for v in op.operands],
                [info(r, op.name) for r in op.results],
            )
            if wanted:
                op_scratch[id(op)] = wanted

        arg_infos: list[tuple[tuple[int, ...], DType]] = []
        arg_infos += [info(v, f"{group.name}: input") for v in inputs]
        arg_infos += [info(c.result, f"{group.name}: constant") for c in weights]
        arg_infos += [info(v, f"{group.name}: output") for v in outputs]
        scratch_infos = [info(v, f"{group.name}: intermediate") for v in scratch_values]
        for wanted in op_scratch.values():
            scratch_infos += wanted
        arg_infos += scratch_infos

        # the arguments whose channel-block axis is sized at run time
        runtime_args: set[int] = set()
        if self.blocks is not None:
            runtime_consts = {
                id(self.constants.get(v, v.owner)) for v in self.blocks.values
            }
            for k, v in enumerate(inputs):
                if v in self.blocks.values:
                    runtime_args.add(k)
            for k, c in enumerate(weights):
                if id(c) in runtime_consts:
                    runtime_args.add(len(inputs) + k)
            assert len(runtime_args) == 2, "channel blocks of an unexpected group"
            for k in runtime_args:
                shape, dt = arg_infos[k]
                arg_infos[k] = ((shape[0], self.bound, *shape[2:]), dt)

        def arg_type(k: int, shape: tuple[int, ...], dt: DType) -> Attribute:
            if k in runtime_args:
                return memref_type((shape[0], DYNAMIC, *shape[2:]), dt)
            return memref_type(shape, dt)

        kb = KernelBuilder.new_function(
            group.name,
            [
                *(arg_type(k, s, d) for k, (s, d) in enumerate(arg_infos)),
                *([INDEX] if runtime_args else []),
                INDEX,
                INDEX,
                LLVMPointerType(),
            ],
        )
        # before the thread arguments (and after the channel-block count)
        kb.status_position = len(arg_infos) + (1 if runtime_args else 0)
        tid, count, team = kb.args[-3:]
        tid.name_hint, count.name_hint, team.name_hint = "tid", "nthreads", "team"
        if threads:
            kb.thread = (tid, count, team)
        buf_args = kb.args[: len(arg_infos)]
        bufs = [Buffer(a, s, d) for a, (s, d) in zip(buf_args, arg_infos, strict=True)]
        if runtime_args:
            blocks_arg = kb.args[len(arg_infos)]
            blocks_arg.name_hint = "blocks"
            for k in sorted(runtime_args):
                a, (s, d) = buf_args[k], arg_infos[k]
                bufs[k] = Buffer(a, s, d, runtime=(1, blocks_arg))
                kb.flat(bufs[k])  # its 1-D view, at the top of the function
        n_in, n_w, n_out = len(inputs), len(weights), len(outputs)
        sources: dict[SSAValue, Source] = {}
        for v, b in zip(inputs, bufs[:n_in], strict=True):
            sources[v] = BufferSource(kb, b)
        weight_buf = dict(
            zip((id(c) for c in weights), bufs[n_in : n_in + n_w], strict=True)
        )
        for v, const in self.constants.items():
            shape, dt = info(v, f"{group.name}: constant")
            if v in passed:  # read once, before any loop
                buf = weight_buf[id(const)]
                value = kb.load(buf, [0] * buf.rank)
                sources[v] = LoadedScalarSource(value, shape, dt)
            elif is_scalar_constant(const):
                sources[v] = ScalarSource(
                    kb, const.numpy().reshape(-1)[0].item(), shape, dt
                )
            else:
                sources[v] = BufferSource(kb, weight_buf[id(const)])
        out_bufs = bufs[n_in + n_w : n_in + n_w + n_out]
        scratch_bufs = bufs[n_in + n_w + n_out :]
        dest: dict[SSAValue, Buffer] = dict(
            zip(scratch_values, scratch_bufs[: len(scratch_values)], strict=True)
        )
        extra = iter(scratch_bufs[len(scratch_values) :])
        op_bufs = {k: [next(extra) for _ in v] for k, v in op_scratch.items()}
        written: set[SSAValue] = set()
        for v, b in zip(outputs, out_bufs, strict=True):
            if v not in dest:
                dest[v] = b
        deferred: tuple[OpContext, OpLowering, _CurrentValue] | None = None

        for op in group.ops:
            if not is_compute(op):
                continue
            low = self.lowering(op)
            operands: list[Source] = []
            for v in op.operands:
                leaves = self.leaves(v)
                if len(leaves) != 1 or leaves[0] is not v:
                    # a variadic op given a tuple: its fields are the operands
                    operands += [self.source(sources, leaf, op) for leaf in leaves]
                else:
                    operands.append(self.source(sources, v, op))
            results = [info(r, op.name) for r in op.results]
            cx = OpContext(
                kb,
                cast(RelayOp, op),
                operands,
                results,
                scratch=op_bufs.get(id(op), []),
                prepacked=frozenset(
                    k
                    for k, v in enumerate(op.operands)
                    if (c := self.constants.get(v)) is not None and is_prepacked(c)
                ),
            )
            if self.is_inlined(op):
                for r, res in enumerate(op.results):
                    sources[res] = InlineSource(
                        cx, low, r, results[r][0], results[r][1]
                    )
                continue
            if epilogue is not None and op is epilogue[0]:
                # emitted last, once its consumers' expressions exist
                current = _CurrentValue(results[0][0], results[0][1])
                sources[op.results[0]] = current
                deferred = (cx, low, current)
                continue
            targets = [dest[res] for res in op.results]
            low.emit(cx, targets)
            for res, b in zip(op.results, targets, strict=True):
                sources[res] = BufferSource(kb, b)
                written.add(res)

        if deferred is not None and epilogue is not None:
            cx, low, current = deferred
            expression = self.source(sources, epilogue[1], None)

            def apply(value: SSAValue, idx: list[Index]) -> SSAValue:
                kb.forget()  # what was computed from the previous value
                current.current = value
                return expression.at(idx)

            assert low.with_epilogue is not None
            low.with_epilogue(cx, out_bufs[0], apply)
            written.add(epilogue[1])
            dest[epilogue[1]] = out_bufs[0]

        # outputs not written by their producer: evaluate (or copy) into the output
        for v, b in zip(outputs, out_bufs, strict=True):
            if v in written and dest[v] is b:
                continue
            src = self.source(sources, v, None)
            written.add(v)
            if isinstance(src, InlineSource) and src.lowering.write is not None:
                if src.lowering.write(src.cx, [b]):
                    continue
            with kb.parallel(b.shape) as idx:
                kb.store(src.at(idx), b, idx)

        positions = [i for i, v in enumerate(group.inputs) if v not in self.constants]
        return Kernel(
            kb.finish(),
            positions,
            locators,
            scratch_infos,
            dict(kb.externs),
            parallel=kb.runs_in_parallel(),
            shared_nests=kb.parallel_regions,
            status=kb.uses_status,
            blocks=tuple(sorted(runtime_args)),
        )

    def source(
        self, sources: dict[SSAValue, Source], v: SSAValue, user: Operation | None
    ) -> Source:
        found = sources.get(v)
        if found is None:
            where = user.name if user is not None else self.group.name
            raise LoweringError(f"{where}: an operand is not defined in the kernel")
        return found


def _shape_of(ty: Attribute) -> tuple[int, ...] | None:
    """The shape of a tensor type (``None`` for another type)."""
    return tuple(ty.get_shape()) if isinstance(ty, TensorType) else None


def check_types(op: Operation) -> None:
    """Every operand and result of ``op`` must be a static tensor of a supported
    dtype: a :class:`LoweringError` naming the op otherwise."""
    for what, values in (("operand", op.operands), ("result", op.results)):
        for i, v in enumerate(values):
            try:
                tensor_info(v.type, f"{what} #{i}")
            except LoweringError as e:
                raise LoweringError(f"{op.name}: {e}", op) from None


def is_compute(op: Operation) -> bool:
    """A relay op computing values (not a constant or a tuple op)."""
    return isinstance(op, RelayOp) and not isinstance(
        op, ConstantOp | TupleOp | TupleGetItemOp
    )


def lower_group(
    group: Group, blocks: ChannelBlocks | None = None, bound: int = 0
) -> Kernel:
    """Lower a group of ops to a kernel function (see the module docstring). A
    kernel that cannot be shared out between threads (several parallel nests, or
    stores outside its one) is emitted again with ordinary loop nests: thread 0
    runs it alone. ``blocks`` (:func:`channel_blocks` of ``group``): the kernel
    takes the count of input-channel blocks at run time, built (its tiling
    chosen) for counts up to ``bound`` (at least ``blocks.count``)."""
    bound = max(bound, blocks.count) if blocks is not None else 0
    kernel = _GroupLowering(group, blocks, bound).lower()
    if kernel.parallel or kernel.shared_nests == 0:
        return kernel
    return _GroupLowering(group, blocks, bound).lower(threads=False)
