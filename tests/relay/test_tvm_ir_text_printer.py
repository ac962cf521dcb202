"""Relay's text printer as TVM's ``test_ir_text_printer.py`` (v0.18) exercises it:
whatever is printed parses back to a structurally equal program.

Covered: scalar constants written as suffixed literals, a long chain of calls
(thousands deep), functions with shared subexpressions, modules with several
functions, large constants through the metadata section, attributes written only
when not at their default, ``let`` inside ``if`` branches, variable names that are
numbers or contain ``/``, a let whose value is shared, the ``mlp`` workload and the
shared ONNX models (skipped when ``../shared`` is absent).
Out of scope: ``te`` shape variables, ADT constructors, spans, workloads xrelay does
not provide (dqn, lstm, squeezenet, densenet); ``mod.astext()`` stays xrelay's IR
(``fmt="relay"`` writes Relay text).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import xrelay.relay.testing  # noqa: F401  (relay.testing)
from xrelay import relay
from xrelay.ir import assert_structural_equal

HEADER = '#[version = "0.0.5"]\n'
SHARED = Path(
    os.environ.get(
        "XRELAY_SHARED_MODELS",
        Path(__file__).resolve().parents[3] / "shared" / "models",
    )
)
MODELS = sorted(SHARED.glob("*.onnx")) if SHARED.is_dir() else []


def round_trip(program: object) -> str:
    if isinstance(program, relay.IRModule):
        text = program.astext(fmt="relay")
        again = relay.fromtext(text)
    else:
        text = program.astext()
        again = relay.parse_expr(text)
    assert_structural_equal(again, program, map_free_vars=True)
    return text


def test_scalars_print_as_suffixed_literals() -> None:
    assert round_trip(relay.const(5, "int8")) == HEADER + "5i8"
    assert round_trip(relay.const(5, "int64")) == HEADER + "5i64"
    assert round_trip(relay.const(0.5, "float64")) == HEADER + "0.5f64"
    assert round_trip(relay.const(2.0, "float32")) == HEADER + "2f"


def test_a_long_chain_prints_and_parses_without_recursion() -> None:
    x = relay.var("x", shape=(2,))
    z = x
    for _ in range(1500):
        z = relay.add(z, relay.const(1.0))
    text = round_trip(relay.Function([x], z))
    assert text.count("add(") == 1500


def test_sharing_survives() -> None:
    x = relay.var("x", shape=(3,))
    e = relay.exp(x)
    text = round_trip(relay.Function([x], relay.multiply(e, e)))
    assert text.count("exp(") == 1
    t = relay.Tuple([relay.const(1), relay.const(2)])
    v = relay.var("v")
    assert round_trip(relay.Let(v, t, t)) == HEADER + "%0 = (1, 2);\nlet %v = %0;\n%0"


def test_modules_with_several_functions() -> None:
    mod = relay.IRModule()
    a = relay.var("a", shape=(2,))
    mod["helper"] = relay.Function([a], relay.sigmoid(a))
    b = relay.var("b", shape=(2,))
    mod["main"] = relay.Function([b], mod.get_global_var("helper")(relay.exp(b)))
    text = round_trip(mod)
    assert "def @helper" in text
    assert "@helper(" in text


def test_large_constants_go_to_metadata() -> None:
    x = relay.var("x", shape=(2, 2))
    c = relay.const(np.array([[1.0, 2.0], [3.0, 4.0]], "float32"))
    text = round_trip(relay.Function([x], relay.add(x, c)))
    assert "meta[relay.Constant][0]" in text
    assert "#[metadata]" in text
    short = relay.Function([x], relay.add(x, c)).astext(show_meta_data=False)
    assert "#[metadata]" not in short


def test_attributes_at_their_default_are_left_out() -> None:
    x = relay.var("x")
    assert "axis=1" in round_trip(relay.nn.softmax(x, axis=1))
    assert "nn.softmax(%x)" in round_trip(relay.nn.softmax(x))


def test_lets_in_branches_and_odd_names() -> None:
    x = relay.var("x", "float32")
    c = relay.var("c", "bool")
    v = relay.var("v")
    inner = relay.Let(v, x, relay.negative(v))
    then = relay.Let(relay.var("w"), x, relay.exp(x))
    text = round_trip(
        relay.Function([x, c], relay.If(c, then, relay.add(inner, inner)))
    )
    assert "%c: bool" in text
    assert "base/x" in round_trip(relay.var("base/x") + relay.var("7"))


def test_mlp_workload() -> None:
    mod, _ = relay.testing.mlp.get_workload(1)
    round_trip(mod)


@pytest.mark.skipif(not MODELS, reason=f"no shared models at {SHARED}")
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=[pytest.mark.slow] if p.stat().st_size > 4 << 20 else [])
        for p in MODELS
    ],
    ids=lambda p: p.stem,
)
def test_shared_models(path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    mod, _ = relay.frontend.from_onnx(onnx.load(str(path)))
    round_trip(mod)
