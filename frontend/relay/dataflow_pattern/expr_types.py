"""The types of the nodes of an expression, for ``has_type`` / ``has_shape`` /
``has_dtype`` and callbacks with ``require_type``: the expression is built as a
function (its free variables as parameters, as ``IRModule.from_expr`` does), the
type of each node is its value's type in the IR, and InferType fills in what untyped
variables leave open. Computed on first use, once per expression."""

from __future__ import annotations

from typing import Any, cast

from xdsl.dialects.builtin import ModuleOp, TupleType, UnrankedTensorType
from xdsl.ir import Attribute, BlockArgument, OpResult, SSAValue, TypeAttribute

from xrelay.frontend.relay.analysis import free_vars
from xrelay.frontend.relay.emitter import BuildError, Fields, Val, emit_function
from xrelay.frontend.relay.expr import Expr
from xrelay.frontend.relay.expr_functor import Node
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.function_view import FunctionView
from xrelay.frontend.relay.module import IRModule
from xrelay.frontend.relay.ty import TypeLike, from_ir


class ExprTypes:
    """``type_of(node)`` for the nodes of ``root`` (``None`` for a node without a
    value type: an operator, a function)."""

    def __init__(self, root: Expr):
        self.root = root
        self._values: dict[Expr, Val] | None = None

    def _build(self) -> dict[Expr, Val]:
        if self._values is not None:
            return self._values
        root = self.root
        if isinstance(root, FunctionView):
            fn = Function(root.params, root.body, attrs=dict(root.attrs))
        elif isinstance(root, Function):
            fn = root
        else:
            fn = Function(free_vars(root), root)
        mod = IRModule()
        values: dict[Expr, Val] = {}
        func, lifted = emit_function(fn, "main", mod, values)
        mod.module.body.block.add_ops([*lifted, func])
        if any(_incomplete(v) for v in values.values()):
            from xrelay.transforms.infer_type import infer_types

            infer_types(mod.module)
            values = {k: _current(v) for k, v in values.items()}
        self._module: ModuleOp = mod.module  # keeps the values alive
        self._values = values
        return values

    def type_of(self, node: Node) -> TypeLike | None:
        """The type of ``node``; raises ``BuildError`` when the expression cannot be
        typed."""
        if isinstance(node, FunctionView):
            return node.checked_type
        if not isinstance(node, Expr):
            return None
        value = self._build().get(node)
        if value is None:
            return None
        ty = _type(value)
        return None if ty is None else from_ir(ty)

    def try_type_of(self, node: Node) -> TypeLike | None:
        """The type of ``node``, or ``None`` when the expression cannot be typed."""
        try:
            return self.type_of(node)
        except BuildError:
            return None


def _type(value: Val) -> Attribute | None:
    if isinstance(value, SSAValue):
        return value.type
    fields = [_type(v) for v in value.values]
    if any(f is None for f in fields):
        return None
    return TupleType(tuple(cast(TypeAttribute, f) for f in fields))


def _incomplete(value: Val) -> bool:
    if isinstance(value, Fields):
        return any(_incomplete(v) for v in value.values)
    return isinstance(value.type, UnrankedTensorType)


def _current(value: Val) -> Val:
    """The value as it is after InferType (which replaces the values whose type it
    changes)."""
    if isinstance(value, Fields):
        return Fields([_current(v) for v in value.values])
    if isinstance(value, OpResult):
        return value.op.results[value.index]
    if isinstance(value, BlockArgument):
        return value.block.args[value.index]
    return value


def annotate(types: ExprTypes, nodes: list[Any]) -> None:
    """Set ``checked_type`` on ``nodes`` (what a callback with ``require_type``
    reads, as after Relay's InferType)."""
    for node in nodes:
        if isinstance(node, Function) or not isinstance(node, Expr):
            continue
        ty = types.type_of(node)
        if ty is None:
            continue
        try:
            node.checked_type = ty  # pyright: ignore[reportAttributeAccessIssue]
        except AttributeError:  # a node whose checked_type is a property
            pass
