"""``FunctionView``: a ``func.func`` seen as a ``relay.Function``.

``mod["main"]`` and ``mod[GlobalVar]`` return one. It is a :class:`Function` (so
``IRModule.from_expr``, ``relay.Call``, ``relay.Function(f.params, f.body)``,
``free_vars`` and ``post_order_visit`` take it) whose ``params`` and ``body`` are
lifted from the IR on first use (:mod:`xrelay.frontend.relay.lift`). ``func_op`` is
the ``func.func`` itself; other attributes (``walk``, ``function_type``,
``sym_name``, ...) are the ``func.func``'s. Note that ``.body`` is Relay's body (an
expression); the region is ``view.func_op.body`` (``.body.block`` and
``.body.blocks`` still give the region's, for code written against the
``func.func``).

Putting a view in a module (``mod2["main"] = view``) copies its ``func.func``
exactly; ``with_attr`` gives a view of a copy with the attribute set.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import UnitAttr
from xdsl.dialects.func import FuncOp

from xrelay.dialects.relay.base import to_attribute
from xrelay.frontend.relay.expr import Attrs, Expr, Var
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.lift import function_attrs, lift_function
from xrelay.frontend.relay.ty import FuncType, TypeLike, from_ir

_UNIT_ATTRS = {
    "SkipOptimization": "relay.skip_optimization",
    "Primitive": "relay.primitive",
    "Inline": "relay.inline",
}


class FunctionView(Function):
    """A relay Function over a ``func.func`` (see the module docstring)."""

    def __init__(self, func_op: FuncOp, param_vars: list[Var] | None = None):  # pylint: disable=super-init-not-called
        self.func_op = func_op
        self._param_vars = param_vars
        """The relay Vars the function was built with (by its IRModule): a parameter
        with the same name and type lifts as that Var, so the free variables of the
        body are the caller's (as in TVM, where the module holds the Var itself)."""
        self._lifted: tuple[list[Var], Expr] | None = None
        self.type_params = None
        self.span = None
        self.returns_fields = len(func_op.function_type.outputs.data) > 1

    # -- Relay's fields -----------------------------------------------------------------

    def _lift(self) -> tuple[list[Var], Expr]:
        if self._lifted is None:
            self._lifted = lift_function(self.func_op, self._param_vars)
        return self._lifted

    @property
    def params(self) -> list[Var]:  # pyright: ignore[reportIncompatibleVariableOverride]
        return self._lift()[0]

    @property
    def body(self) -> Expr:  # pyright: ignore[reportIncompatibleVariableOverride]
        body = self._lift()[1]
        # code written against the func.func reads ``f.body.block`` / ``.blocks``:
        # the lifted body answers those with the region's (use ``f.func_op.body``)
        region = self.func_op.body
        body.__dict__["block"] = region.block
        body.__dict__["blocks"] = region.blocks
        return body

    @property
    def ret_type(self) -> TypeLike:  # pyright: ignore[reportIncompatibleVariableOverride]
        outputs = self.func_op.function_type.outputs.data
        return (
            from_ir(outputs[0])
            if len(outputs) == 1
            else from_ir(self.func_op.function_type)
        )

    @property
    def checked_type(self) -> FuncType:  # pyright: ignore[reportIncompatibleMethodOverride]
        ty = from_ir(self.func_op.function_type)
        assert isinstance(ty, FuncType)
        return ty

    @property
    def attrs(self) -> Attrs:  # pyright: ignore[reportIncompatibleVariableOverride]
        return Attrs(function_attrs(self.func_op))

    @property
    def name_hint(self) -> str:
        return self.func_op.sym_name.data

    def with_attr(
        self, attr_key_or_dict: str | dict[str, Any], attr_value: Any = None
    ) -> FunctionView:
        items = (
            attr_key_or_dict
            if isinstance(attr_key_or_dict, dict)
            else {attr_key_or_dict: attr_value}
        )
        func = self.func_op.clone()
        for key, value in items.items():
            if key in _UNIT_ATTRS:
                if value:
                    func.attributes[_UNIT_ATTRS[key]] = UnitAttr()
                else:
                    func.attributes.pop(_UNIT_ATTRS[key], None)
            else:
                func.attributes[key] = to_attribute(value)
        return FunctionView(func)

    def without_attr(self, attr_key: str) -> FunctionView:
        func = self.func_op.clone()
        func.attributes.pop(_UNIT_ATTRS.get(attr_key, attr_key), None)
        return FunctionView(func)

    # -- the func.func ------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("func_op", "_lifted"):
            raise AttributeError(name)
        return getattr(self.func_op, name)

    def astext(self, show_meta_data: bool = True, fmt: str = "mlir") -> str:
        """This function (and the functions it calls) as a module's text."""
        from xrelay.frontend.relay.module import IRModule

        mod = IRModule()
        mod["main"] = self
        return mod.astext(show_meta_data=show_meta_data, fmt=fmt)

    def _short(self) -> str:
        return f"FunctionView(@{self.func_op.sym_name.data})"
