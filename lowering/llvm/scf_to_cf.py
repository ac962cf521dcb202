"""``scf.for``/``scf.if``/``scf.index_switch`` → ``cf``, each op rewritten once.

The blocks and ops are those of xDSL's ``convert-scf-to-cf`` (``ForLowering``,
``IfLowering``, ``SwitchLowering``), in the same order; the driver and, for the
loops and conditionals, the rewrites differ. xDSL's greedy walker tries its three
patterns on every op of the module and walks the module once more to see that
nothing is left; here the structured ops are collected once, outermost first (a
structured op's lowering never creates another one and only moves nested ops into
new blocks), and each one is rewritten where it then is. ``scf.for`` and ``scf.if``
are rewritten directly on the IR (blocks split and moved, results replaced), their
branches, step and comparison built with ``Operation.create`` (:func:`branch`,
:func:`cond_branch`, :mod:`xrelay.lowering.fast_arith`: each checked equal to the
IRDL constructor's op by ``tests/lowering/test_scf_to_cf.py``) instead of the
pattern rewriter and IRDL's generic constructor, which were most of the time
(ResNet-18: 0.095 s -> 0.04 s CPU). ``scf.index_switch`` (rare) keeps xDSL's
pattern.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, ModuleOp, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.transforms.convert_scf_to_cf import SwitchLowering

from xrelay.lowering import fast_arith
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.llvm import fast_ops
from xrelay.lowering.llvm.common import module_ops

_SWITCH = SwitchLowering()


@cache
def _segments(*sizes: int) -> DenseArrayBase[IntegerType]:
    return DenseArrayBase.from_list(i32, sizes)


def branch(dest: Block, args: Sequence[SSAValue]) -> cf.BranchOp:
    """``cf.br`` to ``dest`` with its block arguments."""
    return fast_ops.create(cf.BranchOp, tuple(args), successors=(dest,))


def cond_branch(
    cond: SSAValue,
    then_block: Block,
    then_args: Sequence[SSAValue],
    else_block: Block,
    else_args: Sequence[SSAValue],
) -> cf.ConditionalBranchOp:
    """``cf.cond_br`` with both successors' block arguments."""
    return fast_ops.create(
        cf.ConditionalBranchOp,
        (cond, *then_args, *else_args),
        (),
        {"operandSegmentSizes": _segments(1, len(then_args), len(else_args))},
        (then_block, else_block),
    )


def _replace_results(op: Operation, values: Sequence[SSAValue]) -> None:
    for result, value in zip(op.results, values, strict=True):
        result.replace_all_uses_with(value)
    block = op.parent_block()
    assert block is not None
    block.erase_op(op)


def _lower_for(op: scf.ForOp) -> None:
    init_block = op.parent_block()
    assert init_block is not None
    end_block = init_block.split_before(op)
    # the body's first block (the induction variable and the loop-carried values
    # are its arguments) becomes the condition block; its ops move to a new block
    condition_block = op.body.first_block
    assert condition_block is not None
    first_op = condition_block.first_op
    assert first_op is not None
    first_body_block = condition_block.split_before(first_op)
    last_body_block = op.body.last_block
    assert last_body_block is not None
    op.body.move_blocks_before(end_block)
    iv = condition_block.args[0]
    terminator = last_body_block.last_op
    assert terminator is not None
    stepped = fast_arith.int_binary(arith.AddiOp, iv, op.step)
    last_body_block.insert_op_before(stepped, terminator)
    last_body_block.insert_op_before(
        branch(condition_block, (stepped.result, *terminator.operands)), terminator
    )
    last_body_block.erase_op(terminator)
    init_block.add_op(branch(condition_block, (op.lb, *op.iter_args)))
    comparison = fast_arith.cmpi(iv, op.ub, "slt")
    condition_block.add_op(comparison)
    condition_block.add_op(
        cond_branch(comparison.result, first_body_block, (), end_block, ())
    )
    _replace_results(op, condition_block.args[1:])


def _lower_if(op: scf.IfOp) -> None:
    condition_block = op.parent_block()
    assert condition_block is not None
    remaining = condition_block.split_before(op)
    if op.results:
        parent = condition_block.parent_region()
        assert parent is not None
        continue_block = Block(arg_types=op.result_types)
        parent.insert_block_before(continue_block, remaining)
        continue_block.add_op(branch(remaining, ()))
    else:
        continue_block = remaining
    branch_blocks: list[Block] = []
    for region in (op.true_region, op.false_region):
        first = region.first_block
        if first is None:
            branch_blocks.append(continue_block)
            continue
        last = region.last_block
        assert last is not None
        terminator = last.last_op
        assert terminator is not None
        last.add_op(branch(continue_block, terminator.operands))
        last.erase_op(terminator)
        region.move_blocks_before(continue_block)
        branch_blocks.append(first)
    condition_block.add_op(
        cond_branch(op.cond, branch_blocks[0], (), branch_blocks[1], ())
    )
    _replace_results(op, continue_block.args)


def convert_scf_to_cf(module: ModuleOp) -> None:
    """Lower every ``scf.for``, ``scf.if`` and ``scf.index_switch`` of ``module`` to
    blocks and branches, in place."""
    todo = [
        op
        for op in module_ops(module)
        if isinstance(op, scf.ForOp | scf.IfOp | scf.IndexSwitchOp)
    ]
    for op in todo:
        if isinstance(op, scf.ForOp):
            _lower_for(op)
        elif isinstance(op, scf.IfOp):
            _lower_if(op)
        else:
            rewriter = PatternRewriter(op)
            _SWITCH.match_and_rewrite(op, rewriter)
            if not rewriter.has_done_action:
                raise LoweringError(f"{op.name}: cannot be lowered to cf", op)


__all__ = ["branch", "cond_branch", "convert_scf_to_cf"]
