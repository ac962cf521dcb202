"""``xrelay.relay`` is :mod:`xrelay.frontend.relay` (TVM's ``tvm.relay``): importing
this module makes the name refer to that package, so ``from xrelay.relay import
transform`` and ``import xrelay.relay as relay`` work like ``from xrelay import
relay``. Its submodules answer under both names too (``from
xrelay.relay.expr_functor import ExprMutator``, ``from xrelay.relay.dataflow_pattern
import is_op``): ``xrelay.relay.<sub>`` IS ``xrelay.frontend.relay.<sub>``, never a
second copy of it."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

from xrelay.frontend import relay as _relay

_ALIAS = __name__ + "."
_REAL = _relay.__name__ + "."


class _SubmoduleAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``xrelay.relay.<sub>`` as the module ``xrelay.frontend.relay.<sub>``."""

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_ALIAS):
            return None
        real = _REAL + fullname.removeprefix(_ALIAS)
        if real not in sys.modules and importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(_REAL + spec.name.removeprefix(_ALIAS))

    def exec_module(self, module: ModuleType) -> None:
        pass  # the real module ran when it was imported


if not any(isinstance(f, _SubmoduleAlias) for f in sys.meta_path):
    sys.meta_path.insert(0, _SubmoduleAlias())

sys.modules[__name__] = _relay
