"""DeadCodeElimination as a TVM user tests it (Relay's
``test_pass_dead_code_elimination.py``, v0.18).

Covered: test_dead_let / test_one_live_let (a bound value that is not used goes),
test_tuple_get_item (unused projections go), test_chain_unused_let, impure ops
(dropout) kept unless ``ignore_impurity=True``, test_add_with_let (a let chain in
parentheses as an operand, read from Relay text).
Out of scope: ``let`` chains as separate nodes and ``inline_once`` on let-bound
values (xrelay's lets are SSA names; ScopeBuilder lets emit as plain values),
recursion through ``let``-bound closures, references (``ref_write``).
"""

from __future__ import annotations

from typing import Any

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run(expr: Any, *passes: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def op_names(mod: Any) -> list[str]:
    return [op.name for op in mod.func_op("main").walk()][1:]


def test_dead_let():
    x = relay.var("x", shape=(2,))
    sb = relay.ScopeBuilder()
    sb.let("unused", relay.exp(x))
    sb.ret(x)
    after = run(relay.Function([x], sb.get()), transform.DeadCodeElimination())
    x2 = relay.var("x", shape=(2,))
    assert_structural_equal(after, run(relay.Function([x2], x2)))
    assert op_names(after) == ["func.return"]


def test_one_live_let():
    x = relay.var("x", shape=(2,))
    sb = relay.ScopeBuilder()
    live = sb.let("live", relay.exp(x))
    sb.let("dead", relay.negative(x))
    sb.ret(live)
    after = run(relay.Function([x], sb.get()), transform.DeadCodeElimination())
    assert op_names(after) == ["relay.exp", "func.return"]


def test_tuple_get_item():
    x = relay.var("x", shape=(6,))
    parts = relay.split(x, 3)
    y = relay.Tuple([parts[0], parts[1]])
    fn = relay.Function([x], relay.TupleGetItem(y, 0))
    after = run(fn, transform.DeadCodeElimination())
    assert op_names(after) == ["relay.split", "func.return"]


def test_impure_ops():
    x = relay.var("x", shape=(4,))
    sb = relay.ScopeBuilder()
    sb.let("d", relay.nn.dropout(x))
    sb.ret(x)
    fn = relay.Function([x], sb.get())
    kept = run(fn, transform.DeadCodeElimination())
    assert "relay.nn.dropout" in op_names(kept)
    dropped = run(fn, transform.DeadCodeElimination(ignore_impurity=True))
    assert "relay.nn.dropout" not in op_names(dropped)


# -- what TVM's DCE test module needs at import, and its workload -------------------------


def test_import_from_std_core_adds_nothing_and_the_prelude_is_refused():
    import pytest

    mod = relay.IRModule()
    mod.import_from_std("core.rly")  # only the VM's opaque Storage type
    assert list(mod.functions) == []
    with pytest.raises(NotImplementedError, match="Prelude"):
        mod.import_from_std("prelude.rly")


def test_dce_keeps_inception_v3():
    from xrelay.relay.testing import inception_v3

    net = inception_v3.get_net(1, 10, (3, 75, 75), "float32")
    mod = transform.InferType()(relay.IRModule.from_expr(net))
    assert mod["main"].ret_type == relay.TensorType((1, 10), "float32")
    after = transform.DeadCodeElimination(inline_once=True)(mod)
    assert_structural_equal(after, mod)


def test_let_chain_as_an_operand_in_relay_text():
    """``(let %a = 1; 3) + 2``: the unused binding goes, ``3 + 2`` is left."""
    before = relay.parse(
        """#[version = "0.0.5"]
        def @main() {
            (let %a = 1; 3) + 2
        }"""
    )
    after = relay.parse(
        """#[version = "0.0.5"]
        def @main() {
            3 + 2
        }"""
    )
    passes = transform.Sequential(
        [transform.DeadCodeElimination(), transform.InferType()]
    )
    assert_structural_equal(passes(before), transform.InferType()(after))
