"""Pass options declared once, as the fields of a frozen dataclass (xDSL's way):

    @register_pass("FuseOps")
    @dataclass(frozen=True, eq=False, repr=False)
    class FuseOps(Pass):
        fuse_opt_level: int = option(-1, "-1: the PassContext's opt_level")

        def __post_init__(self) -> None:
            set_info(self, PassInfo(0, "FuseOps", ["InferType"]))

Each field is an option: its name, type, default and help line are what the registry
lists (``--list-passes``, ``--help``), what ``-p fuse-ops{fuse-opt-level=2}`` sets
and what ``relay.transform.FuseOps(fuse_opt_level=2)`` takes. Adding an option is
one line. ``eq=False`` keeps passes compared by identity and ``repr=False`` keeps
TVM's ``str(pass)``.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from xrelay.pass_manager.info import PassInfo

OptionSpec = tuple[str, type, Any] | tuple[str, type, Any, str]
"""A pass option: ``(name, type, default)`` or ``(name, type, default, help)``."""


def option(default: Any, help: str = "") -> Any:
    """A pass option's field: its default and one line of help."""
    return dataclasses.field(default=default, metadata={"help": help})


def set_info(pass_: Any, info: PassInfo) -> None:
    """Set the :class:`PassInfo` of a frozen dataclass pass (in ``__post_init__``)."""
    object.__setattr__(pass_, "info", info)


def dataclass_options(cls: Any) -> tuple[tuple[str, type, Any, str], ...] | None:
    """The options of a dataclass pass class, from its fields (``None`` for a class
    or function that is not a dataclass)."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        return None
    hints = typing.get_type_hints(cls)
    specs: list[tuple[str, type, Any, str]] = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default is dataclasses.MISSING:
            raise TypeError(f"pass option {cls.__name__}.{f.name} needs a default")
        specs.append(
            (f.name, hints[f.name], f.default, str(f.metadata.get("help", "")))
        )
    return tuple(specs)
