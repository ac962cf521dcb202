"""The thread team of compiled models: how many threads, what runs on them, and that
any team size computes the same outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.runtime import threads
from xrelay.runtime.threads import ThreadCountError


def _model() -> tuple[Any, list[Any]]:
    """Blocked and depthwise convolutions, a max pool, a dense and a softmax
    (shared out), and a batch_matmul with a transposed operand (repacked into
    scratch first: thread 0 alone), all in one run (the same model and input at
    every call)."""
    rng = np.random.default_rng(11)

    def _const(*shape: int) -> Any:
        return relay.const((rng.standard_normal(shape) * 0.2).astype("float32"))

    x = relay.var("x", shape=(1, 16, 14, 14), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, _const(32, 16, 3, 3), padding=(1, 1)))
    y = relay.nn.conv2d(y, _const(32, 1, 3, 3), padding=(1, 1), groups=32)
    y = relay.nn.conv2d(y, _const(32, 32, 3, 3), padding=(1, 1), strides=(2, 2))
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2), padding=(1, 1))
    y = relay.nn.batch_flatten(y)
    y = relay.reshape(relay.nn.dense(y, _const(40, 32 * 4 * 4)), (1, 5, 8))
    y = relay.nn.batch_matmul(y, y)  # transpose_b: [1, 5, 8] x [1, 5, 8]^T
    y = relay.nn.softmax(relay.reshape(y, (1, 25)))
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    return mod, [rng.standard_normal((1, 16, 14, 14)).astype("float32")]


@pytest.fixture(scope="module")
def lib() -> Any:
    mod, _ = _model()
    with PassContext(opt_level=3):
        return xrelay.build(mod, keep_mlir=True)


def _run(lib: Any, inputs: list[Any], count: int) -> Any:
    m = lib.create()
    m.set_num_threads(count)
    assert m.num_threads == count
    m.set_input(0, inputs[0])
    m.run()
    return m.get_output(0)


@pytest.mark.parametrize("count", [2, 3, 5, 8])
def test_any_team_gives_the_same_bits(lib: Any, count: int):
    """Teams of 2, 3, 5 and 8 threads (more threads than cores, and than some
    kernels' rows) agree bit for bit with one thread, which agrees with the
    interpreter."""
    from xrelay.runtime import interpret

    mod, inputs = _model()
    alone = _run(lib, inputs, 1)
    np.testing.assert_array_equal(_run(lib, inputs, count), alone)
    with PassContext(opt_level=3):
        from xrelay.build import optimize_module

        expected = interpret(optimize_module(mod), *inputs)
    np.testing.assert_allclose(alone, expected, rtol=1e-4, atol=1e-5)


def test_repeated_runs_reuse_nothing_stale(lib: Any):
    """Many runs of one executor with a team: every run starts and joins its
    threads (a lost wake-up or a barrier left half-way would hang or differ)."""
    _, inputs = _model()
    m = lib.create()
    m.set_num_threads(2)
    m.set_input(0, inputs[0])
    m.run()
    first = m.get_output(0)
    m.benchmark_run(200)
    np.testing.assert_array_equal(m.get_output(0), first)


def test_kernels_are_shared_out_or_run_by_thread_zero(lib: Any):
    """In the host: shared-out kernels get the thread id and count, the others run
    under ``tid == 0`` with ``(0, 1)`` after a reset of the chunk counter; barriers
    separate them."""
    mlir = lib.get_source("mlir")
    host = mlir[mlir.index("func.func @main") :]
    calls = [line.strip() for line in host.splitlines() if "func.call @k" in line]
    shared = [c for c in calls if "%tid, %nthreads, %team)" in c]
    assert any("conv2d_NCHWc" in c for c in shared)
    assert any("dense_pack" in c for c in shared)
    alone = [c for c in calls if c not in shared]
    assert any("softmax" in c for c in shared)
    # the depthwise one, blocked too (its kernel is OIHW1i{c}o)
    assert any("conv2d_NCHWc" in c and "x3x3x1x" in c for c in shared)
    assert any("batch_matmul" in c for c in alone)
    assert host.count("scf.if") == len(alone)
    assert host.count("func.call @xrelay_barrier(%team)") >= len(shared)
    assert host.count("func.call @xrelay_reset(%team)") == len(alone)
    assert "func.func private @xrelay_barrier(!llvm.ptr)" in mlir


def test_default_team(monkeypatch: pytest.MonkeyPatch, lib: Any):
    """Without a request the team is one thread below PARALLEL_WORK_MIN, else the
    available cores; XRELAY_NUM_THREADS overrides both."""
    monkeypatch.delenv(threads.ENV, raising=False)
    assert lib.spec.work > 0
    monkeypatch.setattr(threads, "PARALLEL_WORK_MIN", lib.spec.work + 1)
    assert lib.create().num_threads == 1
    monkeypatch.setattr(threads, "PARALLEL_WORK_MIN", lib.spec.work)
    assert lib.create().num_threads == threads.available_cpus()
    monkeypatch.setenv(threads.ENV, "3")
    assert lib.create().num_threads == 3


def test_work_estimate_counts_multiply_adds(lib: Any):
    """conv 16→32 3x3 on 14x14, depthwise 3x3, conv 32→32 3x3 stride 2 to 7x7,
    dense 512→40, batch_matmul 5x8 by 8x5."""
    macs = 32 * 14 * 14 * 16 * 9 + 32 * 14 * 14 * 9 + 32 * 7 * 7 * 32 * 9 + 40 * 512
    macs += 5 * 5 * 8  # the batch_matmul
    assert macs <= lib.spec.work < macs * 1.1


def test_build_argument_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(threads.ENV, "3")
    x = relay.var("x", shape=(2, 3), dtype="float32")
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
    lib = xrelay.build(mod, num_threads=2)
    assert lib.create().num_threads == 2
    out = lib(np.array([[-1, 2, -3], [4, -5, 6]], dtype="float32"))
    np.testing.assert_array_equal(out, [[0, 2, 0], [4, 0, 6]])


@pytest.mark.parametrize("bad", [0, -2, 100000, "two", 1.5, True])
def test_bad_counts_are_refused(bad: Any, lib: Any):
    with pytest.raises(ThreadCountError, match="num_threads must be an integer"):
        lib.create().set_num_threads(bad)


def test_bad_environment_is_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(threads.ENV, "many")
    with pytest.raises(ThreadCountError, match="XRELAY_NUM_THREADS must be"):
        threads.requested_threads()


def test_bad_build_argument_fails_before_compiling():
    x = relay.var("x", shape=(2,), dtype="float32")
    mod = relay.IRModule.from_expr(relay.Function([x], x))
    with pytest.raises(ThreadCountError, match="num_threads"):
        xrelay.build(mod, num_threads=0)


def test_exported_library_runs_with_a_team(lib: Any, tmp_path: Path):
    import shutil

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("needs a C compiler driver (cc) to link the shared library")
    from xrelay.runtime import load_module

    _, inputs = _model()
    path = tmp_path / "model.so"
    lib.export_library(path)
    loaded = load_module(path, num_threads=3)
    assert loaded.create().num_threads == 3
    np.testing.assert_array_equal(loaded(*inputs), _run(lib, inputs, 1))


def test_older_exports_are_refused_with_a_reason():
    from xrelay.runtime.spec import ModelSpec

    old = (
        '{"format": "xrelay-model-1", "entry": "xrelay_entry", "inputs": [], '
        '"outputs": [], "arena_size": 0, "weights": []}'
    )
    with pytest.raises(ValueError, match="older format.*export it again"):
        ModelSpec.from_json(old)


def test_executors_run_concurrently(lib: Any):
    """Two executors of one library, each with its own team, run at the same time
    from two Python threads (run() releases the GIL; teams share nothing)."""
    import threading

    _, inputs = _model()
    expected = _run(lib, inputs, 1)
    results: list[Any] = [None, None]

    def work(k: int) -> None:
        m = lib.create()
        m.set_num_threads(2)
        m.set_input(0, inputs[0] * (k + 1))
        for _ in range(20):
            m.run()
        results[k] = m.get_output(0)

    threads_ = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads_:
        t.start()
    for t in threads_:
        t.join()
    np.testing.assert_array_equal(results[0], expected)
    np.testing.assert_array_equal(results[1], _run(lib, [inputs[0] * 2], 1))
