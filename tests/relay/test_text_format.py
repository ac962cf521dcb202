"""Relay's text format: ``relay.parse`` / ``astext(fmt="relay")`` round trips on every
op (the dialect's lit round-trip files) and on the shared models, the out-of-scope
constructs, and errors with locations."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import Func, FuncOp
from xdsl.parser import Parser

from xrelay import relay
from xrelay.dialects.relay import ALL_OPS, Relay
from xrelay.frontend.relay.text_printer import TextPrintError, to_relay_text
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform

LIT_DIR = Path(__file__).resolve().parents[1] / "filecheck" / "dialects" / "relay"
MODELS = Path(os.environ.get("XRELAY_MODELS", "/work/shared/models"))


def lit_modules() -> list[tuple[str, ModuleOp]]:
    """Every valid chunk of the dialect's round-trip lit files, as modules."""
    ctx = Context()
    ctx.load_dialect(Func)
    ctx.load_dialect(Relay)
    out: list[tuple[str, ModuleOp]] = []
    for path in sorted(LIT_DIR.glob("*.mlir")):
        if "invalid" in path.name:
            continue
        for k, chunk in enumerate(path.read_text().split("// -----")):
            try:
                module = Parser(ctx, chunk).parse_module()
                module.verify()
            except Exception:
                continue
            for func in module.ops:
                if not isinstance(func, FuncOp) or not func.body.blocks:
                    continue
                # incomplete (unranked) types are not Relay programs; calls need
                # their callees
                if any(
                    "*x" in str(v.type) for op in func.walk() for v in op.results
                ) or any(o.name == "func.call" for o in func.walk()):
                    continue
                out.append((f"{path.name}#{k}", ModuleOp([func.clone()])))
    return out


def round_trip(module: ModuleOp) -> None:
    parsed = relay.parse(to_relay_text(module))
    # the builder projects a field of a tuple literal directly (no relay.tuple)
    projects_literal = any(
        op.name == "relay.tuple_get_item"
        and getattr(op.operands[0].owner, "name", "") == "relay.tuple"
        for op in module.walk()
    )
    if not projects_literal:
        assert_structural_equal(module, parsed)
    # text -> dialect -> text is stable (the first print may still hold dead ops,
    # which are not part of the Relay program and are not read back)
    text = parsed.astext(fmt="relay")
    assert relay.parse(text).astext(fmt="relay") == text


def builder_module() -> ModuleOp:
    """The ops the lit files only show with incomplete types, built typed."""
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.var("w", shape=(4, 4, 3, 3))
    i = relay.var("i", shape=(2,), dtype="int32")
    g, b, m, v = (relay.var(n, shape=(4,)) for n in "gbmv")
    y = relay.nn.conv2d(x, w, padding=(1, 1), kernel_size=(3, 3), channels=4)
    y = relay.nn.conv2d_transpose(y, w, padding=(1, 1), kernel_size=(3, 3), channels=4)
    y = relay.nn.batch_norm(y, g, b, m, v, epsilon=1e-3)[0]
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(2, 2))
    y = relay.nn.avg_pool2d(y, pool_size=(2, 2), padding=(1, 1), count_include_pad=True)
    xc = relay.var("xc", shape=(1, 1, 6, 6, 4))
    wc = relay.var("wc", shape=(1, 1, 3, 3, 4, 4))
    nchwc = relay.nn.contrib_conv2d_nchwc(
        xc,
        wc,
        padding=(1, 1),
        channels=4,
        kernel_size=(3, 3),
        data_layout="NCHW4c",
        kernel_layout="OIHW4i4o",
        out_layout="NCHW4c",
    )
    flat = relay.reshape(y, newshape=(1, -1))
    soft = (
        relay.nn.softmax(flat)
        + relay.nn.log_softmax(flat)
        + relay.nn.fast_softmax(flat)
    )
    parts = [
        relay.sum(y, axis=[1], keepdims=True),
        relay.mean(y, axis=[2, 3], exclude=True),
        relay.max(y, axis=1),
        relay.min(y),
        relay.prod(y, axis=[0]),
        relay.reshape_like(soft, flat),
        relay.strided_slice(x, begin=[0, 1], end=[1, 3], strides=[1, 1]),
        relay.take(flat, i, axis=1),
        relay.gather(x, 1, relay.zeros((1, 2, 6, 6), "int32")),
        relay.gather_nd(x, relay.zeros((1, 2), "int32")),
        relay.scatter_nd(
            x,
            relay.zeros((1, 2), "int64"),
            relay.ones((2, 4, 6, 6), "float32"),
            mode="add",
        ),
        relay.scatter_elements(
            x,
            relay.zeros((1, 4, 6, 2), "int32"),
            relay.ones((1, 4, 6, 2), "float32"),
            axis=3,
        ),
        relay.trilu(x, 1, upper=False),
        relay.reinterpret(x, "int32"),
        relay.det(x),
        relay.reverse_reshape(x, (-1, 0)),
        nchwc,
    ]
    fn = relay.Function([x, w, i, g, b, m, v, xc, wc], relay.Tuple(parts))
    return relay.IRModule.from_expr(fn).module


def test_every_op_round_trips():
    covered: set[str] = set()
    skipped: list[str] = []
    modules = [*lit_modules(), ("builder", builder_module())]
    assert len(modules) > 20
    for name, module in modules:
        try:
            text = to_relay_text(module)
        except TextPrintError:
            skipped.append(name)
            continue
        for func in module.ops:
            if isinstance(func, FuncOp):
                if len(func.function_type.outputs.data) != 1:
                    break
        else:
            round_trip(module)
            covered |= {op.name for op in module.walk()}
            continue
        relay.parse(text)  # functions of several results: read back as a tuple
    missing = {op.name for op in ALL_OPS} - covered - {"relay.yield"}
    assert not missing, f"ops without a Relay text round trip: {sorted(missing)}"


@pytest.mark.skipif(
    not (MODELS / "manifest.json").is_file(), reason=f"no shared models in {MODELS}"
)
@pytest.mark.parametrize("name", ["cnn_small", "mlp", "resnet18"])
def test_shared_models_round_trip(name: str):
    from xrelay.frontend import from_onnx

    path = MODELS / f"{name}.onnx"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    mod, params = from_onnx(str(path))
    assert not params
    round_trip(mod.module)
    with transform.PassContext(opt_level=3):
        fused = transform.FuseOps()(transform.InferType()(mod))
    text = fused.astext(fmt="relay")
    again = relay.parse(text)
    assert again.astext(fmt="relay") == relay.parse(again.astext(fmt="relay")).astext(
        fmt="relay"
    )


TEXT = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(2, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=2, kernel_size=[3, 3]) /* ty=Tensor[(1, 2, 4, 4), float32] */;
  %1 = @helper(%0);
  let %y: Tensor[(1, 2, 4, 4), float32] = multiply(%1, 2f);
  (%y, sum(%y, axis=[1, 2], keepdims=True))
}

def @helper(%a) -> Tensor[(1, 2, 4, 4), float32] {
  nn.relu(%a)
}
"""


def test_parse_reads_tvm_style_text():
    with pytest.raises(relay.RelayTextError, match="@helper"):
        relay.parse(TEXT)  # %a has no type
    text = TEXT.replace(
        "def @helper(%a)", "def @helper(%a: Tensor[(1, 2, 4, 4), float32])"
    )
    mod = relay.fromtext(text)
    x = relay.var("x", shape=(1, 3, 4, 4))
    w = relay.var("w", shape=(2, 3, 3, 3))
    a = relay.var("a", shape=(1, 2, 4, 4))
    expected = relay.IRModule({"helper": relay.Function([a], relay.nn.relu(a))})
    y = relay.multiply(
        expected.get_global_var("helper")(
            relay.nn.conv2d(x, w, padding=(1, 1), channels=2, kernel_size=(3, 3))
        ),
        relay.const(2.0),
    )
    expected["main"] = relay.Function(
        [x, w], relay.Tuple([y, relay.sum(y, axis=[1, 2], keepdims=True)])
    )
    assert_structural_equal(mod, expected)


def test_literals_meta_and_if():
    text = """
    def @main(%c: bool, %x: Tensor[(2,), int64]) -> Tensor[(2,), int64] {
      if (%c) { add(%x, 3i64) } else { subtract(%x, meta[relay.Constant][0]) }
    }"""
    table = {"relay.Constant": [np.array([5, 6], "int64")]}
    mod = relay.parse(text, init_meta_table=table)
    run = relay.create_executor(mod=mod).evaluate()
    x = np.array([10, 20], "int64")
    np.testing.assert_array_equal(run(np.array(True), x).numpy(), [13, 23])
    np.testing.assert_array_equal(run(np.array(False), x).numpy(), [5, 14])
    again = relay.parse(mod.astext(fmt="relay"))
    assert_structural_equal(mod, again)
    with pytest.raises(relay.RelayTextError, match="needs the #.metadata. section"):
        relay.parse(text)


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        ("type List[A] { Cons(A, List[A]), Nil }", "ADT definitions"),
        ("def @main(%x: float32) { match (%x) { _ => %x } }", "ADTs \\(match\\)"),
        ("def @main(%x: float32) { Nil }", "ADTs \\(constructor Nil\\)"),
        ("def @main(%x: float32) { ref(%x) }", "references \\(ref\\)"),
        ("def @main(%x: float32) { ref_read(%x) }", "references \\(ref_read\\)"),
        ("def @id[A](%x: A) -> A { %x }", "type polymorphism"),
        (
            "def @main(%x: float32) { %0 = fn (%y: float32) { add(%x, %y) }; %0(%x) }",
            "first-class closures",
        ),
        (
            "def @main(%x: float32, %f: fn (float32) -> float32) { %f(%x) }",
            "first-class closures",
        ),
        ("def @main(%x: List[float32]) { %x }", "ADTs \\(the type List\\)"),
    ],
)
def test_out_of_scope_constructs_are_one_line_errors(text: str, construct: str):
    with pytest.raises(relay.RelayTextError, match=construct) as info:
        relay.parse(text)
    message = str(info.value)
    assert "\n" not in message
    assert re.match(r"from_string:\d+:\d+: error: ", message)


def test_errors_name_the_place():
    with pytest.raises(
        relay.RelayTextError, match=r"from_string:2:7: error: %y is not defined"
    ):
        relay.parse("def @main(%x: float32) {\n  add(%y, %x)\n}")
    with pytest.raises(relay.RelayTextError, match="nn.relu.*operands"):
        relay.parse("def @main(%x: float32) { nn.relu(%x, %x) }")
    with pytest.raises(relay.RelayTextError, match="@nope is not defined"):
        relay.parse("def @main(%x: float32) { @nope(%x) }")


def test_a_let_chain_in_parentheses_is_an_operand_with_its_own_scope():
    mod = relay.parse(
        "def @main(%x: float32) { (let %a = %x; let %b = %a * %a; %b) + %x }"
    )
    x = relay.var("x", shape=(), dtype="float32")
    want = relay.IRModule.from_expr(relay.Function([x], relay.add(x * x, x)))
    assert_structural_equal(mod, want)
    with pytest.raises(relay.RelayTextError, match="%a is not defined"):
        relay.parse("def @main(%x: float32) { (let %a = %x; %a) + %a }")


def _tvm_ndarray_b64(array: np.ndarray) -> str:
    """An array in TVM's NDArray save format (what its #[metadata] holds)."""
    import base64
    import struct

    codes = {"i": 0, "u": 1, "f": 2}
    head = struct.pack("<QQiii", 0xDD5E40F096B4A13F, 0, 1, 0, array.ndim)
    head += struct.pack("<BBH", codes[array.dtype.kind], array.dtype.itemsize * 8, 1)
    head += struct.pack(f"<{array.ndim}q", *array.shape)
    data = array.astype(array.dtype.newbyteorder("<")).tobytes()
    return base64.b64encode(head + struct.pack("<q", len(data)) + data).decode()


def test_reads_tvm_metadata_sections():
    import json

    first = np.arange(6, dtype="float32").reshape(2, 3)
    second = np.array([7, 8, 9], "int64")
    meta = {
        "root": 1,
        "nodes": [
            {"type_key": ""},
            {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
            {"type_key": "Array", "data": [3, 4]},
            {"type_key": "relay.Constant", "attrs": {"data": "0", "span": "0"}},
            {"type_key": "relay.Constant", "attrs": {"data": "1", "span": "0"}},
        ],
        "b64ndarrays": [_tvm_ndarray_b64(first), _tvm_ndarray_b64(second)],
        "attrs": {"tvm_version": "0.18.0"},
    }
    text = (
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2, 3), float32]) {\n"
        "  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(2, 3), float32] */);\n"
        "  (%0, meta[relay.Constant][1])\n"
        "}\n"
        "#[metadata]\n" + json.dumps(meta)
    )
    mod = relay.parse(text)
    out = relay.create_executor(mod=mod).evaluate()(np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(out[0].numpy(), first + 1)
    np.testing.assert_array_equal(out[1].numpy(), second)


def test_tuple_literal_body_is_several_results_both_ways():
    text = """#[version = "0.0.5"]
    def @main(%x: Tensor[(2, 3), float32]) {
      %0 = nn.relu(%x);
      (%0, transpose(%0))
    }"""
    mod = relay.parse(text)
    outputs = mod.func_op("main").function_type.outputs.data
    assert [str(t) for t in outputs] == ["tensor<2x3xf32>", "tensor<3x2xf32>"]
    again = relay.parse(mod.astext(fmt="relay"))
    assert again.astext(fmt="relay") == mod.astext(fmt="relay")
    assert len(again.func_op("main").function_type.outputs.data) == 2
    # Relay's view: a function returning a tuple, equal to the builder's form
    x = relay.var("x", shape=(2, 3))
    y = relay.nn.relu(x)
    built = relay.IRModule.from_expr(
        relay.Function([x], relay.Tuple([y, relay.transpose(y)]))
    )
    assert len(built.func_op("main").function_type.outputs.data) == 1
    assert_structural_equal(mod, built)
    run = relay.create_executor(mod=mod).evaluate()
    xs = np.arange(6, dtype="float32").reshape(2, 3) - 2
    got = run(xs)
    np.testing.assert_array_equal(got[1].numpy(), np.maximum(xs, 0).T)


def test_tuple_bound_to_a_variable_is_one_tuple_result():
    text = """#[version = "0.0.5"]
    def @main(%x: Tensor[(2,), float32]) {
      %0 = (%x, negative(%x));
      %0
    }"""
    mod = relay.parse(text)
    outputs = mod.func_op("main").function_type.outputs.data
    assert [str(t) for t in outputs] == ["tuple<tensor<2xf32>, tensor<2xf32>>"]
    again = relay.parse(mod.astext(fmt="relay"))
    assert again.astext(fmt="relay") == mod.astext(fmt="relay")
    assert str(again) == str(mod)
