"""The functional contract (``new = pass_(mod)`` leaves ``mod`` as it was, also when a
pass raises; one clone per outermost call) and ``xrelay.verify_each``."""

from __future__ import annotations

from typing import Any

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp

from xrelay.dialects.relay import AbsOp
from xrelay.pass_manager import (
    Pass,
    PassContext,
    PassInfo,
    PassVerificationError,
    Sequential,
    function_pass,
    get_pass,
    module_pass,
    to_xdsl,
)
from xrelay.pass_manager.passes import ModuleKind


class InPlace(Pass):
    """A pass that mutates the module it is given (as xrelay's passes do): inserts
    ``relay.abs`` on the first argument of every function."""

    def __init__(self, name: str = "in_place", fail: bool = False):
        self.info = PassInfo(0, name)
        self.fail = fail

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        for func in op.ops:
            assert isinstance(func, FuncOp)
            block = func.body.block
            first = block.first_op
            assert first is not None
            block.insert_op_before(AbsOp.make([block.args[0]]), first)
        if self.fail:
            raise RuntimeError(f"{self.info.name} fails half-way")
        return op


def count_clones(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    original = ModuleOp.clone

    def clone(self: ModuleOp, *args: Any, **kwargs: Any) -> ModuleOp:
        calls[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ModuleOp, "clone", clone)
    return calls


def test_input_unchanged_after_a_pass(small_mod):
    mod = small_mod()
    text = str(mod)
    out = InPlace()(mod)
    assert str(mod) == text
    assert str(out) != text
    out2 = InPlace()(mod.module)  # a builtin.module too
    assert isinstance(out2, ModuleOp)
    assert str(mod) == text


@pytest.mark.parametrize("where", ["direct", "sequential", "nested"])
def test_input_unchanged_when_a_pass_raises_midway(small_mod, where):
    mod = small_mod()
    text = str(mod)
    failing = InPlace("second", fail=True)
    if where == "direct":
        run: Pass = failing
    elif where == "sequential":
        run = Sequential([InPlace("first"), failing, InPlace("third")])
    else:
        run = Sequential([InPlace("first"), Sequential([failing])])
    with pytest.raises(RuntimeError, match="second fails half-way") as info:
        run(mod)
    assert info.value.__notes__ == ["in pass second"]
    assert str(mod) == text


def test_sequential_of_n_passes_clones_once(small_mod, monkeypatch):
    mod = small_mod()
    calls = count_clones(monkeypatch)
    seq = Sequential([InPlace(f"p{i}") for i in range(5)])
    seq(mod)
    assert calls[0] == 1
    nested = Sequential([seq, Sequential([InPlace(), get_pass("InferType")])])
    calls[0] = 0
    nested(mod)
    assert calls[0] == 1

    @function_pass(opt_level=0)
    def calls_a_pass(func: FuncOp, m: Any, ctx: PassContext) -> FuncOp:
        return func

    @module_pass(opt_level=0)
    def runs_inner(m: Any, ctx: PassContext) -> Any:
        return InPlace("inner")(m)  # a pass called from a pass works in place

    calls[0] = 0
    Sequential([calls_a_pass, runs_inner])(mod)
    assert calls[0] == 1

    calls[0] = 0
    with PassContext(config={"xrelay.verify_each": False}):
        seq(mod)
    assert calls[0] == 1


def test_vetoed_pass_does_not_clone(small_mod, monkeypatch):
    from xrelay.pass_manager import PassInstrument

    class Veto(PassInstrument):
        def should_run(self, mod: Any, info: PassInfo) -> bool:
            return False

    mod = small_mod()
    calls = count_clones(monkeypatch)
    with PassContext(instruments=[Veto()]):
        assert InPlace()(mod) is mod
    assert calls[0] == 0


class BreaksIR(Pass):
    """Removes the terminator of every function: the IR no longer verifies."""

    def __init__(self) -> None:
        self.info = PassInfo(0, "BreaksIR")

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        for func in op.ops:
            assert isinstance(func, FuncOp)
            ret = func.body.block.last_op
            assert isinstance(ret, ReturnOp)
            func.body.block.erase_op(ret)
        return op


def test_verify_each_names_the_pass_that_broke_the_ir(small_mod):
    mod = small_mod()
    text = str(mod)
    seq = Sequential([get_pass("InferType"), BreaksIR(), InPlace()])
    with pytest.raises(
        PassVerificationError, match=r"^the IR after pass 'BreaksIR' does not verify: "
    ) as info:
        seq(mod)
    assert info.value.pass_name == "BreaksIR"
    assert info.value.__notes__ == ["in pass BreaksIR"]
    assert str(mod) == text

    # switched off, the broken IR goes through
    with PassContext(config={"xrelay.verify_each": False}):
        out = Sequential([BreaksIR()])(mod)
    assert not isinstance(out.func_op("main").body.block.last_op, ReturnOp)


def test_verify_each_checks_the_input_of_the_outermost_call(small_mod):
    with PassContext(config={"xrelay.verify_each": False}):
        broken = BreaksIR()(small_mod())
    with pytest.raises(
        PassVerificationError, match="^the input module does not verify: "
    ) as info:
        get_pass("InferType")(broken)
    assert info.value.pass_name is None


def test_verify_each_in_an_xdsl_pipeline(small_mod):
    """Passes run through ``to_xdsl`` are verified too."""
    from xrelay.pass_manager.xdsl_interop import xdsl_context

    mod = small_mod().module.clone()
    with pytest.raises(PassVerificationError, match="BreaksIR"):
        to_xdsl(BreaksIR()).apply(xdsl_context(), mod)


def test_pass_run_from_an_instrument_hook_is_an_outermost_call(small_mod):
    """An instrument that runs a pass on the module it is shown (say, to check it)
    works on a copy: the pipeline's module is not changed behind its back."""
    from xrelay.pass_manager import PassInstrument

    class MutatesWhatItSees(PassInstrument):
        def run_after_pass(self, mod: Any, info: PassInfo) -> None:
            if info.name != "in_place_hook":
                InPlace("in_place_hook")(mod)

    seq = Sequential([InPlace("a"), Sequential([InPlace("b")])])
    with PassContext(instruments=[MutatesWhatItSees()]):
        out = seq(small_mod())
    abs_ops = [op for op in out["main"].walk() if op.name == "relay.abs"]
    assert len(abs_ops) == 2  # a and b only
