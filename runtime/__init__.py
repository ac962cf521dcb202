"""xrelay.runtime: executing compiled or interpreted modules.

* :func:`interpret` runs a module with the ops' numpy semantics (the reference);
* :class:`~xrelay.runtime.library.Library` is what ``xrelay.build`` returns (JIT
  compiled), :func:`load_module` loads a shared library written by
  ``lib.export_library``; both give graph executors
  (:class:`~xrelay.runtime.executor.GraphModule`).

The compiled-model names are imported on first use (they load llvmlite).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xrelay.runtime.interpreter import InterpreterError, interpret

if TYPE_CHECKING:
    from xrelay.runtime.executor import GraphModule as GraphModule
    from xrelay.runtime.library import Library as Library
    from xrelay.runtime.library import LoadedLibrary as LoadedLibrary
    from xrelay.runtime.library import load_module as load_module

__all__ = [
    "GraphModule",
    "InterpreterError",
    "Library",
    "LoadedLibrary",
    "interpret",
    "load_module",
]

_LAZY = {
    "GraphModule": "xrelay.runtime.executor",
    "Library": "xrelay.runtime.library",
    "LoadedLibrary": "xrelay.runtime.library",
    "load_module": "xrelay.runtime.library",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'xrelay.runtime' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
