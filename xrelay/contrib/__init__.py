"""``xrelay.contrib`` (TVM's ``tvm.contrib``): ``graph_executor``."""

from __future__ import annotations

import importlib
from types import ModuleType


def __getattr__(name: str) -> ModuleType:
    if name == "graph_executor":
        return importlib.import_module("xrelay.contrib.graph_executor")
    raise AttributeError(f"module 'xrelay.contrib' has no attribute {name!r}")
