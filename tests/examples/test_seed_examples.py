"""The seed examples under examples/ (issue 3, item 8; issue 22, item 5) run as
scripts and print what TVM's originals check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def test_seed_module_pass():
    out = run_example("seed_module_pass.py").stdout
    assert (
        "registered: Run Module pass: module_pass_test at the optimization level 0"
        in out
    )
    assert "func.func @myAbs(%x: tensor<5x10xf32>) -> tensor<5x10xf32>" in out
    assert "func.func @myAdd(" in out
    assert "myAbs == InferType(abs(x)), myAdd unchanged" in out
    assert "graph executor: myAbs and myAdd match numpy" in out
    assert "debug executor: myAbs and myAdd match numpy" in out


def test_seed_function_pass():
    out = run_example("seed_function_pass.py").stdout
    assert "TestReplaceFunc: main is now f1" in out
    assert "func.return %x : tensor<10x20xf32>" in out
    assert "relay.log" in out
    assert "function_pass_test: myLog(x) == log(2x)" in out


def ran(out: str, label: str) -> list[str]:
    for line in out.splitlines():
        if line.startswith(f"{label}: ran "):
            return line.removeprefix(f"{label}: ran ").split(", ")
    raise AssertionError(f"no '{label}: ran' line in\n{out}")


def test_seed_sequential():
    out = run_example("seed_sequential.py").stdout
    names = ["FoldConstant", "EliminateCommonSubexpr", "AlterOpLayout"]
    at2 = ran(out, "opt_level=2")
    at3 = ran(out, "opt_level=3")
    no_cse = ran(out, "opt_level=3 without EliminateCommonSubexpr")
    assert at2[0] == "InferType"
    level3 = {"EliminateCommonSubexpr", "AlterOpLayout"}
    assert not level3 & set(at2)
    assert "EliminateCommonSubexpr" not in no_cse
    for name in names:
        assert name in at3
    assert "FoldConstant" in at2
    assert "FoldConstant" in no_cse
    assert "AlterOpLayout" in no_cse
    # under Target("llvm") AlterOpLayout blocks the convolution
    assert "relay.nn.contrib_conv2d_NCHWc" in out
    assert "builtin.module {" in out


@pytest.fixture(scope="module")
def print_ir_run() -> subprocess.CompletedProcess[str]:
    return run_example("seed_print_ir.py")


@pytest.mark.parametrize("section", ["trace", "instrument"])
def test_seed_print_ir(print_ir_run, section):
    out, err = print_ir_run.stdout, print_ir_run.stderr
    # PrintIR runs once per pipeline run, on stderr
    assert err.count("PrintIR():\nbuiltin.module {") == 3
    assert out.rstrip().endswith("done")
    trace = out[
        out.index("== trace=print_ir") : out.index("== instruments=[PrintIR()]")
    ]
    instrument = out[out.index("== instruments=[PrintIR()]") :]
    first = "FoldConstant"
    header = "Running pass: {} The meta data of the pass - pass name: "
    if section == "trace":
        # the trace callback sees leaf passes only, never the Sequential
        assert f"{header}{first}, " in trace
        assert f"{header}PrintIR, opt_level: 0, required passes: []\n" in trace
        assert "pass name: sequential" not in trace
    else:
        assert instrument.index(f"{header}sequential, ") < instrument.index(
            f"{header}{first}, "
        )
        assert trace.count(header) + 1 == instrument.count(header)


def test_seed_constant_folding_matches_fold_constant():
    """The guide's ConstantChecker + ConstantFolder pair, as a function pass, gives
    the IR of relay.transform.FoldConstant() (the script asserts it)."""
    out = run_example("seed_constant_folding.py").stdout
    assert "constants after folding: 2" in out
    assert "MyFoldConstant gives the same IR as relay.transform.FoldConstant()" in out
    assert "folded and unfolded programs agree" in out
    assert "relay.multiply" not in out  # (c + c) * 2 was folded away
    assert "relay.exp" not in out


def test_seed_custom_pass_scales_constants():
    out = run_example("seed_custom_pass.py").stdout
    assert "ScaleConstants: every constant c became multiply(3, c)" in out
    assert "ScaleConstants: the scaled program matches numpy" in out
    assert out.count("relay.multiply") == 1  # the shared constant: one multiply
