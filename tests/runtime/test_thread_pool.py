"""The persistent thread team (x86-64 Linux, :mod:`xrelay.lowering.llvm.thread_pool`):
workers outlive the run, are reused by the next ones and are joined when the model
goes (the JIT engine freed, the exported library unloaded, the process ending);
concurrent calls, smaller teams, failed thread starts and fork never hang or give
other bits than one thread."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import llvmlite.ir as ir
import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.lowering.llvm.threads import parks_with_futex
from xrelay.pass_manager import PassContext


def _host_module() -> ir.Module:
    module = ir.Module("host")
    module.triple = ""  # the host's
    return module


pytestmark = pytest.mark.skipif(
    not parks_with_futex(_host_module()),
    reason="the persistent team is built for x86-64 Linux only",
)

REPO = Path(__file__).resolve().parents[2]
SUBPROCESS_TIMEOUT = 300


def _model(seed: int = 5, channels: int = 16) -> tuple[Any, Any]:
    """Two convolutions and a dense layer (shared out across the team), and an
    input."""
    rng = np.random.default_rng(seed)

    def _const(*shape: int) -> Any:
        return relay.const((rng.standard_normal(shape) * 0.2).astype("float32"))

    x = relay.var("x", shape=(1, 8, 12, 12), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, _const(channels, 8, 3, 3), padding=(1, 1)))
    y = relay.nn.conv2d(y, _const(channels, channels, 3, 3), padding=(1, 1))
    y = relay.nn.dense(relay.nn.batch_flatten(y), _const(10, channels * 144))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.softmax(y)))
    return mod, rng.standard_normal((1, 8, 12, 12)).astype("float32")


def _build(seed: int = 5, channels: int = 16) -> tuple[Any, Any]:
    mod, x = _model(seed, channels)
    with PassContext(opt_level=3):
        return xrelay.build(mod), x


@pytest.fixture(scope="module")
def built() -> tuple[Any, Any, Any]:
    """A library, its input and its one-thread output."""
    lib, x = _build()
    return lib, x, _run(lib, x, 1)


def _run(lib: Any, x: Any, count: int, runs: int = 1) -> Any:
    m = lib.create()
    m.set_num_threads(count)
    m.set_input(0, x)
    for _ in range(runs):
        m.run()
    return m.get_output(0)


def _tasks() -> int:
    """This process's native threads (after freeing garbage: models of earlier tests
    left to the collector join their workers now, not in the middle of a count)."""
    gc.collect()
    return len(os.listdir("/proc/self/task"))


def _run_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter; it must end (no hang) by itself."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        cwd=REPO,
        check=False,
    )


def test_workers_outlive_the_run_and_are_reused():
    """The first 2-thread run starts one worker that stays after the run; later
    runs (back to back, after sleeps) start none and give the one-thread bits; a
    3-thread run adds one; freeing the model joins them."""
    lib, x = _build(seed=7)
    expected = _run(lib, x, 1)
    before = _tasks()
    m = lib.create()
    m.set_input(0, x)
    m.set_num_threads(2)
    m.run()
    assert _tasks() == before + 1
    for pause in (0.0, 0.0, 0.002, 0.02, 0.0, 0.06):
        time.sleep(pause)
        m.run()
        np.testing.assert_array_equal(m.get_output(0), expected)
    assert _tasks() == before + 1
    m.set_num_threads(3)
    m.run()
    np.testing.assert_array_equal(m.get_output(0), expected)
    assert _tasks() == before + 2
    del m, lib
    gc.collect()
    assert _tasks() == before


def test_team_sizes_in_any_order(built: tuple[Any, Any, Any]):
    """Runs asking for fewer threads than the pool holds use that many (they do not
    wait for the others), runs asking for more start the missing ones."""
    lib, x, expected = built
    m = lib.create()
    m.set_input(0, x)
    for count in (3, 2, 1, 4, 2, 5, 3, 1, 2, 8, 2):
        m.set_num_threads(count)
        for _ in range(3):
            m.run()
            np.testing.assert_array_equal(m.get_output(0), expected)


def _in_threads(work: Any, count: int) -> None:
    errors: list[BaseException] = []

    def guarded(k: int) -> None:
        try:
            work(k)
        except BaseException as e:  # reported by the test
            errors.append(e)

    workers = [threading.Thread(target=guarded, args=(k,)) for k in range(count)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=SUBPROCESS_TIMEOUT)
    assert not any(t.is_alive() for t in workers), "a run hung"
    if errors:
        raise errors[0]


def test_concurrent_runs_of_one_model(built: tuple[Any, Any, Any]):
    """Four Python threads run executors of one model at once with teams of 1-3:
    one holds the pool, the others run alone on their calling threads; every
    output is that of one thread."""
    lib, x, _ = built
    expected = [_run(lib, x * (k + 1), 1) for k in range(4)]

    def work(k: int) -> None:
        m = lib.create()
        m.set_input(0, x * (k + 1))
        for r in range(40):
            m.set_num_threads(1 + (k + r) % 3)
            m.run()
            np.testing.assert_array_equal(m.get_output(0), expected[k])

    _in_threads(work, 4)


def test_concurrent_runs_of_two_models(built: tuple[Any, Any, Any]):
    """Two models (a pool each) run at the same time from two Python threads each,
    on 2 threads: the right bits and no hang."""
    lib, x, expected = built
    other, y = _build(seed=9, channels=8)
    other_expected = _run(other, y, 1)

    def work(k: int) -> None:
        model, inp, want = (lib, x, expected) if k % 2 else (other, y, other_expected)
        m = model.create()
        m.set_num_threads(2)
        m.set_input(0, inp)
        for _ in range(30):
            m.run()
            np.testing.assert_array_equal(m.get_output(0), want)

    _in_threads(work, 4)


def test_freed_engine_then_another_model():
    """A model whose workers are parked is freed (its engine and code go, after its
    workers are joined); another model built afterwards runs right."""
    before = _tasks()
    lib, x = _build(seed=11)
    m = lib.create()
    m.set_num_threads(3)
    m.set_input(0, x)
    m.run()
    assert _tasks() == before + 2
    del m, lib
    gc.collect()
    assert _tasks() == before
    lib, x = _build(seed=12, channels=8)
    np.testing.assert_array_equal(_run(lib, x, 2, runs=5), _run(lib, x, 1))


def _wait_child(pid: int) -> int | None:
    """The exit status of child ``pid``, or ``None`` if it did not end in time
    (then it is killed)."""
    deadline = time.monotonic() + SUBPROCESS_TIMEOUT
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return None


def test_fork_after_a_run(built: tuple[Any, Any, Any]):
    """A child forked after runs (while the parent's workers are parked or still
    spinning, and once while another thread of the parent is inside a run) runs the
    model on its own new team and leaves; the parent goes on with its own."""
    lib, x, expected = built
    m = lib.create()
    m.set_num_threads(2)
    m.set_input(0, x)
    m.run()
    busy = lib.create()
    busy.set_num_threads(2)
    busy.set_input(0, x)
    stop = threading.Event()

    def keep_running() -> None:
        while not stop.is_set():
            busy.benchmark_run(5)

    for during_a_run in (False, True):
        runner = threading.Thread(target=keep_running) if during_a_run else None
        if runner is not None:
            runner.start()
            time.sleep(0.05)
        m.run()
        pid = os.fork()
        if pid == 0:  # the child: never return into pytest
            code = 1
            try:
                c = lib.create()
                c.set_input(0, x)
                for count in (2, 3, 2):
                    c.set_num_threads(count)
                    c.run()
                    np.testing.assert_array_equal(c.get_output(0), expected)
                code = 0
            finally:
                os._exit(code)
        status = _wait_child(pid)
        if runner is not None:
            stop.set()
            runner.join()
        assert status is not None, "the child hung"
        assert os.WIFEXITED(status), "the child died"
        assert os.WEXITSTATUS(status) == 0
    np.testing.assert_array_equal(busy.get_output(0), expected)
    m.run()
    np.testing.assert_array_equal(m.get_output(0), expected)


def test_interpreter_exit_with_parked_workers():
    """A JIT-compiled model's workers are parked when the interpreter exits (the
    runtime stops them); the process ends normally."""
    script = """
        import time
        import numpy as np
        from tests.runtime.test_thread_pool import _build, _run
        lib, x = _build(seed=3, channels=8)
        np.testing.assert_array_equal(_run(lib, x, 3, runs=3), _run(lib, x, 1))
        time.sleep(0.01)
        print("ran")
    """
    result = _run_script(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ran"


@pytest.fixture(scope="module")
def exported(built: tuple[Any, Any, Any], tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("needs a C compiler driver (cc) to link the shared library")
    lib, x, expected = built
    folder = tmp_path_factory.mktemp("pool")
    lib.export_library(folder / "model.so")
    np.save(folder / "x.npy", x)
    np.save(folder / "expected.npy", expected)
    return folder


_DLOPEN = """
    import ctypes, os, sys, _ctypes
    import numpy as np
    from pathlib import Path
    from xrelay.runtime.artifact import WEIGHTS_SYMBOL, check_artifact
    from xrelay.runtime.executor import Executable, GraphModule
    folder = Path(sys.argv[1])
    data = (folder / "model.so").read_bytes()
    checked = check_artifact(data)
    dll = ctypes.CDLL(str(folder / "model.so"), mode=ctypes.RTLD_LOCAL)
    base = ctypes.addressof(ctypes.c_char.in_dll(dll, WEIGHTS_SYMBOL))
    entry = ctypes.cast(dll.xrelay_entry, ctypes.c_void_p).value
    exe = Executable(checked.spec, entry, [base + o for o, _ in checked.layout])
    m = GraphModule(exe)
    m.set_input(0, np.load(folder / "x.npy"))
    tasks = lambda: len(os.listdir("/proc/self/task"))
    before = tasks()
    m.set_num_threads(3)
    for _ in range(4):
        m.run()
    np.testing.assert_array_equal(m.get_output(0), np.load(folder / "expected.npy"))
    print(tasks() - before)
"""


def test_exported_library_unloaded(exported: Path):
    """dlclose of the exported library runs its destructor: the workers are
    joined before its code is unmapped (no crash, no thread left)."""
    script = (
        _DLOPEN
        + """
    handle = dll._handle
    del m, exe, dll
    _ctypes.dlclose(handle)
    print(tasks() - before)
    """
    )
    result = _run_script(script, str(exported))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "0"]


def test_exported_library_at_process_exit(exported: Path):
    """A process that exits with the library loaded and its workers parked ends
    normally (the destructor joins them at exit)."""
    result = _run_script(_DLOPEN, str(exported))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2"]


def test_loaded_library_freed(exported: Path):
    """load_module's library stops its workers when its executable is freed."""
    script = """
        import gc, os, sys
        import numpy as np
        from pathlib import Path
        from xrelay.runtime import load_module
        folder = Path(sys.argv[1])
        tasks = lambda: len(os.listdir("/proc/self/task"))
        before = tasks()
        lib = load_module(folder / "model.so", num_threads=2)
        out = lib(np.load(folder / "x.npy"))
        np.testing.assert_array_equal(out, np.load(folder / "expected.npy"))
        print(tasks() - before)
        del lib
        gc.collect()
        print(tasks() - before)
    """
    result = _run_script(script, str(exported))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "0"]


def test_a_thread_that_cannot_start_leaves_the_team_smaller(exported: Path):
    """With the address space capped so that one more thread stack fits but not
    two, a run asking for 3 threads runs with 2 (every run tries again), and with
    no room at all it runs alone: always the one-thread bits."""
    script = """
        import os, resource, sys
        import numpy as np
        from pathlib import Path
        from xrelay.runtime import load_module
        folder = Path(sys.argv[1])
        x = np.load(folder / "x.npy")
        expected = np.load(folder / "expected.npy")
        tasks = lambda: len(os.listdir("/proc/self/task"))
        m = load_module(folder / "model.so").create()
        m.set_input(0, x)
        m.set_num_threads(1)
        m.run()
        out = np.empty_like(expected)
        stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
        if stack == resource.RLIM_INFINITY or stack <= 0:
            stack = 8 << 20
        def vm_size():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmSize:"):
                        return int(line.split()[1]) * 1024
        before = tasks()
        for room in (0, 1):
            limit = vm_size() + room * stack + stack // 2
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
            m.set_num_threads(3)
            for _ in range(3):
                m.run()
                m.get_output(0, out)
                np.testing.assert_array_equal(out, expected)
            print(tasks() - before)
    """
    result = _run_script(script, str(exported))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "1"]
