"""From IR back to relay expressions: a ``func.func`` of relay ops as a
:class:`~xrelay.frontend.relay.expr.Expr` DAG (the inverse of
:mod:`xrelay.frontend.relay.emitter`).

This is how ``mod["main"]`` shows a function as Relay does (``.params``, ``.body``):

* a block argument is a :class:`Var` typed by the argument's type;
* ``relay.<op>`` is a :class:`Call` of ``Op.get("<op>")`` whose ``attrs`` are the op's
  properties as Python values (ints, floats, bools, strings, int lists, dtype
  names; anything else stays an IR attribute); variadic ops (``concatenate``) take
  one :class:`Tuple`; a multi-result op is one tuple-valued call, projected with
  :class:`TupleGetItem`;
* ``relay.constant`` → :class:`Constant` (a view of the bytes), ``relay.tuple`` →
  :class:`Tuple`, ``relay.tuple_get_item`` → :class:`TupleGetItem`, ``relay.if`` →
  :class:`If`;
* ``func.call`` of a ``relay.primitive`` function, or of a function made by
  partitioning (``Composite`` / ``PartitionedFromPattern`` attributes) → a call of
  that function (as Relay keeps these local functions inline); of any other
  function → a call of its :class:`GlobalVar`.

Each SSA value becomes one node, so sharing is kept: emitting the lifted body again
gives the same IR.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FileLineColLoc,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TupleType,
    UnitAttr,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue, TypeAttribute
from xdsl.irdl import VarOperandDef, VarResultDef

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import RelayOp, is_complete, is_unknown
from xrelay.dialects.relay.structural import (
    PRIMITIVE,
    ConstantOp,
    IfOp,
    TupleGetItemOp,
    TupleOp,
    YieldOp,
)
from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    Expr,
    GlobalVar,
    If,
    Op,
    Span,
    Tuple,
    TupleGetItem,
    Var,
)
from xrelay.frontend.relay.ty import TupleType as TupleTypeView
from xrelay.frontend.relay.ty import from_ir, to_ir

FUNCTION_ATTR_NAMES: dict[str, str] = {
    "relay.skip_optimization": "SkipOptimization",
    "relay.primitive": "Primitive",
    "relay.inline": "Inline",
}
"""Unit attributes on ``func.func`` and the Relay function attributes they stand for."""


class LiftError(ValueError):
    """The IR has a construct with no relay expression form."""


def attr_value(attr: Attribute) -> Any:
    """An IR attribute as the Python value Relay's attrs hold (lossless: ``make``
    gives the same attribute back)."""
    if isinstance(attr, IntegerAttr):
        int_attr = cast(IntegerAttr[IntegerType], attr)
        if int_attr.type.width.data == 1:
            return bool(int_attr.value.data)
        return int_attr.value.data
    if isinstance(attr, FloatAttr):
        return cast(FloatAttr, attr).value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return list(cast(DenseArrayBase[IntegerType], attr).get_values())
    if (
        isinstance(attr, ArrayAttr)
        and attr.data
        and all(isinstance(a, FloatAttr) for a in attr.data)
    ):  # a list of floats (resize2d's roi)
        return [cast(FloatAttr, a).value.data for a in attr.data]
    if isinstance(attr, TypeAttribute) and not isinstance(attr, ArrayAttr):
        try:
            return dtypes.dtype_name(attr)
        except (KeyError, ValueError, TypeError, dtypes.DTypeError):
            return attr
    return attr


def function_attrs(func: FuncOp) -> dict[str, Any]:
    """The Relay attributes of a ``func.func`` (``Primitive``, ``Composite``, ...)."""
    out: dict[str, Any] = {}
    for key, value in func.attributes.items():
        if key in ("sym_name", "function_type", "sym_visibility", "arg_attrs"):
            continue
        if key in ("res_attrs",):
            continue
        if key in FUNCTION_ATTR_NAMES and isinstance(value, UnitAttr):
            out[FUNCTION_ATTR_NAMES[key]] = 1
        else:
            out[key] = attr_value(value)
    return out


LOCAL_FUNCTION_ATTRS = (PRIMITIVE, "Composite", "PartitionedFromPattern")
"""Attributes of the functions that are Relay local functions (called inline)."""


def _is_local(func: FuncOp) -> bool:
    return any(key in func.attributes for key in LOCAL_FUNCTION_ATTRS)


def _callee(call: CallOp) -> FuncOp | None:
    module = call.get_toplevel_object()
    if not isinstance(module, ModuleOp):
        return None
    name = call.callee.string_value()
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    return None


def _typed(expr: Expr, ty: Attribute) -> Expr:
    """``expr`` with its ``checked_type`` set from the IR type (when complete)."""
    if is_complete(ty):
        expr.checked_type = from_ir(ty)
    return expr


class Lifter:
    """Lifts the values of one function; shares its memo with nested regions."""

    def __init__(self, params: dict[SSAValue, Expr] | None = None):
        self.memo: dict[SSAValue, Expr] = dict(params or {})
        self.calls: dict[Operation, Expr] = {}

    def params(self, block: Block, known: Sequence[Var] | None = None) -> list[Var]:
        """The parameters as relay Vars; ``known[i]`` stands for argument ``i`` when
        it has its name and type (the Var the function was built with)."""
        out: list[Var] = []
        for i, arg in enumerate(block.args):
            ty = None if is_unknown(arg.type) else from_ir(arg.type)  # untyped
            name = arg.name_hint or f"p{i}"
            v = (
                _same_var(known[i], name, arg.type)
                if known and i < len(known)
                else None
            )
            if v is None:
                v = Var(name, ty)
            _typed(v, arg.type)
            self.memo[arg] = v
            out.append(v)
        return out

    def value(self, value: SSAValue) -> Expr:
        found = self.memo.get(value)
        if found is not None:
            return found
        if isinstance(value, BlockArgument):
            raise LiftError("a block argument that is not a function parameter")
        # lift the defining ops of the operands first (iteratively: deep graphs)
        stack: list[tuple[SSAValue, bool]] = [(value, False)]
        while stack:
            v, ready = stack.pop()
            if v in self.memo:
                continue
            owner = v.owner
            assert isinstance(owner, Operation)
            if not ready:
                stack.append((v, True))
                stack.extend(
                    (o, False) for o in reversed(owner.operands) if o not in self.memo
                )
                continue
            self.memo[v] = _typed(self.result(owner, cast(Any, v).index), v.type)
        return self.memo[value]

    def op_expr(self, op: Operation) -> Expr:
        """The (possibly tuple-valued) expression of ``op`` itself."""
        known = self.calls.get(op)
        if known is not None:
            return known
        made = self.make(op)
        if len(op.results) == 1:
            _typed(made, op.results[0].type)
        elif op.results:  # a multi-result op: Relay's tuple-valued call
            _typed(made, TupleType(tuple(cast(Any, r.type) for r in op.results)))
        loc = op.location
        if isinstance(loc, FileLineColLoc):  # AnnotateSpans, or a parsed file
            line, col = loc.line.data, loc.column.data
            made.span = Span(loc.filename.data, line, line, col, col)
        self.calls[op] = made
        return made

    def result(self, op: Operation, index: int) -> Expr:
        if isinstance(op, ConstantOp | TupleOp | TupleGetItemOp | CallOp | IfOp):
            expr = self.op_expr(op)
            if len(op.results) == 1:
                return expr
            return TupleGetItem(expr, index)
        if isinstance(op, RelayOp):
            expr = self.op_expr(op)
            definition = type(op).get_irdl_definition()
            multi = len(op.results) != 1 or any(
                isinstance(d, VarResultDef) for _, d in definition.results
            )
            return TupleGetItem(expr, index) if multi else expr
        raise LiftError(f"{op.name} has no relay expression form")

    def make(self, op: Operation) -> Expr:
        if isinstance(op, ConstantOp):
            return Constant(op.numpy())
        args = [self.value(o) for o in op.operands]
        if isinstance(op, TupleOp):
            return Tuple(args)
        if isinstance(op, TupleGetItemOp):
            return TupleGetItem(args[0], op.index.value.data)
        if isinstance(op, IfOp):
            return If(
                args[0],
                self.region_value(op.then_region.block),
                self.region_value(op.else_region.block),
            )
        if isinstance(op, CallOp):
            callee = _callee(op)
            if callee is not None and _is_local(callee):
                from xrelay.frontend.relay.function_view import FunctionView

                return Call(FunctionView(callee), args)
            gv = GlobalVar(op.callee.string_value())
            if callee is not None:
                gv._type = callee.function_type  # pyright: ignore[reportPrivateUsage]
            return Call(gv, args)
        assert isinstance(op, RelayOp)
        definition = type(op).get_irdl_definition()
        operand_defs = [d for _, d in definition.operands]
        if len(operand_defs) == 1 and isinstance(operand_defs[0], VarOperandDef):
            args = [Tuple(args)]
        attrs = {k: attr_value(v) for k, v in op.properties.items()}
        return Call(Op.get(op.name.removeprefix("relay.")), args, attrs)

    def region_value(self, block: Block) -> Expr:
        term = block.last_op
        if not isinstance(term, YieldOp) or len(term.operands) != 1:
            raise LiftError("a relay.if region must end in relay.yield of one value")
        return self.value(term.operands[0])


def _same_var(var: Var, name: str, ty: Attribute) -> Var | None:
    """``var`` when it is the parameter named ``name`` of type ``ty`` (an untyped
    Var is not: once InferType typed it, the parameter is a new, typed Var, as in
    Relay)."""
    from xrelay.names import encode_name

    if name not in (var.name_hint, encode_name(var.name_hint)):
        return None
    ann = var.type_annotation
    if ann is None or to_ir(ann) != ty:
        return None
    return var


def lift_function(
    func: FuncOp, param_vars: Sequence[Var] | None = None
) -> tuple[list[Var], Expr]:
    """The parameters and the body of ``func`` as relay expressions (``param_vars``:
    the Vars it was built with, reused where they still fit)."""
    if not func.body.blocks:
        raise LiftError(f"@{func.sym_name.data} has no body")
    block = func.body.block
    lifter = Lifter()
    params = lifter.params(block, param_vars)
    ret = block.last_op
    if not isinstance(ret, ReturnOp) or not ret.operands:
        raise LiftError(f"@{func.sym_name.data} must return a value")
    if len(ret.operands) > 1:  # several results: Relay's tuple-returning function
        fields = [lifter.value(v) for v in ret.operands]
        body = Tuple(fields)
        if all(is_complete(v.type) for v in ret.operands):
            body.checked_type = TupleTypeView([f.checked_type for f in fields])
        return params, body
    return params, lifter.value(ret.operands[0])
