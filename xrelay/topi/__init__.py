"""``xrelay.topi`` (TVM's ``tvm.topi``): only ``topi.testing``'s numpy references;
TVM's operator library itself is not part of xrelay (every other name is a one-line
error naming it)."""

from __future__ import annotations

import sys

from xrelay.unsupported import TOPI, UnsupportedModule


class _Topi(UnsupportedModule):
    def __getattr__(self, attr: str) -> object:
        if attr == "testing":
            from xrelay.topi import testing

            return testing
        return super().__getattr__(attr)


_module = _Topi(__name__, TOPI)
_module.__path__ = __path__  # pyright: ignore[reportAttributeAccessIssue]
_module.__file__ = __file__
sys.modules[__name__] = _module
