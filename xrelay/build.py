"""``xrelay.build``: :func:`xrelay.runtime.build.build` (optimise a relay module, lower
it to LLVM IR and JIT-compile it for the host CPU: Relay's ``relay.build`` for
``target="llvm"``)."""

from __future__ import annotations

import sys
import types
from typing import Any

from xrelay.runtime.build import build, optimize_module
from xrelay.runtime.library import Library

__all__ = ["build", "optimize_module"]


class _CallableModule(types.ModuleType):
    """``xrelay.build`` names both this module and the function: importing the
    module first (``import xrelay.build``) makes ``xrelay.build`` the module, so the
    module forwards calls to :func:`build`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Library:
        return build(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
