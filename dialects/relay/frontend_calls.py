"""Callables the relay frontend installs for the layers below it to call.

The passes and the pass manager sit below :mod:`xrelay.frontend.relay` and never
import it; where they hand IR to user code written against the relay Python API (a
TVM-style layout hook, an ``fskip`` predicate, a function pass's ``relay.Function``)
they call what the frontend installed here when it was imported (importing any
module of ``xrelay.frontend.relay`` installs all of them; so does ``from xrelay
import relay``).

* :data:`RUN_ALTER_HOOK`, :data:`RUN_CONVERT_HOOK`, :data:`RUN_INFER_HOOK`: call a
  registered ``FTVMAlterOpLayout`` / ``FTVMConvertOpLayout`` / ``FInferCorrectLayout``
  Python function for an op (:mod:`xrelay.frontend.relay.op.hooks`);
* :data:`LIFTER`: makes a lifter (``.params(block)``, ``.op_expr(op)``) of ops to
  relay expressions (:mod:`xrelay.frontend.relay.lift`);
* :data:`RUN_MIXED_PRECISION_HOOK`: call a registered
  ``FTVMMixedPrecisionConversionType`` Python function for an op
  (:mod:`xrelay.frontend.relay.op.mixed_precision`);
* :data:`FUNCTION_VIEW`: ``(view, unwrap)`` for function passes
  (:mod:`xrelay.frontend.relay.function_view`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

RUN_ALTER_HOOK = "run_alter_hook"
RUN_CONVERT_HOOK = "run_convert_hook"
RUN_INFER_HOOK = "run_infer_hook"
RUN_MIXED_PRECISION_HOOK = "run_mixed_precision_hook"
LIFTER = "lifter"
FUNCTION_VIEW = "function_view"

_INSTALLED: dict[str, Callable[..., Any]] = {}


class FrontendNotLoadedError(RuntimeError):
    """User code needs the relay frontend, which was never imported."""


def install(name: str, fn: Callable[..., Any]) -> None:
    """Install the frontend's callable ``name`` (done by the frontend on import)."""
    _INSTALLED[name] = fn


def installed(name: str) -> Callable[..., Any] | None:
    """The callable ``name``, or ``None`` when the frontend is not loaded."""
    return _INSTALLED.get(name)


def require(name: str) -> Callable[..., Any]:
    """The callable ``name``; a :class:`FrontendNotLoadedError` when the frontend
    that provides it was never imported."""
    fn = _INSTALLED.get(name)
    if fn is None:
        raise FrontendNotLoadedError(
            f"{name} is provided by the relay frontend: import xrelay.frontend.relay "
            "(or `from xrelay import relay`) first"
        )
    return fn
