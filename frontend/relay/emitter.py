"""Turning a relay expression DAG into a ``func.func`` of relay ops.

The walk is post-order with memoisation, so an expression used several times becomes
ONE SSA value. Each op is built with ``RelayOp.make``, which runs the op's type
relation: results are fully typed, and a mismatch is reported as a :class:`BuildError`
naming the op and the line of user code that built the call.

* ``Var``: a parameter is a block argument (``name_hint`` set from the var's name); a
  ``Let`` variable names the SSA value of its bound expression.
* ``Constant`` → ``relay.constant``; ``Tuple`` → ``relay.tuple`` (only when the tuple is
  used as a whole: projecting a field of a tuple literal gives the field itself);
  ``TupleGetItem`` of an op with several results → that result.
* ``If`` → ``relay.if``: each branch is emitted inside its region, ending in
  ``relay.yield``; values defined before the ``if`` are used directly.
* ``Call`` of a ``GlobalVar`` → ``func.call`` (the callee's type must be known); of a
  ``Function`` → the function is outlined into the module (``<caller>_fn<k>``) and
  called.
* The function returns one value: a tuple result is returned as one ``relay.tuple``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, TypeVar, cast

import numpy as np
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FunctionType,
    IntAttr,
    StringAttr,
    TensorType,
    TupleType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, TypeAttribute
from xdsl.irdl import OptionalDef, VarOperandDef, VarResultDef
from xdsl.utils.exceptions import VerifyException

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import (
    UNKNOWN,
    IncompleteTypeError,
    RelayOp,
    TypeRelationError,
    to_attribute,
)
from xrelay.dialects.relay.base import types_compatible as _types_compatible
from xrelay.dialects.relay.structural import (
    INLINE,
    PRIMITIVE,
    SKIP_OPTIMIZATION,
    ConstantOp,
    IfOp,
    TupleGetItemOp,
    TupleOp,
    YieldOp,
)
from xrelay.frontend.relay.analysis import free_vars
from xrelay.frontend.relay.expr import (
    Call,
    Constant,
    Expr,
    GlobalVar,
    If,
    Let,
    Op,
    ScalarLike,
    Span,
    Tuple,
    TupleGetItem,
    Var,
)
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.ty import to_ir
from xrelay.names import encode_name

FUNCTION_ATTRS: dict[str, str] = {
    "SkipOptimization": SKIP_OPTIMIZATION,
    "Primitive": PRIMITIVE,
    "Inline": INLINE,
}
"""Relay function attributes that become unit attributes on ``func.func``."""


class BuildError(ValueError):
    """The expression cannot be made into IR (a type error, a free variable, ...)."""


class ModuleContext(Protocol):
    """What the emitter needs from the module a function is added to."""

    def function_type(self, name: str) -> Attribute | None:
        """The type of function ``@name``, if known."""
        ...

    def reserve_name(self, base: str) -> str:
        """A fresh function name starting with ``base``."""
        ...

    def holds(self, func: FuncOp) -> bool:
        """Whether ``func`` is one of the module's functions."""
        ...


@dataclass(eq=False)
class Fields:
    """The value of a tuple that has no single SSA value yet: the results of a
    multi-result op, or the fields of a ``Tuple`` literal."""

    values: list[Val]


Val: TypeAlias = SSAValue | Fields


@dataclass
class _Lifted:
    funcs: list[FuncOp] = field(default_factory=list[FuncOp])
    names: dict[Function, tuple[str, FunctionType]] = field(
        default_factory=dict[Function, tuple[str, FunctionType]]
    )
    values: dict[Expr, Val] | None = None
    """When set: every expression emitted (in any function or region) and its value."""


def emit_function(
    fn: Function,
    name: str,
    ctx: ModuleContext | None,
    values: dict[Expr, Val] | None = None,
) -> tuple[FuncOp, list[FuncOp]]:
    """Emit ``fn`` as ``func.func @name``; also returns the outlined local functions
    it calls (to be put in the module before it). ``values`` (when given) receives
    the value of every expression node emitted (what a node's type is read from)."""
    lifted = _Lifted(values=values)
    try:
        func = _Emitter(ctx, lifted, name).function(fn, name)
    except RecursionError:
        raise BuildError(
            f"@{name} is nested too deeply to build (relay.If inside relay.If ...: "
            "Python's recursion limit)"
        ) from None
    return func, lifted.funcs


def sanitize_name(name: str) -> str:
    """The SSA name hint of a relay variable name, reversibly
    (:func:`xrelay.names.encode_name`: ``input:0`` → ``input$3a0``)."""
    return encode_name(name)


def _site(node: Call) -> str:
    if node.site is None:
        return ""
    filename, line = node.site
    return f" (built at {filename.rsplit('/', 1)[-1]}:{line})"


def is_tuple(value: Val) -> bool:
    return isinstance(value, Fields) or isinstance(value.type, TupleType)


class _Emitter:
    def __init__(self, ctx: ModuleContext | None, lifted: _Lifted, name: str):
        self.ctx = ctx
        self.lifted = lifted
        self.name = name
        self.scopes: list[dict[object, Val]] = [{}]
        self.block = Block()

    # -- scopes -------------------------------------------------------------------------

    def lookup(self, key: object) -> Val | None:
        for scope in reversed(self.scopes):
            found = scope.get(key)
            if found is not None:
                return found
        return None

    def record(self, scope: dict[object, Val]) -> None:
        """Keep the values of a scope's expressions (when asked to)."""
        values = self.lifted.values
        if values is not None:
            values.update((k, v) for k, v in scope.items() if isinstance(k, Expr))

    def value(self, node: Expr) -> Val:
        found = self.lookup(node)
        assert found is not None, f"{node!r} was not emitted"
        return found

    def add(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    # -- the function -------------------------------------------------------------------

    def function(self, fn: Function, name: str) -> FuncOp:
        arg_types: list[Attribute] = []
        for p in fn.params:
            # untyped: Relay's IncompleteType, solved by InferType from its uses
            arg_types.append(
                UNKNOWN if p.type_annotation is None else to_ir(p.type_annotation)
            )
        if len(set(fn.params)) != len(fn.params):
            raise BuildError(f"@{name} has the same relay.Var twice in its parameters")
        free = free_vars(fn)
        if free:
            names = ", ".join(f"%{v.name_hint}" for v in free)
            raise BuildError(
                f"@{name} has free variables {names}: add them to the function's "
                "parameters (IRModule.from_expr(expr) makes them parameters of main)"
            )
        self.block = Block(arg_types=arg_types)
        for p, arg in zip(fn.params, self.block.args, strict=True):
            arg.name_hint = sanitize_name(p.name_hint)
            self.scopes[0][p] = arg
        body = self.emit(fn.body)
        self.record(self.scopes[0])
        if fn.returns_fields and isinstance(body, Fields) and len(body.values) > 1:
            results = [self.single(v) for v in body.values]  # several results
        else:
            results = [self.single(body)]
        self.add(ReturnOp(*results))
        out_types = [r.type for r in results]
        if fn.ret_type is not None:
            declared = to_ir(fn.ret_type)
            actual = (
                out_types[0] if len(out_types) == 1 else TupleType(cast(Any, out_types))
            )
            if not _types_compatible(declared, actual):
                raise BuildError(
                    f"@{name} declares return type {declared} but its body has type "
                    f"{actual}"
                )
        func = FuncOp(name, (arg_types, out_types), Region(self.block))
        for key, attr_value in fn.attrs.items():
            if key in FUNCTION_ATTRS:
                if attr_value:
                    func.attributes[FUNCTION_ATTRS[key]] = UnitAttr()
            else:
                func.attributes[key] = to_attribute(attr_value)
        return func

    # -- expressions --------------------------------------------------------------------

    def emit(self, root: Expr) -> Val:
        """Emit ``root`` (and what it needs) into the current block; its value."""
        stack: list[tuple[Expr, int]] = [(root, 0)]
        while stack:
            node, phase = stack.pop()
            if phase == 0 and self.lookup(node) is not None:
                continue
            if isinstance(node, Let):
                if phase == 0:
                    stack += [(node, 1), (node.value, 0)]
                elif phase == 1:
                    bound = self.value(node.value)
                    self.check_annotation(node.var, bound)
                    if isinstance(bound, SSAValue) and not isinstance(
                        bound.owner, Block
                    ):
                        bound.name_hint = sanitize_name(node.var.name_hint)
                    self.scopes[-1][node.var] = bound
                    stack += [(node, 2), (node.body, 0)]
                else:
                    self.scopes[-1][node] = self.value(node.body)
                continue
            if phase == 0:
                stack.append((node, 1))
                stack.extend((d, 0) for d in reversed(self.deps(node)))
            else:
                self.scopes[-1][node] = self.emit_node(node)
        return self.value(root)

    def check_annotation(self, var: Var, value: Val) -> None:
        """A Let variable's type annotation must agree with its value's type."""
        if var.type_annotation is None:
            return
        declared = to_ir(var.type_annotation)
        actual = self.single(value).type
        if not _types_compatible(declared, actual):
            raise BuildError(
                f"let %{var.name_hint} is annotated {declared} but is bound to a value "
                f"of type {actual}"
            )

    def deps(self, node: Expr) -> list[Expr]:
        """What must be emitted before ``node`` (If branches are emitted in regions)."""
        if isinstance(node, Call):
            return node.args
        if isinstance(node, Tuple):
            return node.fields
        if isinstance(node, TupleGetItem):
            return [node.tuple_value]
        if isinstance(node, If):
            return [node.cond]
        if isinstance(node, ScalarLike):
            return [node.like]
        return []

    def emit_node(self, node: Expr) -> Val:
        if isinstance(node, Call):
            return self.call(node)
        if isinstance(node, Constant):
            return self.add(ConstantOp(np.asarray(node.data))).results[0]
        if isinstance(node, Tuple):
            return Fields([self.value(f) for f in node.fields])
        if isinstance(node, TupleGetItem):
            return self.tuple_get_item(node)
        if isinstance(node, If):
            return self.if_(node)
        if isinstance(node, ScalarLike):
            return self.scalar_like(node)
        if isinstance(node, Var):
            raise BuildError(
                f"%{node.name_hint} is not bound here (a free variable of @{self.name}, "
                "or a Let variable used outside its body)"
            )
        if isinstance(node, GlobalVar):
            raise BuildError(
                f"@{node.name_hint} is used as a value: functions can only be called"
            )
        if isinstance(node, Function):
            raise BuildError(
                "a local relay.Function is used as a value: functions can only be "
                "called (closures are not supported)"
            )
        raise BuildError(f"cannot emit {node!r}")

    # -- tuples -------------------------------------------------------------------------

    def single(self, value: Val) -> SSAValue:
        """One SSA value: a tuple without one is materialised as ``relay.tuple``."""
        if isinstance(value, SSAValue):
            return value
        found = self.lookup(value)
        if isinstance(found, SSAValue):
            return found
        op = _make(TupleOp, [self.single(v) for v in value.values], {})
        result = self.add(op).results[0]
        self.scopes[-1][value] = result
        return result

    def fields(self, value: Val, what: str) -> list[Val]:
        """The fields of a tuple value."""
        if isinstance(value, Fields):
            return value.values
        if not isinstance(value.type, TupleType):
            raise BuildError(
                f"{what} expects a tuple, got a value of type {value.type}"
            )
        return [self.project(value, i) for i in range(len(value.type.types.data))]

    def project(self, value: SSAValue, index: int) -> SSAValue:
        if isinstance(value.owner, TupleOp):
            return value.owner.operands[index]
        key = (value, index)
        found = self.lookup(key)
        if isinstance(found, SSAValue):
            return found
        result = self.add(TupleGetItemOp.make([value], {"index": index})).results[0]
        self.scopes[-1][key] = result
        return result

    def tuple_get_item(self, node: TupleGetItem) -> Val:
        value = self.value(node.tuple_value)
        if isinstance(value, SSAValue) and not isinstance(value.type, TupleType):
            raise BuildError(
                f"TupleGetItem({node.index}) of a value of type {value.type}, which is "
                "not a tuple"
            )
        size = (
            len(value.values)
            if isinstance(value, Fields)
            else len(cast(TupleType, value.type).types.data)
        )
        if not 0 <= node.index < size:
            raise BuildError(
                f"TupleGetItem index {node.index} is out of range for a tuple of "
                f"{size} fields"
            )
        if isinstance(value, Fields):
            return value.values[node.index]
        return self.project(value, node.index)

    # -- constants ----------------------------------------------------------------------

    def scalar_like(self, node: ScalarLike) -> Val:
        like = self.single(self.value(node.like))
        if not isinstance(like.type, TensorType):
            raise BuildError(
                f"the scalar {node.value!r} takes its dtype from a value of type "
                f"{like.type}, which is not a tensor"
            )
        npd = dtypes.numpy_dtype(cast(TensorType[Attribute], like.type).element_type)
        return self.add(ConstantOp(np.array(node.value, dtype=npd))).results[0]

    # -- if -----------------------------------------------------------------------------

    def if_(self, node: If) -> Val:
        cond = self.single(self.value(node.cond))
        cty = cond.type
        if not (
            isinstance(cty, TensorType)
            and not cast(TensorType[Attribute], cty).get_shape()
            and dtypes.is_bool(cast(TensorType[Attribute], cty).element_type)
        ):
            raise BuildError(f"the condition of relay.If must be a 0-d bool, got {cty}")
        regions: list[Region] = []
        types: list[Attribute] = []
        for branch in (node.true_branch, node.false_branch):
            outer = self.block
            self.block = Block()
            self.scopes.append({})
            try:
                result = self.single(self.emit(branch))
                self.add(YieldOp.create(operands=[result]))
            finally:
                self.record(self.scopes.pop())
                block, self.block = self.block, outer
            regions.append(Region(block))
            types.append(result.type)
        if types[0] != types[1]:
            raise BuildError(
                f"the branches of relay.If have different types: {types[0]} and "
                f"{types[1]}"
            )
        return self.add(IfOp(cond, [types[0]], regions[0], regions[1])).results[0]

    # -- calls --------------------------------------------------------------------------

    def call(self, node: Call) -> Val:
        callee = node.op
        if isinstance(callee, Op):
            return self.call_op(node, callee)
        args = [self.single(self.value(a)) for a in node.args]
        if isinstance(callee, GlobalVar):
            ftype = self.global_type(callee)
            return self.call_func(node, callee.name_hint, ftype, args)
        if isinstance(callee, Function):
            name, ftype = self.lift(callee)
            return self.call_func(node, name, ftype, args)
        raise BuildError(
            f"cannot call {callee!r}{_site(node)}: only operators, GlobalVars and "
            "relay.Functions can be called"
        )

    def global_type(self, gv: GlobalVar) -> FunctionType:
        ftype = None if self.ctx is None else self.ctx.function_type(gv.name_hint)
        if ftype is None:
            ftype = gv._type  # pyright: ignore[reportPrivateUsage]
        if not isinstance(ftype, FunctionType):
            raise BuildError(
                f"the type of @{gv.name_hint} is not known: add it to the module first"
            )
        return ftype

    def call_func(
        self, node: Call, name: str, ftype: FunctionType, args: list[SSAValue]
    ) -> Val:
        inputs = ftype.inputs.data
        if len(inputs) != len(args):
            raise BuildError(
                f"@{name} takes {len(inputs)} arguments, {len(args)} given{_site(node)}"
            )
        for i, (arg, ty) in enumerate(zip(args, inputs, strict=True)):
            if not _types_compatible(ty, arg.type):
                raise BuildError(
                    f"argument #{i} of the call to @{name}{_site(node)} has type "
                    f"{arg.type} but @{name} expects {ty}"
                )
        call = self.add(CallOp(name, args, list(ftype.outputs.data)))
        if len(call.results) != 1:  # a multi-result function: a tuple of them
            return Fields(list(call.results))
        return call.results[0]

    def lift(self, fn: Function) -> tuple[str, FunctionType]:
        known = self.lifted.names.get(fn)
        if known is not None:
            return known
        if self.ctx is None:
            raise BuildError(
                "calling a local relay.Function needs a module to outline it into: "
                "use IRModule.from_expr"
            )
        func_op = getattr(fn, "func_op", None)
        if isinstance(func_op, FuncOp) and self.ctx.holds(func_op):
            # a view of a function of this module (a fused kernel the body of
            # mod["main"] calls): called where it is
            known = (func_op.sym_name.data, func_op.function_type)
            self.lifted.names[fn] = known
            return known
        name = self.ctx.reserve_name(f"{self.name}_fn")
        if isinstance(func_op, FuncOp):  # a view of another module's function: copied
            func = func_op.clone()
            func.sym_name = StringAttr(name)
        else:
            sub = _Emitter(self.ctx, self.lifted, name)
            func = sub.function(fn, name)
        self.lifted.funcs.append(func)
        self.lifted.names[fn] = (name, func.function_type)
        return name, func.function_type

    def call_op(self, node: Call, op: Op) -> Val:
        from xrelay.dialects.relay import OPS_BY_NAME

        cls = OPS_BY_NAME.get(op.ir_name)
        if cls is None:
            raise BuildError(
                f"{op.ir_name}{_site(node)} is not available: the relay dialect does "
                "not define this op"
            )
        definition = cls.get_irdl_definition()
        values = [self.value(a) for a in node.args]
        operand_defs = [d for _, d in definition.operands]
        variadic = [d for d in operand_defs if isinstance(d, VarOperandDef)]
        if (
            len(operand_defs) == 1
            and variadic
            and len(values) == 1
            and is_tuple(values[0])
        ):
            operands = [self.single(v) for v in self.fields(values[0], cls.name)]
        else:
            operands = [self.single(v) for v in values]
            if not variadic and len(operands) != len(operand_defs):
                raise BuildError(
                    f"{cls.name}{_site(node)} takes {len(operand_defs)} operands, "
                    f"{len(operands)} given"
                )
        attrs = self.clean_attrs(cls, node)
        try:
            ir_op = _make(cls, operands, attrs)
            if _is_incomplete_op(ir_op):
                pass
            elif type(ir_op).verify_ is not RelayOp.verify_:
                ir_op.verify_()  # op-specific checks beyond the type relation
        except (TypeRelationError, VerifyException, TypeError, ValueError) as e:
            message = str(e).removeprefix(f"{cls.name}: ")
            types = ", ".join(str(o.type) for o in operands)
            raise BuildError(
                f"{cls.name}{_site(node)}: {message} [operand types: {types}]"
            ) from e
        span = node.span
        if isinstance(span, Span):  # TVM's Call(span=...): the op's location
            ir_op.location = FileLineColLoc(
                StringAttr(span.source_name.name),
                IntAttr(span.line),
                IntAttr(span.column),
            )
        self.add(ir_op)
        if len(ir_op.results) != 1 or any(
            isinstance(d, VarResultDef) for _, d in definition.results
        ):  # Relay gives a tuple: split, batch_norm, dropout
            return Fields(list(ir_op.results))
        return ir_op.results[0]

    @staticmethod
    def clean_attrs(op_cls: type[RelayOp], node: Call) -> dict[str, object]:
        """The call's attributes for ``make``: ``None`` (Relay's "unset") is dropped,
        and so is ``""`` for an attribute that may be absent (Relay's "same as the
        input", e.g. ``out_dtype=""``)."""
        props = op_cls.get_irdl_definition().properties
        attrs: dict[str, object] = {}
        for key, value in node.attrs.items():
            if value is None:
                continue
            prop = props.get(key)
            if isinstance(value, str) and value == "":
                if (
                    prop is None
                    or isinstance(prop, OptionalDef)
                    or prop.default_value is not None
                ):
                    continue
            attrs[key] = _plain(value)
        return attrs


_OpT = TypeVar("_OpT", bound=RelayOp)


def _make(
    cls: type[_OpT], operands: Sequence[SSAValue], attrs: dict[str, object]
) -> _OpT:
    """``cls.make``; an operand of unknown type (an untyped relay.var, solved by
    InferType) gives results of unknown type instead of an error."""
    try:
        return cls.make(operands, attrs)
    except IncompleteTypeError:
        if not any(isinstance(o.type, UnrankedTensorType) for o in operands):
            raise
        if cls is TupleOp:  # a tuple of values of unknown types: still a tuple
            fields = tuple(cast(TypeAttribute, o.type) for o in operands)
            return cls.make(operands, attrs, result_types=[TupleType(fields)])
        n_results = len(cls.get_irdl_definition().results)
        return cls.make(operands, attrs, result_types=[UNKNOWN] * n_results)


def _is_incomplete_op(op: Operation) -> bool:
    return any(isinstance(r.type, UnrankedTensorType) for r in op.results)


def _plain(value: Any) -> object:
    """Attribute values as plain Python (tuples of numpy ints → lists of ints)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in cast(Sequence[Any], value)]
    if isinstance(value, np.integer):
        return int(cast(Any, value))
    if isinstance(value, np.floating):
        return float(cast(Any, value))
    return value
