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
from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.qnn import QnnOp
from xrelay.dialects.relay.qnn_canonical import QnnBuilder
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass


def rewrite_qnn_ops(
    func: FuncOp, rewrite: Callable[[QnnOp, QnnBuilder], SSAValue | None]
) -> bool:
    """Replace each QNN op of ``func`` whose operand types are known by what
    ``rewrite(op, builder)`` emits before it (``None``: the op stays); True if any
    changed. The walker of QnnCanonicalize and QnnLegalize."""
    changed = False
    for op in list(func.body.walk()):
        if not isinstance(op, QnnOp):
            continue
        if not all(isinstance(v.type, TensorType) for v in op.operands):
            continue
        value = rewrite(op, QnnBuilder(op))
        if value is None:
            continue
        value.name_hint = op.results[0].name_hint
        Rewriter.replace_op(op, [], [value])
        changed = True
    return changed


def canonicalize_qnn(func: FuncOp) -> bool:
    """Rewrite the QNN ops of one function in place; True if any changed."""
    return rewrite_qnn_ops(func, lambda op, b: op.canonicalize(b))


@register_pass("QnnCanonicalize")
@dataclass(frozen=True, eq=False, repr=False)
class QnnCanonicalize(FunctionPass):
    """Rewrite ``relay.qnn.*`` ops into integer and float relay ops (Relay's
    QnnCanonicalize: function pass, opt_level 1, requires InferType)."""

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(1, "QnnCanonicalize", ["InferType"]))

    @staticmethod
    def _run(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not canonicalize_qnn(func):
            ctx.analyses.preserve()  # nothing changed
        return func
