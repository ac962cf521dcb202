"""SimplifyInference: Relay's test_simplify_batchnorm (several axes and ranks,
with dropout), and layer/group/instance norm and l2_normalize, checked against the
ops' own numpy semantics through the interpreter (rtol 1e-5)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.pass_manager import get_pass
from xrelay.runtime import interpret
from xrelay.transforms.simplify_inference import SimplifyInference

RNG = np.random.default_rng(42)


def op_names(mod: Any, func: str = "main") -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == func:
            return [op.name for op in f.walk() if op is not f]
    raise KeyError(func)


def assert_same(before: Any, after: Any, *args: Any) -> None:
    expected = interpret(before, *args)
    got = interpret(after, *args)
    pairs = (
        zip(expected, got, strict=True)
        if isinstance(expected, tuple)
        else [(expected, got)]
    )
    for e, g in pairs:
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def data(*shape: int, dtype: str = "float32") -> np.ndarray[Any, Any]:
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize(
    ("shape", "axis"),
    [((2, 4, 4, 1), 1), ((2, 4, 4, 1), 3), ((2, 4, 4, 1), -2), ((3, 5), 1), ((6,), 0)],
)
@pytest.mark.parametrize(
    ("scale", "center"), [(True, True), (False, False), (True, False)]
)
def test_batch_norm_with_dropout(
    shape: tuple[int, ...], axis: int, scale: bool, center: bool
):
    """Relay's test_simplify_batchnorm: dropout then two batch_norms, over axes and
    ranks; every batch_norm and dropout is gone and numerics agree."""
    c = shape[axis]
    x = relay.var("x", shape=shape)
    vecs = [relay.var(n, shape=(c,)) for n in ("g", "b", "m", "v")]
    y = relay.nn.dropout(x, rate=0.3)
    y = relay.nn.batch_norm(
        y, *vecs, axis=axis, epsilon=1e-3, scale=scale, center=center
    )[0]
    y = relay.nn.batch_norm(
        y, *vecs, axis=axis, epsilon=1e-3, scale=scale, center=center
    )[0]
    mod = relay.IRModule.from_expr(relay.Function([x, *vecs], y))
    after = SimplifyInference()(mod)
    names = op_names(after)
    assert "relay.nn.batch_norm" not in names
    assert "relay.nn.dropout" not in names
    if axis % len(shape) == len(shape) - 1:
        assert "relay.expand_dims" not in names
    args = [data(*shape)]
    args += [RNG.uniform(0.5, 1.5, c).astype("float32") for _ in range(4)]
    assert_same(mod, after, *args)


def test_batch_norm_with_used_statistics_keeps_the_op():
    x = relay.var("x", shape=(2, 3, 4))
    vecs = [relay.var(n, shape=(3,)) for n in ("g", "b", "m", "v")]
    bn = relay.nn.batch_norm(x, *vecs)
    mod = relay.IRModule.from_expr(
        relay.Function([x, *vecs], relay.Tuple([bn[0], bn[1], bn[2]]))
    )
    after = SimplifyInference()(mod)
    names = op_names(after)
    assert names.count("relay.nn.batch_norm") == 1
    assert "relay.multiply" in names
    args = [data(2, 3, 4)] + [
        RNG.uniform(0.5, 1.5, 3).astype("float32") for _ in range(4)
    ]
    assert_same(mod, after, *args)
    # result 0 no longer comes from the batch_norm
    main = after["main"]
    bn_op = next(op for op in main.walk() if op.name == "relay.nn.batch_norm")
    assert not bn_op.results[0].uses


def test_dropout_with_used_mask_keeps_the_op():
    x = relay.var("x", shape=(2, 3))
    d = relay.nn.dropout_raw(x)
    mod = relay.IRModule.from_expr(relay.Function([x], relay.add(d[0], d[1])))
    after = SimplifyInference()(mod)
    assert op_names(after).count("relay.nn.dropout") == 1
    assert_same(mod, after, data(2, 3))


@pytest.mark.parametrize(
    ("shape", "axis"), [((2, 3, 4), -1), ((2, 3, 4), 1), ((5, 7), 0)]
)
@pytest.mark.parametrize(
    ("scale", "center"), [(True, True), (False, True), (True, False)]
)
def test_layer_norm(shape: tuple[int, ...], axis: int, scale: bool, center: bool):
    c = shape[axis]
    x, g, b = (
        relay.var("x", shape=shape),
        relay.var("g", shape=(c,)),
        relay.var("b", shape=(c,)),
    )
    y = relay.nn.layer_norm(
        x, g, b, axis=axis, epsilon=1e-5, scale=scale, center=center
    )
    mod = relay.IRModule.from_expr(relay.Function([x, g, b], y))
    after = SimplifyInference()(mod)
    names = op_names(after)
    assert "relay.nn.layer_norm" not in names
    assert "relay.variance" in names
    assert_same(mod, after, data(*shape) * 3 + 1, data(c), data(c))


@pytest.mark.parametrize(
    ("shape", "groups", "axis"),
    [((2, 6, 3, 3), 3, 1), ((1, 4, 5), 2, 1), ((2, 8, 2, 2), 8, 1), ((2, 3, 6), 2, 2)],
)
def test_group_norm(shape: tuple[int, ...], groups: int, axis: int):
    c = shape[axis]
    x, g, b = (
        relay.var("x", shape=shape),
        relay.var("g", shape=(c,)),
        relay.var("b", shape=(c,)),
    )
    y = relay.nn.group_norm(x, g, b, num_groups=groups, axis=axis, epsilon=1e-5)
    mod = relay.IRModule.from_expr(relay.Function([x, g, b], y))
    after = SimplifyInference()(mod)
    names = op_names(after)
    assert "relay.nn.group_norm" not in names
    assert names.count("relay.reshape") == 2
    assert_same(mod, after, data(*shape), data(c), data(c))


@pytest.mark.parametrize(
    ("shape", "axis"), [((2, 3, 4, 5), 1), ((2, 4, 5, 3), 3), ((2, 3, 7), 1)]
)
def test_instance_norm(shape: tuple[int, ...], axis: int):
    c = shape[axis]
    x, g, b = (
        relay.var("x", shape=shape),
        relay.var("g", shape=(c,)),
        relay.var("b", shape=(c,)),
    )
    y = relay.nn.instance_norm(x, g, b, axis=axis, epsilon=1e-5)
    mod = relay.IRModule.from_expr(relay.Function([x, g, b], y))
    after = SimplifyInference()(mod)
    assert "relay.nn.instance_norm" not in op_names(after)
    assert_same(mod, after, data(*shape), data(c), data(c))


@pytest.mark.parametrize("axis", [None, [1], [0, 2], [-1]])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_l2_normalize(axis: list[int] | None, dtype: str):
    x = relay.var("x", shape=(2, 3, 4), dtype=dtype)
    y = relay.nn.l2_normalize(x, eps=1e-4, axis=axis)
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    after = SimplifyInference()(mod)
    assert "relay.nn.l2_normalize" not in op_names(after)
    xs = data(2, 3, 4, dtype=dtype)
    xs[0, 0, :] = 0.0  # the eps floor matters here
    assert_same(mod, after, xs)


def test_dynamic_group_norm_is_kept(parse):
    mod = parse(
        """
func.func @main(%x: tensor<?x4xf32>, %g: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = relay.nn.group_norm %x, %g, %g {num_groups = 2 : i64} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}
"""
    )
    assert "relay.nn.group_norm" in op_names(SimplifyInference()(mod))


def test_other_ops_are_untouched():
    x = relay.var("x", shape=(2, 3))
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.nn.softmax(relay.nn.relu(x)))
    )
    assert op_names(SimplifyInference()(mod)) == op_names(mod)


def test_registration():
    p = get_pass("simplify-inference")
    assert (p.info.name, p.info.opt_level, p.info.required) == (
        "SimplifyInference",
        0,
        ("InferType",),
    )
