"""``relay.Function``: parameters, a body and attributes.

A Function is still a lazy expression: its ``func.func`` is made when it is put in an
IRModule (``mod["f"] = func``, ``IRModule.from_expr(func)``) or asked for with
:meth:`Function.to_func_op`. A Function whose result is a tuple returns ONE
tuple-typed value (a ``relay.tuple``), so every Relay function has one result.

Function attributes with a meaning for passes become unit attributes on the
``func.func``: ``SkipOptimization`` → ``relay.skip_optimization``, ``Primitive`` →
``relay.primitive``, ``Inline`` → ``relay.inline`` (set when the value is true). Other
attributes are kept under their own name (``Composite = "..."``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from xrelay.frontend.relay.expr import Attrs, Expr, TupleWrapper, Var, to_expr
from xrelay.frontend.relay.ty import TypeLike

if TYPE_CHECKING:
    from xdsl.dialects.func import FuncOp


class Function(Expr):
    """A function: ``params`` (relay Vars with types), ``body``, optional
    ``ret_type`` (checked against the body's type) and ``attrs``."""

    def __init__(
        self,
        params: Sequence[Var],
        body: Expr | TupleWrapper,
        ret_type: TypeLike | None = None,
        type_params: Any = None,
        attrs: dict[str, Any] | None = None,
        span: Any = None,
    ):
        self.params: list[Var] = list(params)
        for p in self.params:
            if not isinstance(cast(object, p), Var):
                raise TypeError(f"function parameters must be relay.Var, got {p!r}")
        self.body: Expr = to_expr(body)
        self.ret_type = ret_type
        self.type_params = type_params
        self.attrs = Attrs(attrs or {})
        self.span = span
        self.returns_fields = False
        """Set by the Relay text parser for a body ending in a tuple literal: the
        function returns the fields as several results (xrelay's multi-result
        ``func.func``), not one tuple value."""

    def _implied_type(self) -> Any:
        """``FuncType(param types, body type)`` once those are checked."""
        from xrelay.frontend.relay.ty import FuncType

        try:
            args = [p.checked_type for p in self.params]
            ret = self.body.checked_type
        except ValueError:
            return None
        return FuncType(args, ret)

    def with_attr(
        self, attr_key_or_dict: str | dict[str, Any], attr_value: Any = None
    ) -> Function:
        """A copy of the function with the attribute(s) set (TVM's ``with_attr``)."""
        attrs = dict(self.attrs)
        if isinstance(attr_key_or_dict, dict):
            attrs.update(attr_key_or_dict)
        else:
            attrs[attr_key_or_dict] = attr_value
        return Function(self.params, self.body, self.ret_type, None, attrs)

    def without_attr(self, attr_key: str) -> Function:
        attrs = {k: v for k, v in self.attrs.items() if k != attr_key}
        return Function(self.params, self.body, self.ret_type, None, attrs)

    def to_func_op(self, name: str = "main") -> FuncOp:
        """This function alone as a detached ``func.func`` named ``name``.

        Calls to GlobalVars need their types to be known; a call of a local Function
        needs a module (use ``IRModule.from_expr``)."""
        from xrelay.frontend.relay.emitter import emit_function

        # (cast: pyright sees this package under two paths, see the Makefile)
        func, lifted = emit_function(cast(Any, self), name, None)
        if lifted:
            raise ValueError(
                "this function calls local functions, which are outlined into the "
                "module: use IRModule.from_expr(func) instead of to_func_op()"
            )
        return func

    def _short(self) -> str:
        params = ", ".join(f"%{p.name_hint}" for p in self.params)
        return f"Function(({params}), attrs={dict(self.attrs)})"
