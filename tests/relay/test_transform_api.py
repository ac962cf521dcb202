"""``relay.transform`` constructors, ``InferTypeLocal``, function views,
``ScopeBuilder`` and the variable analyses, as a TVM user calls them."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from xrelay import relay
from xrelay.pass_manager import Pass
from xrelay.pass_manager.registry import all_entries
from xrelay.relay import transform


def test_every_registered_pass_has_a_constructor():
    entries = all_entries()
    assert entries
    for entry in entries:
        make = getattr(transform, entry.name)
        assert make.__name__ == entry.name
        made = make()
        assert isinstance(made, Pass)
        assert made.info.name == entry.name
        assert entry.name in dir(transform)


def test_constructors_take_tvm_keyword_arguments():
    assert (
        inspect.signature(transform.FuseOps).parameters["fuse_opt_level"].default == -1
    )
    assert transform.FoldConstant(fold_qnn=False).info.name == "FoldConstant"
    dce = transform.DeadCodeElimination(inline_once=False, ignore_impurity=False)
    assert dce.info.name == "DeadCodeElimination"
    cl = transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]})
    assert cl.info.name == "ConvertLayout"
    assert (
        transform.EliminateCommonSubexpr(fskip=None).info.name
        == "EliminateCommonSubexpr"
    )
    with pytest.raises(AttributeError, match="NoSuchPass"):
        _ = transform.NoSuchPass


def test_sequential_of_constructors_folds():
    x = relay.var("x", shape=(2,))
    c = relay.const(np.array([1.0, 2.0], "float32"))
    mod = relay.IRModule.from_expr(relay.add(x, relay.add(c, c)))
    seq = transform.Sequential([transform.InferType(), transform.FoldConstant()])
    with transform.PassContext(opt_level=3):
        out = seq(mod)
    names = [op.name for op in out.func_op("main").walk()]
    assert names.count("relay.add") == 1


def test_infer_type_local():
    x = relay.var("x", shape=(2, 3))
    ty = transform.InferTypeLocal(relay.sum(x, axis=1))
    assert ty == relay.TensorType((2,), "float32")
    fn = relay.Function([x], relay.nn.relu(x))
    fty = transform.InferTypeLocal(fn)
    assert isinstance(fty, relay.FuncType)
    assert fty.ret_type == relay.TensorType((2, 3), "float32")


def test_module_functions_are_relay_functions():
    x = relay.var("x", shape=(2, 3))
    mod = relay.IRModule.from_expr(relay.nn.relu(relay.add(x, x)))
    main = mod["main"]
    assert isinstance(main, relay.Function)
    assert [p.name_hint for p in main.params] == ["x"]
    assert main.params[0].type_annotation == relay.TensorType((2, 3), "float32")
    body = main.body
    assert isinstance(body, relay.Call)
    assert body.op.name == "nn.relu"  # type: ignore[union-attr]
    inner = body.args[0]
    assert isinstance(inner, relay.Call)
    assert inner.args[0] is inner.args[1] is main.params[0]
    assert main.ret_type == relay.TensorType((2, 3), "float32")
    assert main.checked_type == relay.FuncType([main.ret_type], main.ret_type)
    # the xDSL op stays reachable
    assert main.func_op.sym_name.data == "main"
    # rebuilt from params and body: the same function
    again = relay.IRModule.from_expr(relay.Function(main.params, main.body))
    assert again.astext() == mod.astext()
    # a view goes into another module as is
    assert relay.IRModule.from_expr(main).astext() == mod.astext()


def test_with_attr_and_primitive_calls_stay_functions():
    x = relay.var("x", shape=(4,))
    c = relay.const(np.ones(4, "float32"))
    mod = relay.IRModule.from_expr(relay.exp(relay.add(x, c)))
    fused = transform.FuseOps(fuse_opt_level=2)(transform.InferType()(mod))
    call = fused["main"].body
    assert isinstance(call, relay.Call)
    assert isinstance(call.op, relay.Function)
    assert call.op.attrs["Primitive"] == 1
    # the fused function comes along when main is put in another module
    copy = relay.IRModule.from_expr(fused["main"])
    copy.verify()
    marked = mod["main"].with_attr("Inline", 1)
    assert marked.attrs == {"Inline": 1}
    assert "relay.inline" in marked.func_op.attributes
    assert "relay.inline" not in mod.func_op("main").attributes


def test_call_of_a_view_and_gvar_lookup():
    a = relay.var("a", shape=(3,))
    mod = relay.IRModule({"f": relay.Function([a], relay.negative(a))})
    gv = mod.get_global_var("f")
    x = relay.var("x", shape=(3,))
    mod["main"] = relay.Function([x], relay.Call(gv, [x]))
    call = mod["main"].body
    assert isinstance(call, relay.Call)
    assert call.op == gv
    assert mod[gv].params[0].name_hint == "a"


def test_scope_builder():
    x = relay.var("x", shape=(2,))
    cond = relay.var("c", "bool")
    sb = relay.ScopeBuilder()
    t = sb.let("t", relay.add(x, x))
    with sb.if_scope(cond):
        sb.ret(t)
    with sb.else_scope():
        sb.ret(relay.negative(t))
    mod = relay.IRModule.from_expr(relay.Function([x, cond], sb.get()))
    text = mod.astext()
    assert "relay.if" in text
    assert text.count("relay.add") == 1
    ex = relay.create_executor(mod=mod).evaluate()
    np.testing.assert_allclose(
        ex(np.ones(2, "float32"), np.array(False)).numpy(), [-2, -2]
    )
    with pytest.raises(ValueError, match="else_scope must follow"):
        with relay.ScopeBuilder().else_scope():
            pass


def test_analyses():
    x, y, z = relay.var("x"), relay.var("y"), relay.var("z")
    body = relay.add(relay.add(y, x), z)
    fn = relay.Function([z], body)
    assert relay.analysis.free_vars(fn) == [y, x]
    assert relay.analysis.bound_vars(fn) == [z]
    assert set(relay.analysis.all_vars(fn)) == {x, y, z}
    assert relay.analysis.free_type_vars(fn) == []
    seen: list[object] = []
    relay.analysis.post_order_visit(fn, seen.append)
    assert seen[0] is z  # parameters first
    assert seen[-1] is fn
    assert seen.index(body.args[0]) < seen.index(body)  # type: ignore[attr-defined]
    assert len(seen) == len(set(map(id, seen)))


def test_import_forms():
    import xrelay.relay as r2

    assert r2 is relay
    from xrelay.relay import transform as t2

    assert t2 is transform


def test_every_registered_pass_has_a_tvm_style_test_module():
    from pathlib import Path

    folder = Path(__file__).parent / "passes"
    text = "\n".join(p.read_text() for p in folder.glob("test_tvm_*.py"))
    # the tools' own passes (test-break-ir) and view-graph are not Relay passes
    relay_passes = [
        e
        for e in all_entries()
        if not getattr(e.factory, "__module__", "").startswith("xrelay.tools.")
        and e.name != "ViewGraph"
    ]
    assert len(relay_passes) > 20
    missing = [e.name for e in relay_passes if e.name not in text]
    assert not missing, f"passes without a TVM-style test in {folder}: {missing}"


def test_relay_optimize_returns_mod_and_params():
    x = relay.var("x", shape=(2,))
    w = relay.var("w", shape=(2,))
    mod = relay.IRModule.from_expr(relay.Function([x, w], relay.exp(relay.add(x, w))))
    with transform.PassContext(opt_level=3):
        opt, params = relay.optimize(mod, "llvm", {"w": np.ones(2, "float32")})
    assert params == {}
    assert [p.name_hint for p in opt["main"].params] == ["x"]
    out = relay.create_executor(mod=opt).evaluate()(np.zeros(2, "float32"))
    np.testing.assert_allclose(out.numpy(), np.exp(np.ones(2)), rtol=1e-6)
    with pytest.raises(ValueError, match="unsupported target"):
        relay.optimize(mod, "cuda")
