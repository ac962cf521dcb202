"""User passes for the drivers: ``--load-pass-plugin PATH_OR_MODULE`` (as
``mlir-opt --load-pass-plugin``) and the ``xrelay.passes`` entry point.

A plugin is a Python file or an importable module. Importing it registers its
passes the way xrelay's own are registered: ``@register_pass("MyPass")`` on a
:class:`~xrelay.pass_manager.Pass` frozen dataclass whose fields are its options
(or on a function, with ``options=[...]``); usable in ``-p`` under its pipeline
name, in a Sequential and in ``required`` lists. xDSL ``ModulePass``
classes the plugin defines (with a ``name``) are added to ``-p`` too.

A package advertises its passes to every driver (``xrelay-opt``, ``xrelay-run``,
``xdsl-opt``) with an entry point, loaded on first use of the pass list::

    [project.entry-points."xrelay.passes"]
    mypasses = "mypackage.passes"          # a module, or "module:object"

xDSL's own ``xdsl.universe`` entry points are read by the drivers as well (they are
built on xDSL's ``Universe``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
import types
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from xdsl.passes import ModulePass

from xrelay.tools.diagnostics import UserError, first_line

ENTRY_POINT_GROUP = "xrelay.passes"

XDSLPassFactory = Callable[[], type[ModulePass]]

_XDSL_PASSES: dict[str, XDSLPassFactory] = {}
"""xDSL pass classes found in the plugins loaded so far, by pipeline name."""

_LOADED: dict[str, types.ModuleType] = {}
"""Plugins loaded by :func:`load_pass_plugin`, by the spec given."""

_entry_points_loaded = False


class PluginError(UserError):
    """A plugin cannot be found or fails to load (a one-line message)."""


def xdsl_passes() -> dict[str, XDSLPassFactory]:
    """The xDSL passes of the loaded plugins and entry points."""
    load_entry_points()
    return dict(_XDSL_PASSES)


def _xdsl_pass_classes(module: types.ModuleType) -> dict[str, XDSLPassFactory]:
    """The concrete xDSL ``ModulePass`` classes defined in ``module``."""
    found: dict[str, XDSLPassFactory] = {}
    for value in vars(module).values():
        if (
            inspect.isclass(value)
            and issubclass(value, ModulePass)
            and value.__module__ == module.__name__
            and isinstance(getattr(value, "name", None), str)
            and not inspect.isabstract(value)
        ):
            found[value.name] = _factory(value)
    return found


def _factory(cls: type[ModulePass]) -> XDSLPassFactory:
    return lambda: cls


def _import_path(spec: str, path: Path) -> types.ModuleType:
    if not path.is_file():
        what = "is not a file" if path.exists() else "no such file"
        raise PluginError(f"--load-pass-plugin {spec}: {what}")
    if path.suffix != ".py":
        raise PluginError(f"--load-pass-plugin {spec}: not a Python file (.py)")
    stem = re.sub(r"\W", "_", path.stem)
    name = f"xrelay_plugin_{stem}_{len(_LOADED)}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise PluginError(f"--load-pass-plugin {spec}: cannot load it as a module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _looks_like_path(spec: str) -> bool:
    return spec.endswith(".py") or "/" in spec or "\\" in spec


def load_pass_plugin(spec: str) -> dict[str, XDSLPassFactory]:
    """Import the plugin ``spec`` (a ``.py`` path or a module name) once; its
    ``register_pass`` passes join the registry. Returns the xDSL pass classes it
    defines, by pipeline name. Raises :class:`PluginError` (one line)."""
    if spec in _LOADED:
        return _xdsl_pass_classes(_LOADED[spec])
    if not spec.strip():
        raise PluginError("--load-pass-plugin: empty plugin name")
    try:
        if _looks_like_path(spec):
            module = _import_path(spec, Path(spec))
        else:
            module = importlib.import_module(spec)
    except PluginError:
        raise
    except ModuleNotFoundError as e:
        if e.name is not None and spec.startswith(e.name):
            raise PluginError(
                f"--load-pass-plugin {spec}: no module named '{e.name}' (give a .py "
                "file or an importable module)"
            ) from e
        raise _failed(spec, e) from e
    except SyntaxError as e:
        where = f" ({Path(e.filename or spec).name}:{e.lineno})" if e.lineno else ""
        raise PluginError(
            f"--load-pass-plugin {spec}: the plugin failed to load: SyntaxError: "
            f"{e.msg}{where}"
        ) from e
    except Exception as e:
        raise _failed(spec, e) from e
    _LOADED[spec] = module
    found = _xdsl_pass_classes(module)
    _XDSL_PASSES.update(found)
    return found


def _failed(spec: str, e: BaseException) -> PluginError:
    return PluginError(
        f"--load-pass-plugin {spec}: the plugin failed to load: {type(e).__name__}: "
        f"{first_line(str(e))}"
    )


def load_entry_points(warn: Callable[[str], None] | None = None) -> None:
    """Load the ``xrelay.passes`` entry points of the installed packages, once. A
    broken entry point is a warning (``warn``, else a Python warning), not an error:
    it must not break every run of the tools."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            value: Any = ep.load()
        except Exception as e:
            message = (
                f"the {ENTRY_POINT_GROUP} entry point '{ep.name}' ({ep.value}) failed "
                f"to load: {type(e).__name__}: {first_line(str(e))}"
            )
            if warn is not None:
                warn(message)
            else:
                import warnings

                warnings.warn(message, stacklevel=2)
            continue
        if isinstance(value, types.ModuleType):
            _XDSL_PASSES.update(_xdsl_pass_classes(value))
        elif inspect.isclass(value) and issubclass(value, ModulePass):
            _XDSL_PASSES[value.name] = _factory(value)
        # anything else (a registered Pass class, a function) registered itself when
        # its module was imported
