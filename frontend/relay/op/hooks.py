"""TVM's op attribute hooks for the layout passes, on top of the hooks the op classes
declare (:mod:`xrelay.dialects.relay.op_attrs` holds the registrations):

    @relay.op.register_alter_op_layout("nn.conv2d", level=101)
    def alter_conv2d(attrs, inputs, tinfos, out_type):
        new_attrs = dict(attrs)
        new_attrs["data_layout"] = "NHWC"
        ...
        return relay.nn.conv2d(*inputs, **new_attrs)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        mod = relay.transform.AlterOpLayout()(mod)

* ``register_alter_op_layout(op, fn)``: ``fn(attrs, inputs, tinfos, out_type)``;
* ``register_convert_op_layout(op, fn)``: ``fn(attrs, inputs, tinfos, desired_layouts)``;
  both return a relay expression, or ``None`` to keep the op;
* ``register_infer_correct_layout(op, fn)``: ``fn(attrs, new_in_layouts,
  old_in_layouts, old_in_types)`` returns :class:`InferCorrectLayoutOutput` (or
  ``None``: the op cannot adapt).

``attrs`` are the op's attributes as Python values (defaults included), ``inputs``
relay Vars standing for the operands, ``tinfos`` / ``out_type`` / ``old_in_types``
their ``TensorType``s, layouts :class:`~xrelay.dialects.relay.layout.Layout`s (``None``
where unknown).

As in TVM, a hook returns a call of ONE operator (the rewriter inserts the layout
transforms around it) with as many arguments as the op has operands; an argument may
be an expression over the hook's ``inputs`` (``relay.multiply(weight, 2.0)``), built
before the op and standing where the input of its position stood. Anything else is
a :class:`LayoutHookError` naming the op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from xdsl.ir import Attribute, Operation, SSAValue

from xrelay.dialects.relay import frontend_calls
from xrelay.dialects.relay.base import RelayOp, TypeRelationError
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import (
    InferredLayouts,
    MaybeLayout,
    OperandBuilder,
    Replacement,
)
from xrelay.dialects.relay.op_attrs import (
    ALTER_OP_LAYOUT,
    CONVERT_OP_LAYOUT,
    INFER_CORRECT_LAYOUT,
    TempOpAttr,
    get_op_attr,
    register_op_attr,
)
from xrelay.dialects.relay.testing import placeholders
from xrelay.frontend.relay.expr import (
    Attrs,
    Call,
    Expr,
    Op,
    TupleWrapper,
    Var,
    to_expr,
)
from xrelay.frontend.relay.lift import Lifter, attr_value
from xrelay.frontend.relay.ty import TypeLike, from_ir

__all__ = [
    "InferCorrectLayoutOutput",
    "LayoutHookError",
    "TempOpAttr",
    "get_op_attr",
    "register",
    "register_alter_op_layout",
    "register_convert_op_layout",
    "register_infer_correct_layout",
]

_F = TypeVar("_F", bound=Callable[..., Any])


class LayoutHookError(ValueError):
    """A registered layout hook returned something the layout passes cannot use."""


class InferCorrectLayoutOutput:
    """What an ``FInferCorrectLayout`` hook returns: the layouts the op wants for its
    inputs and gives its outputs (``Layout``s or strings), and its attributes (all of
    them, or only the changed ones)."""

    def __init__(
        self,
        input_layouts: Sequence[Layout | str],
        output_layouts: Sequence[Layout | str],
        new_attrs: Any = None,
    ):
        self.input_layouts = list(input_layouts)
        self.output_layouts = list(output_layouts)
        self.new_attrs = dict(new_attrs or {})


def _registrar(attr_key: str) -> Callable[..., Any]:
    def register_hook(
        op_name: str, fn: Callable[..., Any] | None = None, level: int = 10
    ) -> Any:
        def decorate(f: _F) -> _F:
            register_op_attr(op_name, attr_key, f, level)
            return f

        return decorate if fn is None else decorate(fn)  # pyright: ignore[reportArgumentType]

    return register_hook


register_alter_op_layout = _registrar(ALTER_OP_LAYOUT)
"""``register_alter_op_layout(op_name, fn=None, level=10)``, a decorator without
``fn`` (TVM's ``relay.op.register_alter_op_layout``)."""
register_convert_op_layout = _registrar(CONVERT_OP_LAYOUT)
"""TVM's ``relay.op.register_convert_op_layout``."""
register_infer_correct_layout = _registrar(INFER_CORRECT_LAYOUT)
"""TVM's ``relay.op.register_infer_correct_layout``."""


def register(op_name: str, attr_key: str, value: Any = None, level: int = 10) -> Any:
    """TVM's ``tvm.ir.register_op_attr`` (a decorator without ``value``)."""
    return _registrar(attr_key)(op_name, value, level)


# ---------------------------------------------------------------------------------------
# adapters called by the layout passes
# ---------------------------------------------------------------------------------------


def _attrs(op: RelayOp) -> Attrs:
    return Attrs({k: attr_value(v) for k, v in op.properties.items()})


def _inputs(types: Sequence[Attribute]) -> tuple[list[Var], list[TypeLike]]:
    tinfos = [from_ir(t) for t in types]
    return [Var(f"arg{i}", t) for i, t in enumerate(tinfos)], tinfos


def _replacement(
    result: Any, inputs: Sequence[Var], types: Sequence[Attribute], op: RelayOp
) -> RelayOp | Replacement | None:
    """The detached op a hook's result stands for."""
    from xrelay.dialects.relay import OPS_BY_NAME
    from xrelay.frontend.relay.emitter import _Emitter  # pyright: ignore[reportPrivateUsage]

    if result is None:
        return None
    expr = to_expr(result) if isinstance(result, TupleWrapper) else result
    what = f"the layout hook of {op.name}"
    if not isinstance(expr, Call) or not isinstance(expr.op, Op):
        raise LayoutHookError(
            f"{what} must return a call of one operator on its inputs (or None), got "
            f"{expr!r}"
        )
    if len(expr.args) != len(inputs):
        raise LayoutHookError(
            f"{what} returned {expr.op.name} on {len(expr.args)} arguments, but the op "
            f"has {len(inputs)} operands: xrelay's layout passes replace one op by one "
            "op with its operands in the same positions"
        )
    cls = OPS_BY_NAME.get(expr.op.ir_name)
    if cls is None:
        raise LayoutHookError(f"{what} returned an unknown op {expr.op.name}")
    attrs = _Emitter.clean_attrs(cls, expr)
    try:
        # typed later by the rewriter, on the operands in their new layouts
        new = op.layout_variant(cls, attrs)
    except (TypeError, ValueError) as e:
        raise LayoutHookError(f"{what} returned an invalid {cls.name}: {e}") from e
    if all(a is b for a, b in zip(expr.args, inputs, strict=True)):
        return new
    return Replacement(new, _operand_builder(list(expr.args), inputs, what))


def _operand_builder(
    args: Sequence[Expr], inputs: Sequence[Var], what: str
) -> OperandBuilder:
    """Builds the hook's argument expressions on the op's operand values."""
    from xrelay.frontend.relay.emitter import (
        BuildError,
        _Emitter,  # pyright: ignore[reportPrivateUsage]
        _Lifted,  # pyright: ignore[reportPrivateUsage]
    )

    def build(values: Sequence[SSAValue]) -> tuple[list[Operation], list[SSAValue]]:
        emitter = _Emitter(None, _Lifted(), "layout_hook")
        emitter.scopes[0].update(zip(inputs, values, strict=True))
        try:
            out = [emitter.single(emitter.emit(a)) for a in args]
        except BuildError as e:
            raise LayoutHookError(
                f"{what} returned arguments that do not build: {e}"
            ) from e
        ops = list(emitter.block.ops)
        for new in ops:
            emitter.block.detach_op(new)
        return ops, out

    return build


def run_alter_hook(
    fn: Callable[..., Any], op: RelayOp, types: Sequence[Attribute]
) -> RelayOp | Replacement | None:
    """Call a TVM-style ``FTVMAlterOpLayout`` function for ``op``."""
    inputs, tinfos = _inputs(types)
    try:
        made = type(op).make(placeholders(*types), dict(op.properties))
        out_types = [from_ir(r.type) for r in made.results]
    except (TypeRelationError, TypeError, ValueError):
        out_types = []
    out_type = out_types[0] if len(out_types) == 1 else out_types
    return _replacement(fn(_attrs(op), inputs, tinfos, out_type), inputs, types, op)


def run_convert_hook(
    fn: Callable[..., Any],
    op: RelayOp,
    types: Sequence[Attribute],
    desired: Sequence[str],
) -> RelayOp | Replacement | None:
    """Call a TVM-style ``FTVMConvertOpLayout`` function for ``op``."""
    inputs, tinfos = _inputs(types)
    result = fn(_attrs(op), inputs, tinfos, list(desired))
    return _replacement(result, inputs, types, op)


def _layout(value: Layout | str) -> Layout:
    return value if isinstance(value, Layout) else Layout.parse(str(value))


def run_infer_hook(
    fn: Callable[..., Any],
    op: RelayOp,
    new: Sequence[MaybeLayout] | None,
    old: Sequence[MaybeLayout],
    types: Sequence[Attribute],
) -> InferredLayouts | None:
    """Call a TVM-style ``FInferCorrectLayout`` function for ``op``."""
    out = fn(
        _attrs(op),
        list(new) if new is not None else None,
        list(old),
        [from_ir(t) for t in types],
    )
    if out is None:
        return None
    if not isinstance(out, InferCorrectLayoutOutput):
        raise LayoutHookError(
            f"the FInferCorrectLayout hook of {op.name} must return an "
            f"InferCorrectLayoutOutput, got {out!r}"
        )
    current = _attrs(op)
    changed = {k: v for k, v in out.new_attrs.items() if current.get(k) != v}
    layouts: list[object] = [*out.input_layouts, *out.output_layouts]
    if any(x is None or str(x) == "" for x in layouts):
        # an undefined layout (TVM's Layout("")): the hook knows no layout here,
        # so the op keeps its operands in their original layouts
        return None
    return InferredLayouts(
        tuple(_layout(x) for x in out.input_layouts),
        tuple(_layout(x) for x in out.output_layouts),
        changed,
    )


frontend_calls.install(frontend_calls.RUN_ALTER_HOOK, run_alter_hook)
frontend_calls.install(frontend_calls.RUN_CONVERT_HOOK, run_convert_hook)
frontend_calls.install(frontend_calls.RUN_INFER_HOOK, run_infer_hook)
frontend_calls.install(frontend_calls.LIFTER, Lifter)
