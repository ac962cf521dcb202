"""Filling a table on first use, safely when several threads make that first use at
once (a server warming models on a thread pool); and the one way xrelay's tables are
filled: the modules of a package register their entries with a decorator when
imported (passes, kernel lowerings, ONNX converters), and :class:`LoadModules`
imports every module of the package, so nothing lists them.

:class:`LoadOnce` runs a loader (typically: import the modules that register
themselves in a table) exactly once per process, under a lock, and publishes "loaded"
only after the loader returned: a thread never sees a half-filled table. A thread
that finds another one loading waits for it. The loader may call back into the same
:class:`LoadOnce` (a module imported by it asking for the table): that nested call
returns at once, as an import cycle would.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterable


class LoadOnce:
    """``load = LoadOnce(fill)``; ``load()`` runs ``fill`` once, thread-safely.

    A ``fill`` that raises publishes nothing: the next call runs it again."""

    def __init__(self, fill: Callable[[], None]) -> None:
        self._fill = fill
        self._lock = threading.RLock()
        self._done = False
        self._running = False

    @property
    def done(self) -> bool:
        """Whether ``fill`` has run to its end."""
        return self._done

    def __call__(self) -> None:
        if self._done:  # published only once the table is complete
            return
        with self._lock:
            if self._done or self._running:  # _running: a nested call, same thread
                return
            self._running = True
            try:
                self._fill()
            finally:
                self._running = False
            self._done = True


def import_modules(package: str, path: Iterable[str]) -> None:
    """Import every module of ``package`` (its ``__path__`` is ``path``) whose name
    does not start with ``_``, in name order (``pkgutil``'s)."""
    for info in pkgutil.iter_modules(list(path)):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")


class LoadModules(LoadOnce):
    """``load = LoadModules(__name__, __path__)`` in a package whose modules register
    themselves: ``load()`` imports them all, once per process (thread-safe)."""

    def __init__(self, package: str, path: Iterable[str]) -> None:
        folders = list(path)
        super().__init__(lambda: import_modules(package, folders))
