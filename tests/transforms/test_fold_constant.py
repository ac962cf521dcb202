"""FoldConstant: Relay's test_pass_fold_constant scenarios on xrelay IR, the rules
that keep ops unfolded, and numerics before/after with the interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.dialects.relay.elementwise import ExpOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.pass_manager import PassContext, Sequential, get_pass
from xrelay.runtime import interpret
from xrelay.transforms.fold_constant import FoldConstant


def op_names(mod: Any, func: str = "main") -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == func:
            return [op.name for op in f.walk() if op is not f]
    raise KeyError(func)


def constants(mod: Any) -> list[np.ndarray[Any, Any]]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    return [op.numpy() for op in module.walk() if isinstance(op, ConstantOp)]


def assert_same(before: Any, after: Any, *args: Any) -> None:
    expected = interpret(before, *args)
    got = interpret(after, *args)
    if isinstance(expected, tuple):
        for e, g in zip(expected, got, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_fold_const_seed_example():
    c_data = np.array([1, 2, 3], dtype="float32")
    x = relay.var("x", shape=(1, 2, 3))
    c = relay.const(c_data)
    y = relay.multiply(relay.add(c, c), relay.const(2.0, "float32"))
    z = relay.add(relay.add(x, y), c)
    mod = relay.IRModule.from_expr(relay.Function([x], z))
    after = FoldConstant()(mod)
    assert op_names(after) == [
        "relay.constant",
        "relay.constant",
        "relay.add",
        "relay.add",
        "func.return",
    ]
    folded = [v for v in constants(after) if not np.array_equal(v, c_data)]
    np.testing.assert_array_equal(folded[0], (c_data + c_data) * 2)
    xs = np.random.default_rng(0).standard_normal((1, 2, 3)).astype("float32")
    assert_same(mod, after, xs)
    # the input module is left as it was
    assert "relay.multiply" in op_names(mod)


def test_fold_tuple(parse):
    mod = parse(
        """
func.func @main(%x: tensor<1xf32>) -> tensor<1xf32> {
  %c = relay.constant dense<1.0> : tensor<1xf32>
  %t = relay.tuple %x, %c : (tensor<1xf32>, tensor<1xf32>) -> tuple<tensor<1xf32>, tensor<1xf32>>
  %0 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<1xf32>, tensor<1xf32>>) -> tensor<1xf32>
  %1 = relay.add %0, %c : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %2 = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<1xf32>, tensor<1xf32>>) -> tensor<1xf32>
  %3 = relay.add %1, %2 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  func.return %3 : tensor<1xf32>
}
"""
    )
    after = FoldConstant()(mod)
    assert op_names(after) == ["relay.constant", "relay.add", "func.return"]
    assert_same(mod, after, np.array([5.0], dtype="float32"))


@pytest.mark.parametrize("cond", [True, False])
def test_fold_if(cond: bool):
    x_data = np.array([[1, 2, 3]], dtype="float32")
    x, y = relay.const(x_data), relay.const(x_data)
    body = relay.If(relay.const(cond), x + y, x - y)
    mod = relay.IRModule.from_expr(relay.Function([], body))
    after = FoldConstant()(mod)
    assert op_names(after) == ["relay.constant", "func.return"]
    expected = x_data + x_data if cond else x_data - x_data
    np.testing.assert_array_equal(interpret(after), expected)


def test_if_with_unknown_condition_folds_inside():
    flag = relay.var("flag", shape=(), dtype="bool")
    c = relay.const(np.ones(3, "float32"))
    v = relay.var("v", shape=(3,))
    body = relay.If(flag, c + c, v)
    mod = relay.IRModule.from_expr(relay.Function([flag, v], body))
    after = FoldConstant()(mod)
    names = op_names(after)
    assert "relay.if" in names
    assert "relay.add" not in names
    for f in (True, False):
        assert_same(mod, after, np.array(f), np.arange(3, dtype="float32"))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_fold_shape_of(dtype: str):
    shape = (8, 9, 10)
    x = relay.var("x", shape=shape)
    y = relay.var("y", shape=shape)
    mod = relay.IRModule.from_expr(relay.Function([x, y], relay.shape_of(x + y, dtype)))
    after = FoldConstant()(mod)
    assert op_names(after) == ["relay.constant", "func.return"]
    (value,) = constants(after)
    assert value.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(value, shape)


def test_shape_of_dynamic_is_kept(parse):
    mod = parse(
        """
func.func @main(%x: tensor<?x3xf32>) -> tensor<2xi32> {
  %0 = relay.shape_of %x : (tensor<?x3xf32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
"""
    )
    assert op_names(FoldConstant()(mod)) == ["relay.shape_of", "func.return"]


def test_fold_concat():
    c_data = np.array([[1, 2, 3]], dtype="float32")
    body = relay.concatenate([relay.const(c_data), relay.const(c_data)], axis=0)
    mod = relay.IRModule.from_expr(relay.Function([], body))
    after = FoldConstant()(mod)
    assert op_names(after) == ["relay.constant", "func.return"]
    np.testing.assert_array_equal(
        interpret(after), np.concatenate([c_data, c_data], axis=0)
    )


def test_fold_batch_norm_after_simplify_inference():
    """Relay's test_fold_batch_norm: SimplifyInference + FoldConstant (+ FoldScaleAxis
    when registered) remove every trace of batch_norm on bound weights."""
    rng = np.random.default_rng(1)
    data = relay.var("data", shape=(1, 3, 8, 8))
    weight = relay.const(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    vec = [relay.const(rng.uniform(0.5, 1.5, 4).astype("float32")) for _ in range(4)]
    conv = relay.nn.conv2d(data, weight, kernel_size=(3, 3), channels=4, padding=(1, 1))
    bn = relay.nn.batch_norm(conv, *vec)
    mod = relay.IRModule.from_expr(relay.Function([data], bn[0]))
    passes = [get_pass("InferType"), get_pass("SimplifyInference"), FoldConstant()]
    with PassContext(opt_level=3):
        after = Sequential(passes)(mod)
    names = op_names(after)
    assert "relay.nn.batch_norm" not in names
    assert "relay.sqrt" not in names
    assert "relay.negative" not in names
    assert names.count("relay.nn.conv2d") == 1
    assert_same(mod, after, rng.standard_normal((1, 3, 8, 8)).astype("float32"))


def test_zero_operand_and_fill_ops_are_not_folded():
    body = relay.add(relay.zeros((4, 5), "float32"), relay.ones((4, 5), "float32"))
    body = relay.multiply(body, relay.full(relay.const(2.0), (4, 5)))
    mod = relay.IRModule.from_expr(relay.Function([], body))
    after = FoldConstant()(mod)
    names = op_names(after)
    for name in (
        "relay.zeros",
        "relay.ones",
        "relay.full",
        "relay.add",
        "relay.multiply",
    ):
        assert name in names
    np.testing.assert_array_equal(interpret(after), np.full((4, 5), 2.0))


def test_scalar_ops_fold_and_reshape_of_a_scalar_folds():
    c = relay.const(3.0)
    body = relay.reshape(relay.add(c, c), (1,))
    mod = relay.IRModule.from_expr(relay.Function([], body))
    after = FoldConstant()(mod)
    assert op_names(after) == ["relay.constant", "func.return"]
    np.testing.assert_array_equal(interpret(after), [6.0])


def test_stateful_ops_are_not_folded(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ExpOp, "STATEFUL", True)
    body = relay.exp(relay.const(np.ones(2, "float32")))
    mod = relay.IRModule.from_expr(relay.Function([], body))
    assert "relay.exp" in op_names(FoldConstant()(mod))


def test_non_constant_operands_are_not_folded():
    x = relay.var("x", shape=(2,))
    body = relay.add(x, relay.const(np.ones(2, "float32")))
    mod = relay.IRModule.from_expr(relay.Function([x], body))
    assert op_names(FoldConstant()(mod)) == op_names(mod)


def test_primitive_functions_are_left_alone(parse):
    mod = parse(
        """
func.func @kernel() -> tensor<2xf32> attributes {relay.primitive} {
  %c = relay.constant dense<1.0> : tensor<2xf32>
  %0 = relay.add %c, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main() -> tensor<2xf32> {
  %0 = func.call @kernel() : () -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
    )
    after = FoldConstant()(mod)
    assert "relay.add" in op_names(after, "kernel")
    assert_same(mod, after)


def test_multi_result_op_folds_each_result(parse):
    mod = parse(
        """
func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
  %c = relay.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0, %1 = relay.split %c {indices_or_sections = 2 : i64} : (tensor<4xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  func.return %1, %0 : tensor<2xi32>, tensor<2xi32>
}
"""
    )
    after = FoldConstant()(mod)
    assert op_names(after) == ["relay.constant", "relay.constant", "func.return"]
    assert_same(mod, after)


def test_results_keep_the_declared_types():
    """Folded constants have exactly the declared result types (dtype and shape),
    whatever numpy computes."""
    a = relay.const(np.array([[1, 5], [7, 2]], dtype="int32"))
    outs = relay.Tuple(
        [
            relay.argmax(a, axis=[1]),
            relay.less(a, relay.const(np.int32(3))),
            relay.sum(relay.cast(a, "int8"), axis=[0]),
            relay.mean(relay.cast(a, "float32"), keepdims=True),
        ]
    )
    mod = relay.IRModule.from_expr(relay.Function([], outs))
    after = FoldConstant()(mod)
    main = after["main"]
    declared = [t for t in mod["main"].function_type.outputs.data]
    assert list(main.function_type.outputs.data) == declared
    for op in main.walk():
        if isinstance(op, ConstantOp):
            ty = op.result.type
            assert isinstance(ty, TensorType)
            assert op.numpy().shape == tuple(ty.get_shape())
    assert_same(mod, after)


def test_fold_qnn_option_is_accepted():
    p = get_pass("fold-constant", fold_qnn=True)
    assert p.info.name == "FoldConstant"
    assert p.info.opt_level == 2
    assert p.info.required == ()


def test_model_numerics_preserved():
    from xrelay.tools.example import example_module

    module, inputs = example_module()
    after = FoldConstant()(module)
    assert_same(module, after, *inputs)


def test_evaluation_failures_name_the_op(monkeypatch: pytest.MonkeyPatch):
    from xrelay.transforms.fold_constant import FoldConstantError

    body = relay.exp(relay.const(np.ones(2, "float32")))
    mod = relay.IRModule.from_expr(relay.Function([], body))

    def broken(self: Any, *args: Any) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(ExpOp, "compute", broken)
    with pytest.raises(
        FoldConstantError,
        match="evaluating relay.exp on constant operands failed: boom",
    ):
        FoldConstant()(mod)

    monkeypatch.setattr(ExpOp, "compute", lambda self, *args: np.ones(3, "float32"))
    with pytest.raises(
        FoldConstantError,
        match=r"relay.exp computes does not fit its result types \(tensor<2xf32>\)",
    ):
        FoldConstant()(mod)


def test_ops_without_semantics_are_left_alone(monkeypatch: pytest.MonkeyPatch):
    def missing(self: Any, *args: Any) -> Any:
        raise NotImplementedError

    monkeypatch.setattr(ExpOp, "compute", missing)
    body = relay.exp(relay.const(np.ones(2, "float32")))
    mod = relay.IRModule.from_expr(relay.Function([], body))
    assert "relay.exp" in op_names(FoldConstant()(mod))


def _cap(n: int) -> PassContext:
    return PassContext(config={"relay.FoldConstant.max_elements": n})


@pytest.mark.parametrize(
    "relayout",
    [
        lambda c: relay.transpose(c, (1, 0)),
        lambda c: relay.layout_transform(c, "NC", "NC4n"),
        lambda c: relay.reshape(c, (2, 12)),
        lambda c: relay.expand_dims(c, 0),
        lambda c: relay.squeeze(relay.expand_dims(c, 0), [0]),
        lambda c: relay.nn.batch_flatten(relay.reshape(c, (4, 2, 3))),
    ],
)
def test_relayouts_of_constants_fold_above_the_cap(relayout: Any):
    # a re-layout of a constant (a weight's packing) is no larger than the constant:
    # folded whatever the bound, so that it is done once at build time
    c_data = np.arange(24, dtype=np.float32).reshape(8, 3)
    mod = relay.IRModule.from_expr(relay.Function([], relayout(relay.const(c_data))))
    with _cap(4):
        after = FoldConstant()(mod)
    assert [n for n in op_names(after) if n != "relay.constant"] == ["func.return"]
    np.testing.assert_array_equal(constants(after)[0], interpret(mod))


def test_the_cap_still_holds_for_other_ops():
    # an op that computes (an add) or grows its operand (a broadcast, a tile) is left
    # to run time above the bound, even on constants
    c = relay.const(np.ones((8, 3), np.float32))
    for expr in (
        relay.add(c, c),
        relay.broadcast_to(c, (4, 8, 3)),
        relay.tile(c, (2, 1)),
    ):
        mod = relay.IRModule.from_expr(relay.Function([], expr))
        with _cap(4):
            after = FoldConstant()(mod)
        assert len([n for n in op_names(after) if n != "relay.constant"]) == 2
