"""ForwardFoldScaleAxis: fold a per-channel ``multiply`` that precedes a conv2d or
dense into its weight (mirrors Relay's ``ForwardFoldScaleAxis``: function pass,
opt_level 3, requires InferType).

``multiply(x, s)`` with ``s`` broadcasting only along the input-channel axis, flowing
through ``relu``/``leaky_relu`` and ``add``/``subtract`` (the other operand is divided by
``s``) into the data of ``conv2d``/``dense``: the multiply disappears and the weight is
multiplied by ``s`` along its ``I`` axis (``O`` for a depthwise conv). The new
multiplies are ops on the weights; FoldConstant bakes them.

Conditions (Relay's): every use of every value on the way must be able to take the
scale on the same axis (a value also used by anything else is left alone); convs have
``groups == 1`` or are depthwise; a scale that crosses a ``relu``/``leaky_relu`` must be
a constant with only non-negative finite elements.

Departure: a scale that is not computed from constants (an SE gate, the ``sigmoid``
of a SiLU on a 1x1 activation) is folded only when the weights (and add operands)
it would multiply on every run hold fewer elements than the scaled data
(``worth_folding``); Relay always folds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.base import RelayOp, TypeRelationError
from xrelay.dialects.relay.dtypes import is_float
from xrelay.dialects.relay.elementwise import (
    AddOp,
    DivideOp,
    MultiplyOp,
    SubtractOp,
)
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass
from xrelay.transforms._scale_axis import (
    ACTIVATIONS,
    Conv2DOp,
    DenseOp,
    Message,
    conv_channel_axes,
    conv_foldable,
    conv_layouts,
    conv_weight_scale,
    dense_channel_axis,
    elements,
    erase_dead,
    expand_to_axes,
    intersect,
    is_non_negative_constant,
    match_broadcast_to_left_axes,
    scale_for_axes,
    worth_folding,
)
from xrelay.transforms._simplify_patterns import Edit, elem_type, static_shape


@dataclass(frozen=True)
class _Scaled:
    """A value equal to ``value`` multiplied by ``scale`` (``[C]``) along ``axes``."""

    value: SSAValue
    scale: SSAValue
    axes: tuple[int, ...]


_UNSET = Message(())


@dataclass
class _Forward:
    """One function's forward folding: prepare (messages), then transform."""

    messages: dict[SSAValue, Message] = field(default_factory=dict[SSAValue, Message])
    scaled: dict[SSAValue, _Scaled] = field(default_factory=dict[SSAValue, _Scaled])
    candidates: list[Operation] = field(default_factory=list[Operation])
    constants: dict[SSAValue, bool] = field(default_factory=dict[SSAValue, bool])
    changed: bool = False

    # -- prepare: demands flow from the consumers back to the producers ----------------

    def prepare(self, ops: list[Operation]) -> None:
        use_messages: dict[tuple[Operation, int], Message | None] = {}
        for op in reversed(ops):
            out: Message | None = None
            if len(op.results) == 1:
                out = self._value_message(op.results[0], use_messages)
                if out is not None:
                    self.messages[op.results[0]] = out
            for i, message in enumerate(self._prepare_op(op, out)):
                use_messages[(op, i)] = message

    @staticmethod
    def _value_message(
        value: SSAValue, use_messages: dict[tuple[Operation, int], Message | None]
    ) -> Message | None:
        """What every use of ``value`` can take (``None`` if some use takes nothing)."""
        acc: Message | None = _UNSET
        for use in value.uses:
            message = use_messages.get((use.operation, use.index))
            acc = message if acc is _UNSET else intersect(acc, message)
        return None if acc is _UNSET else acc

    def _prepare_op(self, op: Operation, out: Message | None) -> list[Message | None]:
        none: list[Message | None] = [None] * len(op.operands)
        if isinstance(op, ACTIVATIONS):
            return [None if out is None else Message(out.axes, True)]
        if isinstance(op, AddOp | SubtractOp):
            ls, rs = static_shape(op.lhs), static_shape(op.rhs)
            elem = elem_type(op.results[0])
            if out is None or ls is None or rs is None or elem is None:
                return none
            if not is_float(elem):  # the other side is divided by the scale
                return none
            if match_broadcast_to_left_axes(ls, rs, out.axes):
                return [out, None]
            if match_broadcast_to_left_axes(rs, ls, out.axes):
                return [None, out]
            return none
        if isinstance(op, Conv2DOp):
            foldable, _ = conv_foldable(op)
            axes = conv_channel_axes(op, conv_layouts(op)[0])
            if foldable and axes is not None:
                return [Message(axes), None]
            return none
        if isinstance(op, DenseOp):
            axis = dense_channel_axis(op.data)
            return none if axis is None else [Message((axis,)), None]
        return none

    # -- transform: producers of scaled values, in program order -----------------------

    def run(self, func: FuncOp) -> bool:
        """Fold in place; whether anything changed."""
        ops = list(func.body.walk())
        self.prepare(ops)
        if not self.messages:
            return False
        for op in ops:
            if op.parent is None or not isinstance(op, RelayOp):
                continue
            edit = Edit()
            try:
                self._rewrite(op, edit)
            except TypeRelationError:
                edit.drop()
        erase_dead(self.candidates)
        return self.changed

    def _commit(self, op: Operation, edit: Edit) -> None:
        block = op.parent
        assert block is not None
        block.insert_ops_before(edit.ops, op)
        self.candidates.extend(edit.ops)
        self.changed = True

    def _rewrite(self, op: RelayOp, edit: Edit) -> None:
        result = op.results[0] if len(op.results) == 1 else None
        message = None if result is None else self.messages.get(result)
        if isinstance(op, MultiplyOp) and message is not None and result is not None:
            self._rewrite_multiply(op, message, edit)
        elif isinstance(op, ACTIVATIONS) and message is not None:
            source = self.scaled.get(op.data)
            if source is not None and result is not None:
                new = edit.like(op, [source.value])
                self._commit(op, edit)
                self.scaled[result] = _Scaled(new, source.scale, source.axes)
                self.candidates.append(op)
        elif isinstance(op, AddOp | SubtractOp) and message is not None:
            self._rewrite_add(op, edit)
        elif isinstance(op, Conv2DOp | DenseOp):
            self._rewrite_consumer(op, edit)

    def _rewrite_multiply(self, op: MultiplyOp, message: Message, edit: Edit) -> None:
        if op.lhs in self.scaled or op.rhs in self.scaled:
            return
        for x, s in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            shape = static_shape(x)
            if shape is None or x.type != op.results[0].type:
                continue
            if message.require_positive and not is_non_negative_constant(s):
                continue
            folded = self._folded_elements(op.results[0])
            if not worth_folding(s, folded, x, self.constants):
                continue
            scale = scale_for_axes(s, shape, message.axes, edit)
            if scale is None:
                continue
            self._commit(op, edit)
            self.scaled[op.results[0]] = _Scaled(x, scale, message.axes)
            self.candidates.append(op)
            return
        edit.drop()

    def _folded_elements(self, value: SSAValue) -> int | None:
        """The elements a scale on ``value`` would multiply once folded: the weights
        of the convs/denses it reaches and the other sides of the adds on the way
        (every use takes the scale: ``prepare`` checked)."""
        total = 0
        for use in value.uses:
            op = use.operation
            if isinstance(op, Conv2DOp | DenseOp):
                n = elements(op.weight)
            elif isinstance(op, AddOp | SubtractOp):
                inner = self._folded_elements(op.results[0])
                other = elements(op.operands[1 - use.index])
                n = None if inner is None or other is None else inner + other
            elif isinstance(op, ACTIVATIONS):
                n = self._folded_elements(op.results[0])
            else:
                n = None
            if n is None:
                return None
            total += n
        return total

    def _rewrite_add(self, op: AddOp | SubtractOp, edit: Edit) -> None:
        lhs, rhs = self.scaled.get(op.lhs), self.scaled.get(op.rhs)
        if (lhs is None) == (rhs is None):
            return
        src = lhs or rhs
        assert src is not None
        shape = static_shape(op.lhs if lhs is not None else op.rhs)
        assert shape is not None
        divisor = expand_to_axes(src.scale, len(shape), src.axes, edit)
        if lhs is not None:
            new = edit.like(op, [lhs.value, edit.op(DivideOp, [op.rhs, divisor])])
        else:
            new = edit.like(op, [edit.op(DivideOp, [op.lhs, divisor]), src.value])
        if new.type != op.results[0].type:
            edit.drop()
            return
        self._commit(op, edit)
        self.scaled[op.results[0]] = _Scaled(new, src.scale, src.axes)
        self.candidates.append(op)

    def _rewrite_consumer(self, op: Conv2DOp | DenseOp, edit: Edit) -> None:
        src = self.scaled.get(op.data)
        if src is None or op.weight in self.scaled:
            return
        if isinstance(op, Conv2DOp):
            foldable, depthwise = conv_foldable(op)
            if not foldable or src.axes != conv_channel_axes(op, conv_layouts(op)[0]):
                return
            found = conv_weight_scale(op, src.scale, "O" if depthwise else "I", edit)
            if found is None:
                edit.drop()
                return
            wscale = found
        else:
            if src.axes != (dense_channel_axis(op.data),):
                return
            wscale = src.scale
        weight = edit.op(MultiplyOp, [op.weight, wscale])
        new = edit.like(op, [src.value, weight])
        if new.type != op.results[0].type:
            edit.drop()
            return
        self._commit(op, edit)
        op.results[0].replace_all_uses_with(new)
        Rewriter.erase_op(op)


def forward_fold_scale_axis(func: FuncOp) -> bool:
    """Fold the channel multiplies before conv2d/dense of ``func`` in place; whether
    anything changed."""
    return _Forward().run(func)


@register_pass("ForwardFoldScaleAxis")
@dataclass(frozen=True, eq=False, repr=False)
class ForwardFoldScaleAxis(FunctionPass):
    """Fold a per-channel multiply that precedes conv2d/dense (through relu, add) into
    the weights (Relay's ForwardFoldScaleAxis: opt_level 3)."""

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(3, "ForwardFoldScaleAxis", ["InferType"]))

    def _run(self, func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not forward_fold_scale_axis(func):
            ctx.analyses.preserve()  # nothing changed
        return func
