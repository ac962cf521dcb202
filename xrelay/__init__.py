"""xrelay: TVM Relay on xDSL.

``from xrelay import relay`` gives the ``tvm.relay``-shaped builder API
(:mod:`xrelay.frontend.relay`); ``xrelay.build(mod, target="llvm", params=...)``
compiles a module for the CPU (:mod:`xrelay.build`). Both are imported on first use,
so ``import xrelay`` stays light (it loads neither xDSL, ONNX nor llvmlite).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xrelay.build import build as build
    from xrelay.frontend import relay as relay


def __getattr__(name: str) -> object:
    if name == "relay":
        from xrelay.frontend import relay

        return relay
    if name == "build":
        from xrelay.build import build

        # importing the submodule xrelay.build set the attribute to the module: the
        # function replaces it (the module is callable too, see xrelay/build.py)
        globals()["build"] = build
        return build
    raise AttributeError(f"module 'xrelay' has no attribute {name!r}")
