"""The default ``opt_level`` of every entry point, in one table.

Each entry point reads its default from :data:`DEFAULT_OPT_LEVELS` (through
:func:`default_opt_level`); the README's "Default opt levels" table lists the same
rows (a test compares the two). An explicit level (``PassContext(opt_level=N)``, an
entered context, ``--opt-level N``, ``prepare(model, opt_level=N)``) always wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final


@dataclass(frozen=True)
class OptLevelDefault:
    """One entry point's default opt level and why it is that level."""

    level: int
    reason: str


TVM_LEVEL: Final = 2
"""TVM's ``PassContext`` default."""

FAST_KERNEL_LEVEL: Final = 3
"""The level with AlterOpLayout, whose packed layouts the fast kernels run on."""

DEFAULT_OPT_LEVELS: Final = MappingProxyType(
    {
        "PassContext": OptLevelDefault(TVM_LEVEL, "TVM's default"),
        "xrelay.build": OptLevelDefault(
            FAST_KERNEL_LEVEL,
            "without an entered PassContext: AlterOpLayout's packed layouts, which "
            "the fast kernels run on",
        ),
        "xrelay-run": OptLevelDefault(
            FAST_KERNEL_LEVEL, "the fast kernels; TVM's is 2"
        ),
        "xrelay-opt": OptLevelDefault(TVM_LEVEL, "as in TVM"),
        "onnx-backend": OptLevelDefault(TVM_LEVEL, "as in TVM"),
    }
)
"""Entry point → its default opt level, the one table every entry point reads."""


def default_opt_level(entry_point: str) -> int:
    """The default opt level of ``entry_point`` (a key of :data:`DEFAULT_OPT_LEVELS`)."""
    return DEFAULT_OPT_LEVELS[entry_point].level
