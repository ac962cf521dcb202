"""xrelay: TVM Relay on xDSL.

``from xrelay import relay`` gives the ``tvm.relay``-shaped builder API
(:mod:`xrelay.frontend.relay`). It is imported on first use, so ``import xrelay``
stays light (it loads neither xDSL, ONNX nor llvmlite).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xrelay.frontend import relay as relay


def __getattr__(name: str) -> object:
    if name == "relay":
        from xrelay.frontend import relay

        return relay
    raise AttributeError(f"module 'xrelay' has no attribute {name!r}")
