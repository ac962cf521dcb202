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
TVM's ``str(pass)``. A constructor argument that ``-p`` cannot set (a callable) is
declared with :func:`argument`; a pass without options is a dataclass without
fields, so that every pass has the one shape.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from xrelay.pass_manager.info import PassInfo

OptionSpec = tuple[str, type, Any] | tuple[str, type, Any, str]
"""A pass option: ``(name, type, default)`` or ``(name, type, default, help)``."""


def option(default: Any, help: str = "", parse_as: type | None = None) -> Any:
    """A pass option's field: its default and one line of help. ``parse_as``: the type
    ``-p`` parses when the field's annotation is wider (the API also takes a dict or
    a list, which ``__post_init__`` normalises)."""
    metadata: dict[str, Any] = {"help": help}
    if parse_as is not None:
        metadata["type"] = parse_as
    return dataclasses.field(default=default, metadata=metadata)


def argument(default: Any, kw_only: bool = False) -> Any:
    """A constructor argument of a dataclass pass that is not a ``-p`` option (a
    callable such as EliminateCommonSubexpr's ``fskip``, or an API-only switch):
    not listed by ``--list-passes``, not settable by ``-p``."""
    return dataclasses.field(
        default=default, kw_only=kw_only, metadata={"option": False}
    )


def normalise(pass_: Any, name: str, value: Any) -> None:
    """Replace a field of a frozen dataclass pass by its normalised value (in
    ``__post_init__``: a dict of desired layouts parsed from its ``-p`` text)."""
    object.__setattr__(pass_, name, value)


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
        if not f.init or f.metadata.get("option", True) is False:
            continue
        if f.default is dataclasses.MISSING:
            raise TypeError(f"pass option {cls.__name__}.{f.name} needs a default")
        typ = f.metadata.get("type", hints[f.name])
        specs.append((f.name, typ, f.default, str(f.metadata.get("help", ""))))
    return tuple(specs)
