"""Behaviours 14-21 of tvm-pass-infra-behaviors.md: Sequential, opt_level gating and
its precedence, nesting, and required passes resolved through the registry."""

from __future__ import annotations

from typing import Any

import pytest

from xrelay.pass_manager import (
    Pass,
    PassContext,
    PassInfo,
    Sequential,
    UnknownPassError,
    module_pass,
)


def recording(name: str, opt_level: int, log: list[str], required: Any = None) -> Pass:
    """A module pass that appends its name to ``log`` when it runs."""

    def body(mod: Any, ctx: PassContext) -> Any:
        log.append(name)
        return mod

    return module_pass(body, opt_level=opt_level, name=name, required=required)


def test_b14_sequential_defaults_and_validation(small_mod):
    seq = Sequential()
    assert (seq.info.name, seq.info.opt_level, seq.info.required) == (
        "sequential",
        0,
        (),
    )
    seq = Sequential(passes=[recording("a", 0, [])], opt_level=2)
    assert (seq.info.name, seq.info.opt_level) == ("sequential", 2)
    with pytest.raises(TypeError, match=r"^passes must be a list of Pass objects\.$"):
        Sequential(passes=recording("a", 0, []))  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"^Required is expected to be the type of list/tuple\.$"
    ):
        Sequential([], required="InferType")  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match="passes must be a list of Pass objects, got int"
    ):
        Sequential([1])  # type: ignore[list-item]


def test_b15_empty_sequential_returns_the_module_unchanged(small_mod):
    mod = small_mod()
    out = Sequential(opt_level=1)(mod)
    assert out.module.is_structurally_equivalent(mod.module)
    assert str(out["main"]) == str(mod["main"])


GATING = [
    ({"opt_level": 0}, ["L0"]),
    ({"opt_level": 1}, ["L0"]),
    ({"opt_level": 2}, ["L0", "L2"]),
    ({"opt_level": 3}, ["L0", "L2", "L3"]),
    ({"opt_level": 0, "required_pass": ["L3"]}, ["L0", "L3"]),
    ({"opt_level": 3, "disabled_pass": ["L2"]}, ["L0", "L3"]),
    ({"opt_level": 3, "required_pass": ["L2"], "disabled_pass": ["L2"]}, ["L0", "L3"]),
]


@pytest.mark.parametrize(("ctx_args", "expected"), GATING)
def test_b16_opt_level_gating_precedence(small_mod, ctx_args, expected):
    """disabled beats required beats ``opt_level <= ctx.opt_level``; exact names."""
    log: list[str] = []
    seq = Sequential(
        [recording("L0", 0, log), recording("L2", 2, log), recording("L3", 3, log)]
    )
    with PassContext(**ctx_args):
        seq(small_mod())
    assert log == expected


def test_b16_names_are_compared_exactly(small_mod):
    log: list[str] = []
    seq = Sequential([recording("FoldConstant", 3, log)])
    with PassContext(
        opt_level=0, required_pass=["foldconstant", "fold-constant", "Fold"]
    ):
        seq(small_mod())
    assert log == []


def test_b17_gating_applies_only_to_sequential_children(small_mod):
    log: list[str] = []
    hi = recording("hi", 3, log)
    with PassContext(opt_level=0, disabled_pass=["hi"]):
        hi(small_mod())  # a direct call always runs
    assert log == ["hi"]

    log.clear()
    top = Sequential(
        [recording("a", 0, log), recording("b", 3, log)], opt_level=3, name="top"
    )
    with PassContext(opt_level=1, disabled_pass=["top"]):
        top(small_mod())  # the top-level Sequential runs; its children are gated
    assert log == ["a"]

    log.clear()
    inner = Sequential([recording("i", 0, log)], opt_level=3, name="inner")
    with PassContext(opt_level=2):
        Sequential([inner])(small_mod())  # a nested one is gated by its own opt_level
    assert log == []
    with PassContext(opt_level=3, disabled_pass=["inner"]):
        Sequential([inner])(small_mod())  # ... and by its own name
    assert log == []


def test_b18_nested_sequentials(small_mod):
    log: list[str] = []
    outer = Sequential(
        [
            recording("O1", 1, log),
            Sequential(
                [recording("I0", 0, log), recording("I3", 3, log)], name="inner"
            ),
            Sequential([recording("H0", 0, log)], opt_level=3, name="inner_hi"),
            recording("O2", 2, log),
        ],
        name="outer",
    )
    with PassContext(opt_level=2):
        outer(small_mod())
    assert log == ["O1", "I0", "O2"]
    log.clear()
    with PassContext(opt_level=2, disabled_pass=["inner"]):
        outer(small_mod())
    assert log == ["O1", "O2"]


def test_b19_required_passes_run_first_from_the_registry(small_mod, register_standin):
    log: list[str] = []
    made = register_standin("Dep", lambda: recording("Dep", 3, log))
    a = recording("A", 0, log, required=["Dep"])
    b = recording("B", 0, log, required=["Dep"])
    with PassContext(opt_level=0, disabled_pass=["Dep"]):
        # Dep runs although its opt_level is too high and it is disabled, before each
        # dependent (no deduplication), each time as a fresh pass object
        Sequential([a, b])(small_mod())
    assert log == ["Dep", "A", "Dep", "B"]
    assert len(made) == 2
    assert made[0] is not made[1]

    # dependencies of a disabled (or gated-off) pass are not resolved
    log.clear()
    made.clear()
    with PassContext(opt_level=3, disabled_pass=["A"]):
        Sequential([a, recording("C", 4, log, required=["Dep"])])(small_mod())
    assert log == []
    assert made == []

    # a direct call and the top-level Sequential's own list ignore ``required``
    log.clear()
    a(small_mod())
    Sequential([recording("X", 0, log)], required=["Dep"])(small_mod())
    assert log == ["A", "X"]

    # a nested Sequential's list is resolved
    log.clear()
    Sequential([Sequential([recording("Y", 0, log)], required=["Dep"])])(small_mod())
    assert log == ["Dep", "Y"]


def test_b19_required_passes_are_instrumented(
    small_mod, register_standin, recorder, events
):
    """Dependencies go through the normal instrumented path (``should_run`` too,
    see b34) but not through ``pass_enabled``."""
    log: list[str] = []
    register_standin("Dep", lambda: recording("Dep", 3, log))
    seq = Sequential([recording("A", 0, log, required=["Dep"])], name="seq")
    with PassContext(
        opt_level=0, instruments=[recorder("%1", events, with_names=True)]
    ):
        seq(small_mod())
    assert events == [
        "%1 enter_pass_ctx",
        "%1 should_run seq",
        "%1 run_before_pass seq",
        "%1 should_run Dep",
        "%1 run_before_pass Dep",
        "%1 run_after_pass Dep",
        "%1 should_run A",
        "%1 run_before_pass A",
        "%1 run_after_pass A",
        "%1 run_after_pass seq",
        "%1 exit_pass_ctx",
    ]


def test_b20_unknown_required_pass_is_an_error_before_anything_runs(small_mod):
    """TVM raises ``InternalError`` ending in ``Cannot use NoSuchPass to create the
    pass`` when it reaches the dependent pass; xrelay raises
    :class:`UnknownPassError` (a ``ValueError``) with that text before any pass of
    the Sequential runs."""
    log: list[str] = []
    seq = Sequential(
        [recording("first", 0, log), recording("p", 0, log, required=["NoSuchPass"])]
    )
    with pytest.raises(
        UnknownPassError, match=r"^Cannot use NoSuchPass to create the pass"
    ):
        seq(small_mod())
    assert log == []
    with pytest.raises(UnknownPassError, match="did you mean InferType"):
        Sequential([recording("p", 0, log, required=["InferTyp"])])(small_mod())


def test_b21_no_dependency_graph_passes_run_in_list_order(small_mod, register_standin):
    """TVM's ``ResolveDependency`` is an unimplemented fatal stub; xrelay has no such
    method either: passes run in list order, a required pass is not moved or
    deduplicated, and a pass listed after its dependent still runs again."""
    log: list[str] = []
    register_standin("X", lambda: recording("X", 0, log))
    seq = Sequential([recording("P", 0, log, required=["X"]), recording("X", 0, log)])
    seq(small_mod())
    assert log == ["X", "P", "X"]
    assert not hasattr(seq, "resolve_dependency")
    assert seq.info == PassInfo(0, "sequential")
