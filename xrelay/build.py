"""``xrelay.build``: :func:`xrelay.runtime.build.build` (optimise a relay module, lower
it to LLVM IR and JIT-compile it for the host CPU: Relay's ``relay.build`` for
``target="llvm"``), also taking a ``relay.Function`` as TVM's ``relay.build`` does."""

from __future__ import annotations

import sys
import types
from typing import Any

from xrelay.runtime import build as _runtime_build
from xrelay.runtime.build import optimize_module
from xrelay.runtime.library import Library

__all__ = ["build", "optimize_module"]


def _as_module(mod: Any) -> Any:
    """A ``relay.Function`` as the main of a module (TVM builds one so)."""
    from xrelay.frontend.relay.function import Function

    if isinstance(mod, Function):
        from xrelay.frontend.relay.module import IRModule

        return IRModule.from_expr(mod)
    return mod


def build(mod: Any, *args: Any, **kwargs: Any) -> Library:
    """:func:`xrelay.runtime.build.build` of ``mod`` (a ``relay.IRModule``, a
    ``relay.Function`` or a ``builtin.module``); see there for the arguments."""
    return _runtime_build.build(_as_module(mod), *args, **kwargs)


class _CallableModule(types.ModuleType):
    """``xrelay.build`` names both this module and the function: importing the
    module first (``import xrelay.build``) makes ``xrelay.build`` the module, so the
    module forwards calls to :func:`build`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Library:
        return build(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
