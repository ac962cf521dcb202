"""The layout rewriter shared by ConvertLayout and AlterOpLayout (Relay's
``transform_layout.h``: ``LayoutRewriter`` driven by ``ForwardRewrite``).

A forward rewrite in program order. Every value the rewrite touched carries
``(old layout, new layout)``: the layout its producer had in the original program
and the one it has now (both unknown for function parameters, constants and results
of ops without a layout rule). For each relay op:

1. ask the op (:meth:`RelayOp.infer_correct_layout`) which layouts it wants for its
   operands and gives its results, given the original layouts of its producers;
2. let the pass's hook replace the op (ConvertLayout: ``convert_layout`` for the ops
   named in the desired layouts; AlterOpLayout: ``alter_layout`` for the target);
3. ask the (new) op again, now with the producers' new layouts: it adapts (e.g. a
   ``relu`` takes whatever comes, a ``sum`` moves its axes) or insists (a convolution
   wants its own layouts);
4. where a producer's layout differs from what the op wants, insert
   ``relay.layout_transform`` (memoised per (value, source, destination); an operand
   of lower rank than the layout gets ``expand_dims`` first; a scalar is left alone),
   and build the op with the attributes its rule gave.

An op without a rule, or that cannot adapt, gets its operands back in their original
layouts; so do terminators (``func.return``, ``relay.yield``), calls and ops with
regions, so the function's signature never changes. Finally back-to-back inverse
``layout_transform``s (``A→B`` then ``B→A``) cancel.

Limitations (as Relay's): a replacement must be a single op with the same number of
operands and results (a :class:`~xrelay.dialects.relay.layout_rules.Replacement` may
compute its operands from the original ones first); ops whose operands or results
are tuples are not rewritten.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay import frontend_calls
from xrelay.dialects.relay.base import RelayOp, TypeRelationError, get_str
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    LayoutConversionError,
    MaybeLayout,
    OperandBuilder,
    Replacement,
    expand_primal,
    ndim_primal,
    same_primal_axes,
)
from xrelay.dialects.relay.op_attrs import INFER_CORRECT_LAYOUT, get_op_attr
from xrelay.dialects.relay.transform import ExpandDimsOp, LayoutTransformOp

Hook = Callable[[RelayOp, Sequence[Attribute]], RelayOp | Replacement | None]
"""The pass's replacement hook: ``(op template, operand types) -> replacement or
None``; a :class:`Replacement` also computes the replacement's operands."""


class LayoutRewriteError(DiagnosticException):
    """A layout pass cannot do what it was asked (bad desired layouts, or a value it
    cannot bring back to its original layout), with the op concerned."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


class _DoesNotFit(Exception):
    """The layouts asked for cannot be made (the op is then left as it was)."""


@dataclass
class _Tracked:
    """A value of the rewritten program standing for an original value."""

    value: SSAValue
    old: MaybeLayout = None
    new: MaybeLayout = None


class LayoutRewriter:
    """Rewrites the functions given to :meth:`rewrite` (see the module docstring)."""

    def __init__(self, hook: Hook):
        self.hook = hook
        self.state: dict[SSAValue, _Tracked] = {}
        self.memo: list[dict[tuple[SSAValue, str, str], SSAValue]] = []
        self.created: list[Operation] | None = None
        self.replaced: list[Operation] = []
        self.changed = False

    # -- driver --------------------------------------------------------------------------

    def rewrite(self, func: FuncOp) -> bool:
        """Rewrite ``func`` in place; True if anything changed."""
        for block in func.body.blocks:
            self._rewrite_block(block)
        for op in reversed(self.replaced):
            _erase(op)
        self.replaced.clear()
        self.state.clear()
        cancelled = cancel_inverse_transforms(func)
        return self.changed or cancelled

    def _rewrite_block(self, block: Block) -> None:
        self.memo.append({})
        for op in list(block.ops):
            for region in op.regions:
                for inner in region.blocks:
                    self._rewrite_block(inner)
            if (
                isinstance(op, RelayOp)
                and not op.regions
                and op.operands
                and not op.has_trait(IsTerminator)
                and self._rewrite_op(op)
            ):
                continue
            self._realize_operands(op)
        self.memo.pop()

    # -- one op --------------------------------------------------------------------------

    def _tracked(self, value: SSAValue) -> _Tracked:
        return self.state.get(value) or _Tracked(value)

    def _rewrite_op(self, op: RelayOp) -> bool:
        """Rewrite ``op`` by its layout rule; False when it has none or cannot adapt."""
        operands = list(op.operands)
        types = [o.type for o in operands]
        if not all(isinstance(t, TensorType) for t in types) or not all(
            isinstance(r.type, TensorType) for r in op.results
        ):
            return False
        inputs = [self._tracked(o) for o in operands]
        old_prd = [t.old for t in inputs]
        new_prd = [t.new for t in inputs]

        first = self._ask(op, None, old_prd, types)
        if first is None:
            return False
        old_cur, old_out = first.inputs, first.outputs
        template = op.layout_variant(updates=first.attrs) if first.attrs else op
        try:
            replacement = self.hook(template, types)
        except LayoutConversionError as e:
            raise LayoutRewriteError(str(e), op) from e
        build_operands = None
        if isinstance(replacement, Replacement):
            replacement, build_operands = replacement.op, replacement.operands
        new_template = replacement or template
        new_prd_known = _known(new_prd, old_cur)
        old_prd_known = _known(old_prd, old_cur)
        if replacement is None and new_prd_known == old_prd_known:
            second = first  # nothing moved: the op stays as it is
        else:
            second = self._ask(new_template, new_prd_known, old_prd_known, types)
            if second is None:
                return False
        new_cur, new_out = second.inputs, second.outputs
        if len(new_out) != len(old_out):
            return False

        final = (
            new_template.layout_variant(updates=second.attrs)
            if second.attrs
            else new_template
        )
        self.created = []
        try:
            if build_operands is not None:
                inputs = self._built_operands(build_operands, inputs, op)
            args = [
                self._transform_operand(t, oc, nc, op)
                for t, oc, nc in zip(inputs, old_cur, new_cur, strict=True)
            ]
            if _same_op(op, final, args):
                new_op: Operation = op
            else:
                new_op = type(final).make(args, dict(final.properties))
                if len(new_op.results) != len(op.results):
                    # never inserted: drop it, or its operands keep a use from a
                    # detached op (FuseOps then sees a user outside every group)
                    new_op.erase()
                    raise _DoesNotFit
        except (_DoesNotFit, TypeRelationError, ValueError):
            self._roll_back()
            return False
        finally:
            self.created = None
        if new_op is not op:
            new_op.attributes.update(op.attributes)
            new_op.location = op.location  # the span of the op it replaces
            _insert_before(new_op, op)
            self.replaced.append(op)
            self.changed = True
        for res, new_res, lo, ln in zip(
            op.results, new_op.results, old_out, new_out, strict=True
        ):
            self.state[res] = _Tracked(new_res, lo, ln)
        return True

    def _built_operands(
        self,
        build: OperandBuilder,
        inputs: Sequence[_Tracked],
        before: Operation,
    ) -> list[_Tracked]:
        """The operands a :class:`Replacement` computes from ``inputs`` (as their
        producers give them), each standing where the input of its position stood."""
        try:
            ops, values = build([t.value for t in inputs])
        except ValueError as e:  # the hook's arguments do not build: not dropped
            raise LayoutRewriteError(str(e), before) from e
        for new in ops:
            _insert_before(new, before)
            assert self.created is not None
            self.created.append(new)
        self.changed = True
        if len(values) != len(inputs):
            raise _DoesNotFit
        return [_Tracked(v, t.old, t.new) for v, t in zip(values, inputs, strict=True)]

    @staticmethod
    def _ask(
        op: RelayOp,
        new: Sequence[MaybeLayout] | None,
        old: Sequence[MaybeLayout],
        types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """The op's rule, checked for one layout per operand and per result and for
        layouts of the operands' ranks."""
        user = get_op_attr(op.name, INFER_CORRECT_LAYOUT)
        if user is not None:  # a registered FInferCorrectLayout replaces the op's rule
            inferred = frontend_calls.require(frontend_calls.RUN_INFER_HOOK)(
                user, op, new, old, types
            )
        else:
            inferred = op.infer_correct_layout(new, old, types)
        if inferred is None or len(inferred.inputs) != len(types):
            return None
        if len(inferred.outputs) != len(op.results):
            return None
        return inferred

    def _realize_operands(self, op: Operation) -> None:
        """Give ``op`` its operands in their original layouts."""
        operands = list(op.operands)
        changed = False
        for i, value in enumerate(operands):
            tracked = self.state.get(value)
            if tracked is None:
                continue
            realized = self._realize(tracked, op)
            if realized is not value:
                operands[i] = realized
                changed = True
        if changed:
            op.operands = operands

    def _realize(self, tracked: _Tracked, before: Operation) -> SSAValue:
        old, new = tracked.old, tracked.new
        if old is None or new is None or old == new:
            return tracked.value
        try:
            return self._transform(tracked.value, new, old, before)
        except (_DoesNotFit, TypeRelationError, ValueError) as e:
            owner = tracked.value.owner
            raise LayoutRewriteError(
                f"cannot bring a value back from layout '{new}' to '{old}' for "
                f"{before.name}: {e}",
                owner if isinstance(owner, Operation) else before,
            ) from e

    def _transform_operand(
        self, tracked: _Tracked, old_cur: Layout, new_cur: Layout, before: Operation
    ) -> SSAValue:
        """The operand in the layout the op wants (Relay's ``transform_layout`` lambda:
        when the op sees the value as its producer did, one transform from the
        producer's new layout; otherwise back to the original layout first)."""
        value = tracked.value
        if tracked.old is not None and tracked.new is not None:
            if tracked.old == old_cur:
                return self._transform(value, tracked.new, new_cur, before)
            value = self._transform(value, tracked.new, tracked.old, before)
        return self._transform(value, old_cur, new_cur, before)

    # -- transforms ----------------------------------------------------------------------

    def _transform(
        self, value: SSAValue, src: Layout, dst: Layout, before: Operation
    ) -> SSAValue:
        """``value`` (in layout ``src``) in layout ``dst``, memoised (Relay's
        ``TransformMemorizer::Transform``)."""
        if src == dst:
            return value
        key = (value, src.name, dst.name)
        for memo in reversed(self.memo):
            if key in memo:
                return memo[key]
        ty = value.type
        if not isinstance(ty, TensorType):
            raise _DoesNotFit
        rank = len(cast(TensorType, ty).get_shape())
        if rank != src.ndim:
            raise _DoesNotFit
        result = value
        if ndim_primal(src) < ndim_primal(dst):
            if rank == 0:  # a scalar broadcasts in any layout
                return value
            expand = ExpandDimsOp.make(
                [result],
                {"axis": 0, "num_newaxis": ndim_primal(dst) - ndim_primal(src)},
            )
            result = self._emit(expand, before)
            src = expand_primal(src, dst)
        if src != dst:
            if not same_primal_axes(src, dst):
                raise _DoesNotFit
            transform = LayoutTransformOp.make(
                [result], {"src_layout": src.name, "dst_layout": dst.name}
            )
            result = self._emit(transform, before)
        self.memo[-1][key] = result
        return result

    def _emit(self, op: Operation, before: Operation) -> SSAValue:
        _insert_before(op, before)
        if self.created is not None:
            self.created.append(op)
        self.changed = True
        return op.results[0]

    def _roll_back(self) -> None:
        """Drop the transforms made for an op that then could not be rewritten."""
        created = self.created or []
        made = {r for op in created for r in op.results}
        for memo in self.memo:
            for key in [k for k, v in memo.items() if v in made]:
                del memo[key]
        for op in reversed(created):
            _erase(op)


def _known(layouts: Sequence[MaybeLayout], fallback: Sequence[Layout]) -> list[Layout]:
    """``layouts`` with the unknown ones taken from ``fallback``."""
    return [x if x is not None else f for x, f in zip(layouts, fallback, strict=True)]


def _erase(op: Operation) -> None:
    block = op.parent_block()
    if block is not None:
        block.detach_op(op)
    op.erase()


def _insert_before(op: Operation, before: Operation) -> None:
    block = before.parent_block()
    assert block is not None
    block.insert_op_before(op, before)


def _same_op(op: RelayOp, final: RelayOp, args: Sequence[SSAValue]) -> bool:
    """Whether ``final`` with operands ``args`` is ``op`` itself."""
    if type(final) is not type(op):
        return False
    if any(a is not b for a, b in zip(args, op.operands, strict=True)):
        return False
    names = set(final.properties) | set(op.properties)
    return all(op.attr(n) == final.attr(n) for n in names)


def cancel_inverse_transforms(func: FuncOp) -> bool:
    """Remove ``layout_transform(layout_transform(x, A, B), B, A)`` pairs: uses of the
    second become uses of ``x`` (the first goes too when nothing else uses it). True if
    any pair was cancelled."""
    changed = False
    for op in list(func.walk()):
        if not isinstance(op, LayoutTransformOp) or op.parent is None:
            continue
        producer = op.data.owner
        if not isinstance(producer, LayoutTransformOp):
            continue
        if not _inverse(producer, op) or producer.data.type != op.result.type:
            continue
        op.result.replace_all_uses_with(producer.data)
        _erase(op)
        if not producer.result.uses:
            _erase(producer)
        changed = True
    return changed


def _inverse(first: LayoutTransformOp, second: LayoutTransformOp) -> bool:
    try:
        a = Layout.parse(get_str(first.src_layout))
        b = Layout.parse(get_str(first.dst_layout))
        c = Layout.parse(get_str(second.src_layout))
        d = Layout.parse(get_str(second.dst_layout))
    except ValueError:
        return False
    return a == d and b == c
