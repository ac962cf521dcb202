"""The error every lowering step raises for input it cannot lower."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class LoweringError(DiagnosticException):
    """An op (or function) that cannot be lowered: a dynamic shape, an unsupported
    dtype, an op without a lowering. The message starts with the op's name; ``op``
    is the offending operation when there is one (``xrelay-opt`` reports the error
    like a verifier diagnostic)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op
