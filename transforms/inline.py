"""Inline: splice the bodies of functions marked ``relay.inline`` into their callers
(mirrors Relay's ``Inline``, a module pass at opt_level 1; Relay registers it as
``InlineGlobals``, xrelay under ``Inline`` / ``-p inline``).

Relay's rules on ``func.func`` / ``func.call``:

* a callee can be inlined when it has a body, carries ``relay.inline``, is not
  recursive (not on a cycle of the call graph) and, once its own callees have been
  processed, calls no function any more (every function it called was inlinable);
  calls of fused kernels (``relay.primitive`` functions, which are local functions
  in Relay) do not count: they are copied along with the body;
* functions are processed callees first (reverse topological order of the call
  graph), so inlining is transitive;
* a call is replaced by a copy of the callee's body with the parameters bound to the
  call's operands; calls inside ``relay.if`` regions are inlined into the region;
* afterwards, functions marked ``relay.inline`` that were called before and are no
  longer referenced are deleted. Entry functions (``main``, and any function nobody
  called to begin with) and recursive functions stay.

Functions handed to an external compiler (a ``Compiler`` attribute, or a non-zero
``Extern``) are not spliced: Relay replaces the call of the global by a call of the
function *literal*, keeping the external function whole. xrelay writes a called
literal as the relay builder does, a function of its own named ``<caller>_fn`` (made
unique with ``_1``, ``_2``, ...): each such call gets a copy of the callee under that
name, and the global is deleted like an inlined one once nothing refers to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay.structural import INLINE, PRIMITIVE
from xrelay.pass_manager import ModulePass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.analysis import ALL

ENTRY = "main"


class InlineError(DiagnosticException):
    """A call cannot be inlined (its operands do not fit the callee)."""


def call_graph(module: ModuleOp) -> dict[str, list[str]]:
    """Each function's callees (``func.call`` targets defined in the module), in
    order of first call. Fused kernels (``relay.primitive``) are not part of the
    graph: in Relay they are local functions, not globals."""
    funcs = {
        op.sym_name.data
        for op in module.ops
        if isinstance(op, FuncOp) and PRIMITIVE not in op.attributes
    }
    graph: dict[str, list[str]] = {}
    for op in module.ops:
        if not isinstance(op, FuncOp) or op.sym_name.data not in funcs:
            continue
        callees: list[str] = []
        for inner in op.walk():
            if isinstance(inner, CallOp):
                name = inner.callee.string_value()
                if name in funcs and name not in callees:
                    callees.append(name)
        graph[op.sym_name.data] = callees
    return graph


def recursive_functions(graph: dict[str, list[str]]) -> set[str]:
    """The functions on a cycle of the call graph (calling themselves included)."""
    recursive: set[str] = set()
    for start in graph:
        stack = list(graph[start])
        seen: set[str] = set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name in seen:
                continue
            seen.add(name)
            stack.extend(graph.get(name, []))
    return recursive


def callee_first_order(graph: dict[str, list[str]]) -> list[str]:
    """The functions in post-order of the call graph (callees before callers)."""
    order: list[str] = []
    visited: set[str] = set()

    def visit(name: str) -> None:
        stack: list[tuple[str, int]] = [(name, 0)]
        visited.add(name)
        while stack:
            current, i = stack.pop()
            callees = graph.get(current, [])
            if i < len(callees):
                stack.append((current, i + 1))
                nxt = callees[i]
                if nxt not in visited:
                    visited.add(nxt)
                    stack.append((nxt, 0))
            else:
                order.append(current)

    for name in graph:
        if name not in visited:
            visit(name)
    return order


def inline_call(call: CallOp, callee: FuncOp) -> list[CallOp]:
    """Replace ``call`` by a copy of ``callee``'s body; returns the calls that came
    with it."""
    name = callee.sym_name.data
    params = callee.body.block.args
    if len(params) != len(call.operands):
        raise InlineError(
            f"cannot inline @{name}: it takes {len(params)} arguments, the call "
            f"passes {len(call.operands)}"
        )
    body = callee.body.clone()
    block = body.block
    ret = block.last_op
    if not isinstance(ret, ReturnOp) or len(ret.operands) != len(call.results):
        raise InlineError(
            f"cannot inline @{name}: its body does not end in a func.return of "
            f"{len(call.results)} values"
        )
    args: list[SSAValue] = list(block.args)
    spliced = [op for op in block.walk() if isinstance(op, CallOp)]
    returned = list(ret.operands)
    Rewriter.erase_op(ret)
    operands = list(call.operands)
    Rewriter.inline_block(block, InsertPoint.before(call), operands)
    for res, value in zip(call.results, returned, strict=True):
        if value in args:  # a parameter returned as is: the call's operand
            value = operands[args.index(value)]
        res.replace_all_uses_with(value)
    Rewriter.erase_op(call)
    return spliced


def call_copy(call: CallOp, callee: FuncOp, caller: FuncOp, taken: set[str]) -> FuncOp:
    """Make ``call`` call a copy of ``callee`` of its own, named after ``caller``
    (Relay's call of the function literal), placed right before ``caller``."""
    base = f"{caller.sym_name.data}_fn"
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    copy = callee.clone()
    copy.sym_name = StringAttr(name)
    caller_block = caller.parent_block()
    assert caller_block is not None
    caller_block.insert_op_before(copy, caller)
    call.callee = SymbolRefAttr(name)
    return copy


def referenced_symbols(module: ModuleOp) -> set[str]:
    """Every function name referenced from an op of the module (calls and symbol
    attributes)."""
    names: set[str] = set()

    def collect(attr: Attribute) -> None:
        if isinstance(attr, SymbolRefAttr):
            names.add(attr.root_reference.data)

    for op in module.walk():
        if op is module:
            continue
        for attr in (*op.properties.values(), *op.attributes.values()):
            collect(attr)
    return names


def is_external(func: FuncOp) -> bool:
    """A function for an external codegen (BYOC): ``Compiler`` or non-zero
    ``Extern``."""
    if "Compiler" in func.attributes:
        return True
    extern = func.attributes.get("Extern")
    if extern is None:
        return False
    value = getattr(getattr(extern, "value", None), "data", None)
    return value != 0 if isinstance(value, int | float) else True


def inline_module(module: ModuleOp) -> bool:
    """Inline every inlinable call of ``module`` in place and delete the inlined
    functions left unreferenced; True if anything changed."""
    funcs = {
        op.sym_name.data: op
        for op in module.ops
        if isinstance(op, FuncOp) and PRIMITIVE not in op.attributes
    }
    graph = call_graph(module)
    recursive = recursive_functions(graph)
    called = {callee for callees in graph.values() for callee in callees}
    taken = {op.sym_name.data for op in module.ops if isinstance(op, FuncOp)}
    literals: dict[str, FuncOp] = {}  # copies of external functions called as literals
    changed = False

    def calls_any(func: FuncOp) -> bool:
        return any(
            isinstance(op, CallOp) and op.callee.string_value() in funcs
            for op in func.walk()
        )

    def inlinable(name: str) -> bool:
        func = funcs.get(name)
        return (
            func is not None
            and bool(func.body.blocks)
            and INLINE in func.attributes
            and name not in recursive
            and not calls_any(func)
        )

    for name in callee_first_order(graph):
        func = funcs[name]
        if not func.body.blocks:
            continue
        calls: list[Operation] = [op for op in func.walk() if isinstance(op, CallOp)]
        for call in calls:
            assert isinstance(call, CallOp)
            target = call.callee.string_value()
            if target != name and inlinable(target):
                if is_external(funcs[target]):
                    copy = call_copy(call, funcs[target], func, taken)
                    literals[copy.sym_name.data] = copy
                else:
                    # a literal called in the spliced body moves to this caller
                    for inner in inline_call(call, funcs[target]):
                        literal = literals.get(inner.callee.string_value())
                        if literal is not None:
                            copy = call_copy(inner, literal, func, taken)
                            literals[copy.sym_name.data] = copy
                changed = True

    still_referenced = referenced_symbols(module)
    for name, func in funcs.items():
        if (
            INLINE in func.attributes
            and name != ENTRY
            and name in called
            and name not in recursive
            and name not in still_referenced
        ):
            Rewriter.erase_op(func)
            changed = True
    still_referenced = referenced_symbols(module)
    for name, func in literals.items():
        if name not in still_referenced:  # its caller was inlined and deleted
            Rewriter.erase_op(func)
    return changed


@register_pass("Inline")
@dataclass(frozen=True, eq=False, repr=False)
class Inline(ModulePass):
    """Inline the functions marked ``relay.inline`` into their callers, callees
    first, and delete those left unreferenced (Relay's Inline, registered there as
    InlineGlobals: module pass, opt_level 1)."""

    PRESERVES = ALL  # invalidates the analyses itself, when it changed something

    def __post_init__(self) -> None:
        super().__init__(self._run, PassInfo(1, "Inline"))

    @staticmethod
    def _run(mod: Any, ctx: PassContext) -> Any:
        module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
        if inline_module(module):
            ctx.analyses.invalidate()
        return mod
