"""SSA dominance for the structured IR xrelay uses: every operand is defined before
its use. xDSL 0.74's verifier does not check it, so a module using a value before
its definition verified, and passes then misbehaved.

The rule checked is the one for single-block regions (what relay functions and
``relay.if`` branches are): a value defined in the same block must come from an
earlier op; a value from another block must come from an enclosing block (or, in a
multi-block region, from any block of it: CFG dominance is not computed). Blocks
of graph regions (``builtin.module``) are not checked. One walk, linear in the
number of operands (plus the nesting depth for values from enclosing blocks).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult
from xdsl.utils.exceptions import VerifyException


class DominanceError(VerifyException):
    """An op uses a value that is not defined before it (``op``: the user)."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


def _encloses(outer: Block, block: Block | None) -> bool:
    """Whether ``outer`` is ``block``, an enclosing block, or another block of the
    region of one of those (a CFG: dominance between the blocks of a multi-block
    region, the ``llvm`` dialect's, is not checked)."""
    region = outer.parent
    while block is not None:
        if block is outer or (region is not None and block.parent is region):
            return True
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    return False


def verify_dominance(root: Operation) -> None:
    """Raise :class:`DominanceError` at the first use before definition under
    ``root``."""
    for op in root.walk():
        if isinstance(op, ModuleOp) and op is not root:
            continue
        for region in op.regions:
            if isinstance(op, ModuleOp):
                continue  # a graph region: no order among its ops
            for block in region.blocks:
                _verify_block(block)


def _verify_block(block: Block) -> None:
    position = {op: i for i, op in enumerate(block.ops)}
    for i, op in enumerate(block.ops):
        for k, value in enumerate(op.operands):
            if isinstance(value, OpResult):
                owner_block = value.op.parent_block()
                if owner_block is block:
                    if position[value.op] < i:
                        continue
                elif owner_block is not None and _encloses(owner_block, block):
                    continue
                name = value.name_hint or value.op.name
                raise DominanceError(
                    f"{op.name}: operand #{k} ({name}) is used before its definition "
                    "(or where its definition does not dominate the use)",
                    op,
                )
            elif isinstance(value, BlockArgument):
                if value.block is block or _encloses(value.block, block):
                    continue
                raise DominanceError(
                    f"{op.name}: operand #{k} is an argument of a block that does not "
                    "enclose the use",
                    op,
                )
            else:  # an ErasedSSAValue: its op was erased while still in use
                raise DominanceError(
                    f"{op.name}: operand #{k} is the value of an erased op", op
                )


class MultiBlockFunctionError(VerifyException):
    """A relay function (a ``func.func`` whose signature holds tensors) with more
    than one block (``op``: the function)."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


def verify_single_block_functions(root: Operation) -> None:
    """Relay functions are one block (every pass walks ``func.body.block``): raise
    :class:`MultiBlockFunctionError` at a ``func.func`` with tensor arguments or
    results and several blocks. Lowered functions (memrefs, ``cf`` branches) are
    left alone."""
    for op in root.walk():
        if not isinstance(op, func.FuncOp) or len(op.body.blocks) < 2:
            continue
        ty = op.function_type
        if any(isinstance(t, TensorType) for t in (*ty.inputs, *ty.outputs)):
            raise MultiBlockFunctionError(
                f"func.func @{op.sym_name.data}: a relay function has one block, "
                f"this one has {len(op.body.blocks)}",
                op,
            )


def verify_module(module: Operation) -> None:
    """:func:`verify_dominance` (which also finds uses of erased values, which
    xDSL's verifier reports with a bare ``ValueError``), the one block of relay
    functions, then xDSL's verifier."""
    try:
        verify_dominance(module)
        verify_single_block_functions(module)
        module.verify()
    except RecursionError as e:
        from xrelay.nesting import too_deep

        raise too_deep(e, "the verifier", module) from e
