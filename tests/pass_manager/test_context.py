"""Behaviours 22-30 of tvm-pass-infra-behaviors.md: PassContext defaults, the
thread-local stack, constructor arguments, registered and typed config options,
``testing.immutable_module`` and passes that return something other than a module."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import pytest
from xdsl.dialects.func import FuncOp

from xrelay.dialects.relay import AbsOp
from xrelay.pass_manager import (
    PassConfigError,
    PassContext,
    PassContextError,
    PassContractError,
    PassInstrument,
    Sequential,
    config,
    function_pass,
    get_pass,
    list_configs,
    module_pass,
    register_config,
)


def test_b22_defaults():
    """opt_level is not range-checked; attributes are read-only."""
    for ctx in (PassContext(), PassContext.current()):
        assert ctx.opt_level == 2
        assert ctx.required_pass == []
        assert ctx.disabled_pass == []
        assert ctx.instruments == []
        assert dict(ctx.config) == {}
    ctx = PassContext()
    for field, value in (
        ("opt_level", 3),
        ("required_pass", ["a"]),
        ("disabled_pass", ["a"]),
        ("instruments", []),
        ("config", {}),
    ):
        with pytest.raises(AttributeError):
            setattr(ctx, field, value)
    with pytest.raises(TypeError):
        ctx.config["testing.immutable_module"] = True  # type: ignore[index]
    assert PassContext(opt_level=5).opt_level == 5
    assert PassContext(opt_level=-1).opt_level == -1


def test_b23_with_nesting_and_current():
    default = PassContext.current()
    assert PassContext.current() is default
    a, b = PassContext(opt_level=1), PassContext(opt_level=3)
    with a as got_a:
        assert got_a is a
        assert PassContext.current() is a
        with b:
            assert PassContext.current() is b
        assert PassContext.current() is a
        with a:  # the same object entered twice, nested
            assert PassContext.current() is a
        assert PassContext.current() is a
    assert PassContext.current() is default


def test_b23_push_after_enter_hooks_pop_before_exit_hooks():
    seen: list[bool] = []

    class Where(PassInstrument):
        def enter_pass_ctx(self) -> None:
            seen.append(PassContext.current() is ctx)

        def exit_pass_ctx(self) -> None:
            seen.append(PassContext.current() is ctx)

    ctx = PassContext(instruments=[Where()])
    with ctx:
        assert PassContext.current() is ctx
    assert seen == [False, False]


def test_b24_thread_locality():
    """Another thread sees its own default context, not the main thread's."""
    out: dict[str, Any] = {}
    with PassContext(opt_level=3) as main_ctx:
        worker = threading.Thread(target=lambda: out.update(ctx=PassContext.current()))
        worker.start()
        worker.join()
        assert PassContext.current() is main_ctx
    assert out["ctx"] is not main_ctx
    assert out["ctx"].opt_level == 2
    assert out["ctx"] is not PassContext.current()  # each thread has its own default


def test_two_threads_in_different_contexts_see_their_own_current(small_mod):
    """Two threads interleave (a barrier between every step) inside different
    contexts; each one's ``current()``, gating and pass functions see its own."""
    barrier = threading.Barrier(2, timeout=10)
    results: dict[int, list[Any]] = {}
    errors: list[BaseException] = []

    def worker(level: int) -> None:
        try:
            seen: list[Any] = []

            @module_pass(opt_level=0)
            def look(mod: Any, ctx: PassContext) -> Any:
                seen.append(ctx.opt_level)
                return mod

            @module_pass(opt_level=3)
            def gated(mod: Any, ctx: PassContext) -> Any:
                seen.append("gated")
                return mod

            barrier.wait()
            with PassContext(opt_level=level) as ctx:
                barrier.wait()  # both threads are inside their context now
                seen.append(PassContext.current() is ctx)
                barrier.wait()
                Sequential([look, gated])(small_mod())
                barrier.wait()
                seen.append(PassContext.current().opt_level)
            seen.append(PassContext.current().opt_level)
            results[level] = seen
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(lvl,)) for lvl in (1, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results[1] == [True, 1, 1, 2]
    assert results[3] == [True, 3, "gated", 3, 2]


def test_b25_stack_discipline_errors():
    """TVM fails an ``ICHECK`` (``InternalError``); xrelay raises
    :class:`PassContextError` with its own message."""
    a, b = PassContext(), PassContext()
    with pytest.raises(PassContextError, match="no context is entered"):
        a.__exit__(None, None, None)
    with a, b:
        with pytest.raises(PassContextError, match="not the innermost one"):
            a.__exit__(None, None, None)
        assert PassContext.current() is b


def test_b26_constructor_arguments():
    """As in TVM, names may be any iterable, and a string is split into its
    characters (``"ab"`` disables passes ``a`` and ``b``)."""
    assert sorted(PassContext(required_pass={"x", "y"}).required_pass) == ["x", "y"]
    assert PassContext(disabled_pass="ab").disabled_pass == ["a", "b"]
    assert PassContext(required_pass=(n for n in ["g"])).required_pass == ["g"]
    with pytest.raises(
        TypeError, match="instruments must be PassInstrument objects, got int"
    ):
        PassContext(instruments=[1])  # type: ignore[list-item]


def test_b27_config_only_registered_keys():
    """TVM lists every key in hash-map order separated by ``" ,"``; xrelay lists the
    closest registered keys (all of them when none is close), separated by ``", "``.
    ``list_configs`` also gives the default and doc of each key."""
    with pytest.raises(
        AttributeError, match=r"^Invalid config option 'no\.such\.key' candidates are: "
    ):
        PassContext(config={"no.such.key": 1})
    with pytest.raises(
        PassConfigError,
        match=r"^Invalid config option 'relay\.FuseOps\.max_dept' candidates are: "
        r"relay\.FuseOps\.max_depth",
    ):
        PassContext(config={"relay.FuseOps.max_dept": 3})
    with pytest.raises(AttributeError, match=r"testing\.immutable_module is None"):
        PassContext(config={"testing.immutable_module": None})
    configs = PassContext.list_configs()
    assert configs == list_configs()
    assert configs["testing.immutable_module"]["type"] == "bool"
    assert configs["relay.FuseOps.max_depth"]["type"] == "int"
    assert configs["relay.FuseOps.max_depth"]["default"] == "256"
    assert configs["xrelay.verify_each"]["type"] == "bool"
    # validation happens when the context is made; get_config of an unknown key fails
    ctx = PassContext(config={"relay.FuseOps.max_depth": 4})
    assert ctx.get_config("relay.FuseOps.max_depth") == 4
    assert PassContext().get_config("relay.FuseOps.max_depth") == 256
    with pytest.raises(PassConfigError, match="Invalid config option 'nope'"):
        ctx.get_config("nope")


@dataclasses.dataclass(frozen=True)
class UnrollConfig:
    auto_max_step: int = 0
    explicit_unroll: bool = True


def test_b28_config_type_checking_and_conversion(monkeypatch):
    """Dict values build an object-typed (dataclass) option with missing fields
    defaulted; an unknown field is a ``TypeError``. Error texts name the Python type
    (``str``) where TVM names the FFI type (``ffi.SmallStr``)."""
    monkeypatch.setattr(config, "_OPTIONS", dict(config._OPTIONS))
    register_config("test.flag", bool, False)
    register_config("test.count", int, 1)
    register_config("test.unroll", UnrollConfig, UnrollConfig())

    assert PassContext(config={"test.flag": 1}).config["test.flag"] is True
    with pytest.raises(
        AttributeError,
        match=r"^Expect config test\.flag to have type bool, but instead get str",
    ):
        PassContext(config={"test.flag": "yes"})
    assert PassContext(config={"test.count": 3}).config["test.count"] == 3
    with pytest.raises(
        AttributeError,
        match=r"Expect config test\.count to have type int, but instead get float",
    ):
        PassContext(config={"test.count": 3.5})
    built = PassContext(config={"test.unroll": {"auto_max_step": 16}}).config[
        "test.unroll"
    ]
    assert built == UnrollConfig(auto_max_step=16, explicit_unroll=True)
    with pytest.raises(TypeError, match="UnrollConfig does not have field no_field"):
        PassContext(config={"test.unroll": {"no_field": 1}})

    # registration: same type again is fine, another type is an error, the default is
    # checked too
    register_config("test.count", int, 2)
    assert PassContext().get_config("test.count") == 2
    with pytest.raises(ValueError, match="already registered as int"):
        register_config("test.count", str, "x")
    with pytest.raises(AttributeError, match="to have type int"):
        register_config("test.other", int, "x")


def test_b29_testing_immutable_module(small_mod):
    """TVM raises ``InternalError`` when a pass mutates its input in place; xrelay
    raises :class:`PassContractError` with the same text, whether the pass is
    called directly or inside a Sequential. The caller's module is never touched."""

    @module_pass(opt_level=0)
    def mutator(mod: Any, ctx: PassContext) -> Any:
        mod.remove("main")
        return mod

    @module_pass(opt_level=0)
    def builder(mod: Any, ctx: PassContext) -> Any:
        new = mod.copy()
        new.remove("main")
        return new

    mod = small_mod()
    text = str(mod)
    with PassContext(config={"testing.immutable_module": True}):
        for run in (mutator, Sequential([mutator])):
            with pytest.raises(PassContractError) as info:
                run(mod)
            assert (
                str(info.value) == "Immutable module has been modified in pass: mutator"
            )
            assert info.value.__notes__ == ["in pass mutator"]
            assert str(mod) == text
        assert builder(mod).get_global_vars() == []
        assert Sequential([builder])(mod).get_global_vars() == []

        # function passes and xrelay's own passes mutate by design: they get a
        # private copy instead of being checked
        @function_pass(opt_level=0)
        def add_unused_abs(func: FuncOp, m: Any, ctx: PassContext) -> FuncOp:
            func.body.block.insert_op_before(
                AbsOp.make([func.args[0]]), func.body.block.first_op
            )
            return func

        out = Sequential([add_unused_abs, get_pass("InferType")])(mod)
        assert [op.name for op in out["main"].walk()][1] == "relay.abs"
        assert str(mod) == text
    assert mutator(mod).get_global_vars() == []  # off by default
    assert str(mod) == text


def test_b30_pass_returning_something_other_than_a_module(small_mod):
    """TVM: ``InternalError`` for ``None``, ``TypeError`` for an int or a non-module
    argument. xrelay: :class:`PassContractError` (a ``RuntimeError``) for ``None``."""
    none_pass = module_pass(lambda m, c: None, opt_level=0, name="none_pass")
    int_pass = module_pass(lambda m, c: 3, opt_level=0, name="int_pass")
    with pytest.raises(
        PassContractError,
        match=r"^The return value of a module pass must be set \(pass none_pass",
    ):
        none_pass(small_mod())
    with pytest.raises(TypeError, match=r"^Cannot convert from type int to a module"):
        int_pass(small_mod())
    with pytest.raises(
        TypeError, match="a pass runs on a builtin.module or an IRModule, not on int"
    ):
        none_pass(3)


def test_config_registration_doc_and_cli_parsing(monkeypatch):
    monkeypatch.setattr(config, "_OPTIONS", dict(config._OPTIONS))
    opt = register_config("test.depth", int, 8, "how deep")
    assert list_configs()["test.depth"] == {
        "type": "int",
        "default": "8",
        "doc": "how deep",
    }
    assert opt.parse("12") == 12
    with pytest.raises(PassConfigError, match="to have type int"):
        opt.parse("twelve")
    assert register_config("test.on", bool, False).parse("on") is True
