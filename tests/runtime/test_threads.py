"""The thread team of compiled models: how many threads, what runs on them, and that
any team size computes the same outputs."""

from __future__ import annotations

import re
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
    """The model built with every kernel that can be shared shared out
    (``XRELAY_SHARE_MIN_NS=0``: its layers are small)."""
    mod, _ = _model()
    with pytest.MonkeyPatch.context() as mp, PassContext(opt_level=3):
        mp.setenv("XRELAY_SHARE_MIN_NS", "0")
        return xrelay.build(mod, keep_mlir=True)


def _host_calls(lib: Any) -> tuple[str, list[str], list[str]]:
    """The host function's text, its kernel calls shared out, and the others."""
    mlir = lib.get_source("mlir")
    host = mlir[mlir.index("func.func @main") :]
    calls = [line.strip() for line in host.splitlines() if "func.call @k" in line]
    shared = [c for c in calls if "%tid, %nthreads, %team)" in c]
    return host, shared, [c for c in calls if c not in shared]


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
    under ``tid == 0`` with ``(0, 1)`` after a reset of the chunk counter (none of
    this model's kernels since batch_matmul's dot-product tiles are shared); barriers
    separate them."""
    host, shared, alone = _host_calls(lib)
    mlir = lib.get_source("mlir")
    assert any("conv2d_NCHWc" in c for c in shared)
    assert any("dense_pack" in c for c in shared)
    assert any("softmax" in c for c in shared)
    # the depthwise one, blocked too (its kernel is OIHW1i{c}o)
    assert any("conv2d_NCHWc" in c and "x3x3x1x" in c for c in shared)
    # a batch_matmul of at most 8 rows runs the dot-product tiles, shared by columns
    assert any("batch_matmul" in c for c in shared)
    assert host.count("scf.if") == len(alone)
    # a barrier after every shared kernel but the last
    assert host.count("func.call @xrelay_barrier(%team)") >= len(shared) - 1
    assert host.count("func.call @xrelay_reset(%team)") == len(alone)
    assert "func.func private @xrelay_barrier(!llvm.ptr)" in mlir


def test_small_kernels_run_on_thread_zero(monkeypatch: pytest.MonkeyPatch, lib: Any):
    """By default a kernel call is shared out only when its estimated one-thread
    time reaches a few microseconds: the convolutions (56 k to 903 k multiply-adds)
    are, the 20 k multiply-add dense, the tiny batch_matmul and the 25-element
    softmax run on thread 0, and the outputs are the same bits on any team."""
    monkeypatch.delenv("XRELAY_SHARE_MIN_NS", raising=False)
    mod, inputs = _model()
    with PassContext(opt_level=3):
        small = xrelay.build(mod, keep_mlir=True)
    _, shared, alone = _host_calls(small)
    assert len([c for c in shared if "conv2d_NCHWc" in c]) == 3
    for name in ("dense_pack", "batch_matmul", "softmax"):
        assert any(name in c for c in alone), name
        assert not any(name in c for c in shared), name
    for count in (1, 2, 3):
        np.testing.assert_array_equal(_run(small, inputs, count), _run(lib, inputs, 1))


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


# -- waiting: spin, then park ------------------------------------------------------------


def _team_ir(triple: str) -> str:
    """The LLVM IR of a thread team around an empty ``xrelay_run``, for ``triple``
    (checked by LLVM's verifier)."""
    import llvmlite.binding as llvm
    import llvmlite.ir as ir

    from xrelay.lowering.llvm.threads import PTR, RUN, add_team

    module = ir.Module("team")
    module.triple = triple
    i64 = ir.IntType(64)
    run = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, i64, i64, PTR]), RUN)
    ir.IRBuilder(run.append_basic_block("entry")).ret_void()
    add_team(module)
    text = str(module)
    llvm.parse_assembly(text).verify()
    return text


def _function_text(ir_text: str, name: str) -> str:
    found = re.search(rf'^define .*@"{name}"\(', ir_text, re.MULTILINE)
    assert found is not None, name
    start = found.start()
    return ir_text[start : ir_text.index("\n}", start)]


_FUTEX_WAIT = re.compile(
    r'@"syscall"\(i64 202, ptr %"([^"]+)", i64 128, i64 %"([^"]+)"'
)
_FUTEX_WAKE = re.compile(
    r'@"syscall"\(i64 202, ptr %"([^"]+)", i64 129, i64 2147483647'
)


def _check_waiter(fn: str, spins: str) -> None:
    """``fn`` waits once: ``spins`` pause hints (a constant or a value), then it
    counts itself a sleeper and sleeps in futex(FUTEX_WAIT_PRIVATE) on the word it
    loaded, for the value it loaded, and uncounts itself when it leaves."""
    assert re.search(rf"icmp uge i64 %\S+, {spins}\n", fn), spins
    assert 'call void @"llvm.x86.sse2.pause"()' in fn
    waits = _FUTEX_WAIT.findall(fn)
    assert len(waits) == 1
    word, value = waits[0]
    assert re.search(rf'%"{value}" = load atomic i64, ptr %"{word}" seq_cst', fn)
    before_sleep = fn[: fn.index(", i64 128, ")]
    assert re.search(r"atomicrmw add ptr %\S+, i64 1 seq_cst", before_sleep)
    assert re.search(r"atomicrmw sub ptr %\S+, i64 1 monotonic", fn)


def _check_waker(fn: str) -> None:
    """``fn`` changes a word sequentially consistently, then loads the sleepers
    (seq_cst) and calls futex(FUTEX_WAKE_PRIVATE) on the word only when there are
    any."""
    wakes = _FUTEX_WAKE.findall(fn)
    assert len(wakes) == 1
    word = wakes[0]
    change = re.search(
        rf'(store atomic i64 \S+, ptr %"{word}" seq_cst|atomicrmw sub ptr %"{word}", '
        r"i64 1 seq_cst)",
        fn,
    )
    assert change is not None
    after = fn[change.end() :]
    assert re.search(r"= load atomic i64, ptr %\S+ seq_cst", after)
    assert re.search(r"icmp ne i64 %\S+, 0\s*\n\s*br i1 %\S+, label %\"wake\"", after)


def test_waiters_park_in_futex_on_x86_64_linux():
    """On x86-64 Linux every wait spins, then parks in futex: a thread in a barrier
    (SPINS_BEFORE_PARK pauses; the last one in wakes), a worker between runs
    (SPINS_BETWEEN_RUNS after a run, yielding every YIELD_EVERY pauses, none when
    it is outside a smaller team; the caller starting a run wakes it) and the caller waiting for the workers to end
    the run (SPINS_BEFORE_PARK; the last worker wakes it). The lock is only spun on
    by xrelay_shutdown (yielding), never by a run."""
    from xrelay.lowering.llvm.thread_pool import SPINS_BETWEEN_RUNS, YIELD_EVERY
    from xrelay.lowering.llvm.threads import SPINS_BEFORE_PARK

    text = _team_ir("x86_64-unknown-linux-gnu")
    assert 'declare i64 @"syscall"(i64 %".1", ...)' in text
    barrier = _function_text(text, "xrelay_barrier")
    _check_waiter(barrier, str(SPINS_BEFORE_PARK))
    _check_waker(barrier)
    worker = _function_text(text, "xrelay_worker")
    _check_waiter(worker, '%"spin_limit"')
    limits = re.search(r'%"spin_limit" = phi\s+i64 (.*)\n', worker)
    assert limits is not None
    assert sorted(re.findall(r"\[(\d+),", limits.group(1))) == sorted(
        [str(SPINS_BETWEEN_RUNS), "0", str(SPINS_BETWEEN_RUNS)]
    )
    _check_waker(worker)  # the last worker of a run wakes the caller
    entry = _function_text(text, "xrelay_entry")
    _check_waiter(entry, str(SPINS_BEFORE_PARK))
    _check_waker(entry)  # the run's epoch wakes the workers
    assert "sched_yield" not in barrier + entry
    # a worker spinning between runs yields every YIELD_EVERY pauses
    assert worker.count('call i32 @"sched_yield"()') == 1
    assert re.search(rf"and i64 %\S+, {YIELD_EVERY - 1}\n", worker)
    shutdown = _function_text(text, "xrelay_shutdown")
    _check_waker(shutdown)
    assert not _FUTEX_WAIT.search(shutdown)


@pytest.mark.parametrize("triple", ["aarch64-unknown-linux-gnu", "x86_64-apple-darwin"])
def test_waiters_yield_elsewhere(triple: str):
    """Where futex is not known (not x86-64 Linux) a waiter yields the core after
    its spin, as before, and nothing calls syscall."""
    text = _team_ir(triple)
    assert "syscall" not in text
    assert (
        _function_text(text, "xrelay_barrier").count('call i32 @"sched_yield"()') == 1
    )
    assert _function_text(text, "xrelay_worker").count('call i32 @"sched_yield"()') == 1
    assert ("llvm.x86.sse2.pause" in text) == triple.startswith("x86_64")


@pytest.fixture
def one_busy_cpu():
    """This thread (and the threads it starts) pinned to one CPU that a spinning
    process (no system calls) also runs on; undone afterwards."""
    import os
    import subprocess
    import sys

    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("needs os.sched_setaffinity (Linux)")
    before = os.sched_getaffinity(0)
    cpu = min(before)
    spin = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True:\n    pass\n"
    spinner = subprocess.Popen([sys.executable, "-c", spin])
    try:
        os.sched_setaffinity(0, {cpu})
        yield
    finally:
        os.sched_setaffinity(0, before)
        spinner.kill()
        spinner.wait()


def test_a_team_on_one_busy_core_finishes_right(lib: Any, one_busy_cpu: None):
    """Two team threads and a busy process share one core: every barrier has a
    waiter whose partner is not running, so waiters must get off the core (park)
    for runs to move on; 100 runs finish and give the one-thread bits."""
    _, inputs = _model()
    expected = _run(lib, inputs, 1)
    m = lib.create()
    m.set_num_threads(2)
    m.set_input(0, inputs[0])
    m.benchmark_run(100)
    np.testing.assert_array_equal(m.get_output(0), expected)
    m.set_num_threads(3)  # more threads than the core: sleepers at every barrier
    m.benchmark_run(20)
    np.testing.assert_array_equal(m.get_output(0), expected)


def test_exported_library_parks_too(lib: Any, tmp_path: Path, one_busy_cpu: None):
    """The exported library resolves the futex call (libc's syscall) and runs a team
    on one busy core."""
    import shutil

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("needs a C compiler driver (cc) to link the shared library")
    from xrelay.runtime import load_module

    _, inputs = _model()
    path = tmp_path / "model.so"
    lib.export_library(path)
    m = load_module(path, num_threads=2).create()
    m.set_input(0, inputs[0])
    m.benchmark_run(50)
    np.testing.assert_array_equal(m.get_output(0), _run(lib, inputs, 1))


# -- small models run on one thread by default --------------------------------------------


def test_small_models_run_on_one_thread_unless_asked(monkeypatch: pytest.MonkeyPatch):
    """A model below PARALLEL_WORK_MIN (a 64x64 dense, 4096 multiply-adds) gets one
    thread without a request; set_num_threads(2) and num_threads=2 still mean 2."""
    monkeypatch.delenv(threads.ENV, raising=False)
    rng = np.random.default_rng(3)
    w = rng.standard_normal((64, 64)).astype("float32")
    x = relay.var("x", shape=(1, 64), dtype="float32")
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.nn.dense(x, relay.const(w)))
    )
    lib = xrelay.build(mod)
    assert 0 < lib.spec.work < threads.PARALLEL_WORK_MIN
    m = lib.create()
    assert m.num_threads == 1
    m.set_num_threads(2)
    assert m.num_threads == 2
    data = rng.standard_normal((1, 64)).astype("float32")
    m.run(x=data)
    np.testing.assert_allclose(m.get_output(0), data @ w.T, rtol=1e-5, atol=1e-5)
    assert xrelay.build(mod, num_threads=2).create().num_threads == 2
