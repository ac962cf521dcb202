"""BackwardFoldScaleAxis: fold a per-channel ``multiply`` that follows a conv2d or
dense into its weight (mirrors Relay's ``BackwardFoldScaleAxis``: function pass,
opt_level 3, requires InferType).

``multiply(y, s)`` where ``y`` comes from ``conv2d``/``dense`` through ``relu``,
``leaky_relu``, ``add``/``subtract`` and ``nn.bias_add``, and ``s`` broadcasts only along
the output-channel axis: the multiply disappears, the conv/dense weight is multiplied
by ``s`` along its ``O`` axis, and an added bias (or the other side of an add/subtract)
is multiplied by ``s`` too. The new multiplies are ops on the weights; FoldConstant
bakes them when the weights are constants.

Conditions (Relay's): every value between the conv/dense and the multiply has exactly
one use; convs have ``groups == 1`` or are depthwise; a scale that crosses a
``relu``/``leaky_relu`` must be a constant with only non-negative finite elements.

Departure: a scale that is not computed from constants is folded only when the
weights, biases and add operands it would multiply on every run hold fewer elements
than the multiply's result (``worth_folding``); Relay always folds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.base import TypeRelationError, get_int, normalize_axis
from xrelay.dialects.relay.elementwise import (
    AddOp,
    BiasAddOp,
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
    is_non_negative_constant,
    match_broadcast_to_left_axes,
    scale_for_axes,
    worth_folding,
)
from xrelay.transforms._simplify_patterns import Edit, defining, static_shape

Branch = Literal["both", "lhs", "rhs"]


class _Abort(Exception):
    """The scale cannot be pushed through this value."""


@dataclass
class _Backward:
    """One function's backward folding: prepare (messages), then transform."""

    messages: dict[SSAValue, Message] = field(default_factory=dict[SSAValue, Message])
    branches: dict[Operation, Branch] = field(default_factory=dict[Operation, Branch])
    constants: dict[SSAValue, bool] = field(default_factory=dict[SSAValue, bool])

    # -- prepare: which values could absorb a scale on which axes ---------------------

    def prepare(self, func: FuncOp) -> None:
        for op in func.body.walk():
            if len(op.results) != 1 or not op.results[0].has_one_use():
                continue
            message = self._prepare_op(op)
            if message is not None:
                self.messages[op.results[0]] = message

    def _prepare_op(self, op: Operation) -> Message | None:
        if isinstance(op, Conv2DOp):
            foldable, _ = conv_foldable(op)
            axes = conv_channel_axes(op, conv_layouts(op)[2])
            if not foldable or axes is None or static_shape(op.results[0]) is None:
                return None
            return Message(axes)
        if isinstance(op, DenseOp):
            axis = dense_channel_axis(op.results[0])
            return None if axis is None else Message((axis,))
        ins = [self.messages.get(v) for v in op.operands]
        if isinstance(op, ACTIVATIONS):
            return None if ins[0] is None else Message(ins[0].axes, True)
        if isinstance(op, AddOp | SubtractOp):
            return self._prepare_add(op, ins[0], ins[1])
        if isinstance(op, BiasAddOp):
            shape = static_shape(op.data)
            if ins[0] is None or shape is None:
                return None
            axis = normalize_axis(get_int(op.axis), len(shape))
            return ins[0] if ins[0].axes == (axis,) else None
        return None

    def _prepare_add(
        self, op: AddOp | SubtractOp, lm: Message | None, rm: Message | None
    ) -> Message | None:
        ls, rs = static_shape(op.lhs), static_shape(op.rhs)
        if ls is None or rs is None:
            return None
        if (
            lm is not None
            and rm is not None
            and lm.axes == rm.axes
            and len(ls) == len(rs)
            and (
                ls == rs
                or match_broadcast_to_left_axes(ls, rs, lm.axes)
                or match_broadcast_to_left_axes(rs, ls, lm.axes)
            )
        ):
            self.branches[op] = "both"
            return Message(lm.axes, lm.require_positive or rm.require_positive)
        if lm is not None and match_broadcast_to_left_axes(ls, rs, lm.axes):
            self.branches[op] = "lhs"
            return lm
        if rm is not None and match_broadcast_to_left_axes(rs, ls, rm.axes):
            self.branches[op] = "rhs"
            return rm
        return None

    # -- transform: fold each multiply by a channel scale ------------------------------

    def run(self, func: FuncOp) -> bool:
        """Fold in place; whether anything changed."""
        self.prepare(func)
        if not self.messages:
            return False
        changed = False
        for op in list(func.body.walk()):
            if isinstance(op, MultiplyOp) and op.parent is not None:
                changed |= self._fold_multiply(op)
        return changed

    def _fold_multiply(self, mul: MultiplyOp) -> bool:
        """Fold ``mul`` into its producers if it can be; whether it was."""
        for x, s in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
            message = self.messages.get(x)
            shape = static_shape(x)
            if message is None or shape is None or x.type != mul.results[0].type:
                continue
            if message.require_positive and not is_non_negative_constant(s):
                continue
            edit = Edit()
            touched: list[Operation] = []
            try:
                scale = scale_for_axes(s, shape, message.axes, edit)
                if scale is None:
                    raise _Abort
                new = self._transform(x, message, scale, edit, touched)
            except (_Abort, TypeRelationError):
                edit.drop()
                continue
            if new.type != mul.results[0].type or not worth_folding(
                s, _multiplied_elements(edit), mul.results[0], self.constants
            ):
                edit.drop()
                continue
            block = mul.parent
            assert block is not None
            block.insert_ops_before(edit.ops, mul)
            mul.results[0].replace_all_uses_with(new)
            Rewriter.erase_op(mul)
            erase_dead(touched)
            return True
        return False

    def _transform(
        self,
        value: SSAValue,
        message: Message,
        scale: SSAValue,
        edit: Edit,
        touched: list[Operation],
    ) -> SSAValue:
        """The ops computing ``value * scale`` (along ``message.axes``) with the scale
        pushed down into the conv/dense weights."""
        op = defining(value)
        own = self.messages.get(value)
        if op is None or own is None or own.axes != message.axes:
            raise _Abort
        touched.append(op)
        if isinstance(op, ACTIVATIONS):
            inner = self._transform(op.data, message, scale, edit, touched)
            return edit.like(op, [inner])
        if isinstance(op, AddOp | SubtractOp):
            return self._transform_add(op, message, scale, edit, touched)
        if isinstance(op, BiasAddOp):
            data = self._transform(op.data, message, scale, edit, touched)
            return edit.like(op, [data, edit.op(MultiplyOp, [op.bias, scale])])
        if isinstance(op, Conv2DOp):
            wscale = conv_weight_scale(op, scale, "O", edit)
            if wscale is None:
                raise _Abort
            weight = edit.op(MultiplyOp, [op.weight, wscale])
            return edit.like(op, [op.data, weight])
        if isinstance(op, DenseOp):
            wscale = expand_to_axes(scale, 2, (0,), edit)
            weight = edit.op(MultiplyOp, [op.weight, wscale])
            return edit.like(op, [op.data, weight])
        raise _Abort

    def _transform_add(
        self,
        op: AddOp | SubtractOp,
        message: Message,
        scale: SSAValue,
        edit: Edit,
        touched: list[Operation],
    ) -> SSAValue:
        branch = self.branches.get(op)
        if branch == "both":
            lhs = self._transform(op.lhs, message, scale, edit, touched)
            rhs = self._transform(op.rhs, message, scale, edit, touched)
            return edit.like(op, [lhs, rhs])
        if branch == "lhs":
            rank = len(static_shape(op.lhs) or ())
            other = edit.op(
                MultiplyOp, [op.rhs, expand_to_axes(scale, rank, message.axes, edit)]
            )
            lhs = self._transform(op.lhs, message, scale, edit, touched)
            return edit.like(op, [lhs, other])
        if branch == "rhs":
            rank = len(static_shape(op.rhs) or ())
            other = edit.op(
                MultiplyOp, [op.lhs, expand_to_axes(scale, rank, message.axes, edit)]
            )
            rhs = self._transform(op.rhs, message, scale, edit, touched)
            return edit.like(op, [other, rhs])
        raise _Abort


def _multiplied_elements(edit: Edit) -> int | None:
    """The elements the multiplies of ``edit`` compute (the scaled weights, biases and
    other sides of adds)."""
    total = 0
    for op in edit.ops:
        if isinstance(op, MultiplyOp):
            n = elements(op.results[0])
            if n is None:
                return None
            total += n
    return total


def backward_fold_scale_axis(func: FuncOp) -> bool:
    """Fold the channel multiplies after conv2d/dense of ``func`` in place; whether
    anything changed."""
    return _Backward().run(func)


@register_pass("BackwardFoldScaleAxis")
@dataclass(frozen=True, eq=False, repr=False)
class BackwardFoldScaleAxis(FunctionPass):
    """Fold a per-channel multiply that follows conv2d/dense (through relu, add,
    bias_add) into the weights (Relay's BackwardFoldScaleAxis: opt_level 3)."""

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(3, "BackwardFoldScaleAxis", ["InferType"]))

    def _run(self, func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not backward_fold_scale_axis(func):
            ctx.analyses.preserve()  # nothing changed
        return func
