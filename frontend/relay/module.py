"""``IRModule``: a ``builtin.module`` of ``func.func`` functions, with TVM's API.

``mod.module`` is the xDSL ``ModuleOp``; ``mod["main"]`` is a
:class:`~xrelay.frontend.relay.function_view.FunctionView`: the ``func.func`` seen as
a ``relay.Function`` (``.params``, ``.body``, ``.ret_type``; ``.func_op`` is the op).
Functions are named by :class:`GlobalVar` (equal when the names are equal).
"""

from __future__ import annotations

from collections.abc import Iterable
from io import StringIO
from typing import Any, cast

from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Attribute
from xdsl.printer import Printer

from xrelay.dialects.relay.dominance import verify_module
from xrelay.dialects.relay.printing import elide_constants
from xrelay.frontend.relay.analysis import free_vars
from xrelay.frontend.relay.emitter import emit_function
from xrelay.frontend.relay.expr import Expr, GlobalVar, TupleWrapper, Var, to_expr
from xrelay.frontend.relay.function import Function
from xrelay.frontend.relay.function_view import FunctionView
from xrelay.frontend.relay.ty import to_ir

FunctionLike = Function | FuncOp
"""What can be put in a module: a relay Function (emitted then) or a ``func.func``."""


class IRModule:
    """A set of functions by name, kept as a ``builtin.module`` (``.module``).

    ``IRModule()`` is empty; ``IRModule({"main": func, gv: func2})`` adds functions;
    ``IRModule(module_op)`` wraps an existing ``builtin.module`` (no copy).
    """

    def __init__(
        self,
        functions: ModuleOp | dict[str | GlobalVar, FunctionLike] | None = None,
        type_definitions: Any = None,
    ):
        self._gvars: dict[str, GlobalVar] = {}
        self._param_vars: dict[str, list[Var]] = {}
        """The relay Vars each function was built with (see FunctionView)."""
        self._pending: dict[str, FunctionType] = {}
        self._reserved: set[str] = set()
        if isinstance(functions, ModuleOp):
            self.module = functions
            return
        self.module = ModuleOp([])
        for key, func in (functions or {}).items():
            self[key] = func

    @staticmethod
    def from_expr(
        expr: Expr | TupleWrapper,
        functions: dict[str | GlobalVar, FunctionLike] | None = None,
        type_defs: Any = None,
    ) -> IRModule:
        """A module whose ``main`` is ``expr`` (a Function), or a function of ``expr``
        with its free variables as parameters (in ``free_vars`` order)."""
        mod = IRModule(functions)
        body = to_expr(expr)
        main = body if isinstance(body, Function) else Function(free_vars(body), body)
        mod["main"] = main
        return mod

    # -- lookup -------------------------------------------------------------------------

    def _funcs(self) -> Iterable[FuncOp]:
        return (op for op in self.module.ops if isinstance(op, FuncOp))

    def _find(self, name: str) -> FuncOp | None:
        for func in self._funcs():
            if func.sym_name.data == name:
                return func
        return None

    @staticmethod
    def _name(key: str | GlobalVar) -> str:
        if isinstance(key, GlobalVar):
            return key.name_hint
        if isinstance(cast(object, key), str):
            return key
        raise TypeError(f"functions are named by str or GlobalVar, got {key!r}")

    def _gvar(self, func: FuncOp) -> GlobalVar:
        name = func.sym_name.data
        gv = self._gvars.get(name)
        if gv is None:
            gv = self._gvars[name] = GlobalVar(name)
        gv._type = func.function_type  # pyright: ignore[reportPrivateUsage]
        return gv

    def __getitem__(self, key: str | GlobalVar) -> FunctionView:
        """The function as a ``relay.Function`` view (``.func_op`` is the op)."""
        return FunctionView(self.func_op(key), self._param_vars.get(self._name(key)))

    def func_op(self, key: str | GlobalVar) -> FuncOp:
        """The ``func.func`` of function ``key``."""
        func = self._find(self._name(key))
        if func is None:
            raise KeyError(
                f"Cannot find global var {self._name(key)!r} in the Module (functions: "
                f"{', '.join(self._names()) or 'none'})"
            )
        return func

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str | GlobalVar):
            return False
        return self._find(self._name(key)) is not None

    def _names(self) -> list[str]:
        return [f.sym_name.data for f in self._funcs()]

    @property
    def functions(self) -> dict[GlobalVar, FunctionView]:
        """The functions by GlobalVar, in module order (as Function views)."""
        return {
            self._gvar(f): FunctionView(f, self._param_vars.get(f.sym_name.data))
            for f in self._funcs()
        }

    def get_global_var(self, name: str) -> GlobalVar:
        """The GlobalVar of function ``name`` (typed: it can be called)."""
        func = self._find(name)
        if func is None:
            raise ValueError(f'Cannot find global var "{name}" in the Module')
        return self._gvar(func)

    def get_global_vars(self) -> list[GlobalVar]:
        return list(self.functions)

    # -- update -------------------------------------------------------------------------

    def __setitem__(self, key: str | GlobalVar, value: FunctionLike) -> None:
        """Add or replace function ``key``; a relay Function is emitted now (its
        GlobalVar calls resolve against this module)."""
        name = self._name(key)
        lifted: list[FuncOp] = []
        params: list[Var] | None = None
        if isinstance(value, FunctionView):  # (not lifted: it may be a declaration)
            params = value._param_vars  # pyright: ignore[reportPrivateUsage]
        elif isinstance(value, Function):
            params = list(value.params)
        if isinstance(value, FunctionView):
            value = value.func_op
            lifted = self._missing_callees(value, name)
        if isinstance(value, Function):
            pre = _declared_type(value)
            if pre is not None:  # lets a function with a declared type call itself
                self._pending[name] = pre
            try:
                func, lifted = emit_function(value, name, self)
            finally:
                self._pending.pop(name, None)
        elif isinstance(cast(object, value), FuncOp):
            func = value.clone() if value.parent is not None else value
            func.sym_name = StringAttr(name)
        else:
            raise TypeError(
                f"a module holds relay.Function or func.func values, got {value!r}"
            )
        if params is not None:
            self._param_vars[name] = params
        else:
            self._param_vars.pop(name, None)
        block = self.module.body.block
        old = self._find(name)
        if old is not None:
            block.insert_ops_before([*lifted, func], old)
            block.erase_op(old)
        else:
            block.add_ops([*lifted, func])
        gv = self._gvar(func)
        if isinstance(key, GlobalVar) and key is not gv:
            key._type = gv._type  # pyright: ignore[reportPrivateUsage]

    def add(
        self, var: str | GlobalVar, func: FunctionLike, update: bool = True
    ) -> IRModule:
        """TVM's ``IRModule.add``; returns the module."""
        if not update and var in self:
            raise ValueError(f"function {self._name(var)!r} is already in the module")
        self[var] = func
        return self

    def update(self, other: IRModule | dict[str | GlobalVar, FunctionLike]) -> None:
        """Add (or replace) every function of ``other``."""
        items: Iterable[tuple[str | GlobalVar, FunctionLike]]
        if isinstance(other, IRModule):
            items = [(gv, f.func_op.clone()) for gv, f in other.functions.items()]
        else:
            items = other.items()
        for key, func in items:
            self[key] = func

    def update_func(self, var: str | GlobalVar, func: FunctionLike) -> None:
        self[var] = func

    def remove(self, var: str | GlobalVar) -> None:
        """Remove function ``var``."""
        self.module.body.block.erase_op(self.func_op(var))
        self._gvars.pop(self._name(var), None)

    def _missing_callees(self, func: FuncOp, name: str) -> list[FuncOp]:
        """Copies of the functions ``func`` calls (transitively) in its own module
        that this module lacks: a function taken from another module brings them."""
        source = func.parent_op()
        if not isinstance(source, ModuleOp) or source is self.module:
            return []
        by_name = {f.sym_name.data: f for f in source.ops if isinstance(f, FuncOp)}
        out: list[FuncOp] = []
        seen = {name, *self._names()}
        stack = [func]
        while stack:
            for op in stack.pop().walk():
                if isinstance(op, CallOp):
                    callee = op.callee.string_value()
                    if callee not in seen and callee in by_name:
                        seen.add(callee)
                        stack.append(by_name[callee])
                        out.append(by_name[callee].clone())
        return out

    # -- for the emitter (ModuleContext) ------------------------------------------------

    def function_type(self, name: str) -> Attribute | None:
        if name in self._pending:
            return self._pending[name]
        func = self._find(name)
        return None if func is None else func.function_type

    def holds(self, func: FuncOp) -> bool:
        return func.parent is self.module.body.block

    def reserve_name(self, base: str) -> str:
        taken = set(self._names()) | self._reserved
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        self._reserved.add(name)
        return name

    # -- text, copies, checks -----------------------------------------------------------

    def inherit_from(self, source: IRModule) -> None:
        """Take over ``source``'s relay Vars (this module was made from it by a
        pass): a parameter that kept its name and type lifts as the same Var."""
        for name, params in source._param_vars.items():
            self._param_vars.setdefault(name, params)

    def import_from_std(self, file_to_import: str) -> None:
        """TVM's standard Relay files: ``core.rly`` declares only the VM's opaque
        ``Storage`` type, of which xrelay has no use (memory allocation is VM-only),
        so importing it adds nothing; the others define the Prelude's algebraic
        data types, which xrelay leaves out (a one-line error)."""
        if file_to_import != "core.rly":
            raise NotImplementedError(
                f"IRModule.import_from_std({file_to_import!r}): Relay's Prelude "
                "(algebraic data types) is not part of xrelay"
            )

    def astext(self, show_meta_data: bool = True, fmt: str = "mlir") -> str:
        """The module as text: MLIR (the default: xrelay's own IR, exact and read
        back by ``xrelay-opt``) or, with ``fmt="relay"``, Relay's text format
        (``#[version = "0.0.5"]``, read back by ``relay.parse``).
        ``show_meta_data=False`` elides large constants (MLIR) or leaves out the
        ``#[metadata]`` section (Relay)."""
        if fmt == "relay":
            from xrelay.frontend.relay.text_printer import to_relay_text

            return to_relay_text(self.module, show_meta_data)
        if fmt != "mlir":
            raise ValueError(f"astext: fmt is 'mlir' or 'relay', not {fmt!r}")
        if show_meta_data:
            return _print(self.module)
        with elide_constants():
            return _print(self.module)

    def __str__(self) -> str:
        with elide_constants():
            return _print(self.module)

    def __repr__(self) -> str:
        return str(self)

    def visualize(
        self, path: str, func: str = "", times: dict[str, float] | None = None
    ) -> str:
        """Write the dataflow graph of ``func`` (default ``main``) as Graphviz DOT,
        or SVG/PNG/PDF by ``path``'s suffix (needs Graphviz's ``dot``); ``times``:
        per-kernel milliseconds colouring the fused kernels
        (:mod:`xrelay.transforms.view_graph`). Returns the path written."""
        from xrelay.transforms.view_graph import write_graph

        return str(write_graph(self.module, path, func, times))

    # -- attributes ---------------------------------------------------------------------

    def with_attr(self, attr_key: str, attr_value: Any) -> IRModule:
        """A copy of the module with attribute ``attr_key`` set (TVM's
        ``with_attr``; see :mod:`xrelay.frontend.relay.module_attrs` for the values
        it takes)."""
        from xrelay.frontend.relay.module_attrs import to_attribute

        made = self.copy()
        made.module.attributes[attr_key] = to_attribute(attr_key, attr_value)
        return made

    def get_attr(self, attr_key: str) -> Any:
        """The attribute's value, or None."""
        from xrelay.frontend.relay.module_attrs import from_attribute

        attr = self.module.attributes.get(attr_key)
        return None if attr is None else from_attribute(attr)

    @property
    def attrs(self) -> dict[str, Any]:
        """Every module attribute by name."""
        from xrelay.frontend.relay.module_attrs import module_attrs

        return module_attrs(self.module)

    def copy(self) -> IRModule:
        """A deep copy (its functions' relay Vars are the same)."""
        made = IRModule(self.module.clone())
        made.inherit_from(self)
        return made

    def verify(self) -> None:
        """Run the IR verifier (raises ``VerifyException``)."""
        verify_module(self.module)


def _declared_type(fn: Function) -> FunctionType | None:
    if fn.ret_type is None or any(p.type_annotation is None for p in fn.params):
        return None
    params = [to_ir(p.type_annotation) for p in fn.params if p.type_annotation]
    return FunctionType.from_lists(params, [to_ir(fn.ret_type)])


def _print(module: ModuleOp) -> str:
    out = StringIO()
    try:
        Printer(stream=out).print_op(module)
    except RecursionError as e:
        from xrelay.nesting import too_deep

        raise too_deep(e, "the printer", module) from e
    out.write("\n")
    return out.getvalue()
