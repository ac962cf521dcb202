"""Independent kernel calls side by side (xrelay.lowering.overlap): the planner's
segments and slots, and models whose branches overlap giving the same bits on any
team."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay.lowering import work
from xrelay.lowering.overlap import CallFacts, OverlapSettings, Span, plan_overlap

TWO = OverlapSettings(slots=2, max_ns=200_000, threads=2, barrier_ns=1_400)


def call(
    ns: float, reads: str = "", writes: str = "", shared: bool = True
) -> CallFacts:
    """A call reading and writing whole buffers named by letters."""
    return CallFacts(
        ns=ns,
        shared=shared,
        reads=tuple(Span(b, 0, 64) for b in reads),
        writes=tuple(Span(b, 0, 64) for b in writes),
    )


def test_branches_between_a_fork_and_a_join_run_side_by_side() -> None:
    # x -> a; a -> (b -> c) and a -> d; (c, d) -> e
    items = [
        call(30_000, "x", "a"),
        call(30_000, "a", "b"),
        call(30_000, "b", "c"),
        call(50_000, "a", "d"),
        call(30_000, "cd", "e"),
    ]
    plan = plan_overlap(items, TWO)
    # the fork's producer and the join run the usual way; the branches side by side
    assert plan[0] is None
    assert plan[4] is None
    assert plan[1] == plan[2] == (0, 0)
    assert plan[3] == (0, 1)


def test_a_chain_is_never_overlapped() -> None:
    items = [call(30_000, "x", "a"), call(30_000, "a", "b"), call(30_000, "b", "c")]
    assert plan_overlap(items, TWO) == [None, None, None]


def test_a_residual_is_not_a_fork() -> None:
    # a feeds b and c, but c also reads b: one chain
    items = [call(30_000, "x", "a"), call(30_000, "a", "b"), call(30_000, "ab", "c")]
    assert plan_overlap(items, TWO) == [None, None, None]


def test_unbalanced_branches_stay_shared() -> None:
    # side by side the long branch alone would set the time: sharing both is faster
    items = [call(150_000, "x", "a"), call(5_000, "x", "b"), call(1_000, "ab", "c")]
    assert plan_overlap(items, TWO) == [None, None, None]


def test_small_calls_stay_on_thread_zero() -> None:
    # calls too small to share already run back to back on thread 0, no barrier
    items = [call(800, "x", "a", False), call(800, "x", "b", False)]
    assert plan_overlap(items, TWO) == [None, None]


def test_big_calls_and_steps_of_every_thread_end_segments() -> None:
    items = [
        call(30_000, "x", "a"),
        call(30_000, "x", "b"),
        None,  # a condition every thread reads
        call(30_000, "x", "c"),
        call(300_000, "y", "z"),  # over max_ns: always shared
        call(30_000, "x", "d"),
        call(30_000, "x", "e"),
    ]
    plan = plan_overlap(items, TWO)
    assert plan[:2] == [(0, 0), (0, 1)]
    assert plan[2:5] == [None, None, None]
    assert plan[5:] == [(1, 0), (1, 1)]


def test_disjoint_slices_of_one_buffer_are_independent() -> None:
    # two branches writing their slices of one concatenation
    left = CallFacts(30_000, True, (Span("x", 0, 64),), (Span("cat", 0, 128),))
    right = CallFacts(30_000, True, (Span("x", 0, 64),), (Span("cat", 128, 256),))
    assert plan_overlap([left, right], TWO) == [(0, 0), (0, 1)]
    clash = CallFacts(30_000, True, (Span("x", 0, 64),), (Span("cat", 64, 192),))
    assert plan_overlap([left, clash], TWO) == [None, None]


def test_a_write_after_a_read_orders_calls() -> None:
    # b overwrites what a reads: it must follow a on a's thread
    items = [call(30_000, "x", "a"), call(30_000, "y", "x")]
    assert plan_overlap(items, TWO) == [None, None]


def test_overlap_needs_two_slots_and_a_bound() -> None:
    items = [call(30_000, "x", "a"), call(30_000, "x", "b")]
    one = OverlapSettings(slots=1, max_ns=200_000, threads=1, barrier_ns=0)
    off = OverlapSettings(slots=2, max_ns=0, threads=2, barrier_ns=0)
    assert plan_overlap(items, one) == [None, None]
    assert plan_overlap(items, off) == [None, None]
    assert plan_overlap(items, TWO) == [(0, 0), (0, 1)]


def test_settings_follow_the_team(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XRELAY_NUM_THREADS", "2")
    monkeypatch.delenv("XRELAY_OVERLAP_MAX_NS", raising=False)
    assert work.overlap_settings(4_000).max_ns == work.OVERLAP_MAX_NS == 0  # off
    monkeypatch.setenv("XRELAY_OVERLAP_MAX_NS", "200000")
    two = work.overlap_settings(4_000)
    assert (two.slots, two.threads, two.max_ns) == (2, 2, 200_000)
    # a barrier costs what sharing a call at the threshold saves
    assert two.barrier_ns == pytest.approx(4_000 - two.shared_ns(4_000))
    monkeypatch.setenv("XRELAY_NUM_THREADS", "8")
    assert work.overlap_settings(4_000).slots == work.MAX_SLOTS
    monkeypatch.setenv("XRELAY_OVERLAP_MAX_NS", "0")
    assert work.overlap_settings(4_000).max_ns == 0


# -- models ----------------------------------------------------------------------------


def _inception(size: int) -> tuple[Any, np.ndarray[Any, Any]]:
    """Two Inception-style blocks (four branches each, concatenated) on a
    ``size`` x ``size`` map, and an input."""
    from xrelay import relay

    rng = np.random.default_rng(3)

    def conv(x: Any, cin: int, cout: int, k: int) -> Any:
        w = rng.standard_normal((cout, cin, k, k)).astype("float32") * 0.2
        return relay.nn.relu(
            relay.nn.conv2d(x, relay.const(w), padding=(k // 2, k // 2))
        )

    def block(x: Any, c: int) -> Any:
        b1 = conv(x, c, 16, 1)
        b2 = conv(conv(x, c, 12, 1), 12, 16, 3)
        b3 = conv(conv(x, c, 4, 1), 4, 8, 5)
        pool = relay.nn.max_pool2d(x, pool_size=(3, 3), strides=(1, 1), padding=(1, 1))
        b4 = conv(pool, c, 8, 1)
        return relay.concatenate([b1, b2, b3, b4], axis=1)

    x = relay.var("x", shape=(1, 32, size, size), dtype="float32")
    mod = relay.IRModule.from_expr(relay.Function([x], block(block(x, 32), 48)))
    data = rng.standard_normal((1, 32, size, size)).astype("float32")
    return mod, data


def test_overlapped_branches_give_the_same_bits_on_any_team(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The branches run side by side on a team of two (the host calls the slots'
    counters), and the outputs are the same on 1, 2 and 3 threads, and equal to the
    build without overlap."""
    import xrelay
    from xrelay import relay

    monkeypatch.setenv("XRELAY_NUM_THREADS", "2")
    monkeypatch.delenv("XRELAY_SHARE_MIN_NS", raising=False)
    monkeypatch.setenv("XRELAY_OVERLAP_MAX_NS", "200000")
    mod, data = _inception(12)
    lib = xrelay.build(mod, cache=False)
    assert '@"xrelay_solo_team"(' in lib.get_source()
    monkeypatch.setenv("XRELAY_OVERLAP_MAX_NS", "0")
    plain = xrelay.build(mod, cache=False)
    assert "xrelay_solo_team" not in plain.get_source()

    expected = relay.create_executor("debug", mod=mod).evaluate()(data).numpy()
    outs = []
    for threads in (1, 2, 3):
        g = lib.create()
        g.set_num_threads(threads)
        for _ in range(3):
            g.set_input(0, data)
            g.run()
            outs.append(g.get_output(0))
    g = plain.create()
    g.set_input(0, data)
    g.run()
    reference = g.get_output(0)
    for out in outs:
        np.testing.assert_array_equal(out, reference)
    np.testing.assert_allclose(reference, expected, rtol=1e-4, atol=1e-4)
