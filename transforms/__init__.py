"""Relay's passes on xrelay's IR, one module per pass.

Importing this package imports every module in it, and each pass module registers its
pass(es) with :func:`xrelay.pass_manager.register_pass`; nothing needs listing here.
"""

from __future__ import annotations

import importlib
import pkgutil


def _import_all() -> None:
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


_import_all()
