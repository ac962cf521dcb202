"""InferType: fill every incomplete result type from the ops' type relations and check
every known one (mirrors Relay's ``InferType``, a module pass at opt_level 0).

Incomplete types are unranked tensors (``tensor<*xf32>``). Functions are processed
callees first, so a ``func.call`` takes its result types from the callee's signature;
each function's signature takes its result types from its ``func.return``.

A parameter of unknown type (``tensor<*xnone>``: a ``relay.var`` made without a type)
is solved from its uses, as Relay's solver assigns an ``IncompleteType``: an op whose
type relation determines it (``conv2d``/``dense`` weights, ``bias_add`` bias, norm
vectors: :meth:`RelayOp.solve_operand_types`) gives it its type, and the function is
swept again until nothing more is solved, so the order of the uses does not matter.
A parameter no use determines is an error naming it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import FunctionType, ModuleOp, UnrankedTensorType
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay.base import (
    IncompleteTypeError,
    RelayOp,
    TypeRelationError,
    is_unknown,
    types_compatible,
)
from xrelay.pass_manager import Pass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.analysis import (
    ALL,
    CALLEES,
    VERIFIED,
    Analysis,
    AnalysisManager,
)
from xrelay.pass_manager.options import set_info


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
            am.forget(VERIFIED, module)  # types written: verify again
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
    if any(is_unknown(a.type) for a in block.args):
        _solve_untyped(func)
    else:
        _infer_block(block)
    ret = block.last_op
    inputs = [a.type for a in block.args]
    outputs = list(func.function_type.outputs.data)
    if isinstance(ret, ReturnOp):
        outputs = [v.type for v in ret.operands]
    if tuple(outputs) != tuple(func.function_type.outputs.data) or tuple(
        inputs
    ) != tuple(func.function_type.inputs.data):
        func.function_type = FunctionType.from_lists(inputs, outputs)


def _infer(func: FuncOp, am: AnalysisManager) -> Any:
    infer_function(func)
    module = func.parent_op()
    funcs = {
        f.sym_name.data: f
        for f in (module.ops if isinstance(module, ModuleOp) else ())
        if isinstance(f, FuncOp)
    }
    return tuple(
        funcs[c].function_type if c in funcs else None for c in am.get(CALLEES, func)
    )


TYPES: Analysis[Any] = Analysis(
    "types",
    "function",
    _infer,
    "the function's types are inferred; the value: the signatures of its callees "
    "it was inferred with (InferType keeps it up to date)",
)


def _solve_untyped(func: FuncOp) -> None:
    """Infer ``func`` whose parameters include untyped ones: sweep its ops, letting
    each op whose type relation determines an untyped parameter type it, until every
    op is inferred or a sweep solves nothing more."""
    while True:
        stuck: list[Operation] = []
        solved = _sweep(func.body.block, stuck)
        unknown = [a for a in func.body.block.args if is_unknown(a.type)]
        if not stuck and not unknown:
            return
        if not solved:
            break
    op: Operation = stuck[0] if stuck else func
    names = _untyped_roots(stuck[0]) if stuck else unknown
    name = ", ".join(f"%{a.name_hint or a.index}" for a in names) or "a parameter"
    raise TypeInferenceError(
        op,
        f"cannot infer the type of {name} (a variable without a type): "
        + (
            f"{op.name} does not determine it"
            if stuck
            else f"no use in @{func.sym_name.data} determines it"
        )
        + "; give it a type (relay.var(name, shape=..., dtype=...))",
    )


def _sweep(block: Block, stuck: list[Operation]) -> bool:
    """Infer the ops of ``block`` (and nested regions); an op with an incomplete
    operand that comes from an untyped parameter is solved if it can be, else left
    in ``stuck``. Whether some parameter got a type."""
    solved = False
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                solved |= _sweep(inner, stuck)
        if isinstance(op, RelayOp) and any(
            isinstance(o.type, UnrankedTensorType) for o in op.operands
        ):
            solved |= _solve_operands(op)
            if any(is_unknown(o.type) for o in op.operands) or _from_untyped(op):
                try:
                    _update_results(op, op.infer_result_types())
                except IncompleteTypeError:
                    stuck.append(op)
                except TypeRelationError as e:
                    raise TypeInferenceError(op, f"{op.name}: {e}") from e
                continue
        _infer_op(op)
    return solved


def _solve_operands(op: RelayOp) -> bool:
    """Give the untyped parameters among ``op``'s operands the types its relation
    determines; whether any was given one."""
    try:
        solutions = op.solve_operand_types([o.type for o in op.operands])
    except TypeRelationError as e:
        raise TypeInferenceError(op, f"{op.name}: {e}") from e
    solved = False
    for operand, ty in zip(list(op.operands), solutions, strict=True):
        if ty is not None and isinstance(operand, BlockArgument):
            if is_unknown(operand.type):
                Rewriter.replace_value_with_new_type(operand, ty)
                solved = True
    return solved


def _from_untyped(op: Operation) -> bool:
    """Whether an incomplete operand of ``op`` comes from an untyped parameter."""
    return bool(_untyped_roots(op))


def _untyped_roots(op: Operation) -> list[BlockArgument]:
    """The untyped parameters that ``op``'s incomplete operands come from."""
    roots: list[BlockArgument] = []
    seen: set[SSAValue] = set()
    stack = [o for o in op.operands if isinstance(o.type, UnrankedTensorType)]
    while stack:
        value = stack.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, BlockArgument):
            if is_unknown(value.type) and value not in roots:
                roots.append(value)
            continue
        owner = value.owner
        if isinstance(owner, Operation):
            stack.extend(
                o for o in owner.operands if isinstance(o.type, UnrankedTensorType)
            )
    return roots


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
        if res.type is ty or res.type == ty:  # (the memo gives the same object)
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
@dataclass(frozen=True, eq=False, repr=False)
class InferType(Pass):
    """Fill incomplete result types from the ops' type relations and check the known
    ones (Relay's InferType: module pass, opt_level 0)."""

    PRESERVES = ALL  # it keeps TYPES up to date itself

    def __post_init__(self) -> None:
        set_info(self, PassInfo(0, "InferType"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        infer_types(op, ctx.analyses)
        return op
