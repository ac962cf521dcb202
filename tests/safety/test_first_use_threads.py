"""Issue 25: the first use of xrelay in a process, made by several threads at once
(a server warming models on a thread pool). The lowering table and the pass
registry are filled on first use; a thread used to find them half filled
(``LoweringError: relay.nn.relu: no lowering for this op yet``, ``UnknownPassError``).

Each run is a fresh interpreter (the tables are filled once per process), with 8
threads released together by a barrier; the compile cache is off (``cache=False``
and an empty ``$XRELAY_CACHE_DIR``) so that every thread really compiles.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.safety.subprocess_util import ROOT

THREADS = 8

FIRST_USE = f"""
import sys, threading
import numpy as np
import xrelay
from xrelay import relay
from xrelay.pass_manager import get_pass

barrier = threading.Barrier({THREADS})
errors = []

def first_use(k):
    try:
        x = relay.var("x", shape=(4,), dtype="float32")
        mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
        names = ("FoldConstant", "fuse-ops", "InferType", "dead-code-elimination")
        barrier.wait()
        if k % 2:
            get_pass(names[k % 4])
        lib = xrelay.build(mod, cache=False)
        if not k % 2:
            get_pass(names[k % 4])
        got = lib(np.array([-1.0, 2.0, -3.0, 4.0], np.float32))
        assert got.tolist() == [0.0, 2.0, 0.0, 4.0], got
    except BaseException as e:
        errors.append(f"thread {{k}}: {{type(e).__name__}}: {{e}}")

threads = [threading.Thread(target=first_use, args=(k,)) for k in range({THREADS})]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\\n".join(errors))
sys.exit(1 if errors else 0)
"""


@pytest.mark.parametrize(
    "processes", [pytest.param(3), pytest.param(20, marks=pytest.mark.slow)]
)
def test_concurrent_first_build_and_get_pass(tmp_path: Path, processes: int) -> None:
    env = {**os.environ, "XRELAY_CACHE_DIR": str(tmp_path / "cache")}
    for run in range(processes):
        proc = subprocess.run(
            [sys.executable, "-c", FIRST_USE],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=ROOT,
            env=env,
        )
        assert proc.returncode == 0, (
            f"process {run + 1}/{processes}: exit {proc.returncode}\n"
            f"{proc.stdout}{proc.stderr[-2000:]}"
        )
    assert not any((tmp_path / "cache").glob("*")), "the cache was used"


def test_load_once_runs_once_and_publishes_after_filling() -> None:
    """Threads calling a :class:`LoadOnce` at once: the loader runs once, and no
    caller returns before it has finished; a nested call does not deadlock."""
    import threading
    import time

    from xrelay.load_once import LoadOnce

    table: list[int] = []
    calls: list[int] = []

    def fill() -> None:
        calls.append(1)
        load()  # nested (an import asking for the table): returns at once
        for k in range(5):
            time.sleep(0.01)
            table.append(k)

    load = LoadOnce(fill)
    seen: list[int] = []
    barrier = threading.Barrier(8)

    def use() -> None:
        barrier.wait()
        load()
        seen.append(len(table))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1]
    assert seen == [5] * 8
    assert load.done


def test_load_once_retries_after_a_failure() -> None:
    from xrelay.load_once import LoadOnce

    attempts: list[int] = []

    def fill() -> None:
        attempts.append(1)
        if len(attempts) == 1:
            raise ImportError("first attempt fails")

    load = LoadOnce(fill)
    with pytest.raises(ImportError):
        load()
    assert not load.done
    load()
    assert load.done
    assert len(attempts) == 2


def test_load_modules_imports_each_public_module_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:class:`LoadModules` (how passes, kernel lowerings and ONNX converters are
    loaded): every module of the package whose name does not start with ``_`` is
    imported, in name order, once however often the loader is called."""
    from xrelay.load_once import LoadModules

    pkg = tmp_path / "selfreg_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("SEEN = []\n")
    for name in ("b_second", "a_first", "_helper"):
        (pkg / f"{name}.py").write_text(
            f"from selfreg_pkg import SEEN\nSEEN.append({name!r})\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    package = importlib.import_module("selfreg_pkg")
    try:
        load = LoadModules("selfreg_pkg", package.__path__)
        load()
        load()
        assert package.SEEN == ["a_first", "b_second"]
    finally:
        for mod in [m for m in sys.modules if m.startswith("selfreg_pkg")]:
            del sys.modules[mod]
