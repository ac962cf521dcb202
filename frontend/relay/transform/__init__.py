"""``relay.transform`` (``from xrelay.relay import transform``): TVM's pass
constructors, made from the pass registry.

Every registered pass has a constructor under its TVM name taking the factory's
arguments (``FuseOps(fuse_opt_level=-1)``, ``FoldConstant(fold_qnn=False)``,
``ConvertLayout({"nn.conv2d": ["NHWC", "default"]})``,
``EliminateCommonSubexpr(fskip=None)``, ...). A pass registered later (a plug-in)
gets one too: the names are looked up in the registry on first use. The pass
manager's own names (``Sequential``, ``PassContext``, ``module_pass``,
``function_pass``, ``PassInstrument``, ...) are re-exported, as in TVM, and
``transform.mixed_precision`` holds ``MIXED_PRECISION_ALWAYS`` / ``FOLLOW`` /
``NEVER``; ``LayoutConfig(skip_layers=[...])`` is ConvertLayout's.

    from xrelay.relay import transform
    mod = transform.Sequential([transform.InferType(), transform.FoldConstant()])(mod)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from xrelay.frontend.relay.transform import mixed_precision as mixed_precision
from xrelay.pass_manager import (
    FunctionPass as FunctionPass,
)
from xrelay.pass_manager import (
    ModulePass as ModulePass,
)
from xrelay.pass_manager import (
    Pass as Pass,
)
from xrelay.pass_manager import (
    PassContext as PassContext,
)
from xrelay.pass_manager import (
    PassInfo as PassInfo,
)
from xrelay.pass_manager import (
    PassInstrument as PassInstrument,
)
from xrelay.pass_manager import (
    PrintIR as PrintIR,
)
from xrelay.pass_manager import (
    Sequential as Sequential,
)
from xrelay.pass_manager import (
    function_pass as function_pass,
)
from xrelay.pass_manager import (
    module_pass as module_pass,
)
from xrelay.pass_manager import (
    pass_instrument as pass_instrument,
)
from xrelay.pass_manager.registry import PassEntry, all_entries
from xrelay.transforms.convert_layout import LayoutConfig as LayoutConfig


def _constructor(entry: PassEntry) -> Callable[..., Pass]:
    """A function named like the pass, with the factory's signature and doc."""
    factory = entry.factory

    @functools.wraps(factory)
    def make(*args: Any, **kwargs: Any) -> Pass:
        return factory(*args, **kwargs)

    make.__name__ = make.__qualname__ = entry.name
    make.__module__ = __name__
    try:
        setattr(make, "__signature__", inspect.signature(factory))  # noqa: B010
    except (TypeError, ValueError):  # pragma: no cover - builtins without signature
        pass
    return make


_CONSTRUCTORS: dict[str, Callable[..., Pass]] = {}


def constructors() -> dict[str, Callable[..., Pass]]:
    """Every registered pass's constructor, by TVM name."""
    for entry in all_entries():
        if entry.name not in _CONSTRUCTORS:  # setdefault: one per name across threads
            _CONSTRUCTORS.setdefault(entry.name, _constructor(entry))
    return dict(_CONSTRUCTORS)


def __getattr__(name: str) -> Any:
    if name.startswith("_"):
        raise AttributeError(name)
    found = constructors().get(name)
    if found is None:
        if name == "InferTypeLocal":
            from xrelay.frontend.relay.infer_local import InferTypeLocal

            return InferTypeLocal
        raise AttributeError(
            f"module 'relay.transform' has no attribute {name!r} (no pass is "
            "registered under that name: xrelay-opt --list-passes lists them)"
        )
    globals()[name] = found
    return found


def __dir__() -> list[str]:
    return sorted({*globals(), *constructors(), "InferTypeLocal"})
