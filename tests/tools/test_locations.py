"""LocatingParser: every parsed op gets ``loc("file":line:col)`` at its name."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation

from xrelay.tools.diagnostics import failing_op
from xrelay.tools.locations import location_of, parse_mlir

TEXT = """\
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    %1 = relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  %2 = "relay.negative"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = relay.exp %2 : (tensor<2xf32>) -> tensor<2xf32> loc("given.py":7:1)
  func.return %3 : tensor<2xf32>
}
"""


def locations(module: ModuleOp) -> dict[str, list[str | None]]:
    found: dict[str, list[str | None]] = {}
    for op in module.walk():
        found.setdefault(op.name, []).append(location_of(op))
    return found


def test_every_op_is_located(ctx: Context) -> None:
    module = parse_mlir(ctx, TEXT, "m.mlir")
    assert locations(module) == {
        "builtin.module": [None],
        "func.func": ["m.mlir:1:1"],
        "relay.if": ["m.mlir:2:8"],
        "relay.nn.relu": ["m.mlir:3:10"],
        "relay.yield": ["m.mlir:4:5", "m.mlir:6:5"],
        "relay.negative": ["m.mlir:8:8"],  # generic format: at the quoted name
        "relay.exp": ["given.py:7:1"],  # an explicit loc(...) is kept
        "func.return": ["m.mlir:10:3"],
    }


def test_line_offset_and_bytes(ctx: Context) -> None:
    module = parse_mlir(ctx, TEXT.encode(), "m.mlir", line_offset=20)
    func = next(iter(module.ops))
    assert isinstance(func.location, FileLineColLoc)
    assert location_of(func) == "m.mlir:21:1"


def test_location_of_falls_back_to_the_parent(ctx: Context) -> None:
    module = parse_mlir(ctx, TEXT, "m.mlir")
    relu = next(op for op in module.walk() if op.name == "relay.nn.relu")
    new = relu.clone()
    assert location_of(new) == "m.mlir:3:10"  # clones keep the location
    from xdsl.dialects.builtin import UNKNOWN_LOC

    new.location = UNKNOWN_LOC
    assert location_of(new) is None
    relu.location = UNKNOWN_LOC
    assert location_of(relu) == "m.mlir:2:8"  # the enclosing relay.if


def test_failing_op_finds_the_innermost(ctx: Context) -> None:
    text = TEXT.replace(
        "relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
        "relay.nn.relu %x : (tensor<2xf32>) -> tensor<3xf32>",
    ).replace("relay.yield %1 : tensor<2xf32>", "relay.yield %x : tensor<2xf32>")
    module = parse_mlir(ctx, text, "m.mlir")
    op = failing_op(module)
    assert isinstance(op, Operation)
    assert op.name == "relay.nn.relu"
    assert failing_op(parse_mlir(ctx, TEXT, "m.mlir")) is None


def test_repeated_tensor_types_parse_once_and_still_check(ctx: Context) -> None:
    """Tensor types are parsed once per spelling (a large-program speed-up): the
    repeated spellings give equal types, other spellings and bad ones are parsed
    (and rejected, at their place) as before."""
    import pytest
    from xdsl.utils.exceptions import ParseError

    text = (
        "func.func @main(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {\n"
        "  %0 = relay.nn.relu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>\n"
        "  %1 = relay.nn.relu %0 : (tensor<2x?xf32>) -> tensor< 2x?xf32 >\n"
        "  func.return %1 : tensor<2x?xf32>\n}\n"
    )
    module = parse_mlir(ctx, text, "t.mlir")
    ops = [op for op in module.walk() if op.name == "relay.nn.relu"]
    assert ops[0].results[0].type == ops[1].results[0].type
    assert ops[1].operands[0].type == ops[0].results[0].type
    bad = text.replace("-> tensor< 2x?xf32 >", "-> tensor<2x?xfoo>")
    with pytest.raises(ParseError, match=r"t.mlir:3:59(.|\n)*Expected shape type"):
        parse_mlir(ctx, bad, "t.mlir")
