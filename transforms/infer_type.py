"""InferType: fill every incomplete result type from the ops' type relations and check
every known one (mirrors Relay's ``InferType``, a module pass at opt_level 0).

Incomplete types are unranked tensors (``tensor<*xf32>``). Functions are processed
callees first, so a ``func.call`` takes its result types from the callee's signature;
each function's signature takes its result types from its ``func.return``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay.base import (
    IncompleteTypeError,
    RelayOp,
    TypeRelationError,
    types_compatible,
)
from xrelay.pass_manager import Pass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.analysis import ALL, CALLEES, TYPES, AnalysisManager


class TypeInferenceError(DiagnosticException):
    """A type relation failed, or a declared type disagrees with the inferred one."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


def infer_types(module: ModuleOp, analyses: AnalysisManager | None = None) -> None:
    """Infer and check the types of every function of ``module``, in place.

    With ``analyses``, a function whose ``TYPES`` analysis is cached (nothing
    invalidated it since it was last inferred) and whose callees still have the
    signatures it was inferred with is skipped; every function inferred records
    ``TYPES`` (its callees' signatures)."""
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    done: set[str] = set()
    active: set[str] = set()
    am = analyses if analyses is not None else AnalysisManager()

    def signatures(callees: tuple[str, ...]) -> tuple[Attribute | None, ...]:
        return tuple(funcs[c].function_type if c in funcs else None for c in callees)

    def finish(func: FuncOp, callees: tuple[str, ...]) -> None:
        seen = signatures(callees)
        if am.cached(TYPES, func) != seen:
            infer_function(func)
            am.put(TYPES, func, seen)
            am.computed[TYPES.name] += 1
        name = func.sym_name.data
        active.discard(name)
        done.add(name)

    def visit(root: FuncOp) -> None:
        """Callees first, depth first with an explicit stack (a call chain thousands
        deep must not hit Python's recursion limit). A function already on the
        stack (recursion) is used with its declared signature."""
        name = root.sym_name.data
        if name in done or name in active:
            return
        active.add(name)
        callees = tuple(am.get(CALLEES, root))
        stack: list[tuple[FuncOp, tuple[str, ...], Iterator[str]]] = [
            (root, callees, iter(callees))
        ]
        while stack:
            func, callees, pending = stack[-1]
            for callee in pending:
                if callee in funcs and callee not in done and callee not in active:
                    active.add(callee)
                    inner = tuple(am.get(CALLEES, funcs[callee]))
                    stack.append((funcs[callee], inner, iter(inner)))
                    break
            else:
                stack.pop()
                finish(func, callees)

    for func in funcs.values():
        visit(func)


def mark_inferred(module: ModuleOp, analyses: AnalysisManager) -> None:
    """Record ``TYPES`` for every function of ``module``, as InferType would: for a
    pass that built the module with complete, consistent types (FuseOps)."""
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    for func in funcs.values():
        analyses.put(
            TYPES,
            func,
            tuple(
                funcs[c].function_type if c in funcs else None
                for c in analyses.get(CALLEES, func)
            ),
        )


def infer_function(func: FuncOp) -> None:
    """Infer the types inside one function and update its signature."""
    if not func.body.blocks:
        return
    block = func.body.block
    _infer_block(block)
    ret = block.last_op
    if isinstance(ret, ReturnOp):
        outputs = [v.type for v in ret.operands]
        if tuple(outputs) != tuple(func.function_type.outputs.data):
            func.function_type = FunctionType.from_lists(
                list(func.function_type.inputs.data), outputs
            )


def _infer_block(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                _infer_block(inner)
        _infer_op(op)


def _infer_op(op: Operation) -> None:
    if isinstance(op, CallOp):
        callee = _lookup_callee(op)
        if callee is not None:
            _update_results(op, callee.function_type.outputs.data)
        return
    if not isinstance(op, RelayOp):
        return
    try:
        inferred = op.infer_result_types()
    except IncompleteTypeError as e:
        raise TypeInferenceError(op, f"{op.name}: cannot infer the type: {e}") from e
    except TypeRelationError as e:
        raise TypeInferenceError(op, f"{op.name}: {e}") from e
    _update_results(op, inferred)


def _update_results(op: Operation, inferred: Sequence[Attribute]) -> None:
    if len(inferred) != len(op.results):
        raise TypeInferenceError(
            op,
            f"{op.name}: {len(op.results)} results declared, {len(inferred)} inferred",
        )
    for i, (res, ty) in enumerate(zip(list(op.results), inferred, strict=True)):
        if res.type == ty:
            continue
        if not types_compatible(res.type, ty):
            raise TypeInferenceError(
                op, f"{op.name}: result #{i} is declared {res.type} but inferred {ty}"
            )
        # an incomplete (or less precise) declaration takes the inferred type; users
        # of the value see the new type through the replaced SSA value
        Rewriter.replace_value_with_new_type(res, ty)


def _lookup_callee(op: CallOp) -> FuncOp | None:
    module = op.get_toplevel_object()
    if not isinstance(module, ModuleOp):
        return None
    for candidate in module.ops:
        if (
            isinstance(candidate, FuncOp)
            and candidate.sym_name.data == op.callee.string_value()
        ):
            return candidate
    return None


@register_pass("InferType")
class InferType(Pass):
    """Fill incomplete result types from the ops' type relations and check the known
    ones (Relay's InferType: module pass, opt_level 0)."""

    PRESERVES = ALL  # it keeps TYPES up to date itself

    def __init__(self) -> None:
        self.info = PassInfo(0, "InferType")

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        infer_types(op, ctx.analyses)
        return op
