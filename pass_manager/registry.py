"""The pass registry: every pass under its TVM name (``FoldConstant``, used by
``required`` and ``disabled_pass``) and its pipeline name (``fold-constant``, used by
``-p``). ``get_pass`` accepts either and builds a fresh pass object each call.

xrelay's passes register themselves when :mod:`xrelay.transforms` is imported; the
registry imports it on first use.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from xrelay.load_once import LoadOnce
from xrelay.pass_manager.options import OptionSpec, dataclass_options
from xrelay.pass_manager.passes import Pass


class UnknownPassError(ValueError):
    """No pass is registered under the name."""


@dataclass(frozen=True)
class PassEntry:
    """One registered pass."""

    name: str
    """TVM name (``FoldConstant``)."""
    pipeline_name: str
    """Pipeline name (``fold-constant``)."""
    factory: Callable[..., Pass]
    """Builds the pass; keyword arguments are its options."""
    doc: str
    """One line saying what the pass does."""
    options: tuple[tuple[str, type, Any], ...] = ()
    """Keyword options of ``factory`` as ``(name, type, default)``: the pass's
    ``-p name{option=value}`` options."""
    option_help: tuple[str, ...] = ()
    """One line of help per option (``""`` when none was given)."""

    def create(self, **options: Any) -> Pass:
        return self.factory(**options)


@dataclass(frozen=True)
class PassListing:
    name: str
    pipeline_name: str
    opt_level: int
    required: tuple[str, ...]
    doc: str


_BY_NAME: dict[str, PassEntry] = {}
_BY_PIPELINE: dict[str, PassEntry] = {}


def pipeline_name_of(name: str) -> str:
    """``FoldConstant`` → ``fold-constant``; ``FuseOps`` → ``fuse-ops``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name).lower()


_F = TypeVar("_F", bound=Callable[..., Pass])


def register_pass(
    name: str,
    pipeline_name: str | None = None,
    doc: str | None = None,
    options: Sequence[OptionSpec] = (),
) -> Callable[[_F], _F]:
    """Register a pass factory under its TVM name and pipeline name. xrelay's passes
    are frozen dataclasses whose fields are their options (:mod:`.options`)::

        @register_pass("FuseOps")
        @dataclass(frozen=True, eq=False, repr=False)
        class FuseOps(Pass):
            fuse_opt_level: int = option(-1, "-1: the PassContext's opt_level")

    The fields are what ``-p`` may set (``fuse-ops{fuse-opt-level=2}``), with their
    line of help (shown by ``--list-passes`` and ``--help``); types are int, float,
    bool, str or tuples of them, as xDSL pass options. A factory that is not a
    dataclass (a function returning a Pass, as a plugin may write) lists its keyword
    options in ``options`` as ``(name, type, default[, help])``; a dataclass never
    does (declaring both is refused).
    """

    def decorate(factory: _F) -> _F:
        nonlocal options
        fields = dataclass_options(factory)
        if fields is not None:
            if options:
                raise TypeError(
                    f"pass {name} declares its options twice: as dataclass fields "
                    "and in register_pass(options=...)"
                )
            options = fields
        entry = PassEntry(
            name,
            pipeline_name or pipeline_name_of(name),
            factory,
            doc if doc is not None else _first_line(factory.__doc__),
            tuple((o[0], o[1], o[2]) for o in options),
            tuple(o[3] if len(o) > 3 else "" for o in options),
        )
        for table, key in ((_BY_NAME, entry.name), (_BY_PIPELINE, entry.pipeline_name)):
            old = table.get(key)
            if old is not None and old.factory is not factory:
                raise ValueError(f"a pass named {key} is already registered")
            table[key] = entry
        return factory

    return decorate


def _first_line(doc: str | None) -> str:
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def _import_passes() -> None:
    importlib.import_module("xrelay.transforms")  # registers Relay's passes
    importlib.import_module("xrelay.lowering")  # registers the lowering passes


_load = LoadOnce(_import_passes)
"""Imports the modules registering xrelay's passes, once per process; a concurrent
first lookup waits until every pass is registered."""


_TVM_PREFIXES = ("relay._transform.", "relay.transform.", "transform.")
"""Prefixes of TVM's global pass registry that ``required`` lists may carry
(``transform.InferType``; [R] also looked names up under ``relay._transform.``)."""


def lookup(name: str) -> PassEntry:
    """The entry for a TVM or pipeline name, or an error listing close names."""
    _load()
    entry = _BY_NAME.get(name) or _BY_PIPELINE.get(name)
    if entry is None:
        for prefix in _TVM_PREFIXES:
            if name.startswith(prefix):
                entry = _BY_NAME.get(name[len(prefix) :])
                break
    if entry is None:
        known = [*_BY_NAME, *_BY_PIPELINE]
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UnknownPassError(f"Cannot use {name} to create the pass{hint}")
    return entry


def get_pass(name: str, **options: Any) -> Pass:
    """A new pass object for a TVM name (``FoldConstant``) or pipeline name
    (``fold-constant``)."""
    return lookup(name).create(**options)


def all_entries() -> list[PassEntry]:
    _load()
    return sorted(_BY_NAME.values(), key=lambda e: e.name)


def list_passes() -> list[PassListing]:
    """Every registered pass with its names, opt_level, required passes and doc."""
    out: list[PassListing] = []
    for entry in all_entries():
        info = entry.create().info
        out.append(
            PassListing(
                entry.name,
                entry.pipeline_name,
                info.opt_level,
                info.required,
                entry.doc,
            )
        )
    return out
