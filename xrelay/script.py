"""``xrelay.script`` (TVM's ``tvm.script``): only the scalar constructors of
``tir`` (``T.int32(1)``, ``T.float32(0.5)``), which Relay takes as numbers;
TVMScript programs (``T.prim_func``) are not part of xrelay.

    from xrelay.script import tir as T
    relay.TensorType([T.int64(1)], "float32")
"""

from __future__ import annotations

from typing import Any

from xrelay import tir as _tir
from xrelay.unsupported import TVMSCRIPT, UnsupportedModule


class _TirScript(UnsupportedModule):
    """``T``: a constructor per scalar dtype; every other name is an error."""

    def __getattr__(self, attr: str) -> Any:
        if attr in _tir._INT_DTYPES or attr in _tir._FLOAT_DTYPES:  # pyright: ignore[reportPrivateUsage]
            return lambda value: _tir.const(value, attr)
        return super().__getattr__(attr)


tir = _TirScript("xrelay.script.tir", TVMSCRIPT)
