"""xrelay-run driven in-process (``main(args)`` with captured output) and, for exit
codes, as a subprocess."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from xrelay.tools import models, xrelay_run
from xrelay.tools.diagnostics import UserError
from xrelay.tools.xrelay_run import main

MODEL = """\
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = relay.multiply %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = relay.nn.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}
"""

X = np.arange(6, dtype="float32").reshape(2, 3) - 2.5
W = np.array([1.0, -1.0, 2.0], dtype="float32")


def expected() -> list[Any]:
    product = X * W
    return [product, np.maximum(product, 0)]


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.mlir"
    path.write_text(MODEL)
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "w.npy", W)
    for i, value in enumerate(expected()):
        np.save(tmp_path / f"want{i}.npy", value)
    return path


def run_main(args: list[str]) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def inputs(model: Path) -> list[str]:
    d = model.parent
    return ["--input", f"x={d / 'x.npy'}", "--input", f"w={d / 'w.npy'}"]


INTERP = ["--executor", "interpreter"]


def test_example() -> None:
    code, out, _ = run_main(["--example", *INTERP])
    assert code == 0
    assert "model: bundled example" in out
    assert "executor: reference interpreter (numpy)" in out
    assert "output 0: float32[1, 10]" in out
    assert "run latency:" in out
    assert "compile:" in out


def test_mlir_model_outputs_are_written_and_checked(
    model: Path, tmp_path: Path
) -> None:
    d = model.parent
    code, out, err = run_main(
        [
            str(model),
            *inputs(model),
            *INTERP,
            "--output-dir",
            str(tmp_path / "out"),
            "--expected",
            str(d / "want0.npy"),
            "--expected",
            str(d / "want1.npy"),
        ]
    )
    assert code == 0, err
    for i, value in enumerate(expected()):
        np.testing.assert_array_equal(
            np.load(tmp_path / "out" / f"output_{i}.npy"), value
        )
        assert f"output {i} matches" in out
    assert "output 0: float32[2, 3]" in out
    assert "output 1: float32[2, 3]" in out


def test_mismatch_exits_1_with_the_errors(model: Path) -> None:
    d = model.parent
    np.save(d / "off.npy", expected()[1] + np.float32(0.5))
    code, out, err = run_main(
        [
            str(model),
            *inputs(model),
            *INTERP,
            "--expected",
            str(d / "want0.npy"),
            "--expected",
            str(d / "off.npy"),
        ]
    )
    assert code == 1
    assert "output 0 matches" in out
    assert err.startswith("xrelay-run: error: output 1 does not match")
    assert "max abs error 0.5" in err
    assert err.count("\n") == 1
    code, _, _ = run_main(
        [str(model), *inputs(model), *INTERP, "--expected", str(d / "off.npy")]
    )
    assert code == 1  # compared with output 0: shapes agree, values do not
    code, _, _ = run_main(
        [
            str(model),
            *inputs(model),
            *INTERP,
            "--expected",
            str(d / "want0.npy"),
            "--expected",
            str(d / "off.npy"),
            "--atol",
            "0.5",
        ]
    )
    assert code == 0


def test_random_inputs_follow_the_seed(model: Path, tmp_path: Path) -> None:
    def output(seed: str) -> Any:
        out_dir = tmp_path / f"seed{seed}"
        assert (
            run_main(
                [str(model), *INTERP, "--seed", seed, "--output-dir", str(out_dir)]
            )[0]
            == 0
        )
        return np.load(out_dir / "output_0.npy")

    np.testing.assert_array_equal(output("3"), output("3"))
    assert not np.array_equal(output("3"), output("4"))


def test_repeat_reports_the_median(model: Path) -> None:
    code, out, _ = run_main([str(model), *INTERP, "--repeat", "5"])
    assert code == 0
    assert "median of 5 run(s) (min" in out


def test_threads_flag(model: Path) -> None:
    """--threads sets the compiled model's team; the outputs do not change."""
    code, out, _ = run_main([str(model), "--executor", "llvm", "--threads", "3"])
    assert code == 0, out
    assert "on 3 threads" in out
    err = StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as exit_info:
        main([str(model), "--threads", "0"])
    assert exit_info.value.code == 2
    assert (
        "argument --threads: must be an integer from 1 to 256, got 0" in err.getvalue()
    )


def test_pass_context_flags_and_time_passes(model: Path) -> None:
    code, out, err = run_main(
        [
            str(model),
            *INTERP,
            "--opt-level",
            "3",
            "--disabled-pass",
            "FuseOps",
            "--required-pass",
            "FastMath",
            "--pass-config",
            "relay.FuseOps.max_depth=3",
            "--time-passes",
        ]
    )
    assert code == 0, err
    assert "(passes: relay-optimize, opt_level 3)" in out
    assert "EliminateCommonSubexpr:" in err  # opt_level 3
    assert "FastMath:" in err  # required
    assert "FuseOps" not in err  # disabled


def test_print_ir(model: Path) -> None:
    code, out, _ = run_main([str(model), *INTERP, "-p", "fuse-ops", "--print-ir"])
    assert code == 0
    assert "IR compiled (large constants elided):" in out
    assert "attributes {relay.primitive}" in out


def test_explicit_pipeline(model: Path) -> None:
    code, out, _ = run_main([str(model), *INTERP, "-p", "infer-type,canonicalize"])
    assert code == 0
    assert "(passes: infer-type,canonicalize, opt_level 3)" in out


def test_progress_line_for_slow_compiles(model: Path) -> None:
    code, _, err = run_main([str(model), *INTERP, "--progress-after", "0"])
    assert code == 0
    assert f"xrelay-run: compiling {model} (opt_level 3) ..." in err
    assert "done in" in err


def test_no_progress_line_for_fast_compiles(model: Path) -> None:
    code, _, err = run_main([str(model), *INTERP, "-p", "infer-type"])
    assert code == 0
    assert "compiling" not in err


# ---------------------------------------------------------------------------------------
# Executors
# ---------------------------------------------------------------------------------------


def test_llvm_not_available(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xrelay_run, "llvm_build", lambda: None)
    code, _, err = run_main([str(model), "--executor", "llvm"])
    assert code == 1
    assert err.startswith("xrelay-run: error: --executor llvm is not available yet")
    code, out, _ = run_main([str(model)])
    assert code == 0
    assert (
        "executor: reference interpreter (numpy); the LLVM executor comes with the "
        "lowering" in out
    )


class FakeModule:
    num_threads = 1

    def __init__(self, fn: Callable[..., Any], names: list[str]):
        self.fn, self.names, self.values = fn, names, {}
        self.outputs: list[Any] = []

    def set_input(self, name: str, value: Any) -> None:
        self.values[name] = value

    def run(self) -> None:
        self.outputs = list(self.fn(*(self.values[n] for n in self.names)))

    def get_num_outputs(self) -> int:
        return len(self.outputs)

    def get_output(self, i: int) -> Any:
        return self.outputs[i]


def test_llvm_executor_uses_xrelay_build(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []

    class Lib:
        def create(self) -> FakeModule:
            return FakeModule(lambda x, w: (x * w, np.maximum(x * w, 0)), ["x", "w"])

    def build(mod: Any, target: str, params: Any = None) -> Lib:
        calls.append({"target": target, "params": params, "module": mod.module})
        return Lib()

    monkeypatch.setattr(xrelay_run, "llvm_build", lambda: build)
    d = model.parent
    code, out, err = run_main(
        [
            str(model),
            *inputs(model),
            "--expected",
            str(d / "want0.npy"),
            "--expected",
            str(d / "want1.npy"),
        ]
    )
    assert code == 0, err
    assert calls
    assert calls[0]["target"] == "llvm"
    assert "executor: llvm" in out
    assert "(passes: none + xrelay.build, opt_level 3)" in out


def test_auto_falls_back_when_llvm_cannot_compile(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def build(mod: Any, target: str, params: Any = None) -> Any:
        raise NotImplementedError("relay.nn.conv2d: no lowering for this op yet")

    monkeypatch.setattr(xrelay_run, "llvm_build", lambda: build)
    code, out, err = run_main([str(model)])
    assert code == 0
    assert "cannot compile for llvm: relay.nn.conv2d: no lowering" in err
    assert "running the reference interpreter instead" in err
    assert "executor: reference interpreter" in out
    code, _, err = run_main([str(model), "--executor", "llvm"])
    assert code == 1
    assert err.startswith("xrelay-run: error: ")
    assert "cannot compile for llvm" in err


@pytest.mark.skipif(
    xrelay_run.llvm_build() is None, reason="xrelay.build is not available"
)
def test_real_llvm_executor_agrees_with_the_interpreter(
    model: Path, tmp_path: Path
) -> None:
    outs: list[list[Any]] = []
    for executor in ("interpreter", "llvm"):
        out_dir = tmp_path / executor
        code, _, err = run_main(
            [
                str(model),
                *inputs(model),
                "--executor",
                executor,
                "--output-dir",
                str(out_dir),
            ]
        )
        if code != 0 and executor == "llvm":
            pytest.skip(f"the LLVM lowering cannot run this model yet: {err}")
        assert code == 0, err
        outs.append([np.load(out_dir / f"output_{i}.npy") for i in range(2)])
    for a, b in zip(*outs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------
# ONNX models
# ---------------------------------------------------------------------------------------


def relu_onnx(path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    onnx.save(helper.make_model(graph), str(path))


def test_onnx_without_the_frontend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "relu.onnx"
    relu_onnx(path)
    monkeypatch.setattr(models, "onnx_importer", lambda: None)
    code, _, err = run_main([str(path)])
    assert code == 1
    assert err.startswith(
        f"xrelay-run: error: {path}: ONNX models need the ONNX frontend "
        "(xrelay.frontend.from_onnx)"
    )


@pytest.mark.skipif(
    models.onnx_importer() is None,
    reason="the ONNX frontend is not available",
)
def test_onnx_model(tmp_path: Path) -> None:
    path = tmp_path / "relu.onnx"
    relu_onnx(path)
    x = np.arange(6, dtype="float32").reshape(2, 3) - 3
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "want.npy", np.maximum(x, 0))
    code, out, err = run_main(
        [
            str(path),
            *INTERP,
            "--input",
            f"x={tmp_path / 'x.npy'}",
            "--expected",
            str(tmp_path / "want.npy"),
        ]
    )
    assert code == 0, err
    assert "output 0 matches" in out


def test_bad_onnx_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"not a model")
    code, _, err = run_main([str(path)])
    assert code == 1
    assert err.startswith(f"xrelay-run: error: {path}: ")
    assert "Traceback" not in err


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--input", "y=x.npy"],
            "xrelay-run: error: --input y: @main has no parameter",
        ),
        (["--input", "x"], "xrelay-run: error: --input x: expected NAME=FILE.npy"),
        (
            ["--input", "x=missing.npy"],
            "xrelay-run: error: --input x=missing.npy: cannot read",
        ),
        (
            ["--input", "x=w.npy"],
            "xrelay-run: error: --input x: shape [3] does not match",
        ),
        (["--entry", "f"], "xrelay-run: error: {model}: no function @f (it has @main)"),
        (["-p", "nope"], "xrelay-run: error: unknown pass 'nope'"),
        (
            ["--pass-config", "a.b=1"],
            "xrelay-run: error: --pass-config a.b=1: Invalid config",
        ),
        (
            ["--expected", "missing.npy"],
            "xrelay-run: error: --expected missing.npy: cannot read",
        ),
        (["--example"], "xrelay-run: error: give a model file or --example, not both"),
    ],
)
def test_user_errors(
    model: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], expected: str
) -> None:
    monkeypatch.chdir(model.parent)
    code, _, err = run_main([str(model), *INTERP, *args])
    # a bad command line exits with 2, bad input with 1
    usage = args == ["--input", "x"] or args[0] in ("-p", "--pass-config", "--example")
    assert code == (2 if usage else 1), err
    assert err.startswith(expected.format(model=model)), err
    assert err.count("\n") == 1


def test_model_errors_are_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(
        "func.func @main(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {\n"
        "  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>\n"
        "  func.return %0 : tensor<2x3xf32>\n}\n"
    )
    code, _, err = run_main([str(path)])
    assert code == 1
    assert (
        err == f"{path}:2:8: error: relay.add: shapes [2, 3] and [4] do not broadcast\n"
    )
    code, _, err = run_main([str(tmp_path / "none.mlir")])
    assert err.startswith("xrelay-run: error: cannot read")
    code, _, err = run_main([str(tmp_path)])
    assert code == 1
    assert "unsupported model file" in err


def test_debug_reraises(tmp_path: Path) -> None:
    with redirect_stderr(StringIO()), pytest.raises(UserError):
        main([str(tmp_path / "none.mlir"), "--debug"])


def test_exit_codes(model: Path) -> None:
    script = Path(sys.executable).parent / "xrelay-run"
    cmd = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-m", "xrelay.tools.xrelay_run"]
    )
    ok = subprocess.run(
        [*cmd, str(model), *INTERP, "-p", "infer-type"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(
        [*cmd, str(model) + ".missing"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 1
    assert bad.stderr.count("\n") == 1
    assert "Traceback" not in bad.stderr
    usage = subprocess.run(
        [*cmd, "--repeat", "x"], capture_output=True, text=True, check=False
    )
    assert usage.returncode == 2
    assert usage.stderr.startswith("xrelay-run: error: argument --repeat")


BF16_MODEL = """
func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = relay.multiply %x, %x : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  func.return %0 : tensor<4xbf16>
}
"""


@pytest.mark.parametrize("executor", ["interpreter", "llvm"])
def test_bfloat16_npy_inputs_and_expected(tmp_path: Path, executor: str) -> None:
    """``np.save`` keeps bfloat16 as raw ``<V2`` records: read back as bfloat16."""
    import ml_dtypes

    bf16 = ml_dtypes.bfloat16
    path = tmp_path / "m.mlir"
    path.write_text(BF16_MODEL)
    x = np.array([1.5, -3.0, 0.1, 300.0], dtype=bf16)
    np.save(tmp_path / "x.npy", x)
    want = (x.astype(np.float32) ** 2).astype(bf16)
    np.save(tmp_path / "want.npy", want)
    np.save(tmp_path / "off.npy", (want.astype(np.float32) + 1).astype(bf16))
    args = [str(path), "--input", f"x={tmp_path / 'x.npy'}", "--executor", executor]
    code, out, err = run_main(
        [*args, "--expected", str(tmp_path / "want.npy"), "--rtol", "0", "--atol", "0"]
    )
    assert code == 0, err
    assert "output 0: bfloat16[4]" in out
    assert "output 0 matches" in out
    code, _, err = run_main([*args, "--expected", str(tmp_path / "off.npy")])
    assert code == 1
    assert "output 0 does not match" in err
