"""Builds lowered and compiled in several processes (xrelay.lowering.parallel): the
same code and numbers as one process, errors and deaths of child processes, no
children left behind, export, the compile cache, and when a build stays serial."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import struct
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
import xrelay.lowering.llvm as lowering_llvm
from xrelay import relay
from xrelay.lowering import parallel
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.memory_plan import host_function
from xrelay.lowering.stages import StageTimes
from xrelay.runtime.jit import split_parts
from xrelay.runtime.library import load_module

RNG = np.random.default_rng(3)


def _const(*shape: int) -> Any:
    return relay.const((RNG.standard_normal(shape) * 0.2).astype("float32"))


def _convnet() -> tuple[Any, list[Any]]:
    x = relay.var("x", shape=(1, 8, 12, 12), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, _const(8, 8, 3, 3), padding=(1, 1)))
    z = relay.nn.relu(relay.nn.conv2d(y, _const(8, 8, 3, 3), padding=(1, 1)))
    y = relay.add(y, relay.nn.conv2d(z, _const(8, 8, 1, 1)))
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    y = relay.nn.dense(
        relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y)), _const(10, 8)
    )
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.softmax(y)))
    return mod, [RNG.standard_normal((1, 8, 12, 12)).astype("float32")]


def _mixed() -> tuple[Any, list[Any]]:
    """Elementwise maths (the inline exp/tanh/erf), a reduction, two outputs."""
    a = relay.var("a", shape=(4, 33), dtype="float32")
    b = relay.var("b", shape=(4, 33), dtype="float32")
    e = relay.exp(relay.tanh(a))
    s = relay.sum(relay.multiply(e, b), axis=[1], keepdims=True)
    g = relay.erf(relay.subtract(a, s))
    mod = relay.IRModule.from_expr(
        relay.Function([a, b], relay.Tuple([g, relay.sigmoid(relay.add(e, b))]))
    )
    inputs = [RNG.standard_normal((4, 33)).astype("float32") for _ in range(2)]
    return mod, inputs


MODELS = {"convnet": _convnet, "mixed": _mixed}


@pytest.fixture
def split(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every module, however small, lowered in two processes."""
    monkeypatch.setattr(parallel, "MIN_OPS", 0)
    monkeypatch.setattr(parallel, "MIN_OPS_PER_JOB", 1)
    monkeypatch.setenv(parallel.ENV, "2")


def _outputs(lib: Any, inputs: list[Any]) -> list[Any]:
    out = lib(*inputs)
    return list(out) if isinstance(out, tuple) else [out]


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _kernel_names(llvm_ir: str) -> set[str]:
    return set(re.findall(r'define (?:internal|hidden) void @"(k\d+_\w+)"\(', llvm_ir))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_two_processes_give_the_same_kernels_and_numbers(
    name: str, monkeypatch: pytest.MonkeyPatch
):
    mod, inputs = MODELS[name]()
    monkeypatch.setenv(parallel.ENV, "1")
    serial = xrelay.build(mod, cache=False)
    monkeypatch.setattr(parallel, "MIN_OPS", 0)
    monkeypatch.setattr(parallel, "MIN_OPS_PER_JOB", 1)
    monkeypatch.setenv(parallel.ENV, "2")
    with StageTimes() as times:
        split_lib = xrelay.build(mod, cache=False)
    assert len(split_parts(serial.llvm_ir)) == 1
    assert len(split_parts(split_lib.llvm_ir)) == 2
    assert len(split_lib.jit.objects) == 2
    assert times.jobs == 2
    assert times.parallel_wall > 0
    assert times.child_cpu > 0
    # the children's stages are counted
    assert times.seconds["llvmlite optimise"] > 0
    assert _kernel_names(serial.llvm_ir) == _kernel_names(split_lib.llvm_ir)
    # kernels of the child's part are called across objects: hidden, not internal
    assert "define hidden void" in split_parts(split_lib.llvm_ir)[0]
    assert "xrelay_entry" in split_parts(split_lib.llvm_ir)[1]
    for a, b in zip(_outputs(serial, inputs), _outputs(split_lib, inputs), strict=True):
        np.testing.assert_array_equal(a, b)
    assert _no_children_left()


def test_optimised_source_and_profiled_build(split: None):
    mod, inputs = _convnet()
    lib = xrelay.build(mod, cache=False, profile=True)
    assert len(lib.jit.objects) == 2
    opt = lib.get_source("opt")
    assert len(split_parts(opt)) == 2
    prof = lib.create()
    prof.set_input(0, inputs[0])
    prof.run()
    report = prof.profile()
    timed = {k.call.kernel for k in report.kernels}
    assert timed == _kernel_names(lib.llvm_ir)
    np.testing.assert_array_equal(
        prof.get_output(0), xrelay.build(mod, cache=False)(*inputs)
    )


def _fail_in_children(monkeypatch: pytest.MonkeyPatch, action: Any) -> None:
    """Run ``action`` where a part without the host is lowered (a child only)."""
    original = lowering_llvm.lower_functions_to_llvm

    def lower(module: Any) -> None:
        if host_function(module) is None:
            action()
        original(module)

    monkeypatch.setattr(lowering_llvm, "lower_functions_to_llvm", lower)


def test_an_error_in_a_child_is_the_serial_lowering_error(
    split: None, monkeypatch: pytest.MonkeyPatch
):
    def fail() -> None:
        raise LoweringError("relay.nn.conv2d: no lowering for this layout")

    _fail_in_children(monkeypatch, fail)
    mod, _ = _convnet()
    with pytest.raises(LoweringError) as info:
        xrelay.build(mod, cache=False)
    assert str(info.value) == "relay.nn.conv2d: no lowering for this layout"
    assert _no_children_left()


def test_another_exception_in_a_child_becomes_a_lowering_error(
    split: None, monkeypatch: pytest.MonkeyPatch
):
    def fail() -> None:
        raise RuntimeError("out of registers")

    _fail_in_children(monkeypatch, fail)
    mod, _ = _convnet()
    with pytest.raises(LoweringError, match=r"^RuntimeError: out of registers \("):
        xrelay.build(mod, cache=False)
    assert _no_children_left()


def test_a_child_killed_by_a_signal_is_a_lowering_error(
    split: None, monkeypatch: pytest.MonkeyPatch
):
    _fail_in_children(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGKILL))
    mod, _ = _convnet()
    with pytest.raises(LoweringError, match="killed by signal SIGKILL") as info:
        xrelay.build(mod, cache=False)
    assert "\n" not in str(info.value)
    assert _no_children_left()


def test_a_child_exiting_without_a_result_is_a_lowering_error(
    split: None, monkeypatch: pytest.MonkeyPatch
):
    _fail_in_children(monkeypatch, lambda: os._exit(3))
    mod, _ = _convnet()
    with pytest.raises(LoweringError, match="exited with status 3 and no result"):
        xrelay.build(mod, cache=False)
    assert _no_children_left()


def test_an_interrupted_parent_kills_its_children(
    split: None, monkeypatch: pytest.MonkeyPatch
):
    # the children would sleep for ten minutes: only killing them ends the test
    _fail_in_children(monkeypatch, lambda: time.sleep(600))

    def interrupted(module: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(lowering_llvm, "lower_to_llvm", interrupted)
    mod, _ = _convnet()
    with pytest.raises(KeyboardInterrupt):
        xrelay.build(mod, cache=False)
    assert _no_children_left()


@pytest.mark.skipif(shutil.which("cc") is None, reason="exporting needs cc")
def test_export_of_a_build_in_parts_loads_and_runs(split: None, tmp_path: Path):
    mod, inputs = _convnet()
    lib = xrelay.build(mod, cache=False)
    assert len(lib.jit.objects) == 2
    path = tmp_path / "m.so"
    lib.export_library(path)
    loaded = load_module(path)
    np.testing.assert_array_equal(loaded(*inputs), lib(*inputs))
    # the kernels are linked between the objects, not exported
    for name in _kernel_names(split_parts(lib.llvm_ir)[0]):
        assert not hasattr(loaded.dll, name)
    assert hasattr(loaded.dll, "xrelay_entry")


def test_cache_round_trip_of_several_objects(
    split: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from xrelay.runtime import cache

    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    mod, inputs = _convnet()
    first = xrelay.build(mod)
    assert not first.from_cache
    assert len(first.jit.objects) == 2
    second = xrelay.build(mod)
    assert second.from_cache
    assert second.jit.objects == first.jit.objects
    assert second.llvm_ir == first.llvm_ir
    np.testing.assert_array_equal(second(*inputs), first(*inputs))
    # a byte changed in the second object: detected, the entry rebuilt
    (entry,) = (tmp_path / "cache").glob("*.xrc")
    data = bytearray(entry.read_bytes())
    (hlen,) = struct.unpack_from("<Q", data, len(cache.MAGIC))
    at = len(cache.MAGIC) + 8 + 32  # magic, header length, header digest
    start = at + hlen
    header = json.loads(data[at:start])
    assert header["objects"] == [len(o) for o in first.jit.objects]
    data[start + header["objects"][0] + 100] ^= 0xFF
    entry.write_bytes(bytes(data))
    third = xrelay.build(mod)
    assert not third.from_cache
    np.testing.assert_array_equal(third(*inputs), first(*inputs))


def test_a_small_module_stays_serial(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(parallel.ENV, "2")
    mod, inputs = _mixed()
    lib = xrelay.build(mod, cache=False)
    assert len(lib.jit.objects) == 1
    assert "define hidden" not in lib.llvm_ir
    assert len(_outputs(lib, inputs)) == 2


def test_no_fork_while_other_threads_run(split: None):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert parallel.fork_problem() == "other Python threads are running"
        mod, _ = _convnet()
        lib = xrelay.build(mod, cache=False)
    finally:
        stop.set()
        other.join()
    assert len(lib.jit.objects) == 1
    assert parallel.fork_problem() is None


def test_requested_jobs(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(parallel.ENV, "3")
    assert parallel.requested_jobs() == 3
    monkeypatch.setenv(parallel.ENV, "1000")
    assert parallel.requested_jobs() == parallel.MAX_JOBS
    monkeypatch.delenv(parallel.ENV)
    cpus = len(os.sched_getaffinity(0))
    assert parallel.requested_jobs() == min(cpus, parallel.MAX_JOBS)
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(parallel.ENV, bad)
        with pytest.raises(ValueError, match=parallel.ENV):
            parallel.requested_jobs()


def test_parts_are_balanced_by_op_count(split: None):
    from xrelay.build import optimize_module
    from xrelay.lowering.memory_plan import plan_memory
    from xrelay.lowering.pipeline import relay_to_kernels

    mod, _ = _convnet()
    module = optimize_module(mod)
    relay_to_kernels(module)
    plan_memory(module)
    plan = parallel.plan_parts(module, 2)
    assert plan is not None
    assert len(plan.parts) == 2
    kernels = [k for part in plan.parts for k in part]
    counts = {id(k): sum(1 for _ in k.walk()) for k in kernels}
    host = host_function(module)
    assert host is not None
    assert plan.sizes[0] == sum(1 for _ in host.walk()) + sum(
        counts[id(k)] for k in plan.parts[0]
    )
    handicap = parallel.PARENT_HANDICAP * (plan.sizes[0] + plan.sizes[1]) / 2
    assert abs(plan.sizes[0] + handicap - plan.sizes[1]) <= max(counts.values()) + 1
    assert parallel.plan_parts(module, 1) is None
