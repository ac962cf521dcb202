"""Structural equality of relay programs with TVM's rules (``tvm.ir.structural_equal``),
on the IR.

Both sides become IR first: an ``IRModule`` / ``builtin.module`` / ``func.func`` /
``FunctionView`` as they are; a builder ``Function`` or expression through
``IRModule.from_expr`` (the free variables of an expression become parameters). Then
the two programs are compared as graphs, from each function's result back:

* **Sharing** (graph equality): a value on one side is paired with one value on the
  other, for good. ``add(e, e)`` equals ``add(e2, e2)`` but not ``add(e2, e3)`` with
  ``e2`` and ``e3`` two equal but distinct computations.
* **Variables**: function parameters are paired by position; the free variables of
  an expression are equal only if they are the same ``relay.Var``, unless
  ``map_free_vars=True`` (then they are paired by position too).
* **Ops**: the same op name, equal attributes (defaults count: an attribute left
  at its default equals one written out), equal result types, equal operands
  (recursively) and regions. An unranked (incomplete) type equals any tensor type of
  its element type, as an unset type in Relay.
* **Constants** compare by dtype, shape and value (NaN equals NaN); they are leaves,
  outside the sharing rule (two equal constants equal one shared constant).
* **Calls**: a call of a ``relay.primitive`` or private function compares the callee
  functions (they are Relay's local functions, whose names are not part of the
  program); a call of a public function compares names.
* **Modules**: the public functions pair by name; private functions not reached by a
  call pair by name.

Ops that do not contribute to a function's result are not compared (they are not
part of the Relay expression).
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.irdl import IRDLOperation

from xrelay.dialects.relay.structural import (
    PRIMITIVE,
    ConstantOp,
    TupleOp,
    numpy_from_dense,
)

_FUNC_KEYS_IGNORED = ("sym_name", "sym_visibility", "function_type")


def _returned(ret: ReturnOp) -> list[SSAValue]:
    """What a function returns, a returned ``relay.tuple`` as its fields: Relay has
    one tuple-returning form where xrelay has two (several results, or one tuple)."""
    values = list(ret.operands)
    owner = values[0].owner if len(values) == 1 else None
    if isinstance(owner, TupleOp) and len(owner.operands) > 1:
        return list(owner.operands)
    return values


class _Mismatch(Exception):
    pass


def _types_equal(a: Attribute, b: Attribute) -> bool:
    if a == b:
        return True
    if isinstance(a, UnrankedTensorType) and isinstance(
        b, TensorType | UnrankedTensorType
    ):
        return a.element_type == b.element_type
    if isinstance(b, UnrankedTensorType) and isinstance(a, TensorType):
        return a.element_type == b.element_type
    return False


def _array_equal(a: Attribute, b: Attribute) -> bool:
    if not (
        isinstance(a, DenseIntOrFPElementsAttr)
        and isinstance(b, DenseIntOrFPElementsAttr)
    ):
        return a == b
    if a.get_type() != b.get_type():
        return False
    x, y = numpy_from_dense(a), numpy_from_dense(b)
    return bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))


def _op_line(op: Operation) -> str:
    from xrelay.dialects.relay.printing import elide_constants

    with elide_constants():
        text = str(op)
    return text.splitlines()[0] if "\n" in text else text


class StructuralComparer:
    """One comparison; ``reason`` holds the first difference found."""

    def __init__(self, lhs_module: ModuleOp | None, rhs_module: ModuleOp | None):
        self.modules = (lhs_module, rhs_module)
        self.lr: dict[SSAValue, SSAValue] = {}
        self.rl: dict[SSAValue, SSAValue] = {}
        self.ops: dict[Operation, Operation] = {}
        self.blocks: dict[Block, Block] = {}
        self.funcs: dict[FuncOp, FuncOp] = {}
        self.where: list[str] = []
        self.reason: str | None = None

    # -- failure reporting --------------------------------------------------------------

    @contextmanager
    def at(self, what: str) -> Generator[None]:
        self.where.append(what)
        try:
            yield
        finally:
            self.where.pop()

    def fail(self, message: str) -> _Mismatch:
        if self.reason is None:
            path = " / ".join(self.where)
            self.reason = f"{message}\n  at: {path}" if path else message
        return _Mismatch(message)

    # -- functions and modules ----------------------------------------------------------

    def modules_equal(self, a: ModuleOp, b: ModuleOp) -> None:
        fa = {f.sym_name.data: f for f in a.ops if isinstance(f, FuncOp)}
        fb = {f.sym_name.data: f for f in b.ops if isinstance(f, FuncOp)}
        pub_a = {n for n, f in fa.items() if not _is_local(f)}
        pub_b = {n for n, f in fb.items() if not _is_local(f)}
        if pub_a != pub_b:
            raise self.fail(
                f"the modules have different functions: {sorted(pub_a)} vs {sorted(pub_b)}"
            )
        for name in sorted(pub_a):
            self.funcs_equal(fa[name], fb[name])
        reached_a = set(self.funcs)
        reached_b = set(self.funcs.values())
        rest_a = {n for n, f in fa.items() if f not in reached_a}
        rest_b = {n for n, f in fb.items() if f not in reached_b}
        if rest_a != rest_b:
            raise self.fail(
                f"the modules have different uncalled local functions: {sorted(rest_a)} "
                f"vs {sorted(rest_b)}"
            )
        for name in sorted(rest_a):
            self.funcs_equal(fa[name], fb[name])

    def funcs_equal(self, a: FuncOp, b: FuncOp) -> None:
        known = self.funcs.get(a)
        if known is not None:
            if known is not b:
                raise self.fail(
                    f"@{a.sym_name.data} is paired with two different functions"
                )
            return
        self.funcs[a] = b
        with self.at(f"@{a.sym_name.data} vs @{b.sym_name.data}"):
            self._attrs_equal(
                {k: v for k, v in a.attributes.items() if k not in _FUNC_KEYS_IGNORED},
                {k: v for k, v in b.attributes.items() if k not in _FUNC_KEYS_IGNORED},
                "function attribute",
            )
            if not a.body.blocks or not b.body.blocks:
                if bool(a.body.blocks) != bool(b.body.blocks):
                    raise self.fail("one function has a body, the other not")
                return
            self.blocks_equal(a.body.block, b.body.block, "parameter")
            ra, rb = a.body.block.last_op, b.body.block.last_op
            if not isinstance(ra, ReturnOp) or not isinstance(rb, ReturnOp):
                raise self.fail("a function does not end in func.return")
            va, vb = _returned(ra), _returned(rb)
            if len(va) != len(vb):
                raise self.fail(f"{len(va)} vs {len(vb)} results")
            for x, y in zip(va, vb, strict=True):
                self.values_equal(x, y)

    def blocks_equal(self, a: Block, b: Block, what: str) -> None:
        if len(a.args) != len(b.args):
            raise self.fail(f"{len(a.args)} vs {len(b.args)} {what}s")
        self.blocks[a] = b
        for i, (x, y) in enumerate(zip(a.args, b.args, strict=True)):
            if not _types_equal(x.type, y.type):
                raise self.fail(f"{what} #{i} has type {x.type} vs {y.type}")
            self.pair(x, y)

    # -- values and ops -----------------------------------------------------------------

    def pair(self, a: SSAValue, b: SSAValue) -> None:
        self.lr[a] = b
        self.rl[b] = a

    def values_equal(self, a: SSAValue, b: SSAValue) -> None:
        oa, ob = a.owner, b.owner
        if isinstance(oa, ConstantOp) and isinstance(ob, ConstantOp):
            # constants are leaves compared by value: whether two equal constants
            # are one op (xrelay's CSE merges them) or two does not matter
            if not _array_equal(oa.value, ob.value):
                raise self.fail(
                    f"different constants: {_op_line(oa)}  vs  {_op_line(ob)}"
                )
            return
        mapped = self.lr.get(a)
        if mapped is not None:
            if mapped is not b:
                raise self.fail(
                    "sharing differs: one value on the left is used where the right "
                    "has two different values" + _describe(a, b)
                )
            return
        if b in self.rl:
            raise self.fail(
                "sharing differs: one value on the right is used where the left has "
                "two different values" + _describe(a, b)
            )
        if isinstance(a, BlockArgument) or isinstance(b, BlockArgument):
            raise self.fail(
                "a variable is not the same on both sides" + _describe(a, b)
            )
        ra, rb = cast(OpResult, a), cast(OpResult, b)
        if ra.index != rb.index:
            raise self.fail(
                f"result #{ra.index} vs result #{rb.index}" + _describe(a, b)
            )
        self.ops_equal(ra.op, rb.op)
        self.pair(a, b)

    def ops_equal(self, a: Operation, b: Operation) -> None:
        known = self.ops.get(a)
        if known is not None:
            if known is not b:
                raise self.fail("sharing differs" + _describe_ops(a, b))
            return
        with self.at(f"{a.name} vs {b.name}"):
            if a.name != b.name:
                raise self.fail(f"different ops: {_op_line(a)}  vs  {_op_line(b)}")
            if isinstance(a, ConstantOp) and isinstance(b, ConstantOp):
                if not _array_equal(a.value, b.value):
                    raise self.fail(
                        f"different constants: {_op_line(a)}  vs  {_op_line(b)}"
                    )
            else:
                self._attrs_equal(_props(a), _props(b), "attribute", a, b)
            self._attrs_equal(dict(a.attributes), dict(b.attributes), "attribute", a, b)
            if len(a.results) != len(b.results):
                raise self.fail("different numbers of results" + _describe_ops(a, b))
            for i, (x, y) in enumerate(zip(a.results, b.results, strict=True)):
                if not _types_equal(x.type, y.type):
                    raise self.fail(
                        f"result #{i} has type {x.type} vs {y.type}"
                        + _describe_ops(a, b)
                    )
            if isinstance(a, CallOp) and isinstance(b, CallOp):
                self.callees_equal(a, b)
            self.operands_equal(a, b)
            if len(a.regions) != len(b.regions):
                raise self.fail("different numbers of regions" + _describe_ops(a, b))
            for ga, gb in zip(a.regions, b.regions, strict=True):
                if len(ga.blocks) != len(gb.blocks):
                    raise self.fail("different numbers of blocks" + _describe_ops(a, b))
                for ba, bb in zip(ga.blocks, gb.blocks, strict=True):
                    self.blocks_equal(ba, bb, "block argument")
                    ta, tb = ba.last_op, bb.last_op
                    if ta is None or tb is None:
                        raise self.fail("an empty block")
                    self.ops_equal(ta, tb)
            self.ops[a] = b

    def operands_equal(self, a: Operation, b: Operation) -> None:
        if len(a.operands) != len(b.operands):
            raise self.fail(
                f"{len(a.operands)} vs {len(b.operands)} operands" + _describe_ops(a, b)
            )
        for i, (x, y) in enumerate(zip(a.operands, b.operands, strict=True)):
            with self.at(f"operand #{i}"):
                self.values_equal(x, y)

    def callees_equal(self, a: CallOp, b: CallOp) -> None:
        fa = self._callee(a, 0)
        fb = self._callee(b, 1)
        name_a, name_b = a.callee.string_value(), b.callee.string_value()
        if fa is None or fb is None or not (_is_local(fa) and _is_local(fb)):
            if name_a != name_b:
                raise self.fail(f"calls of @{name_a} vs @{name_b}")
            if fa is not None and fb is not None:
                self.funcs_equal(fa, fb)
            return
        self.funcs_equal(fa, fb)

    def _callee(self, call: CallOp, side: int) -> FuncOp | None:
        module = self.modules[side]
        if module is None:
            top = call.get_toplevel_object()
            module = top if isinstance(top, ModuleOp) else None
        if module is None:
            return None
        name = call.callee.string_value()
        for op in module.ops:
            if isinstance(op, FuncOp) and op.sym_name.data == name:
                return op
        return None

    def _attrs_equal(
        self,
        a: dict[str, Attribute],
        b: dict[str, Attribute],
        what: str,
        op_a: Operation | None = None,
        op_b: Operation | None = None,
    ) -> None:
        if isinstance(op_a, CallOp):
            a = {k: v for k, v in a.items() if k != "callee"}
            b = {k: v for k, v in b.items() if k != "callee"}
        for key in sorted(set(a) | set(b)):
            x, y = a.get(key), b.get(key)
            if x is None or y is None or not _array_equal(x, y):
                detail = (
                    _describe_ops(op_a, op_b)
                    if op_a is not None and op_b is not None
                    else ""
                )
                raise self.fail(f"{what} {key}: {x} vs {y}{detail}")


def _props(op: Operation) -> dict[str, Attribute]:
    """The op's properties with the defaults of absent ones filled in."""
    props = dict(op.properties)
    if isinstance(op, IRDLOperation):
        for name, prop in type(op).get_irdl_definition().properties.items():
            if name not in props and prop.default_value is not None:
                props[name] = prop.default_value
    return props


def _is_local(func: FuncOp) -> bool:
    return PRIMITIVE in func.attributes or (
        func.sym_visibility is not None and func.sym_visibility.data == "private"
    )


def _describe(a: SSAValue, b: SSAValue) -> str:
    oa, ob = a.owner, b.owner
    left = _op_line(oa) if isinstance(oa, Operation) else f"parameter %{a.name_hint}"
    right = _op_line(ob) if isinstance(ob, Operation) else f"parameter %{b.name_hint}"
    return f"\n  lhs: {left}\n  rhs: {right}"


def _describe_ops(a: Operation, b: Operation) -> str:
    return f"\n  lhs: {_op_line(a)}\n  rhs: {_op_line(b)}"


# ---------------------------------------------------------------------------------------
# entry points
# ---------------------------------------------------------------------------------------


def _as_ir(x: Any) -> tuple[ModuleOp | FuncOp, list[Any]]:
    """``x`` as IR, with the free relay Vars that became parameters (if any)."""
    from xrelay.frontend.relay.analysis import free_vars
    from xrelay.frontend.relay.expr import Expr, TupleWrapper, to_expr
    from xrelay.frontend.relay.function import Function
    from xrelay.frontend.relay.function_view import FunctionView
    from xrelay.frontend.relay.module import IRModule

    if isinstance(x, ModuleOp | FuncOp):
        return x, []
    if isinstance(x, IRModule):
        return x.module, []
    if isinstance(x, FunctionView):
        return x.func_op, []
    if isinstance(x, Expr | TupleWrapper):
        expr = to_expr(x)
        free: list[Any] = [] if isinstance(expr, Function) else free_vars(expr)
        mod = IRModule.from_expr(expr)
        return mod.func_op("main"), free
    inner = getattr(x, "module", None)
    if isinstance(inner, ModuleOp):
        return inner, []
    raise TypeError(f"cannot compare {type(x).__name__} structurally")


def is_tree(x: Any) -> bool:
    """``x`` is a relay expression tree (not IR, not a function view)."""
    from xrelay.frontend.relay.expr import Expr, Op, TupleWrapper
    from xrelay.frontend.relay.function_view import FunctionView

    return isinstance(x, Expr | Op | TupleWrapper) and not isinstance(x, FunctionView)


def buildable(x: Any) -> bool:
    """``x`` can be compared as IR (a tree the IR cannot hold cannot)."""
    from xrelay.frontend.relay.expr import Op

    if not is_tree(x):
        return True
    if isinstance(x, Op):
        return False
    try:
        _as_ir(x)
    except Exception:  # any build failure: compared as a tree instead
        return False
    return True


def type_key(x: Any) -> str | None:
    """A type (``relay.TensorType``, ``TupleType``, ``FuncType`` or an IR type) as
    text, or None if ``x`` is not a type."""
    from xrelay.dialects.relay.base import is_unknown
    from xrelay.frontend.relay.ty import FuncType, TensorType, TupleType, to_ir

    if not isinstance(x, TensorType | TupleType | FuncType | Attribute):
        return None
    try:
        ir = to_ir(x)
    except Exception:  # a type the IR has no form for: not comparable here
        return None
    return "_" if is_unknown(ir) else str(ir)


def compare(lhs: Any, rhs: Any, map_free_vars: bool = False) -> str | None:
    """None if ``lhs`` and ``rhs`` are structurally equal, else the first difference."""
    key_a, key_b = type_key(lhs), type_key(rhs)
    if key_a is not None or key_b is not None:
        if key_a == key_b:
            return None
        return f"the types {key_a or type(lhs).__name__} and {key_b or type(rhs).__name__} differ"
    if is_tree(lhs) and is_tree(rhs):
        from xrelay.frontend.relay.expr_equal import tree_compare

        return tree_compare(lhs, rhs, map_free_vars)
    a, free_a = _as_ir(lhs)
    b, free_b = _as_ir(rhs)
    if type(a) is not type(b):
        return f"a {a.name} is compared with a {b.name}"
    if not map_free_vars:
        if len(free_a) != len(free_b) or any(
            x is not y for x, y in zip(free_a, free_b, strict=False)
        ):
            names_a = ", ".join(f"%{v.name_hint}" for v in free_a)
            names_b = ", ".join(f"%{v.name_hint}" for v in free_b)
            return (
                f"the free variables differ ({names_a} vs {names_b}): free variables are "
                "equal only if they are the same relay.Var (map_free_vars=True pairs them)"
            )
    module_a = a if isinstance(a, ModuleOp) else _module_of(a)
    module_b = b if isinstance(b, ModuleOp) else _module_of(b)
    cmp = StructuralComparer(module_a, module_b)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        if isinstance(a, ModuleOp):
            cmp.modules_equal(a, cast(ModuleOp, b))
        else:
            cmp.funcs_equal(a, cast(FuncOp, b))
    except _Mismatch:
        return cmp.reason
    finally:
        sys.setrecursionlimit(limit)
    return None


def _module_of(func: FuncOp) -> ModuleOp | None:
    parent = func.parent_op()
    return parent if isinstance(parent, ModuleOp) else None


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> bool:
    """Whether ``lhs`` and ``rhs`` (modules, functions or expressions) are
    structurally equal (TVM's ``tvm.ir.structural_equal``; see the module doc)."""
    return compare(lhs, rhs, map_free_vars) is None


def _text(x: Any) -> str:
    """The program in Relay's text format (MLIR where that has no Relay form)."""
    from xrelay.dialects.relay.printing import elide_constants
    from xrelay.frontend.relay.text_printer import TextPrintError, to_relay_text

    if not buildable(x):
        return x.astext(show_meta_data=False)
    ir, _ = _as_ir(x)
    try:
        return to_relay_text(ir, show_meta_data=False)
    except TextPrintError:
        with elide_constants():
            return str(ir)


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    """Raise ``AssertionError`` naming the first difference and printing both
    programs unless ``lhs`` and ``rhs`` are structurally equal."""
    reason = compare(lhs, rhs, map_free_vars)
    if reason is None:
        return
    raise AssertionError(
        f"not structurally equal: {reason}\n"
        f"--- lhs ---\n{_text(lhs)}\n--- rhs ---\n{_text(rhs)}"
    )


as_ir = _as_ir
module_of = _module_of
