"""xrelay: TVM Relay on xDSL.

``from xrelay import relay`` gives the ``tvm.relay``-shaped builder API
(:mod:`xrelay.frontend.relay`); ``xrelay.build(mod, target="llvm", params=...)``
compiles a module for the CPU (:mod:`xrelay.build`). Both are imported on first use,
so ``import xrelay`` stays light (it loads neither xDSL, ONNX nor llvmlite). TVM's
top-level names a script uses are here too, as ``tvm.<name>`` is:
``xrelay.transform.PassContext``, ``xrelay.IRModule``, ``xrelay.cpu(0)``,
``xrelay.nd.array``, ``xrelay.runtime.load_module``, ``xrelay.contrib.graph_executor``.
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
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"xrelay.{name}")
    if name in _RUNTIME_NAMES:
        from xrelay.runtime import ndarray

        return getattr(ndarray, name)
    if name in _UNSUPPORTED:
        from xrelay import unsupported
        from xrelay.unsupported import UnsupportedModule

        what = getattr(unsupported, _UNSUPPORTED[name])
        module = UnsupportedModule(f"xrelay.{name}", what)
        globals()[name] = module
        return module
    if name == "IRModule":
        from xrelay.frontend.relay.module import IRModule

        return IRModule
    raise AttributeError(f"module 'xrelay' has no attribute {name!r}")


_SUBMODULES = (
    "contrib",
    "error",
    "instrument",
    "ir",
    "nd",
    "runtime",
    "script",
    "target",
    "testing",
    "tir",
    "topi",
    "transform",
)
"""TVM's ``tvm.<name>`` modules, imported on first use (``xrelay.transform.PassContext``)."""
_RUNTIME_NAMES = ("cpu", "device", "Device")
"""``xrelay.cpu(0)`` / ``xrelay.device("cpu", 0)`` (TVM's ``tvm.cpu``)."""
_UNSUPPORTED = {"te": "TE", "autotvm": "AUTOTVM"}
"""TVM modules left out: importing them works, using a name is a one-line error."""
