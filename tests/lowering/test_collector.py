"""The garbage collector between build stages (xrelay.lowering.collector)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Generator

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.lowering.collector import frozen_between_stages, stage_boundary
from xrelay.lowering.stages import StageTimes


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture(autouse=True)
def _clean_gc() -> Generator[None]:
    assert gc.get_freeze_count() == 0
    yield
    gc.unfreeze()


def test_boundary_collects_frozen_garbage_and_exit_unfreezes():
    with frozen_between_stages():
        held = _Node()
        held.other = _Node()
        held.other.other = held
        ref = weakref.ref(held)
        dead = _cycle()
        stage_boundary()  # collects `dead`, freezes `held`
        assert dead() is None
        assert gc.get_freeze_count() > 0
        del held  # a frozen cycle becomes garbage in the next stage
        stage_boundary()
        assert ref() is None
    assert gc.get_freeze_count() == 0


def test_outside_or_nested_or_app_frozen_does_nothing():
    stage_boundary()
    assert gc.get_freeze_count() == 0
    gc.freeze()  # the application froze objects itself: left alone
    count = gc.get_freeze_count()
    with frozen_between_stages():
        stage_boundary()
        assert gc.get_freeze_count() == count
    assert gc.get_freeze_count() == count
    gc.unfreeze()
    with frozen_between_stages(), frozen_between_stages():
        pass
    assert gc.get_freeze_count() == 0


def test_disabled_collector_is_left_off():
    gc.disable()
    try:
        with frozen_between_stages():
            stage_boundary()
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_build_unfreezes_and_times_the_collections():
    x = relay.var("x", shape=(2, 3), dtype="float32")
    mod = relay.IRModule.from_expr(relay.nn.relu(x))
    with StageTimes() as times:
        lib = xrelay.build(mod, cache=False)
    assert gc.get_freeze_count() == 0
    assert "collector" in times.seconds
    a = np.array([[-1, 2, -3], [4, -5, 6]], "float32")
    np.testing.assert_array_equal(lib(a), np.maximum(a, 0))
