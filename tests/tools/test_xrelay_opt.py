"""xrelay-opt driven in-process (as xDSL's own driver tests do: construct the main
with ``args=[...]`` and capture stdout/stderr) and, for exit codes, as a subprocess."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xrelay.pass_manager import PassContext, PassInstrument, PassTimingInstrument
from xrelay.pass_manager.registry import all_entries
from xrelay.tools.xrelay_opt import XRelayOptMain, main

RELU = """\
func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
"""

BAD_BROADCAST = """\
func.func @main(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
"""

BAD_RESHAPE = """\
func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 7>} : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
"""


@pytest.fixture
def relu_file(tmp_path: Path) -> Path:
    path = tmp_path / "relu.mlir"
    path.write_text(RELU)
    return path


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run_main(args: list[str]) -> tuple[int, str, str]:
    """``main(args)`` with stdout and stderr captured: (exit code, out, err)."""
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def run_opt(opt: XRelayOptMain) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        opt.run()
    return out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------
# What the driver knows
# ---------------------------------------------------------------------------------------


def test_knows_relay_and_every_pass() -> None:
    opt = XRelayOptMain(args=[])
    assert "relay" in opt.ctx.registered_dialect_names
    for entry in all_entries():
        assert entry.pipeline_name in opt.available_passes
    for xdsl_pass in ("canonicalize", "cse", "dce"):
        assert xdsl_pass in opt.available_passes
    assert "mlir" in opt.available_targets
    assert {"mlir", "onnx"} <= set(opt.available_frontends)


def test_runs_a_pipeline(relu_file: Path) -> None:
    out, err = run_opt(XRelayOptMain(args=[str(relu_file), "-p", "infer-type"]))
    assert "relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>" in out
    assert err == ""


def test_print_op_generic_and_output_file(relu_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    out, _ = run_opt(
        XRelayOptMain(args=[str(relu_file), "--print-op-generic", "-o", str(target)])
    )
    assert out == ""
    assert '"relay.nn.relu"(%x)' in target.read_text()


def test_onnx_input(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from xrelay.tools.models import onnx_importer

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph), str(path))
    code, out, err = run_main([str(path), "-p", "infer-type"])
    if onnx_importer() is None:
        assert code == 1
        assert "ONNX models need the ONNX frontend" in err
    else:
        assert code == 0, err
        assert "relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>" in out


def test_list_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-passes"]) == 0
    out = capsys.readouterr().out
    for entry in all_entries():
        assert entry.pipeline_name in out
        assert entry.name in out
    assert "\n  canonicalize\n" in out


def test_list_pass_configs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-pass-configs"]) == 0
    assert "relay.FuseOps.max_depth  (int, default 256)" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------
# One PassContext around the whole pipeline
# ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RecordContext(ModulePass):
    """An xDSL pass recording the PassContext it runs in."""

    name = "record-context"
    seen: ClassVar[list[PassContext]] = []

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        RecordContext.seen.append(PassContext.current())


class OptWithRecorder(XRelayOptMain):
    def register_all_passes(self) -> None:
        super().register_all_passes()
        self.register_pass(RecordContext.name, lambda: RecordContext)


def test_flags_map_onto_one_context(relu_file: Path) -> None:
    RecordContext.seen.clear()
    opt = OptWithRecorder(
        args=[
            str(relu_file),
            "--split-input-file",
            "-p",
            "record-context,infer-type,record-context",
            "--opt-level",
            "3",
            "--required-pass",
            "fold-constant,InferType",
            "--disabled-pass",
            "FuseOps",
            "--disabled-pass",
            "eliminate-common-subexpr",
            "--pass-config",
            "relay.FuseOps.max_depth=7",
            "--pass-config",
            "relay.FuseOps.link_params=true",
        ]
    )
    run_opt(opt)
    first, second = RecordContext.seen
    assert first is second  # one context for the whole pipeline
    assert first.opt_level == 3
    assert first.required_pass == ["FoldConstant", "InferType"]
    assert first.disabled_pass == ["FuseOps", "EliminateCommonSubexpr"]
    assert first.config == {
        "relay.FuseOps.max_depth": 7,
        "relay.FuseOps.link_params": True,
    }
    assert PassContext.current() is not first  # exited afterwards


def test_default_context_is_tvms(relu_file: Path) -> None:
    RecordContext.seen.clear()
    run_opt(OptWithRecorder(args=[str(relu_file), "-p", "record-context"]))
    (ctx,) = RecordContext.seen
    assert ctx.opt_level == 2
    assert ctx.required_pass == []
    assert ctx.disabled_pass == []
    assert ctx.get_config("xrelay.verify_each") is True


def test_opt_level_gates_sequential_children(relu_file: Path) -> None:
    def ran(opt_level: str, *extra: str) -> str:
        _, err = run_opt(
            XRelayOptMain(
                args=[
                    str(relu_file),
                    "-p",
                    "relay-optimize",
                    "--time-passes",
                    "--opt-level",
                    opt_level,
                    *extra,
                ]
            )
        )
        return err

    assert "FoldConstant" not in ran("0")
    assert "FoldConstant:" in ran("2")
    assert "FoldConstant:" in ran("0", "--required-pass", "FoldConstant")
    assert "FoldConstant" not in ran("3", "--disabled-pass", "fold-constant")


def test_explicit_pass_runs_even_if_disabled(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fold.mlir",
        """\
func.func @main() -> tensor<2xf32> {
  %a = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = relay.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %b : tensor<2xf32>
}
""",
    )
    code, out, err = run_main(
        [str(path), "-p", "fold-constant", "--disabled-pass", "FoldConstant"]
    )
    assert code == 0
    assert "relay.add" not in out
    assert "warning: pass fold-constant is named in -p and in --disabled-pass" in err


# ---------------------------------------------------------------------------------------
# Instruments write to stderr
# ---------------------------------------------------------------------------------------


def test_instruments_write_to_stderr_only(relu_file: Path) -> None:
    out, err = run_opt(
        XRelayOptMain(
            args=[
                str(relu_file),
                "-p",
                "infer-type,canonicalize",
                "--print-ir-before",
                "infer-type",
                "--print-ir-after",
                "InferType,canonicalize",
                "--print-ir-before-all",
                "--print-ir-after-all",
                "--time-passes",
            ]
        )
    )
    assert out.startswith("builtin.module {")
    for marker in ("Print IR", "Running Pass", "us ["):
        assert marker not in out
    assert "Print IR before: InferType" in err
    assert "Print IR after: InferType" in err
    assert "Print IR after: canonicalize" in err
    assert (
        "Before Running Pass: The meta data of the pass - pass name: InferType" in err
    )
    assert (
        "After Running Pass: The meta data of the pass - pass name: canonicalize" in err
    )
    timing = [line for line in err.splitlines() if "us [" in line]
    assert [line.split(":")[0] for line in timing] == ["InferType", "canonicalize"]


def test_time_passes_not_on_stdout(relu_file: Path) -> None:
    """xdsl-opt's --time-passes prints to stdout; xrelay-opt's tree goes to stderr."""
    out, err = run_opt(
        XRelayOptMain(args=[str(relu_file), "-p", "infer-type", "--time-passes"])
    )
    assert "took" not in out
    assert "us [" not in out
    assert err.startswith("InferType: ")
    assert PassTimingInstrument.render() == ""  # the tree is cleared on exit


def test_printing_is_not_timed(relu_file: Path) -> None:
    """The printers run outside the timer: before it on entry, after it on exit."""
    opt = XRelayOptMain(
        args=[
            str(relu_file),
            "--time-passes",
            "--print-ir-before-all",
            "--print-ir-after",
            "InferType",
        ]
    )
    names = [type(i).__name__ for i in opt.pass_context().instruments]
    assert names == [
        "PrintBeforeAll",
        "PassTimingInstrument",
        "PassPrintingInstrument",
    ]
    assert all(isinstance(i, PassInstrument) for i in opt.pass_context().instruments)


# ---------------------------------------------------------------------------------------
# Errors: one line, a location where there is one, non-zero exit, no traceback
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-p", "infer-typ"], "xrelay-opt: error: unknown pass 'infer-typ'"),
        (
            ["-p", "fuse-ops{depth=1}"],
            "xrelay-opt: error: invalid options for pass 'fuse-ops': Provided "
            'arguments ["depth"]',
        ),
        (
            ["-p", "fuse-ops{fuse-opt-level=x}"],
            "xrelay-opt: error: invalid options for pass 'fuse-ops': Incompatible types",
        ),
        (
            ["-p", "infer-type,,"],
            "xrelay-opt: error: invalid pass pipeline: column 12: Expected pass name here",
        ),
        (
            ["--pass-config", "relay.FuseOps.maxdepth=2"],
            "xrelay-opt: error: --pass-config relay.FuseOps.maxdepth=2: Invalid config "
            "option 'relay.FuseOps.maxdepth' candidates are: relay.FuseOps.max_depth",
        ),
        (
            ["--pass-config", "xrelay.verify_each=perhaps"],
            "xrelay-opt: error: --pass-config xrelay.verify_each=perhaps: Expect config "
            "xrelay.verify_each to have type bool",
        ),
        (
            ["-t", "llvm"],
            "{file}:1:1: error: func.func: only llvm.func and llvm.global can be "
            "translated to LLVM IR (run relay-lower-to-llvm first)",
        ),
    ],
)
def test_user_errors(relu_file: Path, args: list[str], expected: str) -> None:
    code, out, err = run_main([str(relu_file), *args])
    # a bad -p or --pass-config is a bad command line (2); IR -t cannot emit is 1
    assert code == (1 if args[0] == "-t" else 2)
    assert err.startswith(expected.replace("{file}", str(relu_file))), err
    assert err.count("\n") == 1
    assert "Traceback" not in err + out


def test_usage_error_is_one_line(relu_file: Path) -> None:
    err = StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as exit_info:
        main([str(relu_file), "--no-such-flag"])
    assert exit_info.value.code == 2
    assert err.getvalue() == (
        "xrelay-opt: error: unrecognized arguments: --no-such-flag "
        "(see xrelay-opt --help)\n"
    )


def test_parse_error_is_located(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "bad.mlir",
        "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = relay.nn.relu %x tensor<2xf32>\n"
        "  func.return %0 : tensor<2xf32>\n}\n",
    )
    code, _, err = run_main([str(path)])
    assert code == 1
    assert err == f"{path}:2:25: error: Expected ':'\n"


def test_verifier_failure_is_located(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.mlir", BAD_BROADCAST)
    code, _, err = run_main([str(path)])
    assert code == 1
    assert err == (
        f"{path}:2:8: error: relay.add: shapes [2, 3] and [4] do not broadcast\n"
    )


def test_pass_failure_is_located(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.mlir", BAD_RESHAPE)
    code, _, err = run_main([str(path), "-p", "infer-type"])
    assert code == 1
    assert err.startswith(f"{path}:3:8: error: relay.reshape: cannot reshape")
    assert err.endswith("(in pass InferType)\n")


def test_split_input_file_locations_count_in_the_whole_file(tmp_path: Path) -> None:
    path = write(tmp_path, "split.mlir", RELU + "\n// -----\n\n" + BAD_BROADCAST)
    code, out, err = run_main([str(path), "--split-input-file"])
    assert code == 1
    assert "relay.nn.relu" in out  # the first chunk was processed
    assert err.startswith(f"{path}:9:8: error: relay.add")


@dataclasses.dataclass(frozen=True)
class BreakTypes(ModulePass):
    """An xDSL pass that leaves IR which does not verify (a relu result of the
    wrong shape)."""

    name = "break-types"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            if inner.name == "relay.nn.relu":
                Rewriter.replace_value_with_new_type(
                    inner.results[0], TensorType(f32, [5])
                )


class OptWithBreaker(XRelayOptMain):
    def register_all_passes(self) -> None:
        super().register_all_passes()
        self.register_pass(BreakTypes.name, lambda: BreakTypes)


def run_breaker(args: list[str]) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            OptWithBreaker(args=args).run()
        except Exception as e:
            from xrelay.tools.diagnostics import report

            report("xrelay-opt", e)
            code = 1
    return code, out.getvalue(), err.getvalue()


def test_invalid_ir_after_a_pass_names_the_pass_and_the_op(relu_file: Path) -> None:
    code, _, err = run_breaker([str(relu_file), "-p", "infer-type,break-types"])
    assert code == 1
    assert err.startswith(
        f"{relu_file}:2:8: error: the IR after pass 'break-types' does not verify: "
    )


def test_verify_diagnostics_prints_pass_verification_errors(relu_file: Path) -> None:
    code, out, _ = run_breaker(
        [str(relu_file), "-p", "break-types", "--verify-diagnostics"]
    )
    assert code == 0
    assert "the IR after pass 'break-types' does not verify" in out


def test_missing_file(tmp_path: Path) -> None:
    code, _, err = run_main([str(tmp_path / "nope.mlir")])
    assert code == 1
    assert err == (
        f"xrelay-opt: error: cannot access '{tmp_path / 'nope.mlir'}': No such file or "
        "directory\n"
    )


def test_debug_shows_the_exception(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.mlir", BAD_BROADCAST)
    with redirect_stderr(StringIO()), pytest.raises(Exception, match="broadcast"):
        main([str(path), "--debug"])


def test_input_is_never_modified(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.mlir", BAD_RESHAPE)
    code, _, err = run_main([str(path), "-p", "infer-type", "-o", str(path)])
    assert code == 1
    assert "refusing to overwrite the input file" in err
    assert path.read_text() == BAD_RESHAPE
    target = tmp_path / "out.mlir"
    assert run_main([str(path), "-p", "infer-type", "-o", str(target)])[0] == 1
    assert not target.exists()  # no partial output on failure
    assert path.read_text() == BAD_RESHAPE


def test_disable_verify_turns_verify_each_off(relu_file: Path) -> None:
    RecordContext.seen.clear()
    opt = OptWithRecorder(args=[str(relu_file), "-p", "record-context"])
    opt.args.disable_verify = True  # (the flag itself patches xDSL globally)
    run_opt(opt)
    assert RecordContext.seen[0].get_config("xrelay.verify_each") is False


# ---------------------------------------------------------------------------------------
# The installed command: exit codes
# ---------------------------------------------------------------------------------------


def command(name: str) -> list[str]:
    script = Path(sys.executable).parent / name
    if script.exists():
        return [str(script)]
    module = name.replace("-", "_")
    return [sys.executable, "-m", f"xrelay.tools.{module}"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["-p", "infer-type"], 0),
        (["-p", "no-such-pass"], 2),
        (["--no-such-flag"], 2),
    ],
)
def test_exit_codes(relu_file: Path, args: list[str], code: int) -> None:
    result = subprocess.run(
        [*command("xrelay-opt"), str(relu_file), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    if code:
        assert result.stderr.count("\n") == 1
        assert result.stdout == ""


def test_bad_ir_exit_code(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.mlir", BAD_BROADCAST)
    result = subprocess.run(
        [*command("xrelay-opt"), str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert result.stderr == (
        f"{path}:2:8: error: relay.add: shapes [2, 3] and [4] do not broadcast\n"
    )


def test_symbol_and_constraint_errors_are_located(tmp_path: Path) -> None:
    """``Redefinition of symbol`` (a module verifier error) names the second
    definition; a constraint checked while an op is parsed (``Unexpected attribute
    tuple<...>``) names the op."""
    f = "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
    f += "  func.return %x : tensor<2xf32>\n}\n"
    path = write(tmp_path, "twice.mlir", f + f)
    code, _, err = run_main([str(path)])
    assert code == 1
    assert err.splitlines() == [f'{path}:4:1: error: Redefinition of symbol "f"']
    t = "tuple<tensor<2xf32>>"
    path = write(
        tmp_path,
        "tuple.mlir",
        f"func.func @main(%x: {t}) -> {t} {{\n"
        f"  %0 = relay.nn.relu %x : ({t}) -> {t}\n"
        f"  func.return %0 : {t}\n}}\n",
    )
    code, _, err = run_main([str(path)])
    assert code == 1
    assert err.splitlines() == [f"{path}:2:8: error: Unexpected attribute {t}"]


def test_a_deep_call_chain_goes_through_infer_type(tmp_path: Path) -> None:
    """InferType visits callees with an explicit stack: a 1,500-deep chain of calls
    is inferred instead of hitting Python's recursion limit."""
    t = "tensor<2xf32>"
    n = 1500
    funcs = [
        f"func.func @f{i}(%x: {t}) -> {t} {{\n"
        f"  %0 = func.call @f{i + 1}(%x) : ({t}) -> {t}\n"
        f"  func.return %0 : {t}\n}}"
        for i in range(n - 1)
    ]
    funcs.append(f"func.func @f{n - 1}(%x: {t}) -> {t} {{\n  func.return %x : {t}\n}}")
    path = write(tmp_path, "deep.mlir", "\n".join(funcs) + "\n")
    code, out, err = run_main([str(path), "-p", "infer-type"])
    assert (code, err) == (0, "")
    assert out.count("func.call @f") == n - 1
