"""``xrelay.error`` (TVM's ``tvm.error``): the base class of the errors TVM's own
runtime raises, for scripts that catch them."""

from __future__ import annotations


class DiagnosticError(ValueError):
    """TVM's ``tvm.error.DiagnosticError``: Relay text that could not be parsed."""


class TVMError(RuntimeError):
    """An error TVM reports from its C++ runtime (here: an op registered twice)."""


__all__ = ["DiagnosticError", "TVMError"]
