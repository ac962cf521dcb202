"""Behaviours 1-13 of tvm-pass-infra-behaviors.md: PassInfo, pass objects, the
module_pass / function_pass creators and which functions a function pass visits."""

from __future__ import annotations

from typing import Any

import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.dialects.relay import PRIMITIVE, SKIP_OPTIMIZATION
from xrelay.pass_manager import (
    FunctionPass,
    ModulePass,
    PassContext,
    PassContractError,
    PassInfo,
    PassInstrument,
    Sequential,
    function_pass,
    get_pass,
    module_pass,
)


def identity(mod: Any, ctx: PassContext) -> Any:
    return mod


# ---------------------------------------------------------------------------------------
# PassInfo and pass objects
# ---------------------------------------------------------------------------------------


def test_b01_pass_info_fields():
    """[R] form: ``required`` may be left out (0.27 raises TypeError there); xrelay
    keeps ``required`` as a tuple (TVM: an Array)."""
    info = PassInfo(1, "xyz")
    assert (info.opt_level, info.name, info.required, info.traceable) == (
        1,
        "xyz",
        (),
        False,
    )
    info = PassInfo(opt_level=1, name="xyz", required=["InferType"], traceable=True)
    assert info.required == ("InferType",)
    assert info.traceable is True
    with pytest.raises(TypeError, match="Required is expected to be the type of"):
        PassInfo(1, "xyz", required="InferType")  # type: ignore[arg-type]


def test_b02_pass_info_text_form():
    """[R]'s text, with the trailing newline. For a non-empty ``required`` TVM prints
    ``[\\nA, B, ]``; xrelay prints ``[A, B]``."""
    assert str(PassInfo(1, "xyz")) == (
        "The meta data of the pass - pass name: xyz, opt_level: 1, required passes: []\n"
    )
    assert repr(PassInfo(1, "xyz")) == str(PassInfo(1, "xyz"))
    assert str(PassInfo(3, "CSE", ["InferType"])).endswith(
        "required passes: [InferType]\n"
    )


def test_b03_pass_text_form_contains_the_name():
    """[R]'s forms (0.27 prints ``transform.ModulePass(pass_info=...)``)."""
    mp = module_pass(identity, opt_level=2, name="mp")
    fp = function_pass(lambda f, m, c: f, opt_level=1, name="fp")
    seq = Sequential([mp, fp], opt_level=1, name="seq")
    assert str(mp) == "Run Module pass: mp at the optimization level 2"
    assert str(fp) == "Run Function pass: fp at the optimization level 1"
    assert str(seq) == (
        "Run Sequential pass: seq at the optimization level 1. "
        "The passes will be executed are: [mp fp ]"
    )


def test_b04_pass_info_and_call_in_current_context(small_mod):
    seen: list[PassContext] = []

    def body(mod: Any, ctx: PassContext) -> Any:
        seen.append(ctx)
        return mod

    p = module_pass(body, opt_level=0, name="p")
    assert isinstance(p.info, PassInfo)
    assert p.info.name == "p"
    p(small_mod())
    assert seen[-1] is PassContext.current()
    with PassContext(opt_level=3) as ctx:
        p(small_mod())
    assert seen[-1] is ctx


# ---------------------------------------------------------------------------------------
# module_pass
# ---------------------------------------------------------------------------------------


def test_b05_module_pass_decorator_with_arguments():
    @module_pass(opt_level=0, name="module_pass_test")
    def transform(mod: Any, ctx: PassContext) -> Any:
        return mod

    assert isinstance(transform, ModulePass)
    assert transform.info.name == "module_pass_test"
    assert transform.info.opt_level == 0


def test_b06_module_pass_direct_call_name_defaults_to_function_name():
    def direct_transform(mod: Any, ctx: PassContext) -> Any:
        return mod

    p = module_pass(direct_transform, opt_level=3)
    assert isinstance(p, ModulePass)
    assert (p.info.name, p.info.opt_level) == ("direct_transform", 3)


def test_b07_module_pass_argument_validation():
    """A non-callable gives the intended ``TypeError`` (TVM reads ``__name__`` first
    and raises ``AttributeError`` for an int)."""
    with pytest.raises(
        ValueError, match=r"^Please provide opt_level for the module pass\.$"
    ):
        module_pass(identity)
    with pytest.raises(
        ValueError, match="Please provide opt_level for the module pass"
    ):

        @module_pass
        def f(mod: Any, ctx: PassContext) -> Any:
            return mod

    with pytest.raises(
        TypeError, match=r"^Required is expected to be the type of list/tuple\.$"
    ):
        module_pass(identity, opt_level=0, required="InferType")  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"^pass_func must be a callable for Module pass$"
    ):
        module_pass(3, opt_level=0)
    with pytest.raises(
        TypeError, match="pass_func must be a callable for Function pass"
    ):
        function_pass(3, opt_level=0)


def test_b08_module_pass_on_a_class_with_init_arguments(small_mod):
    """TVM checks ``same_as``; xrelay's functional contract gives a structurally equal
    module and leaves the input unchanged (with ``replace=True`` the result is the
    module the pass returned, ``m2``, as in TVM)."""

    @module_pass(opt_level=1)
    class TestPipeline:
        """Replace the module, or keep it."""

        def __init__(self, new_mod: Any, replace: bool):
            self.new_mod = new_mod
            self.replace = replace

        def transform_module(self, mod: Any, ctx: PassContext) -> Any:
            return self.new_mod if self.replace else mod

    assert isinstance(TestPipeline, type)
    assert TestPipeline.__name__ == "TestPipeline"
    assert TestPipeline.__doc__ == "Replace the module, or keep it."
    assert TestPipeline.__module__ == __name__

    x = relay.var("x", shape=(2,))
    m1 = small_mod()
    m2 = relay.IRModule.from_expr(relay.Function([x], relay.abs(x)))
    m1_text, m2_text = str(m1), str(m2)

    p = TestPipeline(m2, replace=True)
    assert isinstance(p, ModulePass)
    assert p.info.name == "TestPipeline"
    assert p.info.opt_level == 1
    assert p.replace is True  # unknown attributes come from the user's instance
    out = p(m1)
    assert out.module.is_structurally_equivalent(m2.module)
    assert out.module is m2.module
    assert str(m1) == m1_text

    out = TestPipeline(m2, replace=False)(m1)
    assert out.module.is_structurally_equivalent(m1.module)
    assert str(m1) == m1_text
    assert str(m2) == m2_text

    @module_pass(opt_level=1)
    class Broken:
        def __init__(self) -> None:
            raise KeyError("from __init__")

        def transform_module(self, mod: Any, ctx: PassContext) -> Any:
            return mod

    with pytest.raises(KeyError, match="from __init__"):
        Broken()


def test_b09_pass_function_gets_module_and_active_context(small_mod):
    got: list[tuple[Any, PassContext]] = []

    @module_pass(opt_level=0)
    def look(mod: Any, ctx: PassContext) -> Any:
        got.append((mod, ctx))
        return mod

    with PassContext(opt_level=3) as ctx:
        look(small_mod())
    mod, seen = got[0]
    assert isinstance(mod, relay.IRModule)
    assert seen is ctx
    assert seen is not PassContext.current()
    assert seen.opt_level == 3


def test_b10_module_pass_may_add_and_remove_functions(small_mod):
    """See also R1."""

    @module_pass(opt_level=0)
    def add_and_remove(mod: Any, ctx: PassContext) -> Any:
        x = relay.var("x", shape=(3,))
        mod["extra"] = relay.Function([x], relay.negative(x))
        mod.remove("main")
        return mod

    out = add_and_remove(small_mod())
    assert [gv.name_hint for gv in out.get_global_vars()] == ["extra"]


# ---------------------------------------------------------------------------------------
# function passes
# ---------------------------------------------------------------------------------------


def test_b11_function_pass_on_a_class(small_mod):
    x = relay.var("x", shape=(5, 10))
    y = relay.var("y", shape=(5, 10))
    f1 = relay.IRModule.from_expr(relay.Function([x, y], relay.subtract(x, y)))["main"]

    @function_pass(opt_level=1)
    class TestReplaceFunc:
        """Replace every function with ``new_func``."""

        def __init__(self, new_func: FuncOp):
            self.new_func = new_func

        def transform_function(
            self, func: FuncOp, mod: Any, ctx: PassContext
        ) -> FuncOp:
            return self.new_func

    p = TestReplaceFunc(f1)
    assert isinstance(p, FunctionPass)
    assert (p.info.opt_level, p.info.name) == (1, "TestReplaceFunc")
    mod = small_mod()
    mod["other"] = mod["main"].clone()
    out = p(mod)
    for name in ("main", "other"):
        assert [op.name for op in out[name].walk()][1:] == [
            "relay.subtract",
            "func.return",
        ]
    assert f1.sym_name.data == "main"  # the given function was copied, not moved

    # as in TVM, the pass function may return a builder relay.Function
    out = TestReplaceFunc(relay.Function([x, y], relay.subtract(x, y)))(mod)
    for name in ("main", "other"):
        assert [op.name for op in out[name].walk()][1:] == [
            "relay.subtract",
            "func.return",
        ]
    with pytest.raises(
        ValueError, match=r"^Please provide opt_level for the function pass\.$"
    ):
        function_pass(lambda f, m, c: f)


def _three_functions() -> relay.IRModule:
    x = relay.var("x", shape=(4,))
    mod = relay.IRModule()
    mod["A"] = relay.Function([x], relay.exp(x))
    mod["B"] = relay.Function([x], relay.log(x))
    mod["C"] = relay.Function([x], relay.sqrt(x)).with_attr("SkipOptimization", 1)
    mod["D"] = relay.Function([x], relay.abs(x)).with_attr("Primitive", 1)
    return mod


def test_b12_function_pass_visits_optimizable_definitions_only():
    """Relay [R] skips SkipOptimization, Compiler and Extern functions; in xrelay that
    is ``relay.skip_optimization``, ``relay.primitive`` (a fused kernel), a
    ``Compiler`` or non-zero ``Extern`` attribute, and declarations (no body)."""
    mod = _three_functions()
    assert SKIP_OPTIMIZATION in mod["C"].attributes
    assert PRIMITIVE in mod["D"].attributes
    ext = mod["A"].clone()
    ext.attributes["Compiler"] = StringAttr("ccompiler")
    mod["E"] = ext
    extern = mod["A"].clone()
    extern.attributes["Extern"] = IntegerAttr(1, 32)
    mod["G"] = extern
    not_extern = mod["A"].clone()
    not_extern.attributes["Extern"] = IntegerAttr(0, 32)
    mod["H"] = not_extern
    decl = FuncOp.external("F", [], [])
    mod.module.body.block.add_op(decl)
    before = {name: str(mod[name]) for name in "CDEFG"}

    visited: list[str] = []

    @function_pass(opt_level=0)
    def visit(func: FuncOp, m: Any, ctx: PassContext) -> FuncOp:
        visited.append(func.sym_name.data)
        return func

    out = visit(mod)
    assert visited == ["A", "B", "H"]
    assert {name: str(out[name]) for name in "CDEFG"} == before


def test_b13_function_pass_may_not_add_or_remove_functions(small_mod):
    """TVM does not check this (a function pass that inserts into ``mod`` leaks a new
    function; Relax stores a ``None`` result as is, TIR deletes the function). xrelay
    ENFORCES the rule: changing the function set, or returning anything but a
    ``func.func``, is a :class:`PassContractError` naming the pass and function, and
    the input module is left unchanged."""

    @function_pass(opt_level=0)
    def adds(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        x = relay.var("x", shape=(1,))
        mod["added"] = relay.Function([x], x)
        return func

    visited: list[str] = []

    @function_pass(opt_level=0)
    def removes(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        visited.append(func.sym_name.data)
        if "other" in mod:
            mod.remove("other")
        return func

    @function_pass(opt_level=0)
    def returns_none(func: FuncOp, mod: Any, ctx: PassContext) -> Any:
        return None

    mod = small_mod()
    mod["other"] = mod["main"].clone()
    text = str(mod)
    with pytest.raises(
        PassContractError,
        match=r"function pass adds changed the module's functions \(added: \['added'\], "
        r"removed: none\); only a module pass may add or remove functions",
    ):
        adds(mod)
    with pytest.raises(PassContractError, match=r"removed: \['other'\]"):
        removes(mod)
    assert visited == ["main"]  # a function removed on the way is not visited
    with pytest.raises(
        PassContractError,
        match="function pass returns_none must return a func.func, got NoneType for @main",
    ):
        returns_none(mod)
    with pytest.raises(PassContractError, match="returns_none"):
        Sequential([returns_none])(mod)
    assert str(mod) == text


def test_b12_function_pass_runs_infer_type_after(small_mod):
    """Relay's FunctionPass runs InferType on its result (instrumented), so a pass
    that leaves incomplete types gets them filled."""
    names: list[str] = []

    class Names(PassInstrument):
        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            names.append(info.name)

    @function_pass(opt_level=0)
    def noop(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        return func

    with PassContext(instruments=[Names()]):
        noop(small_mod())
    assert names == ["noop", "InferType"]
    assert get_pass("InferType").info.name == "InferType"


def test_pass_functions_see_the_module_kind_of_the_outermost_call(small_mod):
    """Pass functions see the kind the outermost call was given: an ``IRModule``
    for an IRModule, a ``builtin.module`` for a ``builtin.module``."""
    kinds: list[type] = []

    @module_pass(opt_level=0)
    def look(mod: Any, ctx: PassContext) -> Any:
        kinds.append(type(mod))
        return mod

    out = look(small_mod())
    assert isinstance(out, relay.IRModule)
    out2 = look(small_mod().module)
    assert isinstance(out2, ModuleOp)
    assert kinds == [relay.IRModule, ModuleOp]
