"""The garbage collector between build stages (xrelay.lowering.collector)."""

from __future__ import annotations

import gc
import weakref

import numpy as np

import xrelay
from xrelay import relay
from xrelay.lowering.collector import collect_between_stages, stage_boundary
from xrelay.lowering.stages import StageTimes


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_off_inside_collected_at_boundaries_on_after():
    assert gc.isenabled()
    with collect_between_stages():
        assert not gc.isenabled()
        dead = _cycle()
        assert dead() is not None  # no collection within a stage
        stage_boundary()
        assert dead() is None
    assert gc.isenabled()


def test_on_again_after_an_exception():
    try:
        with collect_between_stages():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.isenabled()


def test_outside_nested_or_collector_off_does_nothing():
    gc.disable()
    dead = _cycle()
    try:
        stage_boundary()  # not inside collect_between_stages: no collection
        assert dead() is not None
        with collect_between_stages():
            stage_boundary()
            assert dead() is not None  # the application turned it off: left alone
        assert not gc.isenabled()
    finally:
        gc.enable()
    with collect_between_stages():
        with collect_between_stages():
            pass
        assert not gc.isenabled()  # the inner exit does not turn it on
    assert gc.isenabled()


def test_build_turns_it_on_again_and_times_the_collections():
    x = relay.var("x", shape=(2, 3), dtype="float32")
    mod = relay.IRModule.from_expr(relay.nn.relu(x))
    with StageTimes() as times:
        lib = xrelay.build(mod, cache=False)
    assert gc.isenabled()
    assert "collector" in times.seconds
    a = np.array([[-1, 2, -3], [4, -5, 6]], "float32")
    np.testing.assert_array_equal(lib(a), np.maximum(a, 0))
