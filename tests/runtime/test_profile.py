"""Profiled builds: every kernel call of a run timed, per thread; the code of a build
without profiling has no timing at all."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.runtime.executor import ExecutorError


def _model() -> tuple[Any, Any]:
    """A few convolutions (some milliseconds of work), a pool and a dense."""
    rng = np.random.default_rng(5)

    def _const(*shape: int) -> Any:
        return relay.const((rng.standard_normal(shape) * 0.1).astype("float32"))

    x = relay.var("x", shape=(1, 32, 56, 56), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, _const(32, 32, 3, 3), padding=(1, 1)))
    z = relay.nn.relu(relay.nn.conv2d(y, _const(32, 32, 3, 3), padding=(1, 1)))
    y = relay.add(y, relay.nn.conv2d(z, _const(32, 32, 3, 3), padding=(1, 1)))
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    y = relay.nn.dense(
        relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y)), _const(10, 32)
    )
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    return mod, rng.standard_normal((1, 32, 56, 56)).astype("float32")


@pytest.fixture(scope="module")
def built() -> tuple[Any, Any, Any]:
    mod, x = _model()
    plain = xrelay.build(mod, cache=False)
    profiled = xrelay.build(mod, cache=False, profile=True)
    return plain, profiled, x


def _kernels(llvm_ir: str) -> set[str]:
    return set(re.findall(r'define (?:internal|hidden) void @"(k\d+_\w+)"\(', llvm_ir))


def test_only_a_profiled_build_has_timing(built: tuple[Any, Any, Any]):
    plain, profiled, _ = built
    assert plain.spec.profile is None
    for name in ("xrelay_clock", "clock_gettime"):
        assert name not in plain.llvm_ir
        assert name in profiled.llvm_ir
    # the same kernels either way
    assert _kernels(plain.llvm_ir) == _kernels(profiled.llvm_ir)


def test_same_outputs(built: tuple[Any, Any, Any]):
    plain, profiled, x = built
    np.testing.assert_array_equal(plain(x), profiled(x))


def test_every_kernel_is_timed(built: tuple[Any, Any, Any]):
    _, profiled, x = built
    m = profiled.create()
    m.set_input(0, x)
    profile = m.profile()
    assert {k.call.kernel for k in profile.kernels} == _kernels(profiled.llvm_ir)
    assert [k.index for k in profile.kernels] == list(range(len(profiled.spec.profile)))
    ops = {op for k in profile.kernels for op in k.call.ops}
    assert {"nn.contrib_conv2d_NCHWc", "nn.max_pool2d", "nn.contrib_dense_pack"} <= ops
    assert all(k.ns >= 0 for k in profile.kernels)
    convs = [k for k in profile.kernels if "nn.contrib_conv2d_NCHWc" in k.call.ops]
    assert len(convs) == 3
    # 32x32x3x3 per output element of 1x32x56x56
    assert all(k.call.macs == 32 * 56 * 56 * 32 * 9 for k in convs)
    assert all(k.rate().endswith("GFLOP/s") for k in convs)
    table = profile.table()
    assert table.splitlines()[0].split() == [
        "#",
        "kernel",
        "ops",
        "shape",
        "ms",
        "%",
        "rate",
    ]
    times = [float(line.split()[-4]) for line in table.splitlines()[2:-1]]
    assert times == sorted(times, reverse=True)
    assert len(times) == len(profile.kernels)


def test_kernels_cover_the_run(built: tuple[Any, Any, Any]):
    """The kernels' times add up to the run measured from Python (within 10%, in the
    best of a few tries: the machine is shared)."""
    _, profiled, x = built
    m = profiled.create()
    m.set_num_threads(1)
    m.set_input(0, x)
    m.run()
    best = 0.0
    for _ in range(5):
        start = time.perf_counter()
        profile = m.profile()
        wall = (time.perf_counter() - start) * 1e3
        assert profile.kernel_ms <= profile.run_ms * 1.0001 <= wall
        best = max(best, profile.kernel_ms / wall)
    assert best >= 0.9


def test_chrome_trace(built: tuple[Any, Any, Any], tmp_path: Any):
    _, profiled, x = built
    m = profiled.create()
    m.set_num_threads(2)
    m.set_input(0, x)
    profile = m.profile(repeat=3)
    path = tmp_path / "trace.json"
    profile.write_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    for e in spans:
        assert isinstance(e["name"], str)
        assert isinstance(e["ts"], float)
        assert isinstance(e["dur"], float)
        assert e["ts"] >= 0
        assert e["dur"] >= 0
        assert isinstance(e["pid"], int)
        assert isinstance(e["tid"], int)
    names = {e["name"] for e in spans if e.get("cat") == "kernel"}
    assert names == _kernels(profiled.llvm_ir)
    # the convolutions are shared out: both threads run them
    conv_tids = {
        e["tid"]
        for e in spans
        if e.get("cat") == "kernel" and "nn.contrib_conv2d_NCHWc" in e["args"]["ops"]
    }
    assert conv_tids == {0, 1}
    assert {e["tid"] for e in events if e["ph"] == "M"} == {0, 1}


def test_group_times(built: tuple[Any, Any, Any], tmp_path: Any):
    _, profiled, x = built
    m = profiled.create()
    m.set_input(0, x)
    profile = m.profile()
    path = tmp_path / "times.json"
    profile.write_times(str(path))
    times = json.loads(path.read_text())
    assert set(times) == {k.call.group for k in profile.kernels}
    assert sum(times.values()) == pytest.approx(profile.kernel_ms)


def test_create_profile_builds_the_variant(built: tuple[Any, Any, Any]):
    plain, _, x = built
    with pytest.raises(ExecutorError, match="without profiling"):
        plain.create().profile()
    m = plain.create(profile=True)
    assert m.profiled
    m.set_input(0, x)
    profile = m.profile()
    assert {k.call.kernel for k in profile.kernels} == _kernels(plain.llvm_ir)
    np.testing.assert_array_equal(m.get_output(0), plain(x))


def test_exported_profiled_build_keeps_its_kernel_list(
    built: tuple[Any, Any, Any], tmp_path: Any
):
    import shutil

    from xrelay.runtime.library import load_module

    if shutil.which("cc") is None:
        pytest.skip("no C compiler driver (cc) to link a shared library")
    plain, profiled, x = built
    profiled.export_library(tmp_path / "m.so")
    m = load_module(tmp_path / "m.so").create()
    m.set_input(0, x)
    profile = m.profile()
    assert [k.call for k in profile.kernels] == profiled.spec.profile
    plain.export_library(tmp_path / "plain.so")
    with pytest.raises(ExecutorError, match="cannot be rebuilt"):
        load_module(tmp_path / "plain.so").create(profile=True)
