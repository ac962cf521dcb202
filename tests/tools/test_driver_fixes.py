"""The drivers as Unix tools and MLIR users expect them: a closed pipe ends them
quietly, --verify-diagnostics reads mlir-opt's directives, passes come from entry
points, unquoted option values parse, out-of-memory errors name the buffer, and
the README's run recipe does what it says."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xrelay.tools import verify_diagnostics as verify
from xrelay.tools.cli import quote_option_values
from xrelay.tools.xrelay_run import largest_buffer

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent.parent
MODEL = """\
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
"""


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed next to {sys.executable}")
    return str(path)


def _into_closed_pipe(cmd: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run ``cmd`` with stdout a pipe whose reader has gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            cmd, stdout=write_end, stderr=subprocess.PIPE, timeout=600, check=False
        )
    finally:
        os.close(write_end)


# -- SIGPIPE ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "codes"),
    [
        # the status of a Unix tool killed by SIGPIPE
        ("xrelay-opt", ["{model}", "--print-op-generic"], {141}),
        ("xrelay-opt", ["--list-passes"], {141}),
        ("xrelay-run", ["--example", "--executor", "interpreter"], {141}),
        ("xrelay-run", ["{model}", "--executor", "interpreter"], {141}),
        ("xrelay-run", ["--list-passes"], {141}),
        # argparse drops the help it cannot write, then exits 0
        ("xrelay-run", ["--help"], {0, 141}),
        ("xrelay-opt", ["--help"], {0, 141}),
    ],
)
def test_closed_pipe_ends_quietly(
    tool: str, args: list[str], codes: set[int], tmp_path: Path
):
    model = tmp_path / "m.mlir"
    model.write_text(MODEL)
    cmd = [_tool(tool), *(a.format(model=model) for a in args)]
    for _ in range(3):
        proc = _into_closed_pipe(cmd)
        # nothing but the note naming the random inputs, if it came before the
        # first failed write
        lines = proc.stderr.decode().splitlines()
        assert all(ln.startswith(f"{tool}: note: random data") for ln in lines), lines
        assert proc.returncode in codes


def test_head_of_a_pipe_is_quiet(tmp_path: Path):
    """``xrelay-opt f.mlir | head -1`` and ``xrelay-run --example | head -1``: the
    first line, nothing on stderr, whichever way the race between the writer and
    head ends."""
    model = tmp_path / "m.mlir"
    model.write_text(MODEL * 1)
    opt, run = _tool("xrelay-opt"), _tool("xrelay-run")
    script = (
        f"{shlex.quote(opt)} {shlex.quote(str(model))} --print-op-generic | head -1; "
        f"{shlex.quote(run)} --example --executor interpreter | head -1"
    )
    for _ in range(5):
        proc = subprocess.run(
            ["bash", "-c", script], capture_output=True, text=True, timeout=600
        )
        # at most the note naming the example's random input (if it came before
        # the write that found the pipe closed), nothing else
        note = (
            "xrelay-run: note: random data (--seed 0) for %input; give real data "
            "with --input NAME=FILE.npy"
        )
        assert set(proc.stderr.splitlines()) <= {note}, proc.stderr
        assert proc.stdout.splitlines() == [
            '"builtin.module"() ({',
            "model: bundled example (a small CNN built with the builder API)",
        ]


# -- --verify-diagnostics ----------------------------------------------------------------


def test_directive_lines_and_offsets():
    text = textwrap.dedent(
        """\
        // expected-error {{here}}
        // expected-warning @+2 {{two below}}
        // expected-note @-1 {{one above}}
        x // expected-error@above {{above}}
        // expected-remark @below {{below}}
        // expected-error @unknown {{nowhere}}
        // expected-error-re {{a {{[0-9]+}} b}}
        // not a directive: expected-error without braces
        """
    )
    got = [(e.severity, e.line, e.text) for e in verify.parse_directives(text, "f")]
    assert got == [
        ("error", 1, "here"),
        ("warning", 4, "two below"),
        ("note", 2, "one above"),
        ("error", 3, "above"),
        ("remark", 6, "below"),
        ("error", None, "nowhere"),
        ("error", 7, "a {{[0-9]+}} b"),
    ]
    regex = verify.parse_directives(text, "f")[-1]
    assert regex.matches("error", 7, "xx a 123 b yy")
    assert not regex.matches("error", 7, "a x b")
    assert not regex.matches("error", 7, "a {{[0-9]+}} b")  # no literal match under -re


def test_bad_regex_is_one_line():
    with pytest.raises(verify.DirectiveError, match=r"^f:1: invalid regex"):
        verify.parse_directives("// expected-error-re {{{{(}}}}", "f")


def test_check_reports_every_mismatch_in_line_order():
    expected = verify.parse_directives(
        "a // expected-error {{right}}\n"
        "b // expected-error {{wrong text}}\n"
        "// expected-error @unknown {{no location}}\n"
        "// expected-warning @unknown {{never}}\n",
        "f.mlir",
    )
    produced = [
        verify.Produced("error", "f.mlir:2:3", "the real text"),
        verify.Produced("error", "f.mlir:1:1", "it is right"),
        verify.Produced("error", None, "with no location"),
        verify.Produced("note", "other.mlir:1:1", "elsewhere"),
    ]
    assert verify.check(expected, produced, "f.mlir") == [
        "f.mlir:2:3: error: unexpected error: the real text",
        'f.mlir:2: error: expected error "wrong text" was not produced',
        'f.mlir:4: error: expected warning "never" was not produced (@unknown)',
        "other.mlir:1:1: error: unexpected note: elsewhere",
    ]


def test_one_diagnostic_matches_one_directive():
    expected = verify.parse_directives(
        "x // expected-error {{same}}\n// expected-error @-1 {{same}}\n", "f"
    )
    produced = [verify.Produced("error", "f:1:1", "same")]
    assert verify.check(expected, produced, "f") == [
        'f:2: error: expected error "same" was not produced'
    ]


# -- entry points -----------------------------------------------------------------------


def test_entry_point_passes(tmp_path: Path):
    """A package's ``xrelay.passes`` entry point (an xrelay pass, an xDSL pass) and
    its ``xdsl.universe`` entry point add passes to -p without any flag."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "ep_passes.py").write_text(
        textwrap.dedent(
            """\
            import sys
            from dataclasses import dataclass

            from xdsl.passes import ModulePass
            from xdsl.universe import Universe

            from xrelay.pass_manager import Pass, PassInfo, register_pass


            @register_pass("EpMark", options=[("text", str, "hi", "what to print")])
            class EpMark(Pass):
                def __init__(self, text="hi"):
                    self.text = text
                    self.info = PassInfo(0, "EpMark")

                def apply(self, op, ctx, kind):
                    print("ep-mark:", self.text, file=sys.stderr)
                    return op


            @dataclass(frozen=True)
            class EpXdsl(ModulePass):
                name = "ep-xdsl"

                def apply(self, ctx, op):
                    print("ep-xdsl ran", file=sys.stderr)


            @dataclass(frozen=True)
            class EpUniverse(ModulePass):
                name = "ep-universe"

                def apply(self, ctx, op):
                    print("ep-universe ran", file=sys.stderr)


            UNIVERSE = Universe(all_passes={"ep-universe": lambda: EpUniverse})
            """
        )
    )
    (site / "broken_ep.py").write_text("raise ImportError('broken on purpose')\n")
    dist = site / "ep_passes-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-passes\n")
    (dist / "entry_points.txt").write_text(
        "[xrelay.passes]\nmark = ep_passes:EpMark\nxdsl = ep_passes\n"
        "broken = broken_ep\n\n[xdsl.universe]\nep = ep_passes:UNIVERSE\n"
    )
    model = tmp_path / "m.mlir"
    model.write_text(MODEL)
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [
            _tool("xrelay-opt"),
            str(model),
            "-p",
            "ep-mark{text=there},ep-xdsl,ep-universe",
            "-o",
            os.devnull,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert "ep-mark: there" in lines
    assert "ep-xdsl ran" in lines
    assert "ep-universe ran" in lines
    # the broken entry point is one warning line, not a failure
    broken = [ln for ln in lines if "broken" in ln]
    assert broken == [
        "xrelay-opt: warning: the xrelay.passes entry point 'broken' (broken_ep) "
        "failed to load: ImportError: broken on purpose"
    ]
    listing = subprocess.run(
        [_tool("xrelay-opt"), "--list-passes"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    ).stdout
    assert re.search(r"^  ep-mark +EpMark ", listing, flags=re.M)
    assert '      text: str = "hi"  what to print' in listing


# -- unquoted option values ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("view-graph{path=out/g.dot}", 'view-graph{path="out/g.dot"}'),
        ("a{n=2 f=2.5 b=true s=name-1}", "a{n=2 f=2.5 b=true s=name-1}"),
        ('a{p="quoted/path" q=x/y}', 'a{p="quoted/path" q="x/y"}'),
        ("a{l=x,y/z}", 'a{l=x,"y/z"}'),
        ("a{d=nn.conv2d=NHWC:default}", 'a{d="nn.conv2d=NHWC:default"}'),
        ("a{p=C:\\dir}", 'a{p="C:\\\\dir"}'),
        ("a,mlir-opt[canonicalize{x=1/2}]", "a,mlir-opt[canonicalize{x=1/2}]"),
        ("plain,pass", "plain,pass"),
    ],
)
def test_quote_option_values(spec: str, want: str):
    assert quote_option_values(spec) == want


# -- out of memory ------------------------------------------------------------------------


def test_largest_buffer_names_constants_and_intermediates():
    from xrelay.tools.locations import parse_mlir
    from xrelay.tools.models import mlir_context

    text = textwrap.dedent(
        """\
        func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
          %c = relay.constant dense<1.0> : tensor<64x4xf32>
          %0 = relay.add %c, %x : (tensor<64x4xf32>, tensor<4xf32>) -> tensor<64x4xf32>
          %1 = relay.sum %0 {axis = array<i64: 0>} : (tensor<64x4xf32>) -> tensor<4xf32>
          func.return %1 : tensor<4xf32>
        }
        """
    )
    module: ModuleOp = parse_mlir(mlir_context(), text, "m.mlir")
    # the constant and the sum's input have the same size: the first one is named
    assert largest_buffer(module) == (
        "the constant relay.constant at m.mlir:2:8 (64x4xf32, 1.0 KiB)"
    )
    bigger = text.replace("dense<1.0> : tensor<64x4xf32>", "dense<1.0> : tensor<4xf32>")
    bigger = bigger.replace(
        "(tensor<64x4xf32>, tensor<4xf32>)", "(tensor<4xf32>, tensor<4xf32>)"
    )
    bigger = bigger.replace(
        "relay.add %c, %x", "relay.broadcast_to %x {shape = array<i64: 64, 4>}"
    ).replace(
        "(tensor<4xf32>, tensor<4xf32>) -> tensor<64x4xf32>",
        "(tensor<4xf32>) -> tensor<64x4xf32>",
    )
    module = parse_mlir(mlir_context(), bigger, "m.mlir")
    assert largest_buffer(module) == (
        "the intermediate value of relay.broadcast_to at m.mlir:3:8 (64x4xf32, 1.0 KiB)"
    )


# -- the README's run recipe --------------------------------------------------------------


def _recipe() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Running a model") :]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block is not None
    return [
        ln
        for ln in block.group(1).splitlines()
        if ln.strip() and not ln.startswith("#")
    ]


def test_readme_run_recipe(tmp_path: Path):
    """The recipe runs as written; its reference run is the interpreter on the
    unoptimised model (no RelayOptimize), and the optimised LLVM build matches it."""
    lines = _recipe()
    reference = [ln for ln in lines if "--executor interpreter" in ln]
    assert len(reference) == 1
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    for line in lines:
        if line.startswith(". ") or line.startswith("mkdir") or line.startswith("cd "):
            continue  # the venv is this interpreter's; the folder is tmp_path
        if line in reference:
            line += " --time-passes"
        proc = subprocess.run(
            ["bash", "-c", line],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert proc.returncode == 0, (line, proc.stderr)
        if line.startswith(reference[0]):
            assert "RelayOptimize" not in proc.stderr, proc.stderr
            assert "InferType" in proc.stderr  # the timing tree is there
    ref = np.load(tmp_path / "ref" / "output_0.npy")
    assert ref.shape == (1, 10)
