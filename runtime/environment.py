"""Checking every build setting in the environment at once (the variables are
listed in :mod:`xrelay.settings`)."""

from __future__ import annotations

from xrelay.lowering.tiling import tile_rows_override
from xrelay.lowering.work import overlap_max_ns, share_min_ns
from xrelay.runtime.threads import ThreadCountError, requested_threads
from xrelay.settings import SettingError, positive_int


def check_environment(threads: bool = True) -> None:
    """Raise the error of the first bad build setting in the environment
    (``threads=False``: not ``XRELAY_NUM_THREADS``, which an explicit count
    overrides)."""
    if threads:
        try:
            requested_threads(None)
        except ThreadCountError as e:
            raise SettingError(str(e)) from e
    positive_int("XRELAY_COMPILE_JOBS")
    tile_rows_override()
    share_min_ns()
    overlap_max_ns()
