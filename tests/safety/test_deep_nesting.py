"""Deep nesting outside InferType (issue 14): the parser, the printers, the verifier,
the passes, the interpreter and the builder hit Python's recursion limit on IR nested
some hundreds of levels deep; each ends in a clear exception (a located
``NestingTooDeepError``, a ``ParseError`` / ``RelayTextError`` at the place, a
``BuildError``), never a bare ``RecursionError``; the tools print one located line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError

from xrelay import relay
from xrelay.dialects.relay.dominance import verify_module
from xrelay.frontend.relay.text_parser import RelayTextError
from xrelay.nesting import NestingTooDeepError, deepest_op
from xrelay.pass_manager import PassContext, get_pass
from xrelay.runtime.interpreter import interpret
from xrelay.tools.diagnostics import format_diagnostic, located
from xrelay.tools.locations import parse_mlir
from xrelay.tools.models import mlir_context

DEPTH = 400  # beyond every recursive walk at Python's default limit (1000)


def nested_ifs(depth: int) -> str:
    """``relay.if`` nested ``depth`` deep (the innermost yields %x)."""
    lines = ["func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {"]
    for i in range(depth):
        lines.append(f"%r{i} = relay.if %c : tensor<i1> -> (tensor<2xf32>) {{")
    lines.append("relay.yield %x : tensor<2xf32>")
    for i in reversed(range(depth)):
        lines += ["} else {", "relay.yield %x : tensor<2xf32>", "}"]
        if i:
            lines.append(f"relay.yield %r{i} : tensor<2xf32>")
    lines += ["func.return %r0 : tensor<2xf32>", "}"]
    return "\n".join(lines) + "\n"


@contextmanager
def recursion_limit(limit: int) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@pytest.fixture(scope="module")
def deep() -> ModuleOp:
    """Parsed with a raised limit (as a deeper-stacked caller could): the other
    stages then meet it at the default limit."""
    with recursion_limit(20_000):
        return parse_mlir(mlir_context(), nested_ifs(DEPTH), "deep.mlir")


@pytest.fixture(scope="module")
def deeper() -> ModuleOp:
    """Deeper still, for the walks that take 400 levels (the Relay text printer, the
    interpreter)."""
    with recursion_limit(20_000):
        return parse_mlir(mlir_context(), nested_ifs(1500), "deeper.mlir")


def check(error: NestingTooDeepError, what: str) -> None:
    assert isinstance(error, RecursionError)  # callers catching that still do
    assert str(error).startswith(f"{what}: the IR is nested too deeply")
    assert f"{DEPTH + 2} regions deep at relay.yield" in str(error)
    assert "\n" not in str(error)


def test_deepest_op_is_found_without_recursion(deep: ModuleOp) -> None:
    op, depth = deepest_op(deep)
    assert (op.name, depth) == ("relay.yield", DEPTH + 2)  # + module and func


def test_verifier(deep: ModuleOp) -> None:
    with pytest.raises(NestingTooDeepError) as info:
        verify_module(deep)
    check(info.value, "the verifier")


def test_printers(deep: ModuleOp, deeper: ModuleOp) -> None:
    mod = relay.IRModule(deep)
    with pytest.raises(NestingTooDeepError) as info:
        mod.astext()
    check(info.value, "the printer")
    with pytest.raises(NestingTooDeepError) as info:
        relay.IRModule(deeper).astext(fmt="relay")
    assert str(info.value).startswith("the Relay text printer: the IR is nested too")


def test_passes(deep: ModuleOp) -> None:
    with pytest.raises(NestingTooDeepError) as info:  # checking the input
        get_pass("FoldConstant")(deep)
    check(info.value, "the verifier")
    with PassContext(config={"xrelay.verify_each": False}):
        with pytest.raises(NestingTooDeepError) as info:
            get_pass("FoldConstant")(deep)
    check(info.value, "pass FoldConstant")
    assert "in pass FoldConstant" in info.value.__notes__
    # the message and location the tools print: the innermost relay.yield
    line = format_diagnostic("xrelay-opt", located(info.value, deep))
    assert line.startswith(f"deep.mlir:{DEPTH + 2}:1: error: pass FoldConstant: ")


def test_interpreter(deeper: ModuleOp) -> None:
    with pytest.raises(NestingTooDeepError) as info:
        interpret(deeper, np.array(True), np.ones(2, "float32"))
    assert str(info.value).startswith("the interpreter: the IR is nested too deeply")


def test_builder_and_relay_text() -> None:
    c = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(2,))
    body: relay.Expr = x
    for _ in range(DEPTH):
        body = relay.If(c, body, x)
    with pytest.raises(relay.BuildError, match="@main is nested too deeply to build"):
        relay.IRModule.from_expr(relay.Function([c, x], body))
    calls = "%x"
    for _ in range(1000):
        calls = f"negative({calls})"
    text = f"def @main(%x: Tensor[(2,), float32]) {{\n  {calls}\n}}\n"
    with pytest.raises(RelayTextError, match=r"deep.relay:2:\d+: error: the program"):
        relay.parse(text, "deep.relay")


def test_parser_is_located() -> None:
    with pytest.raises(ParseError, match="nested too deeply to parse") as info:
        parse_mlir(mlir_context(), nested_ifs(1000), "deep.mlir")
    assert "deep.mlir:" in str(info.value.span.get_location())
    types = "tensor<2xf32>"
    for _ in range(1000):
        types = f"tuple<{types}>"
    with pytest.raises(ParseError, match="nested too deeply to parse"):
        parse_mlir(mlir_context(), f"func.func @f(%x: {types})\n", "t.mlir")


@pytest.mark.parametrize("tool", ["xrelay-opt", "xrelay-run"])
def test_tools_print_one_located_line(tmp_path: Path, tool: str) -> None:
    path = tmp_path / "deep.mlir"
    path.write_text(nested_ifs(1000))
    exe = Path(sys.executable).parent / tool
    proc = subprocess.run(
        [str(exe), str(path)], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 1
    errors = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert errors[0].startswith(f"{path}:")
    assert "nested too deeply to parse" in errors[0]
