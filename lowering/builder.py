"""The small builder kernels are written with.

:class:`KernelBuilder` wraps an xDSL ``Builder`` positioned in a ``func.func`` and
offers what the per-op emitters need, so that they read like loop-level pseudocode:

* index arithmetic on ``Index = int | SSAValue`` that folds Python ints (a broadcast
  dimension costs nothing: its index is the int ``0``);
* loops (``scf.for``), loop nests over shapes, loops carrying values (reductions),
  and ``scf.if`` with results;
* typed scalar arithmetic driven by numpy dtypes (signed vs unsigned integers, NaN
  propagation of ``maximum``/``minimum``, numpy's cast rules), and the ``math``
  functions;
* loads and stores of :class:`Buffer` elements (``bool`` is a byte in memory).

Everything it emits is plain ``arith``/``math``/``scf``/``memref``, valid MLIR: the
later lowering steps, or ``mlir-opt``, take it from there. Tiling or vectorising
emitters can build on the same calls (loops with steps, carried values).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import InsertPoint

from xrelay.lowering import fast_arith
from xrelay.lowering.scalar_types import (
    DType,
    is_bfloat16,
    is_float,
    is_half,
    is_signed,
    memory_type,
    memref_type,
    register_type,
)
from xrelay.status import STATUS_WORDS

Index: TypeAlias = "int | SSAValue"
"""An index: a Python int (folded at build time) or an ``index``-typed SSA value."""

INDEX = IndexType()

DYNAMIC = DYNAMIC_INDEX
"""A memref extent known at run time only (``?``)."""

PARALLEL_GRAIN = 64
CHUNKS_PER_THREAD = 4
"""How finely :meth:`KernelBuilder.parallel` cuts its iterations: about this many
chunks per thread, claimed dynamically."""
CLAIM = "xrelay_claim"
"""``i64 xrelay_claim(team, i64 chunk)``: the first iteration of the next chunk
of the running parallel nest (an atomic add on the team's counter; the runtime,
:mod:`xrelay.lowering.llvm.threads`, resets it at every barrier)."""
"""A :meth:`KernelBuilder.parallel` nest shares out its leading axes up to this many
iterations (or all of them); the axes after those are ordinary loops inside each
iteration."""


@dataclass(frozen=True)
class Buffer:
    """A memref value with its shape and numpy dtype.

    ``runtime``: ``(axis, size)`` of a buffer whose extent along one axis is an
    ``index`` value known at run time only (a kernel shared by calls whose buffers
    differ along that axis, its memref type has ``?`` there); ``shape[axis]`` is then
    the largest extent the kernel is built for, for tiling choices only: such a
    buffer is read and written through its 1-D view (:meth:`KernelBuilder.flat`,
    which :meth:`KernelBuilder.load` and :meth:`KernelBuilder.store` use for it) at
    :meth:`KernelBuilder.flat_index` of :attr:`dims`."""

    value: SSAValue
    shape: tuple[int, ...]
    dtype: DType
    runtime: tuple[int, SSAValue] | None = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        assert self.runtime is None, "the size of a buffer with a runtime extent"
        return math.prod(self.shape)

    @property
    def dims(self) -> tuple[Index, ...]:
        """The extents, the runtime one as its ``index`` value."""
        if self.runtime is None:
            return self.shape
        axis, size = self.runtime
        return (*self.shape[:axis], size, *self.shape[axis + 1 :])


def _int_value(value: int, ty: Attribute) -> int:
    """``value`` wrapped into the signed range of an ``iN`` (unsigned values and
    wrap-around, as numpy does)."""
    assert isinstance(ty, IntegerType)
    bits = ty.width.data
    if bits == 1:
        return 1 if value else 0
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


class KernelBuilder:
    """Builds the body of one function (see the module docstring)."""

    def __init__(self, function: func.FuncOp):
        self.function = function
        self.entry = function.body.block
        self.builder = Builder(InsertPoint.at_end(self.entry))
        self._consts: dict[tuple[object, Attribute], SSAValue] = {}
        self._flats: dict[tuple[str, SSAValue], Buffer] = {}
        self.externs: dict[str, FunctionType] = {}
        """External functions called (name → type), to declare in the module."""
        self.thread: tuple[SSAValue, SSAValue, SSAValue] | None = None
        """``(thread id, thread count, team)`` of a kernel that may be run by several
        threads (see :meth:`parallel`); ``None``: one thread."""
        self.parallel_regions = 0
        """How many loop nests :meth:`parallel` split between the threads."""
        self.stores_outside_parallel = 0
        """Stores emitted outside a split loop nest (while :attr:`thread` is set)."""
        self._in_parallel = False
        self.status_position: int | None = None
        """Where :meth:`status` inserts the status argument (``None``: the function
        cannot take one)."""
        self._status: Buffer | None = None
        self.inline_memo: dict[tuple[object, ...], tuple[Block, SSAValue, object]] = {}
        """Values of inlined producers already computed (:meth:`reuse`)."""

    # -- functions ---------------------------------------------------------------------

    @staticmethod
    def new_function(
        name: str, arg_types: Sequence[Attribute], private: bool = False
    ) -> KernelBuilder:
        """A builder for a new ``func.func @name(args) -> ()`` (no terminator yet)."""
        block = Block(arg_types=list(arg_types))
        fn = func.FuncOp(
            name,
            (list(arg_types), []),
            Region(block),
            visibility="private" if private else None,
        )
        return KernelBuilder(fn)

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return tuple(self.entry.args)

    def finish(self) -> func.FuncOp:
        """Add the ``func.return`` and give the function back."""
        self.insert(func.ReturnOp())
        if self._status is not None:
            self.function.function_type = FunctionType.from_lists(
                [a.type for a in self.entry.args], []
            )
        return self.function

    # -- run status (checked data) -----------------------------------------------------

    @property
    def uses_status(self) -> bool:
        """Whether the function took the status argument (:meth:`status`)."""
        return self._status is not None

    def status(self) -> Buffer:
        """The run status block (:mod:`xrelay.status`), a ``memref<4xi64>``
        argument added to the function at :attr:`status_position` on first use; the
        caller passes the status block of the run."""
        if self._status is None:
            if self.status_position is None:
                raise AssertionError("this function cannot take a status argument")
            dt = np.dtype(np.int64)
            ty = memref_type((STATUS_WORDS,), dt)
            arg = self.entry.insert_arg(ty, self.status_position)
            arg.name_hint = "status"
            self._status = Buffer(arg, (STATUS_WORDS,), dt)
        return self._status

    def checked_index(
        self, value: SSAValue, size: int, code: int, from_end: bool = True
    ) -> SSAValue:
        """``value`` (an ``index`` read from data) as a position in a dim of
        ``size``: with ``from_end``, ``-size <= value < 0`` counts from the end. Any
        other value is reported in the status block (code, value, size; see
        :mod:`xrelay.status`) and replaced by 0, so that the kernel never reads
        outside the buffer (the caller must not read a dim of size 0). Costs a
        compare, a select and a branch that is never taken on good data."""
        raw = value
        if from_end:
            neg = self.icmp("slt", value, 0)
            value = self.select(neg, self.index(self.iadd(value, size)), value)
        ok = self.icmp("ult", value, size)
        bad = self.result(arith.XOrIOp(ok, self.const(1, np.dtype(np.bool_))))
        status = self.status()

        def report() -> list[SSAValue]:
            # the first failure is kept (what the interpreter reports)
            i64 = np.dtype(np.int64)
            first = self.load(status, [0])
            free = self.cmp("eq", first, self.zero(i64), i64)

            def write() -> list[SSAValue]:
                words = [
                    self.const(code, i64),
                    self.int_of_index(raw),
                    self.const(size, i64),
                ]
                for k in (1, 2, 0):  # the code last: it says the others are written
                    self.insert(
                        memref.StoreOp.get(words[k], status.value, [self.index(k)])
                    )
                return []

            self.if_(free, write)
            return []

        self.if_(bad, report)
        return self.select(ok, value, self.index(0))

    def insert(self, op: Operation) -> Operation:
        self.builder.insert(op)
        return op

    def result(self, op: Operation) -> SSAValue:
        """Insert ``op`` and return its single result."""
        self.builder.insert(op)
        return op.results[0]

    def call_extern(
        self, name: str, args: Sequence[SSAValue], result: Attribute
    ) -> SSAValue:
        """Call an external C function (libm); its declaration is recorded in
        :attr:`externs` for the module."""
        self.externs[name] = FunctionType.from_lists([a.type for a in args], [result])
        return self.result(func.CallOp(name, list(args), [result]))

    # -- constants ---------------------------------------------------------------------

    def _constant(self, key: object, ty: Attribute, attr: Attribute) -> SSAValue:
        cached = self._consts.get((key, ty))
        if cached is not None:
            return cached
        op = fast_arith.constant(attr, ty)
        # constants live at the top of the function, so that every use is dominated
        self.builder.insert(op, InsertPoint.at_start(self.entry))
        self._consts[(key, ty)] = op.result
        return op.result

    def index(self, value: Index) -> SSAValue:
        """An ``index`` value (a constant for an int)."""
        if isinstance(value, SSAValue):
            return value
        return self._constant(("i", value), INDEX, IntegerAttr(value, INDEX))

    def const(self, value: float | int | bool, dt: DType) -> SSAValue:
        """A scalar constant of dtype ``dt`` (in its register type)."""
        ty = register_type(dt)
        if is_float(dt):
            # a float16/bfloat16 constant holds such a value (in an f32 register)
            v = float(np.asarray(value).astype(dt)) if is_half(dt) else float(value)
            key = ("f", np.float64(v).tobytes())
            return self._constant(key, ty, FloatAttr(v, cast(Any, ty)))
        v = _int_value(int(value), ty)
        return self._constant(("n", v), ty, IntegerAttr(v, cast(Any, ty)))

    def zero(self, dt: DType) -> SSAValue:
        return self.const(0, dt)

    def lowest(self, dt: DType) -> SSAValue:
        """The value that never wins a ``max``: ``-inf`` or the integer minimum."""
        if is_float(dt):
            return self.const(-math.inf, dt)
        if dt.kind == "b":
            return self.const(0, dt)
        return self.const(int(np.iinfo(dt).min), dt)

    def highest(self, dt: DType) -> SSAValue:
        """The value that never wins a ``min``: ``+inf`` or the integer maximum."""
        if is_float(dt):
            return self.const(math.inf, dt)
        if dt.kind == "b":
            return self.const(1, dt)
        return self.const(int(np.iinfo(dt).max), dt)

    # -- index arithmetic (folds ints) --------------------------------------------------

    def iadd(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(b, int) and b == 0:
            return a
        if isinstance(a, int) and a == 0:
            return b
        return self.result(
            fast_arith.int_binary(arith.AddiOp, self.index(a), self.index(b))
        )

    def isub(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if isinstance(b, int) and b == 0:
            return a
        return self.result(
            fast_arith.int_binary(arith.SubiOp, self.index(a), self.index(b))
        )

    def imul(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(b, int):
            if b == 0:
                return 0
            if b == 1:
                return a
        if isinstance(a, int):
            if a == 0:
                return 0
            if a == 1:
                return b
        return self.result(
            fast_arith.int_binary(arith.MuliOp, self.index(a), self.index(b))
        )

    def idiv(self, a: Index, b: Index) -> Index:
        """Floor division of indices (both non-negative, or ``a`` of either sign)."""
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if isinstance(b, int) and b == 1:
            return a
        return self.result(
            fast_arith.int_binary(arith.FloorDivSIOp, self.index(a), self.index(b))
        )

    def imod(self, a: Index, b: Index) -> Index:
        """``a mod b`` with the sign of ``b`` (Python's ``%``)."""
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        if isinstance(b, int) and b == 1:
            return 0
        rem = self.result(
            fast_arith.int_binary(arith.RemSIOp, self.index(a), self.index(b))
        )
        if isinstance(b, int) and b > 0:
            # remsi has the sign of a: add b when negative
            neg = self.icmp("slt", rem, 0)
            return self.select(
                neg,
                self.result(fast_arith.int_binary(arith.AddiOp, rem, self.index(b))),
                rem,
            )
        return rem

    def imin(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        return self.result(
            fast_arith.int_binary(arith.MinSIOp, self.index(a), self.index(b))
        )

    def imax(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return max(a, b)
        return self.result(
            fast_arith.int_binary(arith.MaxSIOp, self.index(a), self.index(b))
        )

    def icmp(self, pred: str, a: Index, b: Index) -> SSAValue:
        """Compare two indices (``slt``, ``sge``, ``eq``...); gives ``i1``."""
        return self.result(fast_arith.cmpi(self.index(a), self.index(b), pred))

    def flat_index(self, idx: Sequence[Index], shape: Sequence[Index]) -> Index:
        """The row-major linear position of ``idx`` in ``shape`` (whose extents may
        be ``index`` values: :attr:`Buffer.dims`)."""
        flat: Index = 0
        for i, d in zip(idx, shape, strict=True):
            flat = self.iadd(self.imul(flat, d), i)
        return flat

    def udiv(self, a: Index, b: Index) -> Index:
        """Division of non-negative indices."""
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if isinstance(b, int) and b == 1:
            return a
        return self.result(
            fast_arith.int_binary(arith.DivUIOp, self.index(a), self.index(b))
        )

    def unflatten(
        self, flat: Index, shape: Sequence[int], unsigned: bool = False
    ) -> list[Index]:
        """The row-major index of linear position ``flat`` in ``shape`` (``unsigned``:
        ``flat`` is known to be non-negative, which saves the sign fix-ups)."""
        out: list[Index] = []
        rest = flat
        for k in range(len(shape) - 1, -1, -1):
            d = shape[k]
            if d == 1:
                out.append(0)
                continue
            if k == 0:
                out.append(rest)
                continue
            if unsigned and isinstance(rest, SSAValue):
                d_value = self.index(d)
                out.append(
                    self.result(fast_arith.int_binary(arith.RemUIOp, rest, d_value))
                )
                rest = self.result(fast_arith.int_binary(arith.DivUIOp, rest, d_value))
                continue
            out.append(self.imod(rest, d))
            rest = self.idiv(rest, d)
        return out[::-1]

    def int_of_index(self, value: Index) -> SSAValue:
        """An index as an ``i64`` scalar."""
        if isinstance(value, int):
            return self.const(value, np.dtype(np.int64))
        return self.result(arith.IndexCastOp(value, IntegerType(64)))

    def index_cast(self, value: SSAValue, dt: DType) -> SSAValue:
        """An integer scalar (``iN``, read with ``dt``'s signedness) as an index."""
        ty = register_type(dt)
        if not is_signed(dt) and isinstance(ty, IntegerType) and ty.width.data < 64:
            value = self.result(arith.ExtUIOp(value, IntegerType(64)))
        return self.result(arith.IndexCastOp(value, INDEX))

    def reuse(
        self, owner: object, idx: Sequence[Index], make: Callable[[], SSAValue]
    ) -> SSAValue:
        """``make()``, the value of ``owner`` (an inlined producer) at ``idx``, unless
        it was computed at the same index earlier in the block being filled (where
        it dominates what follows): a value read by several consumers of one
        expression (``where(x != x, 0, x)``) is emitted once, not once per read, so
        that an expression DAG does not grow into a tree. :meth:`forget` drops what
        is remembered (when what an index stands for changes)."""
        point = self.builder.insertion_point
        if point.insert_before is not None:
            return make()
        key = (id(owner), *(i if isinstance(i, int) else id(i) for i in idx))
        hit = self.inline_memo.get(key)
        if hit is not None and hit[0] is point.block:
            value = hit[1]
            if not isinstance(value, OpResult) or value.op.parent is not None:
                return value
        value = make()
        # the index values are kept alive with the entry (their ids are the key)
        self.inline_memo[key] = (point.block, value, (owner, list(idx)))
        return value

    def forget(self) -> None:
        """Drop the values :meth:`reuse` remembers."""
        self.inline_memo.clear()

    # -- control flow --------------------------------------------------------------------

    @contextlib.contextmanager
    def at(self, point: InsertPoint) -> Generator[None, None, None]:
        saved = self.builder.insertion_point
        self.builder.insertion_point = point
        try:
            yield
        finally:
            self.builder.insertion_point = saved

    @contextlib.contextmanager
    def loop(
        self, lo: Index, hi: Index, step: Index = 1
    ) -> Generator[Index, None, None]:
        """``for iv in range(lo, hi, step)`` (an ``scf.for``); a one-trip loop with
        constant bounds is folded away (``iv`` is then the int ``lo``)."""
        if (
            isinstance(lo, int)
            and isinstance(hi, int)
            and isinstance(step, int)
            and hi - lo <= step
        ):
            if hi > lo:
                yield lo
            else:  # an empty loop: emit the body into a detached block
                with self.at(InsertPoint.at_end(Block())):
                    yield lo
            return
        body = Block(arg_types=[INDEX])
        op = scf.ForOp(self.index(lo), self.index(hi), self.index(step), [], body)
        self.insert(op)
        with self.at(InsertPoint.at_end(body)):
            yield body.args[0]
            self.insert(scf.YieldOp())

    @contextlib.contextmanager
    def parallel(self, shape: Sequence[int]) -> Generator[list[Index], None, None]:
        """Loops over every index of ``shape``, like :meth:`nest`, whose iterations
        are shared out between the threads running the kernel: the leading axes
        (enough of them for :data:`PARALLEL_GRAIN` iterations) are flattened into
        one range, cut into chunks of contiguous iterations (about
        :data:`CHUNKS_PER_THREAD` per thread), and each thread claims the next chunk
        from the team's counter (``xrelay_claim``) until none is left (with the
        remaining axes as ordinary loops inside each iteration). A thread slowed
        down (by another process on its core) takes fewer chunks.

        The emitter promises that iterations write disjoint outputs and read nothing
        another iteration writes. A kernel is run by several threads only if it has
        exactly one such nest and stores nothing outside it
        (:meth:`runs_in_parallel`); otherwise one thread runs every iteration. A nest
        inside another parallel nest is an ordinary :meth:`nest`."""
        if self.thread is None or self._in_parallel:
            with self.nest(shape) as idx:
                yield idx
            return
        _, count, team = self.thread
        # share out the leading axes (enough iterations for any team), nest the rest
        split = 0
        while split < len(shape) and math.prod(shape[:split]) < PARALLEL_GRAIN:
            split += 1
        outer, inner = list(shape[:split]), list(shape[split:])
        total = math.prod(outer)
        self.parallel_regions += 1
        self._in_parallel = True
        try:
            # chunks of about total / (CHUNKS_PER_THREAD * threads) iterations,
            # claimed in turn; a thread makes at most as many claims as there are
            # chunks (a claim past the end finds nothing to do)
            per = self.imul(count, CHUNKS_PER_THREAD)
            chunk = self.imax(self.udiv(total, per), 1)
            rounds = self.udiv(self.iadd(total, self.isub(chunk, 1)), chunk)
            with self.loop(0, rounds):
                claimed = self.call_extern(
                    CLAIM, [team, self.int_of_index(chunk)], IntegerType(64)
                )
                start = self.result(arith.IndexCastOp(claimed, INDEX))
                found = self.icmp("ult", start, total)
                then = Block()
                self.insert(scf.IfOp(found, [], Region(then)))
                with self.at(InsertPoint.at_end(then)):
                    stop = self.imin(self.iadd(start, chunk), total)
                    with self.loop(start, stop) as flat, self.nest(inner) as rest:
                        yield [*self.unflatten(flat, outer, unsigned=True), *rest]
                    self.insert(scf.YieldOp())
        finally:
            self._in_parallel = False

    def runs_in_parallel(self) -> bool:
        """Whether the kernel built so far may be run by several threads: one
        :meth:`parallel` nest and no store outside it."""
        return self.parallel_regions == 1 and self.stores_outside_parallel == 0

    @contextlib.contextmanager
    def nest(self, shape: Sequence[int]) -> Generator[list[Index], None, None]:
        """Loops over every index of ``shape`` (row-major, outermost first)."""
        with contextlib.ExitStack() as stack:
            ivs = [stack.enter_context(self.loop(0, d)) for d in shape]
            yield ivs

    def fold_loop(
        self,
        lo: Index,
        hi: Index,
        inits: Sequence[SSAValue],
        body: Callable[[Index, list[SSAValue]], Sequence[SSAValue]],
        step: Index = 1,
    ) -> list[SSAValue]:
        """``for iv in range(lo, hi, step): carried = body(iv, carried)``; returns
        the final carried values (an ``scf.for`` with ``iter_args``)."""
        if (
            isinstance(lo, int)
            and isinstance(hi, int)
            and isinstance(step, int)
            and hi - lo <= step
        ):
            return list(body(lo, list(inits))) if hi > lo else list(inits)
        block = Block(arg_types=[INDEX, *(v.type for v in inits)])
        op = scf.ForOp(self.index(lo), self.index(hi), self.index(step), inits, block)
        self.insert(op)
        with self.at(InsertPoint.at_end(block)):
            out = body(block.args[0], list(block.args[1:]))
            self.insert(scf.YieldOp(*out))
        return list(op.results)

    def fold_nest(
        self,
        shape: Sequence[int],
        inits: Sequence[SSAValue],
        body: Callable[[list[Index], list[SSAValue]], Sequence[SSAValue]],
    ) -> list[SSAValue]:
        """:meth:`fold_loop` over every index of ``shape``."""

        def level(
            k: int, prefix: list[Index], carried: list[SSAValue]
        ) -> list[SSAValue]:
            if k == len(shape):
                return list(body(prefix, carried))
            return self.fold_loop(
                0, shape[k], carried, lambda iv, c: level(k + 1, [*prefix, iv], c)
            )

        return level(0, [], list(inits))

    def if_(
        self,
        cond: SSAValue,
        then: Callable[[], Sequence[SSAValue]],
        otherwise: Callable[[], Sequence[SSAValue]] | None = None,
    ) -> list[SSAValue]:
        """``scf.if cond`` yielding the values ``then()`` / ``otherwise()`` give (both
        must give values of the same types; without ``otherwise``, no values)."""
        then_block = Block()
        with self.at(InsertPoint.at_end(then_block)):
            then_values = list(then())
            self.insert(scf.YieldOp(*then_values))
        else_region: Region | None = None
        if otherwise is not None:
            else_block = Block()
            with self.at(InsertPoint.at_end(else_block)):
                else_values = list(otherwise())
                self.insert(scf.YieldOp(*else_values))
            else_region = Region(else_block)
        op = scf.IfOp(
            cond, [v.type for v in then_values], Region(then_block), else_region
        )
        self.insert(op)
        return list(op.results)

    # -- memory ------------------------------------------------------------------------

    def load(self, buf: Buffer, idx: Sequence[Index]) -> SSAValue:
        """The element of ``buf`` at ``idx``, in its register type."""
        assert len(idx) == buf.rank, (idx, buf.shape)
        if buf.runtime is not None:
            return self.load(self.flat(buf), [self.flat_index(idx, buf.dims)])
        value = self.result(memref.LoadOp.get(buf.value, [self.index(i) for i in idx]))
        if is_half(buf.dtype):
            value = self.widen(value, buf.dtype)
        if buf.dtype.kind == "b":
            byte = IntegerType(8)
            zero = self._constant(("n", 0), byte, IntegerAttr(0, byte))
            value = self.result(arith.CmpiOp(value, zero, "ne"))
        return value

    def flat(self, buf: Buffer) -> Buffer:
        """A 1-D view of ``buf`` (a ``memref.reinterpret_cast`` at the function's
        start, made once per buffer): loads at ``flat_index(idx)`` cost one address
        computation where a rank-``r`` load costs ``r``. The view of a buffer with a
        runtime extent is a ``memref<?x...>`` whose size is computed where the
        builder stands: it must be made first, at the top of the function
        (:func:`~xrelay.lowering.group.lower_group` does)."""
        key = ("flat", buf.value)
        cached = self._flats.get(key)
        if cached is not None:
            return cached
        if buf.runtime is not None:
            axis, extent = buf.runtime
            size = self.imul(extent, math.prod(buf.shape) // buf.shape[axis])
            op = memref.ReinterpretCastOp.from_dynamic(
                buf.value,
                [0],
                [self.index(size)],
                [1],
                memref_type([DYNAMIC], buf.dtype),
            )
            self.insert(op)
            out = Buffer(op.result, (DYNAMIC,), buf.dtype)
            self._flats[key] = out
            return out
        op = memref.ReinterpretCastOp.from_dynamic(
            buf.value, [0], [buf.size], [1], memref_type([buf.size], buf.dtype)
        )
        owner = buf.value.owner
        if isinstance(owner, Block):  # a function argument
            self.builder.insert(op, InsertPoint.at_start(owner))
        else:
            self.builder.insert(op, InsertPoint.after(owner))
        out = Buffer(op.result, (buf.size,), buf.dtype)
        self._flats[key] = out
        return out

    def store(self, value: SSAValue, buf: Buffer, idx: Sequence[Index]) -> None:
        assert len(idx) == buf.rank, (idx, buf.shape)
        if buf.runtime is not None:
            self.store(value, self.flat(buf), [self.flat_index(idx, buf.dims)])
            return
        if not self._in_parallel:
            self.stores_outside_parallel += 1
        if buf.dtype.kind == "b":
            value = self.result(arith.ExtUIOp(value, IntegerType(8)))
        if is_half(buf.dtype):
            value = self.narrow(value, buf.dtype)
        self.insert(memref.StoreOp.get(value, buf.value, [self.index(i) for i in idx]))

    def widen(self, value: SSAValue, dt: DType) -> SSAValue:
        """A 16-bit storage float's memory value (``f16``, or bfloat16's ``i16``
        bits) as its ``f32`` register value (exact)."""
        if not is_bfloat16(dt):
            return self.result(arith.ExtFOp(value, register_type(dt)))
        i32 = IntegerType(32)
        wide = self.result(arith.ExtUIOp(value, i32))
        high = self.result(arith.ShLIOp(wide, self._i32(16)))
        return self.result(arith.BitcastOp(high, register_type(dt)))

    def narrow(self, value: SSAValue, dt: DType) -> SSAValue:
        """An ``f32`` register value rounded to a 16-bit storage float's memory
        value. bfloat16 rounds to nearest, ties to even, with integer ops on the
        bits (no LLVM ``bfloat``: its x86 truncation is a libcall); overflow gives
        infinity as in ``ml_dtypes``. A NaN is quieted and keeps its sign and the
        top of its payload (as x86's float16 conversion does), so reinterpreted
        bfloat16 NaNs keep their bits; ``ml_dtypes`` gives the bare quiet NaN."""
        if not is_bfloat16(dt):
            return self.result(arith.TruncFOp(value, memory_type(dt)))
        i32 = IntegerType(32)
        bits = self.result(arith.BitcastOp(value, i32))
        high = self.result(arith.ShRUIOp(bits, self._i32(16)))
        odd = self.result(arith.AndIOp(high, self._i32(1)))
        bias = self.result(arith.AddiOp(odd, self._i32(0x7FFF)))
        # bits + bias cannot wrap for a non-NaN: the largest is 0xFF800000 + 0x8000
        rounded = self.result(
            arith.ShRUIOp(self.result(arith.AddiOp(bits, bias)), self._i32(16))
        )
        quiet = self.result(arith.OrIOp(high, self._i32(0x0040)))
        nan = self.result(arith.CmpfOp(value, value, "uno"))
        chosen = self.result(arith.SelectOp(nan, quiet, rounded))
        return self.result(arith.TruncIOp(chosen, IntegerType(16)))

    def _i32(self, value: int) -> SSAValue:
        i32 = IntegerType(32)
        return self._constant(("n", value), i32, IntegerAttr(value, i32))

    # -- vectors -------------------------------------------------------------------------

    def vector_type(self, dt: DType, lanes: int) -> VectorType[Any]:
        """``vector<lanes x dt>``: for ``f32`` / ``f64`` and integer buffers (the
        types whose register and memory types agree, see :meth:`vload`; not
        ``bool``, a byte in memory and ``i1`` in registers)."""
        assert dt.kind in "fiu", dt
        assert not is_half(dt), dt
        return VectorType(register_type(dt), [lanes])

    def vload(self, buf: Buffer, idx: Sequence[Index], lanes: int) -> SSAValue:
        """The ``lanes`` consecutive elements of ``buf`` from ``idx`` (along its
        last axis, which must hold them), as one vector (``vector.load``)."""
        assert len(idx) == buf.rank, (idx, buf.shape)
        assert buf.runtime is None, "vector access to a buffer with a runtime extent"
        ty = self.vector_type(buf.dtype, lanes)
        op = vector.LoadOp(buf.value, [self.index(i) for i in idx], ty)
        return self.result(op)

    def vstore(self, value: SSAValue, buf: Buffer, idx: Sequence[Index]) -> None:
        """Store the vector ``value`` at ``idx`` and the elements after it."""
        assert len(idx) == buf.rank, (idx, buf.shape)
        assert buf.runtime is None, "vector access to a buffer with a runtime extent"
        if not self._in_parallel:
            self.stores_outside_parallel += 1
        self.insert(vector.StoreOp(value, buf.value, [self.index(i) for i in idx]))

    def vsplat(self, value: SSAValue, lanes: int) -> SSAValue:
        """A vector of ``lanes`` copies of the scalar ``value``."""
        return self.result(vector.BroadcastOp(value, VectorType(value.type, [lanes])))

    def vsum(self, value: SSAValue, acc: SSAValue) -> SSAValue:
        """``acc`` plus the sum of the lanes of the float vector ``value``
        (``vector.reduction <add>``; the lowering adds the lanes pairwise)."""
        ty = value.type
        assert isinstance(ty, VectorType)
        elem = cast(VectorType[Any], ty).element_type
        assert acc.type == elem, (acc.type, elem)
        op = vector.ReductionOp.create(
            operands=[value, acc],
            result_types=[elem],
            properties={"kind": vector.CombiningKindAttr(vector.CombiningKindFlag.ADD)},
        )
        return self.result(op)

    # -- scalar arithmetic ---------------------------------------------------------------

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if isinstance(a.type, IntegerType):
            if a.type.width.data == 1:
                return self.result(arith.OrIOp(a, b))
            return self.result(arith.AddiOp(a, b))
        return self.result(arith.AddfOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if isinstance(a.type, IntegerType):
            if a.type.width.data == 1:
                return self.result(arith.XOrIOp(a, b))
            return self.result(arith.SubiOp(a, b))
        return self.result(arith.SubfOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if isinstance(a.type, IntegerType):
            if a.type.width.data == 1:
                return self.result(arith.AndIOp(a, b))
            return self.result(arith.MuliOp(a, b))
        return self.result(arith.MulfOp(a, b))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """``a * b + c`` (rounded twice, as numpy does)."""
        return self.add(self.mul(a, b), c)

    def mac(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """``a * b + c`` for the accumulation of matrix products and convolutions:
        one fused multiply-add (one rounding, ``math.fma``) for floats, as BLAS and
        the other CPU compilers do; :meth:`fma` for integers."""
        if isinstance(a.type, IntegerType):
            return self.fma(a, b, c)
        return self.result(xmath.FmaOp(a, b, c))

    def neg(self, a: SSAValue, dt: DType) -> SSAValue:
        if is_float(dt):
            return self.result(arith.NegfOp(a))
        return self.sub(self.zero(dt), a)

    def _safe_divisor(
        self, b: SSAValue, dt: DType
    ) -> tuple[SSAValue, SSAValue | None, SSAValue]:
        """``(b == 0, b == -1 or None, safe b)``: integer division by zero, and
        ``INT_MIN / -1`` (whose quotient does not fit), trap on the CPU. numpy's
        results are ``x / 0 == 0``, ``x % 0 == 0``, ``x / -1 == -x`` (wrapping) and
        ``x % -1 == 0``, so both divisors are replaced by 1 and the result selected
        (``-1`` only for signed types)."""
        is_zero = self.result(arith.CmpiOp(b, self.zero(dt), "eq"))
        bad = is_zero
        is_minus_one: SSAValue | None = None
        if is_signed(dt):
            is_minus_one = self.result(arith.CmpiOp(b, self.const(-1, dt), "eq"))
            bad = self.result(arith.OrIOp(is_zero, is_minus_one))
        return is_zero, is_minus_one, self.select(bad, self.const(1, dt), b)

    def _quotient(self, a: SSAValue, b: SSAValue, dt: DType, floor: bool) -> SSAValue:
        zero, minus_one, safe = self._safe_divisor(b, dt)
        if not is_signed(dt):
            q = self.result(arith.DivUIOp(a, safe))
        else:
            q = self.result(
                arith.FloorDivSIOp(a, safe) if floor else arith.DivSIOp(a, safe)
            )
        if minus_one is not None:  # a / 1 == a: negate it (wraps at INT_MIN)
            q = self.select(minus_one, self.neg(q, dt), q)
        return self.select(zero, self.zero(dt), q)

    def div(self, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        """``a / b``; integers truncate toward zero (TVM's ``div``), with numpy's
        results where the CPU would trap (:meth:`_safe_divisor`)."""
        if is_float(dt):
            return self.result(arith.DivfOp(a, b))
        return self._quotient(a, b, dt, floor=False)

    def floor_div(self, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        """``floor(a / b)`` (numpy's ``floor_divide``; see :meth:`_safe_divisor`)."""
        if is_float(dt):
            return self.math("floor", self.result(arith.DivfOp(a, b)))
        return self._quotient(a, b, dt, floor=True)

    def trunc_rem(self, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        """C's remainder, with the sign of ``a`` (numpy's ``fmod``; libm's ``fmod``
        for floats: xDSL has no ``arith.remf``). ``x % 0 == 0`` and ``x % -1 == 0``
        (the divisor is replaced by 1: :meth:`_safe_divisor`)."""
        if is_float(dt):
            if dt.itemsize == 8:
                return self.call_extern("fmod", [a, b], a.type)
            f32 = np.dtype(np.float32)
            wide = [self.cast(v, dt, f32) for v in (a, b)]
            r = self.call_extern("fmodf", wide, register_type(f32))
            return self.cast(r, f32, dt)
        _, _, safe = self._safe_divisor(b, dt)
        return self.result(
            arith.RemSIOp(a, safe) if is_signed(dt) else arith.RemUIOp(a, safe)
        )

    def floor_rem(self, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        """The remainder with the sign of ``b`` (numpy's ``mod``)."""
        r = self.trunc_rem(a, b, dt)
        if not is_float(dt) and not is_signed(dt):
            return r
        zero = self.zero(dt)
        # r != 0 and (r < 0) != (b < 0): add b
        nonzero = self.cmp("ne", r, zero, dt)
        signs = self.cmp(
            "ne",
            self.cmp("lt", r, zero, dt),
            self.cmp("lt", b, zero, dt),
            np.dtype(np.bool_),
        )
        fix = self.result(arith.AndIOp(nonzero, signs))
        return self.select(fix, self.add(r, b), r)

    def cmp(self, pred: str, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        """``a pred b`` as ``i1``; ``pred`` is one of eq, ne, lt, le, gt, ge (numpy's
        comparisons: ordered for floats except ``ne``)."""
        if is_float(dt):
            fpred = "une" if pred == "ne" else "o" + pred
            return self.result(arith.CmpfOp(a, b, fpred))
        if pred in ("eq", "ne"):
            ipred = pred
        else:
            ipred = ("s" if is_signed(dt) else "u") + pred
        return self.result(arith.CmpiOp(a, b, ipred))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.result(fast_arith.select(cond, a, b))

    def max(self, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        """numpy's ``maximum`` (a NaN on either side wins)."""
        if is_float(dt):
            return self.result(arith.MaximumfOp(a, b))
        return self.result(
            arith.MaxSIOp(a, b) if is_signed(dt) else arith.MaxUIOp(a, b)
        )

    def min(self, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        """numpy's ``minimum`` (a NaN on either side wins)."""
        if is_float(dt):
            return self.result(arith.MinimumfOp(a, b))
        return self.result(
            arith.MinSIOp(a, b) if is_signed(dt) else arith.MinUIOp(a, b)
        )

    def logical_and(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.result(arith.AndIOp(a, b))

    def logical_or(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.result(arith.OrIOp(a, b))

    def logical_not(self, a: SSAValue) -> SSAValue:
        return self.result(arith.XOrIOp(a, self.const(1, np.dtype(np.bool_))))

    _MATH: dict[str, type[Operation]] = {
        "exp": xmath.ExpOp,
        "log": xmath.LogOp,
        "sqrt": xmath.SqrtOp,
        "rsqrt": xmath.RsqrtOp,
        "tanh": xmath.TanhOp,
        "erf": xmath.ErfOp,
        "sin": xmath.SinOp,
        "cos": xmath.CosOp,
        "acos": xmath.AcosOp,
        "asin": xmath.AsinOp,
        "atan": xmath.AtanOp,
        "acosh": xmath.AcoshOp,
        "asinh": xmath.AsinhOp,
        "atanh": xmath.AtanhOp,
        "absf": xmath.AbsFOp,
        "floor": xmath.FloorOp,
        "ceil": xmath.CeilOp,
        "round": xmath.RoundOp,
        "roundeven": xmath.RoundEvenOp,
        "trunc": xmath.TruncOp,
        "powf": xmath.PowFOp,
        "copysign": xmath.CopySignOp,
    }

    def math(self, name: str, *args: SSAValue) -> SSAValue:
        """A ``math`` dialect function (``exp``, ``log``, ``tanh``, ``powf``...)."""
        return self.result(self._MATH[name](*args))

    def cast(self, value: SSAValue, src: DType, dst: DType) -> SSAValue:
        """numpy's ``astype`` from ``src`` to ``dst``: floats to integers truncate and
        saturate (NaN is 0, out of range the type's minimum or maximum:
        ``fptosi.sat``, as :func:`xrelay.dialects.relay.dtypes.float_to_int`),
        anything to ``bool`` is ``!= 0``, ``bool`` is 0 or 1."""
        if src == dst:
            return value
        dst_ty: Any = register_type(dst)
        src_ty = value.type
        if dst.kind == "b":
            return self.cmp("ne", value, self.zero(src), src)
        if is_float(src):
            if is_float(dst):
                if is_half(dst):  # round to float16, keep it in an f32 register
                    if src_ty != dst_ty:  # f64: to f32 first (ml_dtypes rounds
                        value = self.result(arith.TruncFOp(value, dst_ty))  # twice)
                    return self.widen(self.narrow(value, dst), dst)
                if src_ty == dst_ty:
                    return value
                if dst.itemsize > src.itemsize:
                    return self.result(arith.ExtFOp(value, dst_ty))
                return self.result(arith.TruncFOp(value, dst_ty))
            return self.result(
                arith.FPToSIOp(value, dst_ty)
                if is_signed(dst)
                else arith.FPToUIOp(value, dst_ty)
            )
        # integer or bool source
        assert isinstance(src_ty, IntegerType)
        if is_float(dst):
            wide = self.result(
                arith.SIToFPOp(value, dst_ty)
                if is_signed(src)
                else arith.UIToFPOp(value, dst_ty)
            )
            if is_half(dst):  # f32 holds every float16 value: round once more
                return self.widen(self.narrow(wide, dst), dst)
            return wide
        assert isinstance(dst_ty, IntegerType)
        sw, dw = src_ty.width.data, dst_ty.width.data
        if dw == sw:
            return value
        if dw < sw:
            return self.result(arith.TruncIOp(value, dst_ty))
        return self.result(
            arith.ExtSIOp(value, dst_ty)
            if is_signed(src)
            else arith.ExtUIOp(value, dst_ty)
        )
