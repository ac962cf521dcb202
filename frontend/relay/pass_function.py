"""Running a Python function pass's function on a ``relay.Function`` view (TVM's
``function_pass`` contract): installed for the pass manager below the frontend
(:mod:`xrelay.dialects.relay.frontend_calls`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay.dialects.relay import frontend_calls
from xrelay.pass_manager.context import PassContext
from xrelay.pass_manager.passes import PassContractError, as_func_op


def run_pass_function(
    pass_func: Callable[..., Any],
    func: FuncOp,
    mod: Any,
    ctx: PassContext,
    pass_name: str,
) -> tuple[FuncOp, list[FuncOp]]:
    """Call ``pass_func`` on the ``relay.Function`` view of ``func``; the function
    it gave back (and the local functions to outline next to it)."""
    from xrelay.frontend.relay.emitter import BuildError, emit_function
    from xrelay.frontend.relay.function import Function
    from xrelay.frontend.relay.function_view import FunctionView
    from xrelay.frontend.relay.module import IRModule

    view: Any = FunctionView(func)
    new = pass_func(view, mod, ctx)
    if isinstance(new, FunctionView):
        return new.func_op, []
    if isinstance(new, FuncOp):
        return new, []
    module = func.parent_op()
    if not isinstance(new, Function) or not isinstance(module, ModuleOp):
        return as_func_op(new, func, pass_name), []
    name = func.sym_name.data
    try:
        return emit_function(new, name, IRModule(module))
    except BuildError as e:
        raise PassContractError(
            f"function pass {pass_name} returned a relay.Function for @{name} "
            f"that cannot be built: {e}"
        ) from None


frontend_calls.install(frontend_calls.FUNCTION_VIEW, run_pass_function)
