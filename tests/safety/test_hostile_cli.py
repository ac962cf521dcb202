"""Hostile command lines found by generating inputs against ``xrelay-opt`` and
``xrelay-run`` (issue 25): each used to end in a masked ``internal error``, a
traceback, or a wrong exit code. Every case runs the installed tool in a
subprocess and must print exactly one error line (after notes, warnings and
progress lines) containing the expected text, with the documented exit code: 2 for
a bad command line (a flag's value, a pipeline, a config key, flags that exclude
each other), 1 for bad input (files, IR, environment) and failed runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.safety.test_hostile import INPUTS, PROGRESS, ROOT

BIN = Path(sys.executable).parent
MODEL = str(INPUTS / "model.mlir")


@dataclass
class Case:
    tool: str
    args: list[str]
    code: int
    says: str
    """Text the error line contains (a regular expression when it starts with
    ``{name}`` of a dense case: see :func:`_says`)."""
    env: dict[str, str] = field(default_factory=dict[str, str])


def _mlir(body: str, args: str = "", results: str = "tensor<2xf32>") -> str:
    return f"func.func @main({args}) -> {results} {{\n{body}\n}}\n"


def _const(literal: str, ty: str) -> str:
    body = f"  %r = relay.constant {literal} : {ty}\n  func.return %r : {ty}"
    return _mlir(body, results=ty)


IDENTITY = "  func.return %x : {t}"
HUGE = "tensor<9223372036854775807xf32>"
RANK300 = "tensor<" + "1x" * 300 + "f32>"

MLIR: dict[str, str] = {
    "dense-huge-int": _const("dense<" + "9" * 40 + ">", "tensor<2xi64>"),
    "dense-i8-range": _const("dense<[1000, -1000]>", "tensor<2xi8>"),
    "dense-i1-range": _const("dense<[2, 3]>", "tensor<2xi1>"),
    "dense-i128": _const("dense<1>", "tensor<2xi128>"),
    "dense-f80": _const("dense<1.0>", "tensor<2xf80>"),
    "dense-huge-shape": _const("dense<0.5>", "tensor<99999999999x99999999999xf32>"),
    "two-blocks": _mlir(
        "  cf.br ^bb1\n^bb1:\n  func.return %x : tensor<2xf32>", "%x: tensor<2xf32>"
    ),
    "declaration": "func.func private @main(%x: tensor<2xf32>) -> tensor<2xf32>\n",
    "huge-input": _mlir(IDENTITY.format(t=HUGE), f"%x: {HUGE}", HUGE),
    "rank-300-input": _mlir(IDENTITY.format(t=RANK300), f"%x: {RANK300}", RANK300),
}

RELAY_TEXT: dict[str, str] = {
    "attr-kind": 'def @main(%x: Tensor[(2, 3), float32]) { transpose(%x, axes="abc") }',
    "attr-int64": "def @main(%x: Tensor[(2, 3), float32]) { sum(%x, axis=["
    + "9" * 30
    + "]) }",
    "literal-int32": "def @main(%x: Tensor[(2), int32]) { add(%x, 99999999999) }",
}

DENSE = (
    "func.func @main(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>) -> tensor<8x32xf32> "
    "{\n  %r = relay.nn.dense %x, %w : (tensor<8x16xf32>, tensor<32x16xf32>) -> "
    "tensor<8x32xf32>\n  func.return %r : tensor<8x32xf32>\n}\n"
)


def _tile_model() -> bytes:
    """ONNX ``Tile`` to a 1e9 x 1e9 x 3 output: no array can be that large (the
    build's output buffer size used to wrap around in an int64 product)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    reps = numpy_helper.from_array(np.array([10**9, 10**9], np.int64), "r")
    graph = helper.make_graph(
        [helper.make_node("Tile", ["x", "r"], ["y"])], "g", [x], [y], [reps]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString()


def _cases(tmp: Path) -> dict[str, Case]:
    def write(name: str, data: str | bytes) -> str:
        path = tmp / name
        if isinstance(data, str):
            path.write_text(data)
        else:
            path.write_bytes(data)
        return str(path)

    files = {name: write(f"{name}.mlir", text) for name, text in MLIR.items()}
    dense = write("dense.mlir", DENSE)
    np.save(tmp / "strings.npy", np.array([["a"] * 3] * 2))
    np.save(tmp / "records.npy", np.zeros((2, 3), dtype=[("a", "f4")]))
    np.save(tmp / "void.npy", np.zeros((2, 3), "V2"))
    run, opt = "xrelay-run", "xrelay-opt"
    interp = ["--executor", "interpreter"]
    cases: dict[str, Case] = {}
    # dense literals a type cannot hold: a located parse error
    for name in ("dense-huge-int", "dense-i8-range", "dense-i1-range", "dense-i128",
                 "dense-f80", "dense-huge-shape"):  # fmt: skip
        says = rf"{name}\.mlir:2:\d+: error: dense literal cannot be stored"
        cases[f"opt {name}"] = Case(opt, [files[name]], 1, says)
        cases[f"run {name}"] = Case(run, [files[name], *interp], 1, says)
    one_block = "two-blocks.mlir:1:1: error: func.func @main: a relay function has one"
    cases["opt two-blocks"] = Case(opt, [files["two-blocks"], "-p", "relay-optimize"],
                                   1, one_block)  # fmt: skip
    cases["run two-blocks"] = Case(run, [files["two-blocks"]], 1, one_block)
    cases["run declaration"] = Case(run, [files["declaration"]], 1,
                                    "@main is a declaration (it has no body)")  # fmt: skip
    cases["run huge-input"] = Case(run, [files["huge-input"], *interp], 1,
                                   "parameter %x (tensor<9223372036854775807xf32>) is "
                                   "larger than any array can be")  # fmt: skip
    cases["run rank-300-input"] = Case(run, [files["rank-300-input"], *interp], 1,
                                       "parameter %x has rank 300; at most 64")  # fmt: skip
    for name, text in RELAY_TEXT.items():
        path = write(f"{name}.relay", text)
        says = {
            "attr-kind": 'relay.transpose: attribute axes: "abc" should be of base '
            "attribute array",
            "attr-int64": "relay.sum: attribute axis: Python int too large",
            # a literal too large for int32 is int64, as in TVM's parser: the add
            # then mixes dtypes
            "literal-int32": "rhs has element type i64 but lhs has i32",
        }[name]
        cases[f"opt relay {name}"] = Case(opt, [path], 1, says)
    cases["run onnx huge tile"] = Case(run, [write("tile.onnx", _tile_model())], 1,
                                       "more than any array can hold")  # fmt: skip
    # --expected files that hold no numbers
    for name in ("strings", "records", "void"):
        path = str(tmp / f"{name}.npy")
        cases[f"expected {name}"] = Case(run, [MODEL, *interp, "--expected", path], 1,
                                         "is not a number type")  # fmt: skip
    # a bad command line: exit code 2
    usage: dict[str, tuple[str, list[str], str]] = {
        "threads-257": (run, ["--threads", "257"], "argument --threads: must be an"),
        "threads-huge": (run, ["--threads", "9" * 20], "argument --threads"),
        "rtol-nan": (run, ["--rtol", "nan"], "argument --rtol: must be a finite"),
        "rtol-negative": (run, ["--rtol", "-1"], "argument --rtol"),
        "atol-inf": (run, ["--atol", "inf"], "argument --atol"),
        "progress-inf": (run, ["--progress-after", "inf"], "--progress-after"),
        "progress-nan": (run, ["--progress-after", "nan"], "--progress-after"),
        "progress-huge": (run, ["--progress-after", "1e300"], "must be at most"),
        "input-form": (run, ["--input", "x"], "--input x: expected NAME=FILE.npy"),
        "input-no-file": (run, ["--input", "x="], "expected NAME=FILE.npy"),
        "example-and-model": (run, ["--example"], "not both"),
        "profile-interpreter": (run, [*interp, "--profile"], "needs --executor llvm"),
        "run-unknown-pass": (run, ["-p", "nope"], "unknown pass 'nope'"),
        "run-bad-pipeline": (run, ["-p", "fuse-ops{"], "invalid pass pipeline"),
        "run-bad-option": (
            run,
            ["-p", "fuse-ops{fuse-opt-level=high}"],
            "invalid options for pass 'fuse-ops'",
        ),
        "config-form": (run, ["--pass-config", "=1"], "expected KEY=VALUE"),
        "config-key": (run, ["--pass-config", "no.such=1"], "Invalid config option"),
        "config-value": (
            opt,
            ["--pass-config", "relay.FuseOps.max_depth=abc"],
            "to have type int",
        ),
        "opt-unknown-pass": (opt, ["-p", "nope"], "unknown pass 'nope'"),
        "opt-bad-pipeline": (
            opt,
            ["-p", "fuse-ops{fuse-opt-level=1,x"],
            "invalid pass pipeline",
        ),
        "elide-negative": (opt, ["--elide-constants", "-1"], "must be >= 0"),
        "reproducer-and-input": (
            opt,
            ["--run-reproducer", MODEL],
            "give the reproducer, not an input file",
        ),
    }
    for name, (tool, args, says) in usage.items():
        cases[name] = Case(tool, [MODEL, *args], 2, says)
    cases["no-model"] = Case(run, [], 2, "give a model file")
    # bad build settings: an error, never a fallback to the interpreter (exit 0),
    # nor hidden by a cache hit
    for var, value, says in (
        ("XRELAY_COMPILE_JOBS", "lots", "XRELAY_COMPILE_JOBS must be a positive"),
        ("XRELAY_COMPILE_JOBS", "0", "XRELAY_COMPILE_JOBS must be a positive"),
        ("XRELAY_TILE_ROWS", "lots", "XRELAY_TILE_ROWS must be an integer from 1"),
        ("XRELAY_TILE_ROWS", "99999999999", "XRELAY_TILE_ROWS must be an integer"),
        ("XRELAY_SHARE_MIN_NS", "-5", "XRELAY_SHARE_MIN_NS must be an integer from 0"),
    ):
        for cache in ([], ["--no-cache"]):
            key = f"env {var}={value} {' '.join(cache)}"
            cases[key] = Case(run, [dense, *cache], 1, says, {var: value})
    return cases


def _says(line: str, says: str) -> bool:
    """``says`` is in ``line``; a pattern with ``\\d+`` (a column) is a regex."""
    if "\\d+" in says:
        return re.search(says, line) is not None
    return says in line


def _outcome(case: Case, cwd: Path) -> str | None:
    """Why the run of ``case`` is not the expected one-line failure (None: it is)."""
    env = {**os.environ, **case.env}
    try:
        proc = subprocess.run(
            [str(BIN / case.tool), *case.args], capture_output=True, text=True,
            timeout=120, cwd=cwd, env=env, check=False, errors="replace",
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return "hangs"
    lines = [
        line for line in proc.stderr.strip().splitlines()
        if ": note: " not in line and ": warning: " not in line
        and not PROGRESS.fullmatch(line)
    ]  # fmt: skip
    if proc.returncode != case.code or len(lines) != 1:
        return f"exit {proc.returncode} (want {case.code}): {lines[-3:]}"
    if not _says(lines[0], case.says) or "internal error" in lines[0]:
        return f"{lines[0]!r} does not say {case.says!r}"
    return None


def test_hostile_command_lines(tmp_path: Path) -> None:
    cases = _cases(tmp_path)
    check: Callable[[Case], str | None] = lambda c: _outcome(c, ROOT)  # noqa: E731
    with ThreadPoolExecutor(2) as pool:
        found = dict(zip(cases, pool.map(check, cases.values()), strict=True))
    bad = {name: why for name, why in found.items() if why is not None}
    assert bad == {}, "\n".join(f"{n}: {w}" for n, w in bad.items())


@pytest.mark.parametrize("value", ["lots", "0", "65"])
def test_tile_rows_setting(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad ``XRELAY_TILE_ROWS`` is a ``SettingError`` (a ``ValueError``) naming
    the variable, from the lowering and from ``check_environment``."""
    from xrelay.lowering import tiling
    from xrelay.runtime.environment import check_environment
    from xrelay.settings import SettingError

    monkeypatch.setenv("XRELAY_TILE_ROWS", value)
    with pytest.raises(SettingError, match="XRELAY_TILE_ROWS"):
        tiling.tile_rows(16, 4)
    with pytest.raises(SettingError, match="XRELAY_TILE_ROWS"):
        check_environment()


def test_no_buffer_beyond_a_64_bit_size() -> None:
    """The executor counts a buffer's bytes exactly: a shape whose size overflows
    int64 is a ``MemoryError``, never a wrapped-around small buffer."""
    from xrelay.runtime.executor import aligned_empty

    with pytest.raises(MemoryError, match="cannot be allocated"):
        aligned_empty((1 << 31, 1 << 31, 1 << 2), np.float32)
    assert aligned_empty((3, 5), np.float32).shape == (3, 5)
