"""FoldConstant: evaluate every op whose operands are all constants and put the
result in its place as a ``relay.constant`` (mirrors Relay's ``FoldConstant``, a
function pass at opt_level 2 with no required passes).

The rules (Relay's ``fold_constant.cc`` on SSA):

* an op is folded when every operand is a ``relay.constant`` or a ``relay.tuple`` of
  constants (nested), by running the op's own numpy semantics (``RelayOp.evaluate``);
  each result becomes a ``relay.constant`` of exactly the declared result type (a
  tuple-typed result becomes a ``relay.tuple`` of constants);
* never folded: ops without operands (``relay.zeros``, ``relay.ones``: Relay's
  heuristic, materialising a fill is harmful), fills that only spread 0-d operands
  into a bigger tensor (``relay.full``, a ``broadcast_to`` of a scalar: the same
  heuristic), ops with ``STATEFUL = True``, ops without reference semantics, ops with
  regions other than ``relay.if``, and anything inside ``relay.primitive`` functions
  (function passes skip those) or inside the regions of other region ops;
* ``relay.tuple_get_item`` of a ``relay.tuple`` becomes the field itself;
* ``relay.if`` with a constant condition is replaced by the ops of the taken region;
* ``relay.shape_of`` of a value with a fully static shape becomes a constant (of the
  op's ``dtype``);
* an op with a result of more than ``relay.FoldConstant.max_elements`` elements
  (PassContext config, 2**24 by default) is left alone (xrelay's bound: folding a
  broadcast to 1e11 x 1e11 would never end), unless the op is a pure re-layout
  (``RELAYOUT``: a layout transform, transpose, reshape...) whose result is no
  larger than its operand: its cost is bounded by the constant already there, and
  a large weight's packing is then done once at build time, not on every run.

Values left unused by a fold (the folded op's constant operands, a projected tuple,
the condition of an inlined ``if``) are erased when they are pure and have no
regions, as the unreachable nodes of Relay's graph disappear.

QNN ops (``relay.qnn.*``) are folded only with ``fold_qnn=True`` (Relay's option:
by default they are left for QnnCanonicalize, which keeps the quantized constants
visible to later passes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import (
    TensorType,
    TupleType,
    UnrankedTensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import DYN, RelayOp, Value
from xrelay.dialects.relay.qnn import QnnOp
from xrelay.dialects.relay.structural import (
    ConstantOp,
    IfOp,
    TupleGetItemOp,
    TupleOp,
    YieldOp,
)
from xrelay.dialects.relay.transform import NdarraySizeOp, ShapeOfOp
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.config import FOLD_MAX_ELEMENTS
from xrelay.pass_manager.options import option


class FoldConstantError(DiagnosticException):
    """Evaluating an op on constant operands failed."""


def constant_value(value: SSAValue) -> Value | None:
    """The value of ``value`` if it is a constant or a (nested) tuple of constants
    (Relay's ``IsComplexConstant``), else ``None``."""
    owner = value.owner
    if isinstance(owner, ConstantOp):
        return owner.numpy()
    if isinstance(owner, TupleOp):
        fields: list[Value] = []
        for field in owner.operands:
            v = constant_value(field)
            if v is None:
                return None
            fields.append(v)
        return tuple(fields)
    return None


def materialize(value: Value, ty: Attribute, before: Operation) -> SSAValue:
    """Insert ops before ``before`` that give ``value`` with type ``ty``: a
    ``relay.constant`` for a tensor, a ``relay.tuple`` of them for a tuple."""
    if isinstance(value, tuple):
        if not isinstance(ty, TupleType) or len(ty.types.data) != len(value):
            raise ValueError(f"a tuple value does not fit the type {ty}")
        fields = [
            materialize(v, t, before) for v, t in zip(value, ty.types.data, strict=True)
        ]
        tup = TupleOp.make(fields)
        Rewriter.insert_op(tup, InsertPoint.before(before))
        return tup.results[0]
    arr = np.asarray(value)
    if isinstance(ty, TensorType):
        tensor_ty = cast(TensorType, ty)
        npd = dtypes.numpy_dtype(tensor_ty.get_element_type())
        shape = tensor_ty.get_shape()
        if DYN not in shape:
            arr = arr.astype(npd, copy=False).reshape(shape)
        elif arr.ndim != len(shape):
            raise ValueError(f"a rank-{arr.ndim} value does not fit the type {ty}")
        else:
            arr = arr.astype(npd, copy=False)
    elif isinstance(ty, UnrankedTensorType):
        arr = arr.astype(dtypes.numpy_dtype(ty.element_type), copy=False)
    # (np.ascontiguousarray would turn a 0-d value into shape [1], changing its type)
    const = ConstantOp(arr if arr.flags.c_contiguous else arr.copy(order="C"))
    Rewriter.insert_op(const, InsertPoint.before(before))
    return const.result


def is_fill(op: Operation) -> bool:
    """An op that only spreads 0-d operands into a bigger tensor (``full``, a
    broadcast of a scalar): folding it would materialise a large constant."""
    for operand in op.operands:
        ty = operand.type
        if not isinstance(ty, TensorType) or cast(TensorType, ty).get_shape():
            return False
    for res in op.results:
        ty = res.type
        if isinstance(ty, TensorType):
            shape = cast(TensorType, ty).get_shape()
            if DYN in shape or math.prod(shape) > 1:
                return True
    return False


def _erase_if_dead(value: SSAValue) -> None:
    """Erase the pure, region-free op defining ``value`` if nothing uses it any more,
    and then its operands' ops in turn."""
    owner = value.owner
    if not isinstance(owner, RelayOp) or owner.regions or owner.STATEFUL:
        return
    if isinstance(owner, YieldOp) or any(r.uses for r in owner.results):
        return
    operands = list(owner.operands)
    Rewriter.erase_op(owner)
    for operand in operands:
        _erase_if_dead(operand)


def _elements(ty: Attribute) -> float:
    """How many elements a value of type ``ty`` holds (fields of tuples summed;
    unknown dims count as 0)."""
    if isinstance(ty, TupleType):
        return sum(_elements(t) for t in ty.types.data)
    if isinstance(ty, TensorType):
        return math.prod(max(d, 0) for d in ty.get_shape())
    return 0


class _Folder:
    def __init__(self, max_elements: int = 1 << 24, fold_qnn: bool = False) -> None:
        self.max_elements = max_elements
        self.fold_qnn = fold_qnn
        self.changed = False

    def run_block(self, block: Block) -> None:
        self.run_ops(list(block.ops))

    def run_ops(self, ops: Sequence[Operation]) -> None:
        for op in ops:
            if op.parent is None:  # erased while folding an earlier op
                continue
            self.visit(op)

    def visit(self, op: Operation) -> None:
        if isinstance(op, IfOp):
            self.visit_if(op)
            return
        if not isinstance(op, RelayOp) or op.regions:
            return  # func.call, other dialects, region ops (fused kernels)
        if isinstance(op, ConstantOp | TupleOp | YieldOp):
            return
        if isinstance(op, TupleGetItemOp):
            tup = op.tuple.owner
            if isinstance(tup, TupleOp):
                field = tup.operands[op.index.value.data]
                self.replace(op, [field])
            return
        if isinstance(op, ShapeOfOp | NdarraySizeOp):
            self.fold_shape_of(op)
            return
        self.fold_op(op)

    def visit_if(self, op: IfOp) -> None:
        cond = op.condition.owner
        if not isinstance(cond, ConstantOp):
            for region in op.regions:
                for block in region.blocks:
                    self.run_block(block)
            return
        taken = (
            op.then_region
            if bool(np.asarray(cond.numpy()).reshape(-1)[0])
            else (op.else_region)
        )
        block = taken.block
        yield_op = block.last_op
        assert isinstance(yield_op, YieldOp)
        values = list(yield_op.operands)
        Rewriter.erase_op(yield_op)
        inlined = list(block.ops)
        Rewriter.inline_block(block, InsertPoint.before(op))
        self.replace(op, values)
        self.run_ops(inlined)

    def fold_shape_of(self, op: ShapeOfOp | NdarraySizeOp) -> None:
        """``shape_of`` / ``ndarray_size`` of a static shape: a constant, whatever
        the data (Relay folds them by type)."""
        ty = op.data.type
        if not isinstance(ty, TensorType):
            return
        shape = cast(TensorType, ty).get_shape()
        if DYN in shape:
            return
        numbers = math.prod(shape) if isinstance(op, NdarraySizeOp) else shape
        value = np.array(numbers, dtype=dtypes.numpy_dtype(op.dtype))
        self.replace(op, [materialize(value, op.result.type, op)])

    def fold_op(self, op: RelayOp) -> None:
        if not op.operands or op.STATEFUL or is_fill(op):
            return
        if isinstance(op, QnnOp) and not self.fold_qnn:
            return
        if self.too_big(op):
            return  # too big to materialise: left to run time
        args: list[Value] = []
        for operand in op.operands:
            v = constant_value(operand)
            if v is None:
                return
            args.append(v)
        try:
            values = op.evaluate(*args)
        except NotImplementedError:
            return  # no reference semantics: leave it to the backend
        except Exception as e:
            raise FoldConstantError(
                f"FoldConstant: evaluating {op.name} on constant operands failed: {e}"
            ) from e
        try:
            new = [
                materialize(v, r.type, op)
                for v, r in zip(values, op.results, strict=True)
            ]
        except ValueError as e:  # a value that does not fit the declared type
            raise FoldConstantError(
                f"FoldConstant: the value {op.name} computes does not fit its result "
                f"types ({', '.join(str(t) for t in op.result_types)}): {e}"
            ) from e
        self.replace(op, new)

    def too_big(self, op: RelayOp) -> bool:
        """Whether a result of ``op`` exceeds the bound on folded elements (a
        re-layout no larger than its operand never does)."""
        size = max((_elements(r.type) for r in op.results), default=0)
        if size <= self.max_elements:
            return False
        return not (op.RELAYOUT and size <= sum(_elements(v.type) for v in op.operands))

    def replace(self, op: Operation, values: Sequence[SSAValue]) -> None:
        operands = list(op.operands)
        for res, new in zip(op.results, values, strict=True):
            res.replace_all_uses_with(new)
        Rewriter.erase_op(op)
        for operand in operands:
            _erase_if_dead(operand)
        self.changed = True


def fold_constants(
    func: FuncOp, max_elements: int | None = None, fold_qnn: bool = False
) -> bool:
    """Fold the constants of one function in place; True if anything changed.
    ``max_elements``: the largest result folded (default: the context's
    ``relay.FoldConstant.max_elements``); ``fold_qnn``: fold QNN ops too."""
    if max_elements is None:
        max_elements = int(PassContext.current().get_config(FOLD_MAX_ELEMENTS.name))
    folder = _Folder(max_elements, fold_qnn)
    for block in func.body.blocks:
        folder.run_block(block)
    return folder.changed


@register_pass("FoldConstant")
@dataclass(frozen=True, eq=False, repr=False)
class FoldConstant(FunctionPass):
    """Evaluate ops whose operands are all constants, project tuples of known
    fields, pick the branch of an ``if`` with a constant condition and fold
    ``shape_of`` on static shapes (Relay's FoldConstant: function pass, opt_level
    2). QNN ops are folded only with ``fold_qnn``."""

    fold_qnn: bool = option(False, "accepted for compatibility (no QNN ops)")

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(2, "FoldConstant"))

    def _run(self, func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not fold_constants(func, fold_qnn=self.fold_qnn):
            ctx.analyses.preserve()  # nothing changed
        return func
