"""Per-op lowerings: how each relay op becomes loops on memrefs.

An op's lowering is an :class:`OpLowering` registered for its class (and inherited by
subclasses) with one of two forms:

* **pointwise** (``value_at``): the value of result ``r`` at an output index, built
  from operand values read at other indices (``cx.operand(k).at(idx)``). Elementwise,
  broadcast and injective ops are pointwise; so are reductions, pooling and matrix
  products, whose value at an index is a loop over a window or a reduced axis. A
  *cheap* pointwise op (no inner loop) is inlined into its consumers inside a fused
  kernel instead of being stored (TVM's compute-inline of injective ops).
* **materialize**: writes whole result buffers (``emit(cx, outs)``): ops that need
  several passes over a slice (softmax, the normalisations) or a loop order that is
  not one value per output element (the direct convolution).

An op with only ``value_at`` is materialized by a loop nest over its result shape. The
modules of this package register the lowerings when imported (:func:`load_all`);
:func:`unlowered_ops` lists the dialect's ops without one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from xdsl.ir import Operation, SSAValue

from xrelay.dialects.relay.base import RelayOp
from xrelay.load_once import LoadModules
from xrelay.lowering.builder import Buffer, Index, KernelBuilder
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.scalar_types import DType


class Source(Protocol):
    """Where a kernel reads a value from: a buffer, an inlined producer or a constant."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> DType: ...

    def at(self, idx: Sequence[Index]) -> SSAValue:
        """The element at ``idx`` (in its register type)."""
        ...

    @property
    def buffer(self) -> Buffer | None:
        """The buffer holding the value, when it is stored."""
        ...


@dataclass
class BufferSource:
    """A value stored in a buffer."""

    kb: KernelBuilder
    buf: Buffer

    @property
    def shape(self) -> tuple[int, ...]:
        return self.buf.shape

    @property
    def dtype(self) -> DType:
        return self.buf.dtype

    @property
    def buffer(self) -> Buffer | None:
        return self.buf

    def at(self, idx: Sequence[Index]) -> SSAValue:
        return self.kb.load(self.buf, idx)


@dataclass
class ScalarSource:
    """A constant with one element, broadcast to its shape (an ``arith.constant``)."""

    kb: KernelBuilder
    value: Any
    shape: tuple[int, ...]
    dtype: DType

    @property
    def buffer(self) -> Buffer | None:
        return None

    def at(self, idx: Sequence[Index]) -> SSAValue:
        return self.kb.const(self.value, self.dtype)


@dataclass
class LoadedScalarSource:
    """A scalar read from its buffer once, at the top of the kernel (a scalar
    constant passed at run time: :func:`xrelay.lowering.group.runtime_scalars`),
    broadcast to its shape."""

    value: SSAValue
    shape: tuple[int, ...]
    dtype: DType

    @property
    def buffer(self) -> Buffer | None:
        return None

    def at(self, idx: Sequence[Index]) -> SSAValue:
        return self.value


@dataclass
class InlineSource:
    """Result ``result`` of a pointwise op, computed where it is read."""

    cx: OpContext
    lowering: OpLowering
    result: int
    shape: tuple[int, ...]
    dtype: DType

    @property
    def buffer(self) -> Buffer | None:
        return None

    def at(self, idx: Sequence[Index]) -> SSAValue:
        """The value at ``idx``, emitted once per index and block
        (:meth:`~xrelay.lowering.builder.KernelBuilder.reuse`)."""
        value_at = self.lowering.value_at
        assert value_at is not None
        index = list(idx)
        return self.cx.kb.reuse(
            self, index, lambda: value_at(self.cx, self.result, index)
        )


@dataclass
class OpContext:
    """What an emitter sees: the builder, the op, where its operands come from and
    the shapes/dtypes of its results."""

    kb: KernelBuilder
    op: RelayOp
    operands: list[Source]
    results: list[tuple[tuple[int, ...], DType]]
    cache: dict[str, Any] = field(default_factory=dict[str, Any])
    """Per-op scratch space for emitters (e.g. values computed once per kernel)."""
    scratch: list[Buffer] = field(default_factory=list[Buffer])
    """The kernel's scratch buffers the op asked for (:func:`scratch`)."""
    prepacked: frozenset[int] = frozenset()
    """Operands bound to a weight stored repacked for the op's kernel (see
    :func:`xrelay.lowering.kernels.int16.prepack_weights`)."""

    def operand(self, k: int) -> Source:
        return self.operands[k]

    def out_shape(self, r: int = 0) -> tuple[int, ...]:
        return self.results[r][0]

    def out_dtype(self, r: int = 0) -> DType:
        return self.results[r][1]

    def error(self, message: str) -> LoweringError:
        return LoweringError(f"{self.op.name}: {message}", self.op)


ValueAt = Callable[[OpContext, int, list[Index]], SSAValue]
Materialize = Callable[[OpContext, list[Buffer]], None]
Write = Callable[[OpContext, list[Buffer]], bool]
Epilogue = Callable[[SSAValue, list[Index]], SSAValue]
"""A function of an output element's value and index, giving the value to store."""
WithEpilogue = Callable[[OpContext, Buffer, Epilogue], None]
TensorInfo = tuple[tuple[int, ...], DType]
Scratch = Callable[[RelayOp, list[TensorInfo], list[TensorInfo]], list[TensorInfo]]
"""``(op, operand infos, result infos) -> scratch buffers`` an emitter needs (e.g. a
repacked weight), given to it as :attr:`OpContext.scratch`."""
EpilogueCasts = Callable[[RelayOp], bool]
"""Whether an op's epilogue emitter can store another dtype (see
:attr:`OpLowering.epilogue_casts`)."""


@dataclass(frozen=True)
class OpLowering:
    """How one op class lowers (see the module docstring)."""

    value_at: ValueAt | None = None
    materialize: Materialize | None = None
    cheap: bool = True
    """A pointwise op without inner loops: inlined into consumers when fused."""
    with_epilogue: WithEpilogue | None = None
    """Writes the (single) result, applying an epilogue to each element while it is
    hot (a fused bias / activation)."""
    scratch: Scratch | None = None
    """The scratch buffers the emitters need (none by default)."""
    write: Write | None = None
    """Writes the result of an inlined pointwise op that is a kernel's output in a
    loop order faster than the plain nest over the output (a layout transform's
    blocked copy); may decline (returns ``False``): the plain nest is used."""
    epilogue_casts: EpilogueCasts | None = None
    """Whether :attr:`with_epilogue` can store the epilogue's values in a dtype other
    than the op's result (of its shape) for this op (an integer convolution whose
    int32 sums are requantized to 8 bits while they are hot); ``None``: never."""
    scalars_at_run_time: bool = False
    """The emitter never looks at the value of a scalar operand (it emits the same
    code for a constant and for a value loaded at run time), so a kernel may take
    such an operand as an argument instead of inlining it
    (:func:`xrelay.lowering.group.runtime_scalars`)."""

    def emit(self, cx: OpContext, outs: list[Buffer]) -> None:
        """Write every result of the op into ``outs``."""
        if self.materialize is not None:
            self.materialize(cx, outs)
            return
        assert self.value_at is not None
        for r, out in enumerate(outs):
            # outputs are independent: the threads share them out
            with cx.kb.parallel(out.shape) as idx:
                cx.kb.store(self.value_at(cx, r, idx), out, idx)


_LOWERINGS: dict[type[Operation], OpLowering] = {}

IDENTITY_READS: dict[type[Operation], tuple[int, ...] | None] = {}
"""Ops reading the given operands (``None``: all) at the output index when the
operand has the output's shape: such a chain after a producer can run as that
producer's epilogue. Registered by the op families."""


def pointwise(
    *op_classes: type[RelayOp], cheap: bool = True
) -> Callable[[ValueAt], ValueAt]:
    """Register ``fn(cx, result, idx) -> value`` as the lowering of ``op_classes``."""

    def register(fn: ValueAt) -> ValueAt:
        for cls in op_classes:
            _LOWERINGS[cls] = OpLowering(value_at=fn, cheap=cheap)
        return fn

    return register


def with_write(*op_classes: type[RelayOp]) -> Callable[[Write], Write]:
    """Register the :attr:`OpLowering.write` of pointwise ``op_classes``."""

    def register(fn: Write) -> Write:
        for cls in op_classes:
            _LOWERINGS[cls] = dataclasses.replace(_LOWERINGS[cls], write=fn)
        return fn

    return register


def identity_reads(
    *op_classes: type[RelayOp], operands: tuple[int, ...] | None = None
) -> None:
    """Declare that ``op_classes`` read ``operands`` (all by default) at the output
    index when shapes agree (see :data:`IDENTITY_READS`)."""
    for cls in op_classes:
        IDENTITY_READS[cls] = operands


def reads_at_output_index(op: Operation, k: int) -> bool:
    """Whether ``op`` reads operand ``k`` at the output index (same shapes)."""
    for cls in type(op).__mro__:
        if cls in IDENTITY_READS:
            listed = IDENTITY_READS[cls]
            return listed is None or k in listed
    return False


def with_epilogue(*op_classes: type[RelayOp]) -> Callable[[WithEpilogue], WithEpilogue]:
    """Register an emitter that can apply an epilogue (see :class:`OpLowering`)."""

    def register(fn: WithEpilogue) -> WithEpilogue:
        for cls in op_classes:
            _LOWERINGS[cls] = dataclasses.replace(_LOWERINGS[cls], with_epilogue=fn)
        return fn

    return register


def scratch(*op_classes: type[RelayOp]) -> Callable[[Scratch], Scratch]:
    """Register the scratch buffers the emitters of ``op_classes`` need (see
    :data:`Scratch`); register it after the emitters."""

    def register(fn: Scratch) -> Scratch:
        for cls in op_classes:
            _LOWERINGS[cls] = dataclasses.replace(_LOWERINGS[cls], scratch=fn)
        return fn

    return register


def epilogue_casts(
    *op_classes: type[RelayOp],
) -> Callable[[EpilogueCasts], EpilogueCasts]:
    """Register :attr:`OpLowering.epilogue_casts` of ``op_classes`` (after their
    emitters)."""

    def register(fn: EpilogueCasts) -> EpilogueCasts:
        for cls in op_classes:
            _LOWERINGS[cls] = dataclasses.replace(_LOWERINGS[cls], epilogue_casts=fn)
        return fn

    return register


def scalars_at_run_time(*op_classes: type[RelayOp]) -> None:
    """Declare :attr:`OpLowering.scalars_at_run_time` of ``op_classes`` (after their
    emitters)."""
    for cls in op_classes:
        _LOWERINGS[cls] = dataclasses.replace(_LOWERINGS[cls], scalars_at_run_time=True)


def materialize(*op_classes: type[RelayOp]) -> Callable[[Materialize], Materialize]:
    """Register ``fn(cx, outs)`` (writes every result buffer) as the lowering of
    ``op_classes``."""

    def register(fn: Materialize) -> Materialize:
        for cls in op_classes:
            old = _LOWERINGS.get(cls)
            _LOWERINGS[cls] = OpLowering(
                value_at=None if old is None else old.value_at,
                materialize=fn,
                cheap=False,
            )
        return fn

    return register


load_all = LoadModules(__name__, __path__)
"""``load_all()`` imports every lowering module of this package (they register
themselves), once per process; a concurrent first call waits until all are in."""


def lowering_for(op: Operation) -> OpLowering | None:
    """The lowering of ``op``'s class (or of its nearest registered base class)."""
    load_all()
    for cls in type(op).__mro__:
        found = _LOWERINGS.get(cls)
        if found is not None:
            return found
    return None


def unlowered_ops() -> list[str]:
    """Names of the relay ops with no lowering (structural ops are lowered by the
    graph lowering, not here, and are not listed)."""
    from xrelay.dialects.relay import ALL_OPS, STRUCTURAL_OPS

    load_all()
    out: list[str] = []
    for cls in ALL_OPS:
        if cls in STRUCTURAL_OPS:
            continue
        if not any(c in _LOWERINGS for c in cls.__mro__):
            out.append(cls.name)
    return out


def broadcast_index(
    idx: Sequence[Index], shape: Sequence[int], out_rank: int
) -> list[Index]:
    """The index into an operand of ``shape`` broadcast (numpy rules) to an output
    of rank ``out_rank`` at ``idx``: leading dims dropped, size-1 dims read at 0."""
    lead = out_rank - len(shape)
    return [0 if d == 1 else idx[lead + k] for k, d in enumerate(shape)]
