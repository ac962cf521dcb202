"""Stage timing (`xrelay.lowering.stages`): wall clock and CPU time, exclusive."""

from __future__ import annotations

import time

from xrelay.lowering.stages import StageTimes, stage


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_cpu_and_wall_are_recorded_exclusive() -> None:
    with StageTimes() as times:
        with stage("outer"):
            _spin(0.03)
            with stage("inner"):
                time.sleep(0.05)  # wall clock, next to no CPU
                _spin(0.02)
    assert times.seconds["inner"] >= 0.07
    assert 0.02 <= times.cpu["inner"] < 0.05
    # the inner stage is not counted in the outer one (0.05 s CPU with it)
    assert 0.03 <= times.cpu["outer"] < 0.045


def test_nothing_recorded_without_a_recorder() -> None:
    with stage("alone"):
        pass
    with StageTimes() as times:
        pass
    assert times.seconds == {}
    assert times.cpu == {}


def test_parallel_children_add_both_figures() -> None:
    with StageTimes() as times:
        times.add_parallel(2, 1.5, [({"opt": 1.0}, {"opt": 0.8})], 0.9)
    assert times.seconds == {"opt": 1.0}
    assert times.cpu == {"opt": 0.8}
    assert times.jobs == 2
    assert times.parallel_wall == 1.5
    assert times.child_cpu == 0.9
