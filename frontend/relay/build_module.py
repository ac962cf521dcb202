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
    """``xrelay.build`` (a library for the host CPU); ``mod`` may be a
    ``relay.Function`` (built as the main of a module, as in TVM)."""
    from xrelay.frontend.relay.function import Function
    from xrelay.frontend.relay.module import IRModule
    from xrelay.runtime.build import build as build_library

    if isinstance(mod, Function):
        mod = IRModule.from_expr(mod)
    return build_library(mod, str(target), params, **kwargs)


def bind_params_by_name(func: Any, params: Mapping[str, Any]) -> Any:
    """``func`` with the parameters named in ``params`` replaced by constants of
    those values (TVM's ``bind_params_by_name``); the other parameters stay, in
    order. A name given twice among the parameters is an error, as in TVM."""
    from xrelay.frontend.relay.expr import Var, const
    from xrelay.frontend.relay.expr_functor import ExprMutator
    from xrelay.frontend.relay.function import Function

    names = [p.name_hint for p in func.params]
    bound: dict[Var, Any] = {}
    for p in func.params:
        if p.name_hint in params:
            if names.count(p.name_hint) > 1:
                raise ValueError(f"parameter name {p.name_hint!r} is not unique")
            value = params[p.name_hint]
            bound[p] = const(value.numpy() if hasattr(value, "numpy") else value)
    if not bound:
        return func

    class _Bind(ExprMutator):
        def visit_var(self, var: Var) -> Any:
            return bound.get(var, var)

    body = _Bind().visit(func.body)
    kept = [p for p in func.params if p not in bound]
    return Function(kept, body, func.ret_type, None, dict(func.attrs))


def create_executor(*args: Any, **kwargs: Any) -> Any:
    """``relay.build_module.create_executor`` is ``relay.create_executor``."""
    from xrelay.frontend.relay.executor import create_executor as make

    return make(*args, **kwargs)
