"""``xrelay.build``: the library, the graph executor API, the one-call form, shared
library export and loading, and the errors users can cause."""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.runtime import interpret


def _model() -> tuple[Any, dict[str, Any], list[Any]]:
    rng = np.random.default_rng(0)
    x = relay.var("x", shape=(1, 3, 8, 8), dtype="float32")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="float32")
    s = relay.var("s", shape=(1, 4), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    y = relay.nn.global_avg_pool2d(y)
    y = relay.add(relay.nn.batch_flatten(y), s)
    mod = relay.IRModule.from_expr(
        relay.Function([x, w, s], relay.Tuple([relay.nn.softmax(y), y]))
    )
    params = {"w": (rng.standard_normal((4, 3, 3, 3)) * 0.3).astype("float32")}
    inputs = [
        rng.standard_normal((1, 3, 8, 8)).astype("float32"),
        rng.standard_normal((1, 4)).astype("float32"),
    ]
    return mod, params, inputs


def _expected(mod: Any, params: dict[str, Any], inputs: list[Any]) -> Any:
    return interpret(mod, inputs[0], params["w"], inputs[1])


@pytest.fixture(scope="module")
def built() -> tuple[Any, Any, list[Any]]:
    mod, params, inputs = _model()
    lib = xrelay.build(mod, target="llvm", params=params)
    return lib, _expected(mod, params, inputs), inputs


def test_graph_executor_api(built: Any):
    lib, expected, inputs = built
    m = lib.create()
    assert m.get_num_inputs() == 2
    assert m.get_num_outputs() == 2
    m.set_input("x", inputs[0])
    m.set_input(1, inputs[1])
    m.run()
    for i in range(2):
        np.testing.assert_allclose(m.get_output(i), expected[i], rtol=1e-5, atol=1e-6)
    # keyword and dict forms, and run(**inputs)
    m.set_input(x=np.zeros_like(inputs[0]))
    m.set_input({"s": inputs[1]})
    m.run(x=inputs[0])
    np.testing.assert_allclose(m.get_output(0), expected[0], rtol=1e-5, atol=1e-6)
    out = np.empty_like(expected[1])
    assert m.get_output(1, out) is out
    np.testing.assert_allclose(m.get_input("s"), inputs[1])


def test_one_call_form_and_independent_executors(built: Any):
    lib, expected, inputs = built
    first, second = lib(*inputs)
    np.testing.assert_allclose(first, expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(second, expected[1], rtol=1e-5, atol=1e-6)
    a, b = lib.create(), lib.create()
    a.set_input(0, inputs[0])
    a.set_input(1, inputs[1])
    b.set_input(0, inputs[0] * 2)
    b.set_input(1, inputs[1])
    a.run()
    b.run()
    np.testing.assert_allclose(a.get_output(1), expected[1], rtol=1e-5, atol=1e-6)
    assert not np.allclose(b.get_output(1), expected[1])


def test_executor_errors(built: Any):
    from xrelay.runtime.executor import ExecutorError

    lib, _, inputs = built
    m = lib.create()
    with pytest.raises(ExecutorError, match="no input named 'y'"):
        m.set_input("y", inputs[0])
    with pytest.raises(
        ExecutorError, match=r"has shape \[1, 3, 8, 8\], got an array of shape \[3\]"
    ):
        m.set_input("x", np.zeros(3, "float32"))
    with pytest.raises(ExecutorError, match="output index 5 is out of range"):
        m.get_output(5)
    with pytest.raises(ExecutorError, match="takes 2 inputs, 3 were given"):
        lib(*inputs, inputs[0])


def test_export_and_load(built: Any, tmp_path: Path):
    from xrelay.runtime import load_module

    lib, expected, inputs = built
    path = tmp_path / "model.so"
    lib.export_library(path)
    loaded = load_module(path)
    first, second = loaded(*inputs)
    np.testing.assert_allclose(first, expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(second, expected[1], rtol=1e-5, atol=1e-6)
    m = loaded.create()
    m.set_input("x", inputs[0])
    m.set_input("s", inputs[1])
    m.run()
    np.testing.assert_allclose(m.get_output(0), expected[0], rtol=1e-5, atol=1e-6)
    # weights live in the library as a blob, not in a separate file
    assert [p.name for p in tmp_path.iterdir()] == ["model.so"]


def test_export_without_a_linker_is_a_clear_error(built: Any, tmp_path: Path):
    from xrelay.runtime.library import ExportError

    lib, _, _ = built
    with pytest.raises(ExportError, match="needs a C compiler driver"):
        lib.export_library(tmp_path / "m.so", cc="/nonexistent/cc")


def test_load_errors(tmp_path: Path):
    from xrelay.runtime import load_module
    from xrelay.runtime.library import LoadError

    bad = tmp_path / "bad.so"
    bad.write_text("not a library")
    with pytest.raises(LoadError, match="not a shared library"):
        load_module(bad)
    with pytest.raises(LoadError, match="not an xrelay model"):
        load_module(_libm())


def _libm() -> str:
    import ctypes.util

    name = ctypes.util.find_library("m")
    assert name is not None
    for d in (
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib",
    ):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return name


def test_build_forms_and_opt_levels():
    """A builtin.module works like an IRModule; every opt_level gives the same
    numbers; the module given is left as it was."""
    mod, params, inputs = _model()
    text_before = str(mod.module)
    expected = _expected(mod, params, inputs)
    for level in (0, 1, 2, 3):
        with PassContext(opt_level=level):
            lib = xrelay.build(mod.module, params=params)
        np.testing.assert_allclose(lib(*inputs)[0], expected[0], rtol=1e-5, atol=1e-6)
    assert str(mod.module) == text_before


def test_build_is_a_lazy_attribute_and_a_callable_module():
    import importlib
    import subprocess
    import sys

    code = (
        "import xrelay, xrelay.build, types; "
        "assert callable(xrelay.build); "
        "m = importlib.import_module('xrelay.build'); assert callable(m)"
    )
    subprocess.run([sys.executable, "-c", "import importlib; " + code], check=True)
    assert callable(importlib.import_module("xrelay.build"))


def test_unsupported_target():
    mod, params, _ = _model()
    with pytest.raises(ValueError, match="unsupported target 'cuda'"):
        xrelay.build(mod, target="cuda", params=params)


def test_weights_are_not_in_the_llvm_ir(built: Any):
    lib, _, _ = built
    ir = lib.get_source("ll")
    assert "xrelay_entry" in ir
    # the 108 float weights would appear as constants if they were serialised
    # (LLVM prints a float constant as the hex of its double value)
    _, params, _ = _model()
    weights = {float(v) for v in np.asarray(params["w"], "float32").ravel()}
    printed = {f"float 0x{struct.pack('>d', v).hex().upper()}" for v in weights}
    assert len(weights) > 50
    assert sum(p in ir for p in printed) < 5


def test_zero_copy_inputs_and_outputs(built: Any):
    """set_input_zero_copy reads the caller's array in place (later changes to it
    are seen by the next run); set_output_zero_copy writes into the caller's array;
    set_input / release_bindings go back to the executor's own buffers."""
    lib, expected, inputs = built
    m = lib.create()
    x = inputs[0].copy()
    m.set_input_zero_copy("x", x)
    m.set_input("s", inputs[1])
    out0 = np.full((1, 4), np.nan, dtype="float32")
    m.set_output_zero_copy(0, out0)
    m.run()
    np.testing.assert_allclose(out0, expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.get_output(0), out0)
    x[:] = 0  # read in place: the next run sees it
    m.run()
    zeros = lib(np.zeros_like(x), inputs[1])[0]
    np.testing.assert_allclose(out0, zeros, rtol=1e-6)
    m.set_input("x", inputs[0])  # copying again unbinds x
    x[:] = 5
    m.run()
    np.testing.assert_allclose(out0, expected[0], rtol=1e-5, atol=1e-6)
    m.release_bindings()
    out0[:] = np.nan
    m.run()
    assert np.isnan(out0).all()
    np.testing.assert_allclose(m.get_output(0), expected[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.zeros((1, 3, 8, 8), "float64"), r"is float32\[1, 3, 8, 8\], got float64"),
        (np.zeros((1, 3, 8, 9), "float32"), r"got float32\[1, 3, 8, 9\]"),
        (np.zeros((1, 3, 8, 16), "float32")[..., ::2], "C-contiguous"),
        ([[0.0]], "a numpy array is needed"),
    ],
)
def test_zero_copy_refuses_what_it_cannot_read_in_place(
    built: Any, value: Any, message: str
):
    from xrelay.runtime.executor import ExecutorError

    lib, _, _ = built
    with pytest.raises(ExecutorError, match=message):
        lib.create().set_input_zero_copy("x", value)


def test_one_call_form_reads_inputs_in_place(
    built: Any, monkeypatch: pytest.MonkeyPatch
):
    """lib(*arrays) with every input given copies neither inputs nor outputs: the
    returned arrays are the ones the model wrote, new at each call; an input that
    is not in the right layout (strided, another dtype) is copied in."""
    from xrelay.runtime.executor import GraphModule

    lib, expected, inputs = built
    copies: list[int] = []
    original = GraphModule._set  # pyright: ignore[reportPrivateUsage]

    def counting(self: Any, index: int, value: Any) -> None:
        copies.append(index)
        original(self, index, value)

    monkeypatch.setattr(GraphModule, "_set", counting)
    first = lib(*inputs)
    second = lib(*inputs)
    assert copies == []
    assert first[0] is not second[0]
    np.testing.assert_allclose(first[0], expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(first[1], second[1])
    wide = np.zeros((1, 3, 8, 16), "float32")
    wide[..., ::2] = inputs[0]
    again = lib(wide[..., ::2], inputs[1].astype("float64"))
    assert copies == [0, 1]
    np.testing.assert_allclose(again[0], expected[0], rtol=1e-5, atol=1e-6)


def test_build_defaults_to_opt_level_3_and_keeps_an_entered_context():
    """Without a PassContext, build optimises at 3 (AlterOpLayout packs the dense:
    the fast kernel); an entered context's level wins; PassContext() stays at 2."""
    x = relay.var("x", shape=(4, 32), dtype="float32")
    w = relay.const(np.ones((16, 32), "float32"))
    mod = relay.IRModule.from_expr(relay.nn.dense(x, w))
    assert PassContext().opt_level == 2
    assert not PassContext.entered()
    assert "contrib_dense_pack" in xrelay.build(mod, keep_mlir=True).get_source("mlir")
    with PassContext(opt_level=2):
        assert PassContext.entered()
        lib = xrelay.build(mod, keep_mlir=True)
    assert "contrib_dense_pack" not in lib.get_source("mlir")
    np.testing.assert_allclose(lib(np.ones((4, 32), "float32")), 32.0)


def test_data_address_matches_numpy():
    from xrelay.runtime.executor import data_address

    base = np.arange(64, dtype="float64").reshape(8, 8)
    for arr in (base, base[3:], base[:, 2:], np.empty(0, "int8"), base.T):
        assert data_address(arr) == arr.ctypes.data


def test_the_fast_call_leaves_nothing_bound(built: Any):
    """``GraphModule.call``: inputs read in place for that run only; the executor
    then runs on its own buffers again (the caller's arrays are not read later)."""
    lib, expected, inputs = built
    m = lib.create()
    for k, a in enumerate(inputs):
        m.set_input(k, a)
    caller = [a.copy() for a in inputs]
    outs = m.call(caller)
    np.testing.assert_allclose(outs[0], expected[0], rtol=1e-5, atol=1e-6)
    for a in caller:
        a.fill(np.nan)
    m.run()
    np.testing.assert_allclose(m.get_output(0), expected[0], rtol=1e-5, atol=1e-6)
    assert not np.isnan(outs[0]).any()  # returned arrays are the caller's own


def test_the_fast_call_reports_a_failed_check_and_recovers():
    """An index out of range in the one-call form raises, and the next call runs."""
    from xrelay.status import IndexOutOfRangeError

    data = relay.var("data", shape=(4,), dtype="float32")
    idx = relay.var("idx", shape=(2,), dtype="int64")
    lib = xrelay.build(relay.IRModule.from_expr(relay.take(data, idx, mode="fast")))
    d = np.arange(4, dtype="float32")
    with pytest.raises(IndexOutOfRangeError):
        lib(d, np.array([0, 9], "int64"))
    np.testing.assert_array_equal(lib(d, np.array([3, 1], "int64")), [3.0, 1.0])
