"""The reference interpreter: runs a module's functions on numpy arrays with each relay
op's numpy semantics (``RelayOp.compute``).

This is the oracle that passes and the LLVM lowering are checked against. It walks the
IR directly (no per-op dispatch tables): relay ops evaluate themselves, ``func.call``
calls the callee, ``relay.if`` runs one of its regions, ``func.return`` and
``relay.yield`` hand back values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType, TupleType
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import RelayOp, Value
from xrelay.dialects.relay.structural import IfOp, YieldOp

MAX_CALL_DEPTH = 150
"""Calls nested deeper are an :class:`InterpreterError` (recursion without end, or
a call chain deeper than Python's stack allows), not a ``RecursionError``."""


class InterpreterError(Exception):
    """The module cannot be evaluated (bad inputs, or an op without semantics)."""


class HasModule(Protocol):
    @property
    def module(self) -> ModuleOp: ...


def _module_of(mod: ModuleOp | FuncOp | HasModule) -> ModuleOp | FuncOp:
    if isinstance(mod, ModuleOp | FuncOp):
        return mod
    return mod.module


def interpret(
    mod: ModuleOp | FuncOp | HasModule, *args: Any, entry: str = "main"
) -> Value:
    """Run function ``entry`` of ``mod`` (an ``IRModule``, ``builtin.module`` or a
    ``func.func``) on ``args`` (numpy arrays or scalars, one per parameter).

    Returns one numpy array for a single result, a tuple for several results (and
    nested tuples for tuple-typed values).
    """
    target = _module_of(mod)
    if isinstance(target, FuncOp):
        interp = Interpreter(None)
        func = target
    else:
        interp = Interpreter(target)
        func = interp.lookup(entry)
    try:
        results = interp.call(func, list(args))
    except RecursionError as e:
        from xrelay.nesting import too_deep

        raise too_deep(e, "the interpreter", target) from e
    return results[0] if len(results) == 1 else tuple(results)


class Interpreter:
    """Evaluates functions of one module."""

    def __init__(self, module: ModuleOp | None):
        self.functions: dict[str, FuncOp] = {}
        if module is not None:
            for op in module.ops:
                if isinstance(op, FuncOp):
                    self.functions[op.sym_name.data] = op
        self.active: list[str] = []
        """The functions being evaluated, outermost first (at most
        :data:`MAX_CALL_DEPTH`)."""

    def lookup(self, name: str) -> FuncOp:
        func = self.functions.get(name)
        if func is None:
            known = ", ".join(sorted(self.functions)) or "none"
            raise InterpreterError(
                f"no function @{name} in the module (functions: {known})"
            )
        return func

    def call(self, func: FuncOp, args: Sequence[Any]) -> tuple[Value, ...]:
        name = func.sym_name.data
        if not func.body.blocks:
            raise InterpreterError(f"@{name} is a declaration without a body")
        block = func.body.block
        if len(args) != len(block.args):
            raise InterpreterError(
                f"@{name} takes {len(block.args)} arguments, {len(args)} were given"
            )
        if len(self.active) >= MAX_CALL_DEPTH:
            if name in self.active:  # the innermost cycle
                last = len(self.active) - 1 - self.active[::-1].index(name)
                cycle = " -> ".join(f"@{n}" for n in [*self.active[last:], name])
                where = f"@{name} calls itself ({cycle})"
            else:
                where = f"calling @{name}"
            raise InterpreterError(
                f"calls nested more than {MAX_CALL_DEPTH} deep: {where}; unbounded "
                "recursion?"
            )
        env: dict[SSAValue, Value] = {}
        for i, (param, arg) in enumerate(zip(block.args, args, strict=True)):
            env[param] = _coerce(arg, param.type, f"argument #{i} of @{name}")
        self.active.append(name)
        try:
            return self._run_block(block, env)
        finally:
            self.active.pop()

    def _run_block(self, block: Block, env: dict[SSAValue, Value]) -> tuple[Value, ...]:
        for op in block.ops:
            if isinstance(op, ReturnOp | YieldOp):
                return tuple(env[v] for v in op.operands)
            values = self._run_op(op, env)
            for res, val in zip(op.results, values, strict=True):
                env[res] = val
        raise InterpreterError("block ended without a terminator")

    def _run_op(self, op: Operation, env: dict[SSAValue, Value]) -> tuple[Value, ...]:
        if isinstance(op, IfOp):
            cond = env[op.condition]
            region = op.then_region if bool(np.asarray(cond)) else op.else_region
            return self._run_block(region.block, dict(env))
        args = [env[v] for v in op.operands]
        if isinstance(op, RelayOp):
            try:
                return op.evaluate(*args)
            except NotImplementedError as e:
                raise InterpreterError(str(e)) from e
        if isinstance(op, CallOp):
            return self.call(self.lookup(op.callee.string_value()), args)
        raise InterpreterError(f"the reference interpreter cannot evaluate '{op.name}'")


def _coerce(value: Any, ty: Attribute, what: str) -> Value:
    """Check an input against a parameter type and give it the parameter's dtype."""
    if isinstance(ty, TupleType):
        if not isinstance(value, tuple | list):
            raise InterpreterError(f"{what} must be a tuple for type {ty}")
        fields = cast(Sequence[Any], value)
        if len(fields) != len(ty.types.data):
            raise InterpreterError(
                f"{what} has {len(fields)} fields; {ty} has {len(ty.types.data)}"
            )
        return tuple(
            _coerce(v, t, f"{what}[{i}]")
            for i, (v, t) in enumerate(zip(fields, ty.types.data, strict=True))
        )
    if not isinstance(ty, TensorType):
        raise InterpreterError(
            f"{what} has type {ty}, which the interpreter cannot feed"
        )
    tensor_ty = cast(TensorType, ty)
    arr = np.asarray(value)
    expected = tensor_ty.get_shape()
    if len(arr.shape) != len(expected) or any(
        d != DYNAMIC_INDEX and d != a for d, a in zip(expected, arr.shape, strict=True)
    ):
        raise InterpreterError(
            f"{what} has shape {list(arr.shape)}, the function expects {tensor_ty}"
        )
    npd = dtypes.numpy_dtype(tensor_ty.get_element_type())
    return arr if arr.dtype == npd else arr.astype(npd)
