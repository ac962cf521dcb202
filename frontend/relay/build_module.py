"""``relay.optimize`` and ``relay.build`` (TVM's ``tvm.relay.build_module``).

``relay.optimize(mod, target=None, params=None)`` returns ``(mod, params)``: the
module after ``relay.build``'s pass prefix at the current PassContext's opt_level,
with ``params`` bound into ``@main`` as constants (so the returned dict is empty, as
TVM's is once the params are folded in). ``relay.build`` is :func:`xrelay.build`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def optimize(
    mod: Any, target: Any = None, params: Mapping[str, Any] | None = None
) -> tuple[Any, dict[str, Any]]:
    """Relay's ``relay.optimize``; ``target`` must be a CPU target (or None)."""
    from xrelay.transforms.pipeline import optimize as run_pipeline

    if target is not None:
        kind = str(target).split()[0] if str(target).split() else ""
        if kind not in ("llvm", "c"):
            raise ValueError(
                f"unsupported target {target!r} (xrelay optimises for llvm)"
            )
    return run_pipeline(mod, params), {}


def build(
    mod: Any,
    target: Any = "llvm",
    params: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """``xrelay.build`` (a library for the host CPU)."""
    from xrelay.runtime.build import build as build_library

    return build_library(mod, str(target), params, **kwargs)
