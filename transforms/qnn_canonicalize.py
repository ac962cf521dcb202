"""QnnCanonicalize (``relay.qnn.transform.CanonicalizeOps()``): rewrite every
``relay.qnn.*`` op into existing integer and float relay ops (mirrors Relay's
``QnnCanonicalize``, the ``FTVMQnnCanonicalize`` legalization: a function pass at
opt_level 1 that requires InferType).

Each QNN op says how (:meth:`xrelay.dialects.relay.qnn.QnnOp.canonicalize`): casts,
zero points subtracted in int32, ``nn.conv2d`` / ``nn.dense`` / ``nn.batch_matmul`` /
``nn.avg_pool2d`` with int32 (or float32) operands, the float32 multiplier, rounding
and saturation written with ``where``/``clip``/``cast``. The result computes exactly
what the QNN op's numpy semantics give, so ``xrelay.build`` (which runs this pass
first, as Relay's build runs ``qnn.Legalize``) lowers quantized programs with the
existing kernels. A QNN op whose operand types are not known yet (unranked) is left
alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from xrelay.dialects.relay.qnn import QNN_OPS, QnnOp
from xrelay.dialects.relay.qnn_canonical import QnnBuilder
from xrelay.pass_manager import PassInfo, PatternPass, register_pass

QnnRewrite = Callable[[QnnOp, QnnBuilder], SSAValue | None]
"""What a QNN op emits for a pass (``op.canonicalize``, ``op.legalize``) before
itself with the builder; ``None``: the op stays."""


class RewriteQnnOp(RewritePattern):
    """Replace a QNN op whose operand types are known by what ``rewrite(op,
    builder)`` emits before it (the op says how: passes ask the op). The builder is
    the ops' own API (:class:`QnnBuilder`, in the dialect), so it inserts without
    the pattern's rewriter (before the op; the rewriter's listeners are told of
    each op it made); the replacement goes through it."""

    def __init__(self, rewrite: QnnRewrite) -> None:
        self.rewrite = rewrite

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, QnnOp):
            return
        if not all(isinstance(v.type, TensorType) for v in op.operands):
            return
        before = op.prev_op
        value = self.rewrite(op, QnnBuilder(op))
        made = op.prev_op
        while made is not None and made is not before:  # what the builder inserted
            rewriter.handle_operation_insertion(made)
            made = made.prev_op
        if value is None:
            return
        value.name_hint = op.results[0].name_hint
        rewriter.replace(op, [], [value])


QNN_ROOTS: tuple[type[Operation], ...] = tuple(QNN_OPS)
"""The QNN op classes (the roots of :class:`RewriteQnnOp`)."""


def canonical_form(op: QnnOp, b: QnnBuilder) -> SSAValue:
    """What replaces ``op``: a constant when its operands are constants
    (:meth:`QnnBuilder.folded`: no canonical ops emitted for FoldConstant to fold
    back), else its canonical form (``op.canonicalize``)."""
    value = b.folded(op)
    return op.canonicalize(b) if value is None else value


@register_pass("QnnCanonicalize")
@dataclass(frozen=True, eq=False, repr=False)
class QnnCanonicalize(PatternPass):
    """Rewrite ``relay.qnn.*`` ops into integer and float relay ops (Relay's
    QnnCanonicalize: function pass, opt_level 1, requires InferType): one walk of
    :class:`RewriteQnnOp` asking each QNN op's ``canonicalize`` (a QNN op of
    constants becomes the constant: :func:`canonical_form`)."""

    def __post_init__(self) -> None:
        super().__init__(
            [RewriteQnnOp(canonical_form)],
            PassInfo(1, "QnnCanonicalize", ["InferType"]),
            roots=QNN_ROOTS,
            types_checked=True,
        )
