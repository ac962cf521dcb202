"""``xrelay.build(precision=...)`` and ``xrelay-run --precision``: bf16 runs
ToMixedPrecision(bfloat16) on a host with AVX512-BF16, float32 (with a warning)
elsewhere; the host's features are mocked as the tiling tests mock the vector unit.
The shared models (when ``../shared`` is there) stay within the README's stated
accuracy in bf16."""

from __future__ import annotations

import os
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.runtime import precision
from xrelay.runtime.precision import PrecisionError, PrecisionWarning
from xrelay.tools.xrelay_run import main as xrelay_run


def _model() -> tuple[relay.IRModule, np.ndarray[Any, Any]]:
    rng = np.random.default_rng(21)
    x = relay.var("x", shape=(4, 32))
    w = relay.const(rng.standard_normal((16, 32)).astype(np.float32))
    y = relay.nn.relu(relay.nn.dense(x, w))
    data = rng.standard_normal((4, 32)).astype(np.float32)
    return relay.IRModule.from_expr(relay.Function([x], y)), data


def _host(monkeypatch: pytest.MonkeyPatch, bf16: bool) -> None:
    monkeypatch.setattr(precision, "host_has_avx512bf16", lambda: bf16)


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("float32", "float32"),
        ("fp32", "float32"),
        ("bf16", "bf16"),
        ("bfloat16", "bf16"),
    ],
)
def test_check_precision(value: str, name: str):
    assert precision.check_precision(value) == name


def test_bad_precision_is_one_line_error():
    mod, _ = _model()
    with pytest.raises(PrecisionError) as e:
        xrelay.build(mod, precision="int8")
    assert str(e.value) == "precision must be one of float32, bf16, got 'int8'"


@pytest.mark.parametrize(
    ("features", "has"),
    [
        ({"avx512f": True, "avx512bf16": True}, True),
        ({"avx512f": True}, False),
        ({"avx2": True}, False),
    ],
)
def test_host_feature_read_from_llvm(
    monkeypatch: pytest.MonkeyPatch, features: dict[str, bool], has: bool
):
    import llvmlite.binding as llvm

    monkeypatch.setattr(llvm, "get_host_cpu_features", lambda: features)
    precision.host_has_avx512bf16.cache_clear()
    try:
        assert precision.host_has_avx512bf16() is has
    finally:
        precision.host_has_avx512bf16.cache_clear()


def test_build_bf16_on_a_bf16_host(monkeypatch: pytest.MonkeyPatch):
    mod, data = _model()
    want = xrelay.build(mod)(data)
    _host(monkeypatch, True)
    lib = xrelay.build(mod, precision="bf16")
    got = lib(data)
    assert got.dtype == np.float32
    assert not np.array_equal(got, want)  # bfloat16 products
    scale = float(np.abs(want).max())
    assert float(np.abs(got - want).max()) <= 2.0**-6 * scale


def test_build_bf16_without_bf16_is_the_float32_build(monkeypatch: pytest.MonkeyPatch):
    mod, data = _model()
    want = xrelay.build(mod)(data)
    _host(monkeypatch, False)
    with pytest.warns(PrecisionWarning, match="no AVX512-BF16 .* runs in float32"):
        lib = xrelay.build(mod, precision="bf16")
    assert lib.from_cache  # the very program of the float32 build: its cache entry
    np.testing.assert_array_equal(lib(data), want)


def test_build_bf16_keeps_an_entered_context(monkeypatch: pytest.MonkeyPatch):
    mod, data = _model()
    _host(monkeypatch, True)
    with PassContext(opt_level=0):
        lib = xrelay.build(mod, precision="bf16", keep_mlir=True)
    source = lib.get_source("mlir")
    assert "fused_nn_dense" in source  # opt_level 0 kept: no packed layout
    assert "contrib_dense_pack" not in source
    assert "fused_cast" in source  # and converted to bfloat16
    assert lib(data).dtype == np.float32


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = xrelay_run(args)
    return code, out.getvalue(), err.getvalue()


def test_xrelay_run_precision_bad_value_exits_2():
    err = StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as e:
        xrelay_run(["--example", "--precision", "fp8"])
    assert e.value.code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1
    assert "--precision: precision must be one of float32, bf16, got 'fp8'" in lines[0]


@pytest.mark.parametrize("bf16", [False, True])
def test_xrelay_run_precision_bf16(monkeypatch: pytest.MonkeyPatch, bf16: bool):
    _host(monkeypatch, bf16)
    args = ["--example", "--executor", "interpreter", "--precision", "bf16"]
    code, out, err = _run([*args, "--print-ir"])
    assert code == 0, err
    note = "warning: precision bf16: this CPU has no AVX512-BF16"
    assert (note in err) is not bf16
    assert ("xbf16>" in out) is bf16  # the compiled IR is bfloat16 where it can be


MODELS = Path(os.environ.get("XRELAY_MODELS", "/work/shared/models"))

BF16_ACCURACY = {"mlp": 2e-2, "cnn_small": 2e-2, "resnet_block": 2e-2}
"""Max abs error of the bf16 outputs over the largest |float32 output|, per shared
model: the README's figures (bench/precision.py) with some room."""


@pytest.mark.skipif(
    not (MODELS / "manifest.json").is_file(), reason=f"no shared models in {MODELS}"
)
@pytest.mark.parametrize(
    "name", ["mlp", "resnet_block", pytest.param("cnn_small", marks=pytest.mark.slow)]
)
def test_shared_models_in_bf16(name: str):
    from xrelay.frontend import from_onnx

    mod, params = from_onnx(str(MODELS / f"{name}.onnx"))
    x = np.load(MODELS / f"{name}.input.npy")
    want = np.load(MODELS / f"{name}.output.npy").astype(np.float64)
    config = {"xrelay.mixed_precision_type": "bfloat16"}
    with PassContext(opt_level=3, config=config):
        got = np.asarray(xrelay.build(mod, params=params)(x), np.float64)
    err = float(np.abs(got - want).max()) / float(np.abs(want).max())
    assert 0 < err <= BF16_ACCURACY[name]
