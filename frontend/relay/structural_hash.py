"""``structural_hash`` (TVM's ``tvm.ir.structural_hash``): a hash consistent with
:func:`~xrelay.frontend.relay.structural_equal.structural_equal`: structurally
equal programs hash equal.

It hashes what equality compares, on the same representation: the IR for modules,
function views and expressions that build (from each function's results back, so
the order of independent ops does not matter: op names, attributes that differ
from their defaults, operand structure, constants' values, parameters by
position, the callee function of a local call, the name of a public one), the
expression tree for expressions the IR cannot hold (variables numbered where they
are bound, free variables in order of first use). It leaves out what equality may
pair loosely, so it is coarser than equality; sharing counts (a node's second
use hashes as a reference to its first). One
exception: an untyped value (``tensor<*x...>``), which equality pairs with a
tensor of any shape, hashes differently from a typed one (Relay's IncompleteType
does not equal a TensorType either). Both walks use
explicit stacks.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType, TupleType, UnrankedTensorType
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import IRDLOperation

from xrelay.dialects.relay.structural import PRIMITIVE, ConstantOp
from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    Expr,
    GlobalVar,
    If,
    Let,
    Op,
    Tuple,
    TupleGetItem,
    TupleWrapper,
    Var,
)
from xrelay.frontend.relay.expr_equal import attr_plain, call_attrs
from xrelay.frontend.relay.function import Function


def _h(*parts: object) -> int:
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def _array_hash(array: np.ndarray[Any, Any]) -> int:
    a = np.ascontiguousarray(array)
    if a.dtype.kind in "fc":
        a = np.where(np.isnan(a), np.zeros((), a.dtype), a)  # NaN equals NaN
    return _h(str(a.dtype), a.shape, hashlib.blake2b(a.tobytes()).hexdigest())


# -- the IR -----------------------------------------------------------------------------


def _ir_type(ty: Attribute) -> object:
    if isinstance(ty, TensorType | UnrankedTensorType):
        return str(ty)
    if isinstance(ty, TupleType):
        return tuple(_ir_type(t) for t in ty.types.data)
    return str(ty)


def _props(op: Operation) -> tuple[tuple[str, str], ...]:
    if not isinstance(op, IRDLOperation):
        return ()
    defs = type(op).get_irdl_definition().properties
    out: list[tuple[str, str]] = []
    for key, attr in op.properties.items():
        prop = defs.get(key)
        if prop is not None and prop.default_value == attr:
            continue
        out.append((key, str(attr)))
    return tuple(sorted(out))


class _IRHasher:
    def __init__(self, module: ModuleOp | None):
        self.module = module
        self.funcs: dict[FuncOp, int] = {}

    def callee(self, call: CallOp) -> FuncOp | None:
        if self.module is None:
            return None
        name = call.callee.string_value()
        for op in self.module.ops:
            if isinstance(op, FuncOp) and op.sym_name.data == name:
                return op
        return None

    def func(self, func: FuncOp) -> int:
        known = self.funcs.get(func)
        if known is not None:
            return known
        block = func.body.block
        ret = block.last_op
        results = list(ret.operands) if isinstance(ret, ReturnOp) else []
        params = tuple(_ir_type(a.type) for a in block.args)
        attrs = sorted(
            (k, str(v))
            for k, v in func.attributes.items()
            if k not in ("sym_name", "sym_visibility", "function_type")
        )
        value = _h("func", params, tuple(attrs), self.values(results))
        self.funcs[func] = value
        return value

    def use(self, v: SSAValue, memo: dict[SSAValue, int]) -> int:
        """An operand's hash at its first use, its number after (sharing counts)."""
        if isinstance(v, BlockArgument) or isinstance(v.owner, ConstantOp):
            return memo[v]
        number = self.used.get(v)
        if number is not None:
            return _h("shared", number)
        self.used[v] = len(self.used)
        return memo[v]

    def values(self, roots: list[SSAValue]) -> tuple[int, ...]:
        memo: dict[SSAValue, int] = {}
        self.used: dict[SSAValue, int] = {}
        stack: list[tuple[SSAValue, bool]] = [(r, False) for r in roots]
        while stack:
            v, ready = stack.pop()
            if v in memo:
                continue
            if isinstance(v, BlockArgument):
                memo[v] = _h("arg", v.index, _ir_type(v.type))
                continue
            op = v.owner
            assert isinstance(op, Operation)
            inner = [o for o in op.operands if o not in memo]
            for region in op.regions:
                for block in region.blocks:
                    last = block.last_op
                    if last is not None:
                        inner += [o for o in last.operands if o not in memo]
            if not ready and inner:
                stack.append((v, True))
                stack.extend((o, False) for o in inner)
                continue
            memo[v] = self.op_value(op, v, memo)
        return tuple(self.use(r, memo) for r in roots)

    def op_value(self, op: Operation, v: SSAValue, memo: dict[SSAValue, int]) -> int:
        index = v.index if hasattr(v, "index") else 0  # type: ignore[attr-defined]
        if isinstance(op, ConstantOp):
            return _array_hash(op.numpy())
        regions = tuple(
            tuple(memo[o] for o in block.last_op.operands)
            for region in op.regions
            for block in region.blocks
            if block.last_op is not None
        )
        callee: object = None
        if isinstance(op, CallOp):
            func = self.callee(op)
            private = func is not None and (
                PRIMITIVE in func.attributes
                or (
                    func.sym_visibility is not None
                    and func.sym_visibility.data == "private"
                )
            )
            callee = self.func(func) if func is not None and private else str(op.callee)
        operands = tuple(self.use(o, memo) for o in op.operands)
        types = tuple(_ir_type(r.type) for r in op.results)
        return _h(op.name, _props(op), operands, regions, callee, types, index)


def _ir_hash(x: Any, map_free_vars: bool) -> int:
    from xrelay.frontend.relay.structural_equal import as_ir, module_of

    ir, free = as_ir(x)
    if (
        isinstance(ir, FuncOp) and free and not map_free_vars
    ):  # free variables are equal only to themselves
        return _h("free", tuple(id(v) for v in free), _IRHasher(module_of(ir)).func(ir))
    if isinstance(ir, ModuleOp):
        hasher = _IRHasher(ir)
        public = sorted(
            (f.sym_name.data, hasher.func(f))
            for f in ir.ops
            if isinstance(f, FuncOp) and PRIMITIVE not in f.attributes
        )
        return _h("module", tuple(public))
    return _IRHasher(module_of(ir)).func(ir)


# -- expression trees -------------------------------------------------------------------


def _type_key(ty: Any) -> object:
    from xrelay.dialects.relay.base import is_unknown
    from xrelay.frontend.relay.ty import to_ir

    if ty is None:
        return "_"
    ir = to_ir(ty)
    return "_" if is_unknown(ir) else str(ir)


def _tree_children(e: Any) -> list[Any]:
    if isinstance(e, Call):
        return [e.op, *e.args]
    if isinstance(e, Tuple):
        return list(e.fields)
    if isinstance(e, TupleGetItem):
        return [e.tuple_value]
    if isinstance(e, If):
        return [e.cond, e.true_branch, e.false_branch]
    if isinstance(e, Let):
        return [e.value, e.body]
    if isinstance(e, Function):
        return [e.body]
    return []


def _tree_hash(root: Any, map_free_vars: bool) -> int:
    numbers: dict[Var, int] = {}
    bound: set[Var] = set()
    # pre-order: variables numbered where bound (or first used, if free), in the
    # order the equality walk meets them
    stack: list[Any] = [root]
    seen: set[int] = set()
    while stack:
        e = stack.pop()
        if isinstance(e, TupleWrapper):
            e = e.astuple()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Let):
            numbers.setdefault(e.var, len(numbers))
            bound.add(e.var)
        elif isinstance(e, Function):
            for p in e.params:
                numbers.setdefault(p, len(numbers))
                bound.add(p)
        elif isinstance(e, Var):
            numbers.setdefault(e, len(numbers))
        stack.extend(reversed(_tree_children(e)))
    memo: dict[int, int] = {}
    used: dict[int, int] = {}

    def use(c: Any) -> int:
        """A child's hash at its first use, its number after (sharing counts)."""
        if not _tree_children(c) or (isinstance(c, Tuple) and not c.fields):
            return memo[id(c)]
        number = used.get(id(c))
        if number is not None:
            return _h("shared", number)
        used[id(c)] = len(used)
        return memo[id(c)]

    post: list[tuple[Any, bool]] = [(root, False)]
    keep: list[Any] = []
    while post:
        e, ready = post.pop()
        if isinstance(e, TupleWrapper):
            e = e.astuple()
        if id(e) in memo:
            continue
        kids = _tree_children(e)
        if not ready and kids:
            post.append((e, True))
            post.extend((c, False) for c in kids)
            continue
        keep.append(e)
        uses = [use(_unwrap(c)) for c in kids]
        memo[id(e)] = _tree_node(e, uses, numbers)
    free = [id(v) for v in numbers if v not in bound]
    if free and not map_free_vars:  # free variables are equal only to themselves
        return _h(memo[id(_unwrap(root))], tuple(free))
    return memo[id(_unwrap(root))]


def _unwrap(e: Any) -> Any:
    return e.astuple() if isinstance(e, TupleWrapper) else e


def _tree_node(e: Any, kids: list[int], numbers: dict[Var, int]) -> int:
    if isinstance(e, Var):
        return _h("var", numbers[e], _type_key(e.type_annotation))
    if isinstance(e, Constant):
        return _array_hash(e.data.numpy())
    if isinstance(e, Op):
        return _h("op", e.name)
    if isinstance(e, GlobalVar):
        return _h("global", e.name_hint)
    if isinstance(e, Call):
        attrs = sorted((k, repr(v)) for k, v in call_attrs(e).items())
        return _h("call", tuple(attrs), tuple(kids))
    if isinstance(e, Let):
        return _h("let", numbers[e.var], _type_key(e.var.type_annotation), *kids)
    if isinstance(e, Function):
        params = tuple((numbers[p], _type_key(p.type_annotation)) for p in e.params)
        attrs = sorted((k, repr(attr_plain(v))) for k, v in e.attrs.items())
        return _h("fn", params, _type_key(e.ret_type), tuple(attrs), *kids)
    if isinstance(e, TupleGetItem):
        return _h("proj", e.index, *kids)
    assert isinstance(e, Expr)
    return _h(type(e).__name__, tuple(kids))


def structural_hash(node: Any, map_free_vars: bool = False) -> int:
    """A hash of ``node`` (a module, function or expression) consistent with
    ``structural_equal``: equal programs hash equal. ``map_free_vars`` is accepted
    for TVM's signature; free variables hash by their order of first use either way."""
    from xrelay.frontend.relay.structural_equal import is_tree, type_key

    key = type_key(node)
    if key is not None:
        return _h("type", key)
    if is_tree(node):
        return _tree_hash(node, map_free_vars)
    return _ir_hash(node, map_free_vars)
