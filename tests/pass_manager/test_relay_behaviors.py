"""Section 2 of tvm-pass-infra-behaviors.md (R1-R12): TVM's Relay pass-manager tests
on xrelay's IR.

Passes that are not the pass manager's own (FoldConstant, EliminateCommonSubexpr,
AlterOpLayout, DeadCodeElimination, SimplifyExpr, AnnotateSpans, ToANormalForm) are
record-only stand-ins registered for the test (``placeholders`` fixture) under their
TVM names, kinds, opt_levels and required lists; so these tests check which passes
run, in which order and how names resolve, not what those passes compute (their own
tests in tests/transforms/ do that). InferType is the real pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.dialects.relay import AddOp, ConstantOp
from xrelay.pass_manager import (
    PassContext,
    PassInfo,
    PassInstrument,
    PassTimingInstrument,
    PrintIR,
    Sequential,
    config,
    function_pass,
    get_pass,
    module_pass,
    pass_instrument,
    register_config,
)
from xrelay.runtime.interpreter import interpret

SHAPE = (5, 10)


def same_function(a: FuncOp, b: FuncOp) -> bool:
    """Structural equality of two functions, ignoring their names."""
    b = b.clone()
    b.sym_name = StringAttr(a.sym_name.data)
    return a.is_structurally_equivalent(b)


def infer(mod: relay.IRModule) -> relay.IRModule:
    return get_pass("InferType")(mod)


class Names(PassInstrument):
    """Records the name of every pass that runs (``run_before_pass``)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        self.names.append(info.name)


def double_vars(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
    """TVM's test function pass: every parameter and constant ``v`` becomes
    ``v + v`` (rewritten in place)."""
    block = func.body.block
    first = block.first_op
    assert first is not None
    for arg in block.args:
        twice = AddOp.make([arg, arg])
        block.insert_op_before(twice, first)
        arg.replace_uses_with_if(
            twice.results[0], lambda use, t=twice: use.operation is not t
        )
    for const in [op for op in func.walk() if isinstance(op, ConstantOp)]:
        twice = AddOp.make([const.results[0], const.results[0]])
        parent = const.parent_block()
        assert parent is not None
        parent.insert_op_after(twice, const)
        const.results[0].replace_uses_with_if(
            twice.results[0], lambda use, t=twice: use.operation is not t
        )
    return func


def rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(0.5, 2.0, shape).astype("float32")


# ---------------------------------------------------------------------------------------
# R1-R4: module, function and sequential passes (test_pass_manager.py)
# ---------------------------------------------------------------------------------------


def abs_function() -> relay.Function:
    x = relay.var("x", shape=SHAPE)
    return relay.Function([x], relay.abs(x))


def test_r1_module_pass_adds_a_function():
    x, y = relay.var("x", shape=SHAPE), relay.var("y", shape=SHAPE)
    mod = relay.IRModule({"myAdd": relay.Function([x, y], relay.add(x, y))})
    my_add = mod["myAdd"].clone()

    @module_pass(opt_level=0, name="module_pass_test")
    def transform(m: Any, ctx: PassContext) -> Any:
        new = relay.IRModule({"myAbs": abs_function()})
        new.update(m)
        return new

    assert (transform.info.name, transform.info.opt_level) == ("module_pass_test", 0)
    out = transform(mod)
    assert isinstance(out, relay.IRModule)
    assert same_function(
        out["myAbs"], infer(relay.IRModule.from_expr(abs_function()))["main"]
    )
    assert same_function(out["myAdd"], my_add)
    a, b = rand(*SHAPE), rand(*SHAPE) - 1
    for kind in ("graph", "debug"):
        ex = relay.create_executor(kind, mod=out)
        np.testing.assert_allclose(
            ex.evaluate(out.get_global_var("myAbs"))(b).numpy(), np.abs(b)
        )
        np.testing.assert_allclose(
            ex.evaluate(out.get_global_var("myAdd"))(a, b).numpy(), a + b, rtol=1e-6
        )


def test_r2_function_pass_transforms_every_function():
    x = relay.var("x", shape=SHAPE)
    mod = relay.IRModule({"myLog": relay.Function([x], relay.log(x))})
    p = function_pass(double_vars, opt_level=1, name="function_pass_test")
    assert (p.info.name, p.info.opt_level) == ("function_pass_test", 1)
    out = p(mod)
    expected = relay.IRModule.from_expr(relay.Function([x], relay.log(relay.add(x, x))))
    assert same_function(out["myLog"], expected["main"])
    a = rand(*SHAPE)
    np.testing.assert_allclose(
        interpret(out, a, entry="myLog"), np.log(2 * a), rtol=1e-6
    )

    def direct_transform(func: FuncOp, m: Any, ctx: PassContext) -> FuncOp:
        return func

    assert function_pass(direct_transform, opt_level=0).info.name == "direct_transform"


def test_r3_function_class_pass_replaces_every_function():
    """The result equals ``InferType()(IRModule.from_expr(f1))["main"]``: a function
    pass runs InferType afterwards."""
    x, y = relay.var("x", shape=SHAPE), relay.var("y", shape=SHAPE)
    f1 = relay.Function([x, y], relay.subtract(x, y))

    @function_pass(opt_level=1)
    class TestReplaceFunc:
        def __init__(self, new_func: FuncOp):
            self.new_func = new_func

        def transform_function(
            self, func: FuncOp, mod: Any, ctx: PassContext
        ) -> FuncOp:
            return self.new_func.clone()

    f1_op = relay.IRModule.from_expr(f1)["main"]
    mod = relay.IRModule.from_expr(relay.Function([x, y], relay.add(x, y)))
    out = TestReplaceFunc(f1_op)(mod)
    assert same_function(out["main"], infer(relay.IRModule.from_expr(f1))["main"])


def sequential_module() -> relay.IRModule:
    x, y, z = (relay.var(n, shape=SHAPE) for n in "xyz")
    return relay.IRModule(
        {
            "mySub": relay.Function([x, y], relay.subtract(x, y)),
            "myLog": relay.Function([z], relay.log(z)),
        }
    )


@module_pass(opt_level=1, name="mod_transform")
def mod_transform(mod: Any, ctx: PassContext) -> Any:
    mod["myAbs"] = abs_function()
    return mod


func_transform = function_pass(double_vars, opt_level=1, name="func_transform")


def reference(fn: relay.Function) -> FuncOp:
    return relay.IRModule.from_expr(fn)["main"]


def test_r4_sequential_pass():
    x, y, z, a = (relay.var(n, shape=SHAPE) for n in "xyza")
    sub, log = (
        reference(relay.Function([x, y], relay.subtract(x, y))),
        reference(relay.Function([z], relay.log(z))),
    )
    sub2 = reference(
        relay.Function([x, y], relay.subtract(relay.add(x, x), relay.add(y, y)))
    )
    log2 = reference(relay.Function([z], relay.log(relay.add(z, z))))
    abs1 = reference(relay.Function([a], relay.abs(a)))
    abs2 = reference(relay.Function([a], relay.abs(relay.add(a, a))))

    # test_no_pass
    mod = sequential_module()
    out = Sequential(opt_level=1)(mod)
    assert same_function(out["mySub"], sub)
    assert same_function(out["myLog"], log)

    # test_only_module_pass
    with PassContext(required_pass=["mod_transform"]):
        out = Sequential([mod_transform])(mod)
    assert same_function(out["mySub"], sub)
    assert same_function(out["myAbs"], abs1)

    # test_only_function_pass
    with PassContext(required_pass=["func_transform"]):
        out = Sequential([func_transform])(mod)
    assert same_function(out["mySub"], sub2)
    assert same_function(out["myLog"], log2)

    # test_multiple_passes: the module pass runs first, so myAbs is doubled too
    with PassContext(required_pass=["mod_transform", "func_transform"]):
        out = Sequential([mod_transform, func_transform])(mod)
    assert same_function(out["myAbs"], abs2)
    assert same_function(out["mySub"], sub2)
    assert same_function(out["myLog"], log2)
    u, v = rand(*SHAPE), rand(*SHAPE) * 3
    np.testing.assert_allclose(
        interpret(out, u, v, entry="mySub"), 2 * u - 2 * v, rtol=1e-6
    )
    np.testing.assert_allclose(
        interpret(out, u, entry="myLog"), np.log(2 * u), rtol=1e-6
    )
    np.testing.assert_allclose(
        interpret(out, u - 1, entry="myAbs"), np.abs(2 * (u - 1))
    )
    assert same_function(mod["mySub"], sub)  # the input is unchanged
    assert "myAbs" not in mod


# ---------------------------------------------------------------------------------------
# R5-R8: scoping, nesting, PrintIR and pass counts
# ---------------------------------------------------------------------------------------


def scoping_example() -> relay.IRModule:
    """[R]'s ``test_sequential_with_scoping`` input (smaller shapes)."""
    c = relay.const(np.full((1, 4, 6, 6), 0.5, "float32"))
    x = relay.var("x", shape=(1, 4, 8, 8))
    weight = relay.var("weight", shape=(4, 4, 3, 3))
    conv = relay.nn.conv2d(x, weight)
    y = relay.add(c, c)
    y = relay.multiply(y, relay.const(2, "float32"))
    y = relay.add(conv, y)
    z = relay.add(y, c)
    z1 = relay.add(y, c)
    return relay.IRModule.from_expr(relay.Function([x, weight], relay.add(z, z1)))


def test_r5_sequential_with_scoping(placeholders):
    """Every pass runs at opt_level 3 in list order, each function pass followed by
    InferType and CSE / AlterOpLayout preceded by their required InferType. (The
    folding and CSE results are the real passes' tests.)"""
    seq = Sequential(
        [
            get_pass("InferType"),
            get_pass("FoldConstant"),
            get_pass("EliminateCommonSubexpr"),
            get_pass("AlterOpLayout"),
        ]
    )
    names = Names()
    with PassContext(opt_level=3, instruments=[names]):
        seq(scoping_example())
    assert placeholders == ["FoldConstant", "EliminateCommonSubexpr", "AlterOpLayout"]
    assert names.names == [
        "sequential",
        "InferType",
        "FoldConstant",
        "InferType",
        "InferType",
        "EliminateCommonSubexpr",
        "InferType",
        "InferType",
        "AlterOpLayout",
        "InferType",
    ]
    placeholders.clear()
    seq(scoping_example())  # at the default opt_level 2 the level-3 passes are skipped
    assert placeholders == ["FoldConstant"]


def test_r6_nested_sequential_with_scoping(placeholders):
    """The nested Sequential's own opt_level is 0, and SimplifyExpr's required
    InferType is resolved."""
    names = Names()
    with PassContext(opt_level=1, instruments=[names]):
        Sequential([Sequential([get_pass("SimplifyExpr")])])(scoping_example())
    assert placeholders == ["SimplifyExpr"]
    assert names.names == [
        "sequential",
        "sequential",
        "InferType",
        "SimplifyExpr",
        "InferType",
    ]


def test_r7_print_ir(placeholders, capsys):
    seq = Sequential(
        [
            get_pass("InferType"),
            get_pass("FoldConstant"),
            PrintIR(),
            get_pass("DeadCodeElimination"),
        ]
    )
    with PassContext(opt_level=3):
        seq(scoping_example())
    err = capsys.readouterr().err
    assert "PrintIR" in err
    assert "multiply" in err
    assert placeholders == ["FoldConstant", "DeadCodeElimination"]


def test_r8_print_debug_callback_counts(placeholders):
    """6 ``run_before_pass`` calls: the Sequential, InferType, FoldConstant, the
    InferType after the FoldConstant function pass, the InferType DCE requires, DCE.
    (The [v0.7] ``trace`` version counted 3: see b48.)"""

    @pass_instrument
    class PassCounter:
        def __init__(self) -> None:
            self.counts = 0

        def enter_pass_ctx(self) -> None:
            self.counts = 0

        def exit_pass_ctx(self) -> None:
            self.counts = 0

        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            self.counts += 1

    counter, names = PassCounter(), Names()
    seq = Sequential(
        [
            get_pass("InferType"),
            get_pass("FoldConstant"),
            get_pass("DeadCodeElimination"),
        ]
    )
    with PassContext(opt_level=3, instruments=[counter, names]):
        assert counter.counts == 0
        seq(scoping_example())
        assert counter.counts == 6
    assert counter.counts == 0
    assert names.names == [
        "sequential",
        "InferType",
        "FoldConstant",
        "InferType",
        "InferType",
        "DeadCodeElimination",
    ]


# ---------------------------------------------------------------------------------------
# R9-R12
# ---------------------------------------------------------------------------------------


def instrument_model() -> relay.IRModule:
    x, y, z = (relay.var(n, shape=(2, 3)) for n in "xyz")
    a, s = relay.add(x, y), relay.subtract(x, z)
    return relay.IRModule.from_expr(relay.add(relay.multiply(a, relay.divide(a, s)), s))


def test_r9_pass_instrument_tests(placeholders):
    """[R] test_pass_instrument.py on AnnotateSpans / ToANormalForm / InferType:
    timing installed with ``override_instruments`` on the current context,
    ``test_instrument_pass_counts`` (on a Sequential: xrelay has no
    ``relay.build``) and ``test_list_pass_configs``. The custom, disable and
    multiple-instrument tests are b32 and b33."""

    def run_three() -> None:
        mod = instrument_model()
        for name in ("AnnotateSpans", "ToANormalForm", "InferType"):
            mod = get_pass(name)(mod)

    ctx = PassContext.current()
    try:
        ctx.override_instruments([PassTimingInstrument()])
        run_three()
        profiles = PassTimingInstrument.render()
        for name in ("AnnotateSpans", "ToANormalForm", "InferType"):
            assert f"{name}: " in profiles
    finally:
        ctx.override_instruments(None)
    run_three()
    assert PassTimingInstrument.render() == ""

    @pass_instrument
    class PassCounts:
        def __init__(self) -> None:
            self.before = self.after = 0

        def enter_pass_ctx(self) -> None:
            self.before = self.after = 0

        def exit_pass_ctx(self) -> None:
            self.before = self.after = 0

        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            self.before += 1

        def run_after_pass(self, mod: Any, info: PassInfo) -> None:
            self.after += 1

    counts = PassCounts()
    pipeline = Sequential(
        [
            get_pass(n)
            for n in ("InferType", "SimplifyExpr", "FoldConstant", "ToANormalForm")
        ]
    )
    with PassContext(opt_level=3, instruments=[counts]):
        pipeline(instrument_model())
        assert counts.before == counts.after
        assert counts.before > 0
    assert (counts.before, counts.after) == (0, 0)

    configs = PassContext.list_configs()
    assert configs["relay.FuseOps.max_depth"]["type"] == "int"
    assert configs["testing.immutable_module"]["type"] == "bool"


def test_r10_cpp_sequential_test(placeholders, monkeypatch):
    """[R] ``TEST(Relay, Sequential)``: opt_level 3 with a config option, and
    ``[InferType, DeadCodeElimination, EliminateCommonSubexpr, AlterOpLayout]``: no
    FoldConstant runs. The config option is registered for this test only."""
    monkeypatch.setattr(config, "_OPTIONS", dict(config._OPTIONS))
    register_config("relay.fallback_device_type", int, 0)
    seen: list[int] = []

    @pass_instrument
    class ReadConfig:
        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            seen.append(PassContext.current().get_config("relay.fallback_device_type"))

    seq = Sequential(
        [
            get_pass("InferType"),
            get_pass("DeadCodeElimination"),
            get_pass("EliminateCommonSubexpr"),
            get_pass("AlterOpLayout"),
        ]
    )
    with PassContext(
        opt_level=3,
        config={"relay.fallback_device_type": 1},
        instruments=[ReadConfig()],
    ):
        seq(scoping_example())
    assert placeholders == [
        "DeadCodeElimination",
        "EliminateCommonSubexpr",
        "AlterOpLayout",
    ]
    assert set(seen) == {1}


def test_r11_disabled_pass_in_relay_builds(placeholders):
    seq = Sequential(
        [
            get_pass("InferType"),
            get_pass("FoldConstant"),
            get_pass("EliminateCommonSubexpr"),
            get_pass("AlterOpLayout"),
        ]
    )
    with PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]):
        seq(scoping_example())
    assert placeholders == ["FoldConstant", "EliminateCommonSubexpr"]


@pytest.mark.parametrize(
    "name",
    ["InferType", "infer-type", "transform.InferType", "relay._transform.InferType"],
)
def test_r12_required_name_resolution(name, small_mod):
    """One registry holds every pass under its TVM name and its pipeline name; the
    TVM registry prefixes ``transform.`` and ([R] only) ``relay._transform.`` are
    accepted too. Each lookup makes a fresh pass."""
    assert get_pass(name).info.name == "InferType"
    assert get_pass(name) is not get_pass(name)
    names = Names()
    with PassContext(instruments=[names]):
        Sequential(
            [module_pass(lambda m, c: m, opt_level=0, name="p", required=[name])]
        )(small_mod())
    assert names.names == ["sequential", "InferType", "p"]
