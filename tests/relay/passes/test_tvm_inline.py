"""Inline as a TVM user tests it (Relay's ``test_pass_inline.py``, v0.18; Relay
registers the pass as InlineGlobals, xrelay as ``Inline``).

Covered: test_call_chain_inline_leaf (a leaf marked Inline spliced into its
caller), test_call_chain_inline_multiple_levels (transitive), test_recursive_called
(a recursive function is not inlined), test_callee_not_inline (a callee without the
attribute stays), test_entry_with_inline (``main`` marked Inline stays the entry),
test_*_extern_compiler (a ``Compiler`` function becomes a called literal that
follows its caller when that is inlined).
Out of scope: functions as values and calls of local closures (first-class
functions are not supported), ``let``-bound local functions.
"""

from __future__ import annotations

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def get_mod(inline_g: bool = True, inline_h: bool = True) -> relay.IRModule:
    mod = relay.IRModule()
    a = relay.var("a", shape=(3,))
    h = relay.Function([a], relay.exp(a))
    mod["h"] = h.with_attr("Inline", 1) if inline_h else h
    b = relay.var("b", shape=(3,))
    g = relay.Function([b], relay.add(mod.get_global_var("h")(b), b))
    mod["g"] = g.with_attr("Inline", 1) if inline_g else g
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function([x], relay.negative(mod.get_global_var("g")(x)))
    return mod


def run(mod: relay.IRModule) -> relay.IRModule:
    return transform.Inline()(transform.InferType()(mod))


def test_call_chain_inline_leaf():
    after = run(get_mod(inline_g=False))
    expected = relay.IRModule()
    b = relay.var("b", shape=(3,))
    expected["g"] = relay.Function([b], relay.add(relay.exp(b), b))
    x = relay.var("x", shape=(3,))
    expected["main"] = relay.Function(
        [x], relay.negative(expected.get_global_var("g")(x))
    )
    assert_structural_equal(after, transform.InferType()(expected))


def test_call_chain_inline_multiple_levels():
    after = run(get_mod())
    x = relay.var("x", shape=(3,))
    expected = relay.IRModule.from_expr(
        relay.Function([x], relay.negative(relay.add(relay.exp(x), x)))
    )
    assert_structural_equal(after, transform.InferType()(expected))


def test_callee_not_inline():
    mod = get_mod(inline_g=False, inline_h=False)
    assert_structural_equal(run(mod), transform.InferType()(mod))


def test_recursive_called():
    mod = relay.IRModule()
    n = relay.var("n", shape=(), dtype="int32")
    sum_up = relay.GlobalVar("sum_up")
    mod[sum_up] = relay.Function(
        [n],
        relay.If(
            relay.less(n, relay.const(1, "int32")),
            n,
            relay.Call(sum_up, [relay.subtract(n, relay.const(1, "int32"))]),
        ),
        ret_type=relay.TensorType((), "int32"),
    ).with_attr("Inline", 1)
    x = relay.var("x", shape=(), dtype="int32")
    mod["main"] = relay.Function([x], relay.Call(sum_up, [x]))
    assert_structural_equal(run(mod), transform.InferType()(mod))


def test_entry_with_inline():
    mod = relay.IRModule()
    x = relay.var("x", shape=(2,))
    mod["main"] = relay.Function([x], relay.exp(x)).with_attr("Inline", 1)
    after = run(mod)
    assert "main" in after
    assert_structural_equal(after, transform.InferType()(mod))


def test_external_codegen_becomes_a_called_literal():
    """A ``Compiler`` function marked Inline is not spliced: the caller calls the
    function itself as a literal, and the global goes."""

    def ext() -> relay.Function:
        a = relay.var("a", shape=(3,))
        return relay.Function([a], relay.exp(a)).with_attr(
            {"Inline": 1, "Compiler": "dnnl"}
        )

    mod = relay.IRModule()
    mod["ext"] = ext()
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function([x], mod.get_global_var("ext")(x))
    want = relay.IRModule()
    y = relay.var("x", shape=(3,))
    want["main"] = relay.Function([y], ext()(y))
    after = run(mod)
    assert "ext" not in [v.name_hint for v in after.get_global_vars()]
    assert_structural_equal(after, transform.InferType()(want))


def test_external_literal_follows_its_caller_when_that_is_inlined():
    """g calls an external function h (both Inline): h becomes a literal in g, and
    when g is spliced into main the literal comes along; neither global is left."""

    def ext() -> relay.Function:
        a = relay.var("a", shape=(3,))
        return relay.Function([a], relay.negative(a)).with_attr(
            {"Inline": 1, "Compiler": "dnnl"}
        )

    mod = relay.IRModule()
    mod["h"] = ext()
    p = relay.var("p", shape=(3,))
    mod["g"] = relay.Function([p], relay.add(p, mod.get_global_var("h")(p))).with_attr(
        "Inline", 1
    )
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function([x], relay.exp(mod.get_global_var("g")(x)))
    want = relay.IRModule()
    y = relay.var("x", shape=(3,))
    want["main"] = relay.Function([y], relay.exp(relay.add(y, ext()(y))))
    assert_structural_equal(run(mod), transform.InferType()(want))


def test_inline_attribute_given_as_tir_intimm():
    from xrelay import tir

    p = relay.var("p", shape=(2,))
    g = relay.Function([p], relay.nn.relu(p)).with_attr(
        "Inline", tir.IntImm("int32", 1)
    )
    mod = relay.IRModule()
    gv = relay.GlobalVar("g")
    mod[gv] = g
    x = relay.var("x", shape=(2,))
    mod["main"] = relay.Function([x], relay.Call(gv, [x]))
    after = transform.Inline()(mod)
    assert [v.name_hint for v in after.functions] == ["main"]
    y = relay.var("x", shape=(2,))
    want = relay.IRModule.from_expr(relay.Function([y], relay.nn.relu(y)))
    assert_structural_equal(after["main"], want["main"])
