"""Relay's text parser as TVM's ``test_ir_parser.py`` (v0.18) exercises it.

Covered: comments (line, block, nested block), integer / float / bool literals with
their dtype suffixes and range errors, unary minus folded into literals, binary
operators and their precedence and associativity, let bindings, sequences
(``a; b``), graph bindings (``%0 = ...``), tuples and projections, free variables,
anonymous, let-bound and curried function calls, ``if`` and its scopes, a bare
operator or global as an expression, type annotations (scalar, tensor, dynamic
dimension, incomplete ``_``), ``def`` functions that call themselves, string
attributes of op calls, metadata constants given by ``init_meta_table``, a bare
expression given to ``fromtext``, and one-line errors with ``line:column``.
Out of scope: ADTs and the Prelude (``type``, ``match``, constructors, ``extern
type``), references, type parameters, vector dtypes (``int8x4``), call attributes
on functions (``attrs_type_key``), ``make_node``.
"""

from __future__ import annotations

import numpy as np
import pytest

from xrelay import relay
from xrelay.frontend.relay.text_parser import DiagnosticError
from xrelay.ir import assert_structural_equal, structural_equal

HEADER = '#[version = "0.0.5"]\n'


def same(text: str, expected: object) -> None:
    parsed = relay.parse_expr(text)
    assert_structural_equal(parsed, expected, map_free_vars=True)
    # the printed form reads back to the same expression
    again = relay.parse_expr(parsed.astext())
    assert_structural_equal(again, parsed, map_free_vars=True)


def scalar(text: str) -> object:
    return relay.parse_expr(text).data.numpy().item()


def test_comments_nest_and_are_skipped() -> None:
    same("// a line\n()", relay.Tuple([]))
    same("/* outer /* inner */ still outer */ ()", relay.Tuple([]))
    with pytest.raises(DiagnosticError, match="unterminated comment"):
        relay.parse_expr("/* open /* */ ()")


def test_literals_take_the_suffix_dtype_and_check_the_range() -> None:
    same("-7i16", relay.const(-7, "int16"))
    same("7", relay.const(7, "int32"))
    same("4294967296", relay.const(4294967296, "int64"))
    same("2f16", relay.const(2.0, "float16"))
    same("2.5f64", relay.const(2.5, "float64"))
    same("False", relay.const(False, "bool"))
    assert scalar("1.5e+2f") == 150.0
    assert scalar("---3") == -3
    for bad in ("40000i16", "1e39f32", "70000f16"):
        with pytest.raises(DiagnosticError, match="does not fit"):
            relay.parse_expr(bad)


def test_binary_operators_by_precedence() -> None:
    one = relay.const(1)
    same("1 - 1", relay.subtract(one, one))
    same("1 != 1", relay.not_equal(one, one))
    assert structural_equal(
        relay.parse_expr("1 + 1 * 1 >= 1"), relay.parse_expr("(1 + (1 * 1)) >= 1")
    )
    assert not structural_equal(
        relay.parse_expr("1 - 1 - 1"), relay.parse_expr("1 - (1 - 1)")
    )


def test_lets_sequences_and_graph_bindings() -> None:
    x = relay.Var("x")
    unit = relay.Tuple([])
    same("let %x = 2; (%x, %x)", relay.Let(x, relay.const(2), relay.Tuple([x, x])))
    same("(); 3", relay.Let(relay.Var("_"), unit, relay.const(3)))
    shared = relay.add(relay.const(1), relay.const(2))
    same("%0 = 1 + 2; (%0, %0)", relay.Tuple([shared, shared]))
    copied = relay.Tuple(
        [
            relay.add(relay.const(1), relay.const(2)),
            relay.add(relay.const(1), relay.const(2)),
        ]
    )
    assert not structural_equal(relay.parse_expr("%0 = 1 + 2; (%0, %0)"), copied)


def test_free_variables_projections_and_calls() -> None:
    f = relay.var("f")
    x = relay.var("x", shape=(2,))
    same(
        "free_var %f; free_var %x: Tensor[(2), float32]; %f((%x, %x).1)",
        relay.Call(f, [relay.TupleGetItem(relay.Tuple([x, x]), 1)]),
    )
    g = relay.Var("g")
    a, b = relay.Var("a"), relay.Var("b")
    curried = relay.Function([a], relay.Function([b], relay.add(a, b)))
    same(
        "let %g = fn (%a) { fn (%b) { %a + %b } }; %g(1)(2)",
        relay.Let(
            g, curried, relay.Call(relay.Call(g, [relay.const(1)]), [relay.const(2)])
        ),
    )
    same("(fn (%a) { %a })(5)", relay.Call(relay.Function([a], a), [relay.const(5)]))


def test_if_and_its_scopes() -> None:
    same(
        "if (False) { 1 } else { 2 }",
        relay.If(relay.const(False), relay.const(1), relay.const(2)),
    )
    with pytest.raises(DiagnosticError, match="not defined"):
        relay.parse_expr("if (True) { let %v = 1; %v } else { %v }")


def test_operators_globals_and_types() -> None:
    op = relay.parse_expr("nn.relu")
    assert op.name == "nn.relu"
    assert relay.parse_expr("@g").name_hint == "g"
    with pytest.raises(DiagnosticError, match="unknown operator"):
        relay.parse_expr("no_such_op(1)")
    t = relay.Var("t", relay.TensorType((relay.Any(), 4), "int8"))
    same(
        "let %t: Tensor[(?, 4), int8] = (); ()",
        relay.Let(t, relay.Tuple([]), relay.Tuple([])),
    )
    same(
        "let %u: _ = (); ()",
        relay.Let(relay.Var("u"), relay.Tuple([]), relay.Tuple([])),
    )
    assert not structural_equal(
        relay.parse_expr("let %u: int32 = (); ()"),
        relay.parse_expr("let %u: int64 = (); ()"),
    )


def test_module_definitions_and_attributes() -> None:
    mod = relay.parse(
        HEADER
        + """
        def @main(%d: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(3, 3, 3, 4), float32]) {
          nn.conv2d(%d, %w, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO")
        }
        """
    )
    call = mod["main"].body
    assert call.attrs.data_layout == "NHWC"
    assert call.attrs.kernel_layout == "HWIO"
    again = relay.parse(mod.astext(fmt="relay"))
    assert_structural_equal(again, mod)
    # xrelay's own IR text reads back too
    assert_structural_equal(relay.parse(mod.astext()), mod)


def test_bare_expression_and_meta_table() -> None:
    mod = relay.fromtext("fn (%x: Tensor[(2), float32]) { nn.relu(%x) }")
    x = relay.var("x", shape=(2,))
    assert_structural_equal(mod["main"], relay.Function([x], relay.nn.relu(x)))
    value = np.arange(6, dtype="float32").reshape(2, 3)
    mod = relay.parse(
        HEADER
        + "def @main(%y: Tensor[(2, 3), float32]) { add(%y, meta[relay.Constant][0]) }",
        "from_string",
        None,
        {"relay.Constant": [relay.const(value)]},
    )
    y = relay.var("y", shape=(2, 3))
    assert_structural_equal(
        mod["main"], relay.Function([y], relay.add(y, relay.const(value)))
    )


def test_errors_name_line_column_and_token() -> None:
    with pytest.raises(DiagnosticError) as info:
        relay.parse_expr("let %a = 1;\nlet b = 2; ()")
    assert str(info.value).startswith("from_string:2:5: error:")
    assert "'b'" in str(info.value)
    with pytest.raises(DiagnosticError, match="references"):
        relay.parse(HEADER + "def @main(%x: float32) { ref(%x) }")


def test_parse_errors_are_tvm_error_diagnostic_errors() -> None:
    import xrelay.error

    with pytest.raises(xrelay.error.DiagnosticError, match="not defined"):
        relay.fromtext("fn (%x: Tensor[(2), float32]) { %y }")
