"""``cf`` → ``llvm`` (xDSL 0.74 has no such conversion): ``cf.br`` and
``cf.cond_br`` become ``llvm.br`` and ``llvm.cond_br`` with the same successors and
block arguments (MLIR's ``convert-cf-to-llvm``)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import cf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from xrelay.lowering.llvm import fast_ops
from xrelay.lowering.llvm.common import Converter, apply_converters


def _br(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, cf.BranchOp)
    b.insert(fast_ops.br(op.successor, op.arguments))
    return []


def _cond_br(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, cf.ConditionalBranchOp)
    b.insert(
        fast_ops.cond_br(
            op.cond,
            op.then_block,
            op.then_arguments,
            op.else_block,
            op.else_arguments,
        )
    )
    return []


CF_CONVERTERS: dict[type[Operation], Converter] = {
    cf.BranchOp: _br,
    cf.ConditionalBranchOp: _cond_br,
}
"""The converters of the ``cf`` branches."""


def convert_cf_to_llvm(module: ModuleOp) -> None:
    """Convert every ``cf`` branch of ``module``."""
    apply_converters(module, CF_CONVERTERS)
