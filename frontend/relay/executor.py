"""``relay.create_executor``: run relay functions on numpy arrays.

Every executor kind runs the reference interpreter
(:func:`xrelay.runtime.interpreter.interpret`), which evaluates each op with its numpy
semantics; compiled execution goes through the build/runtime API instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.relay.analysis import free_vars
from xrelay.frontend.relay.expr import Expr, GlobalVar, TupleWrapper, ndarray, to_expr
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.module import IRModule
from xrelay.names import decode_name, encode_name

KINDS = ("debug", "graph", "vm", "aot")


def _wrap(value: Any) -> Any:
    """Interpreter results as arrays with TVM's ``.numpy()``; tuples stay tuples."""
    if isinstance(value, tuple | list):
        return tuple(_wrap(v) for v in value)
    return ndarray(value)


class Executor:
    """Runs functions of ``mod`` (TVM's ``create_executor`` result)."""

    def __init__(self, kind: str, mod: IRModule, params: Mapping[str, Any] | None):
        self.kind = kind
        self.mod = mod
        self.params = dict(params or {})

    def evaluate(
        self, expr: Expr | TupleWrapper | None = None, binds: Any = None
    ) -> Any:
        """A callable running ``main`` (``expr=None``), a Function, or a function of
        the module (a GlobalVar). Any other expression is evaluated at once if it
        has no free variables, else a callable over them is returned."""
        if binds is not None:
            raise NotImplementedError("evaluate(binds=...) is not supported")
        if expr is None:
            return self._callable(self.mod, "main")
        e = to_expr(expr)
        if isinstance(e, GlobalVar):
            return self._callable(self.mod, e.name_hint)
        mod = self.mod.copy()
        main = e if isinstance(e, Function) else Function(free_vars(e), e)
        mod["main"] = main
        run = self._callable(mod, "main")
        if not isinstance(e, Function) and not main.params:
            return run()
        return run

    def _callable(self, mod: IRModule, entry: str) -> Callable[..., Any]:
        func = mod.func_op(entry)
        names = [
            None if arg.name_hint is None else decode_name(arg.name_hint)
            for arg in func.body.block.args
        ]
        params = self.params

        def run(*args: Any, **kwargs: Any) -> Any:
            from xrelay.runtime.interpreter import interpret

            values = _arrange(entry, names, list(args), params, kwargs)
            return _wrap(interpret(mod, *values, entry=entry))

        return run


def _key(name: str) -> str:
    """A parameter name as it is spelled by its block argument's name hint."""
    return decode_name(SSAValue.extract_valid_name(encode_name(name)))


def _arrange(
    entry: str,
    names: list[str | None],
    args: list[Any],
    params: dict[str, Any],
    kwargs: dict[str, Any],
) -> list[Any]:
    """Positional arguments first, then the remaining parameters by name (from the
    keyword arguments, then from the executor's ``params``)."""
    if len(args) > len(names):
        raise TypeError(f"@{entry} takes {len(names)} arguments, {len(args)} given")
    named = {_key(k): v for k, v in params.items()}
    named.update({_key(k): v for k, v in kwargs.items()})
    unknown = [k for k in kwargs if _key(k) not in names]
    if unknown:
        raise TypeError(f"@{entry} has no parameter named {', '.join(unknown)}")
    values = list(args)
    missing = [n for n in names[len(args) :] if n is None or n not in named]
    if missing:
        raise TypeError(
            f"@{entry}: no value for parameter(s) "
            + ", ".join(f"%{n}" for n in missing)
        )
    values += [named[cast(str, n)] for n in names[len(args) :]]
    return [v if isinstance(v, tuple | list) else np.asarray(v) for v in values]


def create_executor(
    kind: str = "debug",
    mod: IRModule | None = None,
    device: Any = None,
    target: Any = "llvm",
    params: Mapping[str, Any] | None = None,
) -> Executor:
    """An executor over ``mod`` (an empty module when ``None``). ``params`` binds
    parameters of the evaluated function by name (like TVM's ``params``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown executor kind {kind!r} (known: {', '.join(KINDS)})")
    return Executor(kind, mod if mod is not None else IRModule(), params)
