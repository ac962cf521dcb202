"""Passes for testing the tools, not for pipelines (registered with the others, kept
out of ``xrelay.transforms``, which holds Relay's passes).

TestBreakIR (``-p test-break-ir{mode=...}``): It fails on purpose so that crash reproducers and pass diagnostics
can be tested end to end (MLIR keeps such passes as ``test-*`` passes in
``mlir-opt``).

* ``mode=verify`` (default): gives the result of the first relay op other than a
  constant a wrong type (one more dimension), so the IR after the pass does not
  verify (``xrelay.verify_each``);
* ``mode=raise``: raises a diagnostic at that op.

A module without such an op is left alone.

TestDiagnostics (``-p test-diagnostics``) emits the warnings, error and notes the
ops ask for with ``test.*`` attributes, for tests of ``--verify-diagnostics``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.pass_manager import Pass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.options import option, set_info
from xrelay.tools.diagnostics import OpWarning

MODES = ("verify", "raise")


class BrokenOnPurposeError(DiagnosticException):
    """What ``test-break-ir{mode=raise}`` raises."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


def _victim(module: ModuleOp) -> RelayOp | None:
    for op in module.walk():
        if (
            isinstance(op, RelayOp)
            and not isinstance(op, ConstantOp)
            and op.results
            and isinstance(op.results[0].type, TensorType)
        ):
            return op
    return None


@register_pass("TestBreakIR", "test-break-ir")
@dataclass(frozen=True, eq=False, repr=False)
class TestBreakIR(Pass):
    """Break the IR on purpose, for tests of crash reproducers and diagnostics
    (mode=verify: a wrong result type; mode=raise: an error)."""

    __test__ = False  # not a pytest test class

    mode: str = option("verify", "verify: a wrong result type; raise: an error")

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(
                f"mode must be one of {', '.join(MODES)}, got '{self.mode}'"
            )
        set_info(self, PassInfo(0, "TestBreakIR"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: object) -> ModuleOp:
        victim = _victim(op)
        if victim is None:
            return op
        if self.mode == "raise":
            raise BrokenOnPurposeError(
                victim, f"{victim.name}: broken on purpose by test-break-ir"
            )
        result = victim.results[0]
        ty = result.type
        assert isinstance(ty, TensorType)
        wrong = TensorType(ty.get_element_type(), [*ty.get_shape(), 1])
        Rewriter.replace_value_with_new_type(result, wrong)
        return op


WARNING_ATTR = "test.warning"
ERROR_ATTR = "test.error"
NOTE_ATTR = "test.note"


class TestDiagnosticError(DiagnosticException):
    """The error of ``test-diagnostics``, with its notes as ``(op, text)`` pairs."""

    __test__ = False  # not a pytest test class

    def __init__(self, op: Operation, message: str, notes: list[tuple[Operation, str]]):
        super().__init__(message)
        self.op = op
        self.diagnostic_notes = notes


def _text(op: Operation, name: str) -> str | None:
    attr = op.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


@register_pass("TestDiagnostics", "test-diagnostics")
@dataclass(frozen=True, eq=False, repr=False)
class TestDiagnostics(Pass):
    """Emit the diagnostics the ops ask for, for tests of ``--verify-diagnostics``:
    a warning at each op with a ``test.warning = "text"`` attribute, then an error
    at the first op with ``test.error``, whose notes are at the ops with
    ``test.note``. The IR is left alone."""

    __test__ = False  # not a pytest test class

    def __post_init__(self) -> None:
        set_info(self, PassInfo(0, "TestDiagnostics"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: object) -> ModuleOp:
        error: tuple[Operation, str] | None = None
        notes: list[tuple[Operation, str]] = []
        for inner in op.walk():
            text = _text(inner, WARNING_ATTR)
            if text is not None:
                warnings.warn(OpWarning(inner, text), stacklevel=1)
            text = _text(inner, ERROR_ATTR)
            if text is not None and error is None:
                error = (inner, text)
            text = _text(inner, NOTE_ATTR)
            if text is not None:
                notes.append((inner, text))
        if error is not None:
            raise TestDiagnosticError(error[0], error[1], notes)
        return op
