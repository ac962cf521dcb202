"""``xrelay.instrument`` (TVM's ``tvm.instrument``, the same names as
``tvm.ir.instrument``): see :mod:`xrelay.ir.instrument`."""

from __future__ import annotations

from xrelay.ir.instrument import *  # noqa: F403
from xrelay.ir.instrument import __all__ as __all__  # pyright: ignore[reportUnsupportedDunderAll]
