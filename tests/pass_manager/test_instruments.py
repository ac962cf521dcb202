"""Behaviours 31-48 of tvm-pass-infra-behaviors.md: instrument hook order, should_run,
the exception rules, override_instruments, PassTimingInstrument, PrintIR, the print
instruments and the old ``trace`` callback."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from xrelay import relay
from xrelay.pass_manager import (
    DumpIR,
    ModulePass,
    PassContext,
    PassInfo,
    PassInstrument,
    PassPrintingInstrument,
    PassTimingInstrument,
    PrintAfter,
    PrintAfterAll,
    PrintBefore,
    PrintBeforeAll,
    PrintIR,
    Sequential,
    get_pass,
    module_pass,
    pass_instrument,
)


def logging_pass(name: str, events: list[str], opt_level: int = 0) -> ModulePass:
    def body(mod: Any, ctx: PassContext) -> Any:
        events.append(f"{name} pass")
        return mod

    return module_pass(body, opt_level=opt_level, name=name)


def instrument_model() -> relay.IRModule:
    """TVM's instrument test model: ``(x + y) * ((x + y) / (x - z)) + (x - z)``."""
    x, y, z = (relay.var(n, shape=(2, 3)) for n in "xyz")
    a, s = relay.add(x, y), relay.subtract(x, z)
    return relay.IRModule.from_expr(relay.add(relay.multiply(a, relay.divide(a, s)), s))


# ---------------------------------------------------------------------------------------
# call order
# ---------------------------------------------------------------------------------------


def test_b31_hook_order_two_instruments_two_passes(small_mod, recorder, events):
    t1, t2 = logging_pass("transform1", events), logging_pass("transform2", events)
    mod = small_mod()
    with PassContext(instruments=[recorder("%1", events), recorder("%2", events)]):
        mod = t1(mod)
        mod = t2(mod)
    per_pass = [
        "%1 should_run",
        "%2 should_run",
        "%1 run_before_pass",
        "%2 run_before_pass",
        "{} pass",
        "%1 run_after_pass",
        "%2 run_after_pass",
    ]
    assert events == [
        "%1 enter_pass_ctx",
        "%2 enter_pass_ctx",
        *[e.format("transform1") for e in per_pass],
        *[e.format("transform2") for e in per_pass],
        "%1 exit_pass_ctx",
        "%2 exit_pass_ctx",
    ]


class BaseTest:
    def __init__(self) -> None:
        self.events: list[str] = []

    def enter_pass_ctx(self) -> None:
        self.events.append("enter ctx")

    def exit_pass_ctx(self) -> None:
        self.events.append("exit ctx")

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        self.events.append("run before " + info.name)

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        self.events.append("run after " + info.name)


@pass_instrument
class DecoratedTest(BaseTest):
    """A decorated instrument."""


class SubclassTest(BaseTest, PassInstrument):
    def __init__(self) -> None:
        PassInstrument.__init__(self)
        BaseTest.__init__(self)


@pytest.mark.parametrize(
    "make", [DecoratedTest, SubclassTest], ids=["decorator", "subclass"]
)
def test_b32_custom_instrument(small_mod, make):
    inst = make()
    with PassContext(instruments=[inst]):
        get_pass("InferType")(small_mod())
    assert inst.events == [
        "enter ctx",
        "run before InferType",
        "run after InferType",
        "exit ctx",
    ]
    assert isinstance(inst, PassInstrument)
    assert inst.overridden("run_before_pass") is not None
    assert inst.overridden("should_run") is None  # not overridden: never called


def test_b32_pass_instrument_decorator_details():
    assert DecoratedTest.__name__ == "DecoratedTest"
    assert DecoratedTest.__doc__ == "A decorated instrument."
    assert pass_instrument()(BaseTest).__name__ == "BaseTest"
    with pytest.raises(TypeError, match=r"^pi_cls must be a class$"):
        pass_instrument(3)  # type: ignore[arg-type]


def test_b33_should_run_semantics(small_mod, recorder, events):
    """Results are AND-ed, every instrument is asked; a veto skips before/body/after
    and returns the input object; a non-bool answer is a ``TypeError``."""
    p = logging_pass("p", events)
    mod = small_mod()
    with PassContext(
        instruments=[
            recorder("%1", events, veto=lambda n: True),
            recorder("%2", events),
        ]
    ):
        out = p(mod)
    assert out is mod
    assert events == [
        "%1 enter_pass_ctx",
        "%2 enter_pass_ctx",
        "%1 should_run",
        "%2 should_run",
        "%1 exit_pass_ctx",
        "%2 exit_pass_ctx",
    ]

    class Bad(PassInstrument):
        def should_run(self, mod: Any, info: PassInfo) -> Any:
            return None

    with (
        PassContext(instruments=[Bad()]),
        pytest.raises(
            TypeError, match="should_run must return a bool, got NoneType for pass p"
        ),
    ):
        p(mod)


def test_b33_disable_pass_and_multiple_instruments(placeholders):
    """[R] ``test_disable_pass`` / ``test_multiple_instrument`` with AnnotateSpans and
    ToANormalForm stand-ins and the real InferType."""

    @pass_instrument
    class OnlyInferType:
        def __init__(self) -> None:
            self.events: list[str] = []

        def should_run(self, mod: Any, info: PassInfo) -> bool:
            return "InferType" in info.name

        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            self.events.append(info.name)

    @pass_instrument
    class SkipPass:
        def __init__(self, skip: str) -> None:
            self.skip = skip

        def should_run(self, mod: Any, info: PassInfo) -> bool:
            return self.skip not in info.name

    @pass_instrument
    class PrintPassName:
        def __init__(self) -> None:
            self.events: list[str] = []

        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            self.events.append(info.name)

    def run_three() -> None:
        mod = instrument_model()
        mod = get_pass("AnnotateSpans")(mod)
        mod = get_pass("ToANormalForm")(mod)
        get_pass("InferType")(mod)

    only = OnlyInferType()
    with PassContext(instruments=[only]):
        run_three()
    assert only.events == ["InferType"]
    assert placeholders == []

    names = PrintPassName()
    with PassContext(
        instruments=[SkipPass("AnnotateSpans"), SkipPass("ToANormalForm"), names]
    ):
        run_three()
    assert names.events == ["InferType"]


def test_b34_should_run_not_asked_for_ctx_required_passes(
    small_mod, recorder, events, register_standin
):
    """Not asked for names in ``ctx.required_pass``; asked (and able to veto) for
    dependencies pulled in through ``PassInfo.required``."""
    log: list[str] = []
    p = logging_pass("p", log)
    veto_all = recorder("%1", events, veto=lambda n: True, with_names=True)
    with PassContext(required_pass=["p"], instruments=[veto_all]):
        p(small_mod())
    assert log == ["p pass"]
    assert events[1:-1] == ["%1 run_before_pass p", "%1 run_after_pass p"]

    events.clear()
    log.clear()
    register_standin("Dep", lambda: logging_pass("Dep", log))
    dependent = module_pass(lambda m, c: m, opt_level=0, name="q", required=["Dep"])
    with PassContext(
        required_pass=["q", "sequential"],
        instruments=[
            recorder("%1", events, veto=lambda n: n == "Dep", with_names=True)
        ],
    ):
        Sequential([dependent])(small_mod())
    assert log == []  # the dependency was vetoed
    assert events[1:-1] == [
        "%1 run_before_pass sequential",
        "%1 should_run Dep",
        "%1 run_before_pass q",
        "%1 run_after_pass q",
        "%1 run_after_pass sequential",
    ]


def test_b35_sequential_is_instrumented_gated_children_are_invisible(small_mod, events):
    @pass_instrument
    class Log:
        def should_run(self, mod: Any, info: PassInfo) -> bool:
            events.append(f"should_run {info.name}")
            return info.name != "vetoed"

        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            events.append(f"before {info.name}")

        def run_after_pass(self, mod: Any, info: PassInfo) -> None:
            events.append(f"after {info.name}")

    def run(name: str, opt_level: int) -> ModulePass:
        def body(mod: Any, ctx: PassContext) -> Any:
            events.append(f"RUN {name}")
            return mod

        return module_pass(body, opt_level=opt_level, name=name)

    seq = Sequential([run("a", 0), run("b", 3), run("c", 1)], name="seqX")
    with PassContext(opt_level=2, instruments=[Log()]):
        seq(small_mod())
    assert events == [
        "should_run seqX",
        "before seqX",
        *["should_run a", "before a", "RUN a", "after a"],
        *["should_run c", "before c", "RUN c", "after c"],
        "after seqX",
    ]

    # a vetoed Sequential skips its whole body
    events.clear()
    with PassContext(instruments=[Log()]):
        Sequential([run("a", 0)], name="vetoed")(small_mod())
    assert events == ["should_run vetoed"]

    # a pass called from inside another pass's function nests (X07)
    events.clear()
    inner = run("inner", 0)

    @module_pass(opt_level=0)
    def outer(mod: Any, ctx: PassContext) -> Any:
        return inner(mod)

    with PassContext(instruments=[Log()]):
        outer(small_mod())
    assert events == [
        "should_run outer",
        "before outer",
        "should_run inner",
        "before inner",
        "RUN inner",
        "after inner",
        "after outer",
    ]


def test_b36_enter_and_exit_hooks_reset_state(placeholders):
    @pass_instrument
    class PassCounter:
        def __init__(self) -> None:
            self.counts = 1234

        def enter_pass_ctx(self) -> None:
            self.counts = 0

        def exit_pass_ctx(self) -> None:
            self.counts = 0

        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            self.counts += 1

    counter = PassCounter()
    seq = Sequential(
        [
            get_pass("InferType"),
            get_pass("FoldConstant"),
            get_pass("DeadCodeElimination"),
        ]
    )
    with PassContext(opt_level=3, instruments=[counter]):
        assert counter.counts == 0
        seq(instrument_model())
        assert counter.counts == 6  # see R8
    assert counter.counts == 0


# ---------------------------------------------------------------------------------------
# exception rules
# ---------------------------------------------------------------------------------------


def test_b37_exception_in_enter_pass_ctx(recorder, events):
    """TVM turns the error into a ``RuntimeError`` at the FFI; xrelay propagates the
    instrument's own exception (here a ``RuntimeError`` too)."""
    ctx = PassContext(
        instruments=[
            recorder("A", events),
            recorder("B", events, fail="enter_pass_ctx"),
            recorder("C", events),
        ]
    )
    body_ran = False
    with pytest.raises(RuntimeError, match="B fails in enter_pass_ctx"), ctx:
        body_ran = True
    assert not body_ran
    assert events == ["A enter_pass_ctx", "B enter_pass_ctx", "A exit_pass_ctx"]
    assert ctx.instruments == []
    assert PassContext.current() is not ctx

    events.clear()
    ctx = PassContext(
        instruments=[
            recorder("A", events),
            recorder("B", events),
            recorder("C", events, fail="enter_pass_ctx"),
        ]
    )
    with pytest.raises(RuntimeError), ctx:
        pass
    assert events == [
        "A enter_pass_ctx",
        "B enter_pass_ctx",
        "C enter_pass_ctx",
        "B exit_pass_ctx",
        "A exit_pass_ctx",
    ]


def test_b38_exception_in_exit_pass_ctx(recorder, events):
    ctx = PassContext(
        instruments=[
            recorder("A", events),
            recorder("B", events, fail="exit_pass_ctx"),
            recorder("C", events),
        ]
    )
    with pytest.raises(RuntimeError, match="B fails in exit_pass_ctx"), ctx:
        events.clear()
    assert events == ["A exit_pass_ctx", "B exit_pass_ctx"]
    assert ctx.instruments == []
    assert PassContext.current() is not ctx


def test_b39_exception_in_the_pass_body(small_mod, recorder, events):
    @module_pass(opt_level=0)
    def transform(mod: Any, ctx: PassContext) -> Any:
        events.append("transform pass")
        raise ValueError("pass fails")

    inst = recorder("PI", events)
    with (
        pytest.raises(ValueError, match="pass fails") as info,
        PassContext(instruments=[inst]),
    ):
        transform(small_mod())
    assert events == [
        "PI enter_pass_ctx",
        "PI should_run",
        "PI run_before_pass",
        "transform pass",
        "PI exit_pass_ctx",
    ]
    assert info.value.__notes__ == ["in pass transform"]


@pytest.mark.parametrize(
    ("fail", "expected"),
    [
        (
            "should_run",  # b40
            ["%1 enter_pass_ctx", "%2 enter_pass_ctx", "%1 should_run"],
        ),
        (
            "run_before_pass",  # b41
            [
                *["%1 enter_pass_ctx", "%2 enter_pass_ctx"],
                *["%1 should_run", "%2 should_run", "%1 run_before_pass"],
            ],
        ),
        (
            "run_after_pass",  # b42
            [
                *["%1 enter_pass_ctx", "%2 enter_pass_ctx"],
                *["%1 should_run", "%2 should_run"],
                *["%1 run_before_pass", "%2 run_before_pass", "transform pass"],
                "%1 run_after_pass",
            ],
        ),
    ],
)
def test_b40_b41_b42_exception_in_pass_hooks(
    small_mod, recorder, events, fail, expected
):
    """Behaviours 40 (``should_run``), 41 (``run_before_pass``) and 42
    (``run_after_pass``): the failing hook stops the call, the exit hooks still
    run, and the instruments are kept (only enter/exit failures clear them)."""
    transform = logging_pass("transform", events)
    ctx = PassContext(
        instruments=[recorder("%1", events, fail=fail), recorder("%2", events)]
    )
    with pytest.raises(RuntimeError, match=f"%1 fails in {fail}"), ctx:
        transform(small_mod())
    assert events == [*expected, "%1 exit_pass_ctx", "%2 exit_pass_ctx"]
    assert len(ctx.instruments) == 2


class UserError(Exception):
    pass


@pytest.mark.parametrize(
    "exc", [ValueError("v"), RuntimeError("r"), KeyError("k"), UserError("u")]
)
def test_b43_exception_types_are_kept(small_mod, exc):
    """No FFI in between: every exception keeps its type, a user-defined one too
    (0.27 turns those into ``RuntimeError``). The innermost failing pass is named
    once in a note (0.27's "Error in pass: <name>" enrichment, never repeated by the
    Sequentials around it)."""

    @module_pass(opt_level=0)
    def leaf(mod: Any, ctx: PassContext) -> Any:
        raise exc

    @pass_instrument
    class Raises:
        def run_before_pass(self, mod: Any, info: PassInfo) -> None:
            raise exc

    with pytest.raises(type(exc)) as info:
        Sequential([Sequential([leaf], name="inner")], name="outer")(small_mod())
    assert info.value is exc
    assert info.value.__notes__ == ["in pass leaf"]
    exc.__notes__ = []
    with pytest.raises(type(exc)), PassContext(instruments=[Raises()]):
        leaf(small_mod())


def test_b44_override_instruments(recorder, events):
    ctx = PassContext(instruments=[recorder("%A", events)])
    with ctx:
        ctx.override_instruments([recorder("%B", events)])
    assert events == [
        "%A enter_pass_ctx",
        "%A exit_pass_ctx",
        "%B enter_pass_ctx",
        "%B exit_pass_ctx",
    ]

    # on the thread's default context, and None resets ([R]; 0.27 wants [])
    events.clear()
    default = PassContext.current()
    try:
        default.override_instruments([recorder("%G", events)])
        assert len(default.instruments) == 1
    finally:
        default.override_instruments(None)
    assert default.instruments == []
    assert events == ["%G enter_pass_ctx", "%G exit_pass_ctx"]

    # a new instrument failing in enter: the list is cleared
    events.clear()
    ctx = PassContext(instruments=[recorder("%A", events)])
    with pytest.raises(RuntimeError, match="%N fails in enter_pass_ctx"):
        ctx.override_instruments(
            [recorder("%M", events), recorder("%N", events, fail="enter_pass_ctx")]
        )
    assert events == [
        "%A exit_pass_ctx",
        "%M enter_pass_ctx",
        "%N enter_pass_ctx",
        "%M exit_pass_ctx",
    ]
    assert ctx.instruments == []

    # an old instrument failing in exit: cleared, the new ones are never entered
    events.clear()
    ctx = PassContext(instruments=[recorder("%A", events, fail="exit_pass_ctx")])
    with pytest.raises(RuntimeError, match="%A fails in exit_pass_ctx"):
        ctx.override_instruments([recorder("%B", events)])
    assert events == ["%A exit_pass_ctx"]
    assert ctx.instruments == []

    with pytest.raises(
        TypeError, match="instruments must be PassInstrument objects, got str"
    ):
        ctx.override_instruments(["x"])  # type: ignore[list-item]


# ---------------------------------------------------------------------------------------
# PassTimingInstrument
# ---------------------------------------------------------------------------------------

TIMING_LINE = re.compile(
    r"^(?P<tabs>\t*)(?P<name>\w+): (?P<total>\d+)us \[(?P<self>-?\d+)us\] "
    r"\((?P<pct_all>\d+\.\d\d)%; (?P<pct_parent>\d+\.\d\d)%\)$"
)


def parse_profile(text: str) -> list[dict[str, Any]]:
    assert text.endswith("\n")
    rows: list[dict[str, Any]] = []
    for line in text[:-1].split("\n"):
        m = TIMING_LINE.match(line)
        assert m, f"bad timing line {line!r}"
        rows.append(
            {
                "depth": len(m["tabs"]),
                "name": m["name"],
                "pct_all": float(m["pct_all"]),
                "pct_parent": float(m["pct_parent"]),
            }
        )
    return rows


def test_b45_pass_timing_render_format(small_mod):
    def p(name: str) -> ModulePass:
        return module_pass(lambda m, c: m, opt_level=0, name=name)

    outer = Sequential(
        [p("a1"), Sequential([p("c1"), p("c2")], name="innerSeq"), p("a2")],
        name="outerSeq",
    )
    with PassContext(instruments=[PassTimingInstrument()]):
        mod = outer(small_mod())
        p("top2")(mod)
        rows = parse_profile(PassTimingInstrument.render())
    assert [(r["depth"], r["name"]) for r in rows] == [
        (0, "outerSeq"),
        (1, "a1"),
        (1, "innerSeq"),
        (2, "c1"),
        (2, "c2"),
        (1, "a2"),
        (0, "top2"),
    ]
    tops = [r for r in rows if r["depth"] == 0]
    for r in tops:  # for top-level lines "parent" is the sum of the top-level times
        assert r["pct_all"] == r["pct_parent"]
    assert sum(r["pct_all"] for r in tops) == pytest.approx(100, abs=0.02)
    # pct of parent = pct of all / parent's pct of all
    by_name = {r["name"]: r for r in rows}
    for child, parent in (("a1", "outerSeq"), ("c1", "innerSeq")):
        if by_name[parent]["pct_all"] > 1:
            expected = 100 * by_name[child]["pct_all"] / by_name[parent]["pct_all"]
            assert by_name[child]["pct_parent"] == pytest.approx(expected, abs=1.5)


def test_b45_pass_timing_empty_shared_and_cleared(small_mod, caplog):
    """``render`` is static and reads the thread's tree, shared by every timing
    instrument; ``exit_pass_ctx`` clears it; nothing profiled gives ``""`` and a
    logged warning."""
    with caplog.at_level(logging.WARNING, logger="xrelay.pass_manager"):
        assert PassTimingInstrument.render() == ""
    assert "no passes have been profiled, did you enable pass profiling?" in caplog.text

    with PassContext(instruments=[PassTimingInstrument()]):
        get_pass("InferType")(small_mod())
        text = PassTimingInstrument().render()
        assert text.startswith("InferType: ")
    assert PassTimingInstrument.render() == ""

    # two timing instruments: doubled, nested entries (X05)
    with PassContext(instruments=[PassTimingInstrument(), PassTimingInstrument()]):
        get_pass("InferType")(small_mod())
        rows = parse_profile(PassTimingInstrument.render())
    assert [(r["depth"], r["name"]) for r in rows] == [
        (0, "InferType"),
        (1, "InferType"),
    ]


def test_b45_pass_timing_inside_a_pass_and_after_a_failure(small_mod):
    """Rendering while a profiled pass runs, or after one raised (X03), fails.
    TVM's ``exit_pass_ctx`` only clears the tree, so the failed pass stays on the
    profile stack and every later ``render()`` on the thread fails, even under a
    new context (X04); xrelay's exit clears the stack too, so a new context
    starts clean."""
    seen: list[str] = []

    @module_pass(opt_level=0)
    def renders(mod: Any, ctx: PassContext) -> Any:
        try:
            PassTimingInstrument.render()
        except RuntimeError as e:
            seen.append(str(e))
        return mod

    @module_pass(opt_level=0)
    def fails(mod: Any, ctx: PassContext) -> Any:
        raise ValueError("boom")

    with PassContext(instruments=[PassTimingInstrument()]):
        renders(small_mod())
        with pytest.raises(ValueError, match="boom"):
            fails(small_mod())
        with pytest.raises(
            RuntimeError, match=r"^cannot print pass profile while still in a pass!$"
        ):
            PassTimingInstrument.render()
    assert seen == ["cannot print pass profile while still in a pass!"]
    with PassContext(instruments=[PassTimingInstrument()]):
        get_pass("InferType")(small_mod())
        assert PassTimingInstrument.render().startswith("InferType: ")


# ---------------------------------------------------------------------------------------
# printing
# ---------------------------------------------------------------------------------------


def test_b46_print_ir(small_mod, capsys):
    p = PrintIR("after fold")
    assert isinstance(p, ModulePass)
    assert (p.info.name, p.info.opt_level) == ("PrintIR", 0)
    mod = small_mod()
    out = p(mod)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"PrintIR(after fold):\n{mod.module!s}\n"
    assert out.module.is_structurally_equivalent(mod.module)
    PrintIR()(mod)
    assert capsys.readouterr().err.startswith("PrintIR():\nbuiltin.module {")


def test_b47_print_before_all_and_after_all(small_mod, capsys):
    seq = Sequential([get_pass("InferType")], name="_pipeline")
    with PassContext(instruments=[PrintBeforeAll(), PrintAfterAll()]):
        seq(small_mod())
    out = capsys.readouterr().out
    assert "Before Running Pass:" in out
    assert "After Running Pass:" in out
    assert "pass name: _pipeline" in out
    info = "The meta data of the pass - pass name: InferType, opt_level: 0, required passes: []\n"
    assert f"Before Running Pass: {info}\nbuiltin.module {{" in out
    assert out.count("Before Running Pass:") == 2
    assert out.index("pass name: _pipeline") < out.index("pass name: InferType")


def test_b47_print_before_and_after_named_passes(small_mod, capsys):
    mod = small_mod()
    text = str(mod.module)
    with PassContext(instruments=[PrintBefore(["InferType"]), PrintAfter(["p"])]):
        mod = get_pass("InferType")(mod)
        mod = module_pass(lambda m, c: m, opt_level=0, name="p")(mod)
        mod = module_pass(lambda m, c: m, opt_level=0, name="q")(mod)
    out = capsys.readouterr().out
    assert out == f"Print IR before: InferType\n{text}\n\nPrint IR after: p\n{text}\n\n"
    inst = PassPrintingInstrument(print_before=["a"], print_after=["b"])
    assert (inst.print_before, inst.print_after) == ({"a"}, {"b"})


def test_b47_dump_ir(small_mod, tmp_path):
    """Files are ``NNN_<name>.mlir`` (TVM writes TVMScript ``.py``), numbered in
    completion order, so the Sequential gets the last number."""
    pp = module_pass(lambda m, c: m, opt_level=0, name="pp")
    with PassContext(instruments=[DumpIR(tmp_path / "dump")]):
        Sequential([pp, pp], name="s.1")(small_mod())
    files = sorted(f.name for f in (tmp_path / "dump").iterdir())
    assert files == ["000_pp.mlir", "001_pp.mlir", "002_s_1.mlir"]
    assert (
        (tmp_path / "dump" / "002_s_1.mlir").read_text().startswith("builtin.module {")
    )
    DumpIR(tmp_path / "dump", refresh=True)
    assert list((tmp_path / "dump").iterdir()) == []


def test_b48_trace_callback(placeholders, small_mod):
    """``PassContext(trace=fn)``: ``fn(mod, info, is_before)`` around every leaf pass,
    never around a Sequential. [v0.7] counted 3 before-calls for
    ``[InferType, FoldConstant, DeadCodeElimination]``; xrelay, like Relay after
    v0.7, also runs the InferType after the FoldConstant function pass and the
    InferType DeadCodeElimination requires, so it sees 5 leaf passes."""
    calls: list[tuple[str, bool, bool]] = []

    def tracer(mod: Any, info: PassInfo, is_before: bool) -> None:
        calls.append((info.name, is_before, isinstance(mod, relay.IRModule)))

    seq = Sequential(
        [
            get_pass("InferType"),
            get_pass("FoldConstant"),
            get_pass("DeadCodeElimination"),
        ]
    )
    with PassContext(opt_level=3, trace=tracer):
        seq(small_mod())
    before = [name for name, is_before, _ in calls if is_before]
    assert before == [
        "InferType",
        "FoldConstant",
        "InferType",
        "InferType",
        "DeadCodeElimination",
    ]
    assert len(calls) == 10
    assert all(is_mod for _, _, is_mod in calls)
    assert calls[0] == ("InferType", True, True)
    assert calls[1] == ("InferType", False, True)
