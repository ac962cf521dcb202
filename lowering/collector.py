"""Python's cyclic garbage collector during a build: collect between stages, freeze
what survives.

The lowering builds large object graphs (xDSL IR, with parent pointers and use lists,
then llvmlite's IR), and the collector's full collections re-scan everything alive
every time the heap has grown by a quarter: on ResNet-18 that was about a third of
the Python lowering's time. Inside :func:`frozen_between_stages`, every
:func:`stage_boundary` collects once (the garbage of the stage that just ended, frozen
objects included) and then freezes the survivors (``gc.freeze``): the collections
during the next stage scan only the objects that stage allocates. The heap peak is
the collector's own (garbage is collected at least at every boundary and by the
young-generation collections within a stage).

Nothing is done when the application froze objects itself (``gc.get_freeze_count()``
is not 0 on entry: :func:`stage_boundary` would unfreeze them) or the collector is
off.
"""

from __future__ import annotations

import gc
from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar

from xrelay.lowering.stages import stage

_active: ContextVar[bool] = ContextVar("xrelay_gc_frozen", default=False)


@contextmanager
def frozen_between_stages() -> Generator[None]:
    """Freeze the objects alive now and let :func:`stage_boundary` collect and
    freeze; everything is unfrozen on exit. Nested uses do nothing."""
    if _active.get() or not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    token = _active.set(True)
    gc.freeze()
    try:
        yield
    finally:
        _active.reset(token)
        gc.unfreeze()


def stage_boundary() -> None:
    """Collect the garbage of the stage that ended and freeze the survivors (inside
    :func:`frozen_between_stages` only)."""
    if not _active.get():
        return
    with stage("collector"):
        gc.unfreeze()
        gc.collect()
        gc.freeze()
