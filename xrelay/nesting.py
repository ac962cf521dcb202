"""IR nested too deeply for Python's stack: one clear, located error.

xDSL's parser, printer and verifier, and xrelay's passes, text format and
interpreter, walk nested regions (``relay.if`` inside ``relay.if``), nested types
and nested expressions recursively, so input nested some hundreds of levels deep
hits Python's recursion limit. Wherever that happens (outside InferType, which is
iterative) the ``RecursionError`` becomes a :class:`NestingTooDeepError`: a
``RecursionError`` (code catching that keeps working) and a ``DiagnosticException``
whose ``op`` is the most deeply nested op, so the tools print ``file:line:col`` of
it in one line.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class NestingTooDeepError(DiagnosticException, RecursionError):
    """The input is nested (or chained) deeper than Python's recursion limit lets
    ``what`` go; ``op``: the most deeply nested op, when there is IR."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


def deepest_op(root: Operation) -> tuple[Operation, int]:
    """The first op nested most deeply under ``root`` (counting regions) and its
    depth; an explicit stack, so it works on any nesting."""
    best, best_depth = root, 0
    stack: list[tuple[Operation, int]] = [(root, 0)]
    while stack:
        op, depth = stack.pop()
        if depth > best_depth:
            best, best_depth = op, depth
        for region in reversed(op.regions):
            for block in reversed(region.blocks):
                stack.extend((inner, depth + 1) for inner in reversed(list(block.ops)))
    return best, best_depth


def too_deep(
    error: RecursionError, what: str, root: Operation | None = None
) -> NestingTooDeepError:
    """The :class:`NestingTooDeepError` for ``error``, raised by ``what`` (``"pass
    FoldConstant"``, ``"the verifier"``) on IR under ``root``; ``error`` itself if it
    is one already."""
    if isinstance(error, NestingTooDeepError):
        return error
    where = ""
    op = None
    if root is not None:
        op, depth = deepest_op(root)
        if depth:
            where = f", {depth} regions deep at {op.name}"
    return NestingTooDeepError(
        f"{what}: the IR is nested too deeply (Python's recursion limit{where})", op
    )
