"""Pass kinds (TVM's ``ModulePass``, ``FunctionPass``, ``Sequential``), the pass
creators ``module_pass`` / ``function_pass``, ``PrintIR``, and the one instrumented
call path every pass goes through.

Functional contract: ``new = pass_(mod)`` leaves ``mod`` as it was, also when the pass
raises. The outermost call works on a clone; everything below it (Sequential children,
required passes, passes called from inside a pass function) mutates that clone in
place, so a Sequential of N passes clones once, not N times.

Modules: a pass accepts an xDSL ``builtin.module`` or any wrapper with a ``module``
attribute holding one (``xrelay.relay.IRModule``). Pass functions and instruments see
the same kind the outermost call was given.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay import frontend_calls
from xrelay.dialects.relay.dominance import verify_module
from xrelay.pass_manager.analysis import ALL, VERIFIED, AnalysisManager
from xrelay.pass_manager.context import PassContext
from xrelay.pass_manager.info import PassInfo

_T = TypeVar("_T")


class PassContractError(RuntimeError):
    """A pass broke the pass contract (returned no module, changed the function set of
    a function pass, mutated a module it promised not to)."""


class PassVerificationError(RuntimeError):
    """The IR after a pass (or given to the outermost pass) does not verify, with
    ``xrelay.verify_each`` on. ``pass_name`` is the pass that broke it, if any."""

    def __init__(self, message: str, pass_name: str | None = None):
        super().__init__(message)
        self.pass_name = pass_name


def _verify(
    op: ModuleOp,
    what: str,
    pass_name: str | None = None,
    analyses: AnalysisManager | None = None,
) -> None:
    """Verify ``op``; with ``analyses``, only when the cached ``VERIFIED`` of the
    module was dropped since it was last verified (by a pass that did not preserve
    it: every pass that changes the IR)."""
    try:
        if analyses is not None:
            analyses.get(VERIFIED, op)
        else:
            verify_module(op)
    except RecursionError:  # a NestingTooDeepError, located: as it is
        raise
    except (DiagnosticException, ValueError) as e:  # xDSL raises both
        first = str(e).strip().splitlines()[0]
        err = PassVerificationError(f"{what}: {first}", pass_name)
        if pass_name is not None:
            err.add_note(f"in pass {pass_name}")
        raise err from e


def verify_ir(op: ModuleOp, what: str) -> None:
    """Verify ``op`` as ``xrelay.verify_each`` does; a :class:`PassVerificationError`
    whose message starts with ``what`` when it does not verify."""
    _verify(op, what)


# ---------------------------------------------------------------------------------------
# Module kinds: builtin.module, or a wrapper such as IRModule
# ---------------------------------------------------------------------------------------


class ModuleKind:
    """How to present a ``builtin.module`` to user code: as itself, or wrapped in the
    class the outermost call was given (``IRModule``)."""

    __slots__ = ("source", "wrapper")

    def __init__(self, wrapper: type | None, source: Any = None):
        self.wrapper = wrapper
        self.source = source
        """The wrapper the call was given: a wrapper made for a module derived from
        it inherits what it keeps beside the IR (``inherit_from(source)``; the
        IRModule's relay variables, so a free variable keeps its identity)."""

    def wrap(self, op: ModuleOp) -> Any:
        if self.wrapper is None:
            return op
        made = self.wrapper(op)
        inherit = getattr(made, "inherit_from", None)
        if self.source is not None and callable(inherit):
            inherit(self.source)
        return made


PLAIN_MODULE = ModuleKind(None)


def _unwrap(mod: Any) -> tuple[ModuleOp, ModuleKind]:
    if isinstance(mod, ModuleOp):
        return mod, PLAIN_MODULE
    inner = getattr(mod, "module", None)
    if isinstance(inner, ModuleOp):
        return inner, ModuleKind(type(mod), mod)
    raise TypeError(
        f"a pass runs on a builtin.module or an IRModule, not on {type(mod).__name__}"
    )


def _result_module(result: Any, pass_name: str) -> ModuleOp:
    if result is None:
        raise PassContractError(
            f"The return value of a module pass must be set (pass {pass_name} returned None)"
        )
    if isinstance(result, ModuleOp):
        return result
    inner = getattr(result, "module", None)
    if isinstance(inner, ModuleOp):
        return inner
    raise TypeError(
        f"Cannot convert from type {type(result).__name__} to a module "
        f"(the return value of pass {pass_name})"
    )


# ---------------------------------------------------------------------------------------
# The instrumented call path
# ---------------------------------------------------------------------------------------


class _State(threading.local):
    def __init__(self) -> None:
        self.depth = 0
        """How many pass bodies are running on this thread (0: a call is outermost)."""
        self.owned: dict[int, ModuleOp] = {}
        """The modules the running outermost call may mutate (its copy and what its
        passes returned), by id; a pass called on any other module (one a pass body
        captured) works on a copy, as an outermost call does."""


_state = _State()


def run_pass(
    pass_: Pass, op: ModuleOp, ctx: PassContext, kind: ModuleKind, copy: bool
) -> ModuleOp:
    """Run one pass with the context's instruments, TVM's order:
    ``should_run`` (all instruments; skipped for the context's required passes) →
    ``run_before_pass`` → the pass → ``run_after_pass``. A skipped pass returns ``op``.

    ``copy``: run on a clone (the outermost call). A pass raising leaves no
    ``run_after_pass``; the exception propagates with a note naming the innermost
    pass that raised.

    This is the hot path of every pipeline: without instruments, verify-each and
    ``testing.immutable_module`` it does no more than the pass call itself.
    """
    info = pass_.info
    hooked = ctx.instrumented
    if (
        hooked
        and ctx.should_run_hooks
        and not _as_outermost(ctx.instrument_should_run, kind.wrap(op), info)
    ):
        return op
    snapshot: ModuleOp | None = None
    if ctx.immutable_module:
        work, snapshot = _immutable_work(pass_, op, copy)
    else:
        work = op.clone() if copy else op
    if hooked and ctx.before_hooks:
        _call_hooks(
            ctx.before_hooks,
            work if kind.wrapper is None else kind.wrapper(work),
            info,
        )
    state = _state
    if copy:  # the outermost call: passes called from inside work in place
        state.owned[id(work)] = work
        state.depth += 1
        try:
            # handed back to the caller as it is (TVM gives back what the pass
            # returned); inside, every pass's result is owned (_own)
            result = pass_.apply(work, ctx, kind)
        except RecursionError as e:
            raise _too_deep(e, info.name, work) from e
        except Exception as e:
            _note_pass(e, info.name)
            raise
        finally:
            state.depth -= 1
            if not state.depth:
                state.owned.clear()
    else:  # the caller is a pass body, so depth > 0 already
        try:
            result = _own(pass_.apply(work, ctx, kind), work)
        except RecursionError as e:
            raise _too_deep(e, info.name, work) from e
        except Exception as e:
            _note_pass(e, info.name)
            raise
    analyses = ctx.analyses
    if analyses:  # drop the cached analyses the pass did not preserve
        analyses.after_pass(pass_.PRESERVES)
    if snapshot is not None and not snapshot.is_structurally_equivalent(work):
        err = PassContractError(
            f"Immutable module has been modified in pass: {info.name}"
        )
        _note_pass(err, info.name)
        raise err
    if ctx.verify_each and info.kind != "sequential":
        _verify(
            result,
            f"the IR after pass '{info.name}' does not verify",
            info.name,
            analyses,
        )
    if hooked and ctx.after_hooks:
        _call_hooks(
            ctx.after_hooks,
            result if kind.wrapper is None else kind.wrapper(result),
            info,
        )
    return result


def _too_deep(e: RecursionError, name: str, work: ModuleOp) -> RecursionError:
    """A pass that hit Python's recursion limit: a located ``NestingTooDeepError``
    naming the pass (the innermost one: outer passes pass it on)."""
    from xrelay.nesting import NestingTooDeepError, too_deep

    if isinstance(e, NestingTooDeepError):
        return e
    err = too_deep(e, f"pass {name}", work)
    _note_pass(err, name)
    return err


def _call_hooks(
    hooks: Sequence[Callable[[Any, PassInfo], Any]], mod: Any, info: PassInfo
) -> None:
    """Call instrument hooks in order, as outside any pass body (see
    :func:`_as_outermost`; one depth switch for all of them)."""
    state = _state
    depth = state.depth
    if not depth:
        for hook in hooks:
            hook(mod, info)
        return
    state.depth = 0
    try:
        for hook in hooks:
            hook(mod, info)
    finally:
        state.depth = depth


def _own(result: ModuleOp, work: ModuleOp) -> ModuleOp:
    """The module a pass returned, made the call's own: a module the pass did not
    get or make in this call (one it captured) is copied, so that later passes
    cannot mutate the caller's module (the functional contract)."""
    owned = _state.owned
    if result is work or id(result) in owned:
        return result
    result = result.clone()  # (a module the pass built itself is copied too)
    owned[id(result)] = result
    return result


def _as_outermost(hook: Callable[[Any, PassInfo], _T], mod: Any, info: PassInfo) -> _T:
    """Call an instrument hook as outside any pass body: a pass it runs is an
    outermost call (works on a copy), so it cannot change the pipeline's module."""
    state = _state
    depth = state.depth
    if not depth:
        return hook(mod, info)
    state.depth = 0
    try:
        return hook(mod, info)
    finally:
        state.depth = depth


def _immutable_work(
    pass_: Pass, op: ModuleOp, copy: bool
) -> tuple[ModuleOp, ModuleOp | None]:
    """Under ``testing.immutable_module``: the module the pass gets, and what it must
    still equal afterwards. A pass that may mutate its input gets a private copy; a
    pass that promises not to (Python module passes) is checked against a snapshot,
    also when called directly (then ``op`` itself is the snapshot)."""
    if pass_.MUTATES_INPUT:
        return op.clone(), None
    if copy:
        return op.clone(), op
    return op, op.clone()


def _note_pass(e: BaseException, name: str) -> None:
    """Name the pass in the exception, once: the innermost pass that raised (as TVM's
    error enrichment, never repeated by the Sequentials around it)."""
    notes = getattr(e, "__notes__", None)
    if notes is None or not any(n.startswith("in pass ") for n in notes):
        e.add_note(f"in pass {name}")


# ---------------------------------------------------------------------------------------
# Pass kinds
# ---------------------------------------------------------------------------------------


class Pass:
    """A transformation of a module, with its :class:`PassInfo`.

    Subclasses implement :meth:`apply`, which may mutate the module it is given (the
    caller owns it) and returns the resulting module.
    """

    MUTATES_INPUT: ClassVar[bool] = True
    """False for passes that promise not to mutate the module they are given (Python
    passes made with ``module_pass`` / ``function_pass``): ``testing.immutable_module``
    checks that promise; other passes get a private copy under that option."""

    KIND: ClassVar[str] = "Module"

    PRESERVES: ClassVar[frozenset[str]] = frozenset()
    """The analyses (:mod:`.analysis`) this pass keeps valid; ``ALL`` when it changes
    nothing or invalidates precisely what it changed. Default: none."""

    info: PassInfo

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        raise NotImplementedError

    def __call__(self, mod: Any) -> Any:
        """Run the pass in ``PassContext.current()``; always runs (opt_level and
        ``disabled_pass`` only gate the children of a Sequential)."""
        op, kind = _unwrap(mod)
        ctx = PassContext.current()
        # a module the running call does not own (captured by a pass body) is
        # never mutated: the call works on a copy, as an outermost call does
        outermost = _state.depth == 0 or id(op) not in _state.owned
        if outermost and ctx.verify_each:
            _verify(op, "the input module does not verify")
        try:
            if not outermost:
                result = run_pass(self, op, ctx, kind, copy=False)
            else:  # analyses are cached for one pipeline run
                ctx.analyses.clear()
                try:
                    result = run_pass(self, op, ctx, kind, copy=True)
                finally:
                    ctx.analyses.clear()
        except RecursionError as e:  # e.g. copying the module for the pass
            raise _too_deep(e, self.info.name, op) from e
        if result is op:
            return mod
        return kind.wrap(result)

    def __str__(self) -> str:
        return (
            f"Run {self.KIND} pass: {self.info.name} at the optimization level "
            f"{self.info.opt_level}"
        )

    __repr__ = __str__


class ModulePass(Pass):
    """``pass_func(mod, ctx) -> mod`` on the whole module; may add or remove functions."""

    pass_func: Callable[[Any, PassContext], Any]

    def __init__(self, pass_func: Callable[[Any, PassContext], Any], info: PassInfo):
        # object.__setattr__: frozen dataclass passes call this from __post_init__
        object.__setattr__(self, "pass_func", pass_func)
        object.__setattr__(self, "info", info)

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        return _result_module(self.pass_func(kind.wrap(op), ctx), self.info.name)


def optimizable_functions(op: ModuleOp) -> list[FuncOp]:
    """The ``func.func`` definitions a function pass visits: those with a body and
    without ``relay.skip_optimization`` or ``relay.primitive``, and not handed to an
    external compiler (Relay's ``Compiler`` or non-zero ``Extern`` attribute)."""
    from xrelay.dialects.relay.structural import PRIMITIVE, SKIP_OPTIMIZATION

    return [
        f
        for f in op.ops
        if isinstance(f, FuncOp)
        and f.body.blocks
        and SKIP_OPTIMIZATION not in f.attributes
        and PRIMITIVE not in f.attributes
        and "Compiler" not in f.attributes
        and not _nonzero(f.attributes.get("Extern"))
    ]


def _nonzero(attr: Any) -> bool:
    if attr is None:
        return False
    value = getattr(attr, "value", None)
    data = getattr(value, "data", None)
    return data != 0 if isinstance(data, int | float) else True


class FunctionPass(Pass):
    """``pass_func(func, mod, ctx) -> func`` on each optimizable ``func.func``.

    The returned function (a ``func.func``, or a builder ``relay.Function``, which is
    emitted) replaces the visited one under the same name. A function pass may not
    add or remove functions or return anything else. As in Relay, InferType runs on
    the module after the pass (instrumented).
    """

    KIND = "Function"
    PRESERVES = ALL  # invalidates the functions it changed, then runs InferType

    pass_func: Callable[[FuncOp, Any, PassContext], Any]

    def __init__(
        self, pass_func: Callable[[FuncOp, Any, PassContext], Any], info: PassInfo
    ):
        # object.__setattr__: frozen dataclass passes call this from __post_init__
        object.__setattr__(self, "pass_func", pass_func)
        object.__setattr__(self, "info", info)
        info.kind = "function"

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        before = _function_names(op)
        outlined: set[str] = set()
        user_mod = kind.wrap(op)
        block = op.body.block
        analyses = ctx.analyses
        for func in optimizable_functions(op):
            if func.parent is not block:  # removed on the way: reported below
                continue
            analyses.reported = None
            new, local = self.transform(func, user_mod, ctx)
            for made in local:  # outlined local functions of a returned Function
                block.insert_op_before(made, func)
                outlined.add(made.sym_name.data)
            if new is not func:
                _replace_function(op, func, new)
                analyses.invalidate_function(func)
            else:  # what the pass function said it kept (``analyses.preserve``)
                analyses.invalidate_function(func, analyses.reported)
            analyses.reported = None
        after = [name for name in _function_names(op) if name not in outlined]
        if after != before:
            added = sorted(set(after) - set(before))
            removed = sorted(set(before) - set(after))
            raise PassContractError(
                f"function pass {self.info.name} changed the module's functions "
                f"(added: {added or 'none'}, removed: {removed or 'none'}); only a module "
                "pass may add or remove functions"
            )
        from xrelay.pass_manager.registry import get_pass

        return run_pass(get_pass("InferType"), op, ctx, kind, copy=False)

    def transform(
        self, func: FuncOp, mod: Any, ctx: PassContext
    ) -> tuple[FuncOp, list[FuncOp]]:
        """Run the pass function on ``func``: the function replacing it (``func``
        itself when it was kept or changed in place), and the local functions the
        replacement calls, to be added to the module."""
        new = self.pass_func(func, mod, ctx)
        if not isinstance(new, FuncOp):
            new = as_func_op(new, func, self.info.name)
        return new, []


def as_func_op(result: Any, func: FuncOp, pass_name: str) -> FuncOp:
    """What a pass function returned, as a ``func.func``: a builder
    ``relay.Function`` (what TVM pass functions return) is emitted under the visited
    function's name; anything else breaks the contract."""
    to_func_op = getattr(result, "to_func_op", None)
    if callable(to_func_op):
        made = to_func_op(func.sym_name.data)
        if isinstance(made, FuncOp):
            return made
    raise PassContractError(
        f"function pass {pass_name} must return a func.func, got "
        f"{type(result).__name__} for @{func.sym_name.data}"
    )


def _function_names(op: ModuleOp) -> list[str]:
    return [f.sym_name.data for f in op.ops if isinstance(f, FuncOp)]


def _replace_function(module: ModuleOp, old: FuncOp, new: FuncOp) -> None:
    if new.parent is not None:
        new = new.clone()
    new.sym_name = StringAttr(old.sym_name.data)
    block = module.body.block
    block.insert_op_before(new, old)
    block.detach_op(old)
    old.erase(safe_erase=False)


class Sequential(Pass):
    """Runs ``passes`` in order. For each child: skip it unless the context enables it
    (disabled beats required beats opt_level), then run the passes named in its
    ``required`` (looked up in the registry) and the child itself."""

    KIND = "Sequential"
    PRESERVES = ALL  # each child invalidates what it changed

    passes: list[Pass]

    def __init__(
        self,
        passes: Sequence[Pass] | None = None,
        opt_level: int = 0,
        name: str = "sequential",
        required: Sequence[str] | None = None,
    ):
        passes = [] if passes is None else passes
        if not isinstance(passes, list | tuple):
            raise TypeError("passes must be a list of Pass objects.")
        for p in passes:
            if not isinstance(p, Pass):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(
                    f"passes must be a list of Pass objects, got {type(p).__name__}"
                )
        # object.__setattr__: frozen dataclass passes call this from __post_init__
        object.__setattr__(self, "passes", list(passes))
        info = PassInfo(opt_level, name, required)
        info.kind = "sequential"
        object.__setattr__(self, "info", info)

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        from xrelay.pass_manager.registry import get_pass

        enabled = ctx.pass_enabled
        plan: list[tuple[Sequence[Pass], Pass]] = []
        for p in self.passes:  # resolve every dependency before anything runs
            if enabled(p.info):
                required = p.info.required
                plan.append(([get_pass(n) for n in required] if required else (), p))
        for deps, p in plan:
            for dep in deps:
                op = run_pass(dep, op, ctx, kind, False)
            op = run_pass(p, op, ctx, kind, False)
        return op

    def __str__(self) -> str:
        names = "".join(f"{p.info.name} " for p in self.passes)
        return f"{super().__str__()}. The passes will be executed are: [{names}]"

    __repr__ = __str__


# ---------------------------------------------------------------------------------------
# Creators
# ---------------------------------------------------------------------------------------


def _check_creator_args(kind: str, opt_level: int | None, required: Any) -> None:
    if opt_level is None:
        raise ValueError(f"Please provide opt_level for the {kind} pass.")
    if required is not None and not isinstance(required, list | tuple):
        raise TypeError("Required is expected to be the type of list/tuple.")


def _wrap_class(
    pass_cls: type,
    base: type[ModulePass] | type[FunctionPass],
    method: str,
    opt_level: int,
    name: str | None,
    required: Sequence[str] | None,
) -> type:
    """A Pass class whose instances build a ``pass_cls`` instance and run its
    ``method``; unknown attributes are looked up on that instance."""
    pass_name = name or pass_cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        inst = pass_cls(*args, **kwargs)
        object.__setattr__(self, "_inst", inst)
        base.__init__(
            self, getattr(inst, method), PassInfo(opt_level, pass_name, required)
        )

    def __getattr__(self: Any, attr: str) -> Any:
        if attr == "_inst":
            raise AttributeError(attr)
        return getattr(self._inst, attr)

    wrapper = type(
        pass_cls.__name__, (base,), {"__init__": __init__, "__getattr__": __getattr__}
    )
    wrapper.__doc__ = pass_cls.__doc__
    wrapper.__module__ = pass_cls.__module__
    wrapper.__qualname__ = pass_cls.__qualname__
    return wrapper


class _PyModulePass(ModulePass):
    MUTATES_INPUT = False


class _PyFunctionPass(FunctionPass):
    """A function pass mutates the module by design (it replaces the functions and
    runs InferType; pass functions may rewrite a function in place), so
    ``testing.immutable_module`` gives it a private copy instead of checking it.

    As in TVM, the pass function receives a ``relay.Function``: the view of the
    ``func.func`` that ``mod[name]`` gives (``.params``, ``.body``, ``.attrs``; the
    ``func.func``'s own attributes, ``walk()`` and ``.body.block`` still answer, for
    functions written against the op). It may return that view (kept, or changed in
    place), a ``func.func``, or a ``relay.Function`` (an ``ExprMutator``'s result),
    which is built in the module: GlobalVars and the local functions the view's
    body calls resolve there, and new local functions are outlined next to it
    (:mod:`xrelay.frontend.relay.pass_function`, installed by the relay frontend;
    a process that never imported it passes the ``func.func`` itself)."""

    def transform(
        self, func: FuncOp, mod: Any, ctx: PassContext
    ) -> tuple[FuncOp, list[FuncOp]]:
        run = frontend_calls.installed(frontend_calls.FUNCTION_VIEW)
        if run is not None:
            return run(self.pass_func, func, mod, ctx, self.info.name)
        # without the relay frontend (never imported) the function gets the func.func
        new = self.pass_func(func, mod, ctx)
        if isinstance(new, FuncOp):
            return new, []
        return as_func_op(new, func, self.info.name), []


def _creator(
    kind: str,
    base: type[ModulePass] | type[FunctionPass],
    method: str,
    pass_func: Any,
    opt_level: int | None,
    name: str | None,
    required: Sequence[str] | None,
    traceable: bool,
) -> Any:
    """What ``module_pass`` / ``function_pass`` return: a pass (given a function), a
    pass class (given a class), or a decorator making one of those."""
    _check_creator_args(kind.lower(), opt_level, required)
    assert opt_level is not None

    def create(arg: Any) -> Any:
        if isinstance(arg, type):
            return _wrap_class(arg, base, method, opt_level, name, required)
        if not callable(arg):
            raise TypeError(f"pass_func must be a callable for {kind} pass")
        return base(arg, PassInfo(opt_level, name or arg.__name__, required, traceable))

    return create if pass_func is None else create(pass_func)


def module_pass(
    pass_func: Any = None,
    opt_level: int | None = None,
    name: str | None = None,
    required: Sequence[str] | None = None,
    traceable: bool = False,
) -> Any:
    """Make a module pass from ``f(mod, ctx) -> mod`` or from a class with
    ``transform_module(self, mod, ctx)``; usable as ``@module_pass(opt_level=...)`` or
    as ``module_pass(f, opt_level=...)``. The name defaults to the function's or
    class's name."""
    return _creator(
        "Module", _PyModulePass, "transform_module",
        pass_func, opt_level, name, required, traceable,
    )  # fmt: skip


def function_pass(
    pass_func: Any = None,
    opt_level: int | None = None,
    name: str | None = None,
    required: Sequence[str] | None = None,
    traceable: bool = False,
) -> Any:
    """Make a function pass from ``f(func, mod, ctx) -> func`` or from a class with
    ``transform_function(self, func, mod, ctx)``; used like :func:`module_pass`."""
    return _creator(
        "Function", _PyFunctionPass, "transform_function",
        pass_func, opt_level, name, required, traceable,
    )  # fmt: skip


class PrintIR(ModulePass):
    """Print the module to stderr (``PrintIR(<header>):`` then the IR) and return it
    unchanged (TVM's ``tvm.transform.PrintIR``: a module pass named ``PrintIR`` at
    opt_level 0). Large constants are elided unless ``show_meta_data``."""

    MUTATES_INPUT = False
    PRESERVES = ALL

    def __init__(self, header: str = "", show_meta_data: bool = False):
        super().__init__(self._print, PassInfo(0, "PrintIR"))
        self.header = header
        self.show_meta_data = show_meta_data

    def _print(self, mod: Any, ctx: PassContext) -> Any:
        from xrelay.pass_manager.instrument import module_text

        sys.stderr.write(
            f"PrintIR({self.header}):\n{module_text(mod, self.show_meta_data)}\n"
        )
        return mod

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        self._print(op, ctx)
        return op


def apply_in_place(pass_: Pass, op: ModuleOp) -> None:
    """Run a pass on ``op`` in place (instrumented, in the current context), as a pass
    nested in an outer pipeline: how xDSL's ``PassPipeline`` drives xrelay passes
    (called from outside any pass, it starts with no cached analyses: whatever ran
    before may have changed the module)."""
    ctx = PassContext.current()
    outermost = _state.depth == 0
    if outermost:
        ctx.analyses.clear()
    _state.depth += 1
    try:
        result = run_pass(pass_, op, ctx, PLAIN_MODULE, copy=False)
    finally:
        _state.depth -= 1
        if outermost:
            ctx.analyses.clear()
    if result is not op:  # the pass built a new module: move its contents over
        block = op.body.block
        for old in list(block.ops):
            block.detach_op(old)
            old.erase(safe_erase=False)
        for new in list(result.body.block.ops):
            result.body.block.detach_op(new)
            block.add_op(new)
        op.attributes.clear()
        op.attributes.update(result.attributes)
