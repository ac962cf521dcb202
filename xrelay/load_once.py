"""Filling a table on first use, safely when several threads make that first use at
once (a server warming models on a thread pool).

:class:`LoadOnce` runs a loader (typically: import the modules that register
themselves in a table) exactly once per process, under a lock, and publishes "loaded"
only after the loader returned: a thread never sees a half-filled table. A thread
that finds another one loading waits for it. The loader may call back into the same
:class:`LoadOnce` (a module imported by it asking for the table): that nested call
returns at once, as an import cycle would.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


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
