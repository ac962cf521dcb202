"""Elementwise and broadcast ops: type relations and numpy semantics.

Semantics are checked against onnx.reference (an independent implementation) where an
ONNX op matches, and against hand-computed values elsewhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

from xrelay.dialects import relay as R
from xrelay.dialects.relay.base import OpPattern, TypeRelationError
from xrelay.dialects.relay.dtypes import tensor_type
from xrelay.dialects.relay.testing import infer, run_op
from xrelay.dialects.relay.testing import onnx_node as onnx_run

rng = np.random.default_rng(42)
F32 = "float32"


def one(values: tuple[Any, ...]) -> np.ndarray:
    (value,) = values
    return value


# --- type relations ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "out"),
    [
        ((2, 3), (3,), (2, 3)),
        ((2, 1), (1, 4), (2, 4)),
        ((), (5, 1, 2), (5, 1, 2)),
        ((4, 1, 3), (2, 1), (4, 2, 3)),
        ((1,), (1,), (1,)),
    ],
)
def test_binary_broadcasting(a, b, out):
    for op in (R.AddOp, R.MultiplyOp, R.PowerOp, R.FloorModOp):
        (ty,) = infer(op, tensor_type(a, F32), tensor_type(b, F32))
        assert ty == tensor_type(out, F32)
    (ty,) = infer(R.LessOp, tensor_type(a, F32), tensor_type(b, F32))
    assert ty == tensor_type(out, "bool")


def test_binary_errors():
    with pytest.raises(
        TypeRelationError, match=r"shapes \[2, 3\] and \[2\] do not broadcast"
    ):
        infer(R.AddOp, tensor_type((2, 3), F32), tensor_type((2,), F32))
    with pytest.raises(TypeRelationError, match="relay does not promote dtypes"):
        infer(R.SubtractOp, tensor_type((2,), F32), tensor_type((2,), "int32"))
    with pytest.raises(TypeRelationError, match="operands must be i1"):
        infer(R.LogicalAndOp, tensor_type((2,), F32), tensor_type((2,), F32))


def test_unary_relations():
    t = tensor_type((2, 3), F32)
    assert infer(R.ExpOp, t) == (t,)
    assert infer(R.NegativeOp, tensor_type((4,), "int8")) == (
        tensor_type((4,), "int8"),
    )
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(R.SqrtOp, tensor_type((2,), "int32"))
    with pytest.raises(TypeRelationError, match="i1 tensor"):
        infer(R.LogicalNotOp, t)


def test_cast_where_prelu_bias_add_relations():
    assert infer(R.CastOp, tensor_type((2, 3), F32), dtype="int8") == (
        tensor_type((2, 3), "int8"),
    )
    assert infer(
        R.CastLikeOp, tensor_type((2,), F32), tensor_type((7, 7), "float16")
    ) == (tensor_type((2,), "float16"),)
    assert infer(
        R.WhereOp,
        tensor_type((2, 1), "bool"),
        tensor_type((3,), F32),
        tensor_type((1,), F32),
    ) == (tensor_type((2, 3), F32),)
    with pytest.raises(TypeRelationError, match="relay does not promote"):
        infer(
            R.WhereOp,
            tensor_type((2,), "bool"),
            tensor_type((2,), F32),
            tensor_type((2,), "int32"),
        )
    assert infer(R.PReluOp, tensor_type((1, 4, 5), F32), tensor_type((4,), F32)) == (
        tensor_type((1, 4, 5), F32),
    )
    assert infer(
        R.PReluOp, tensor_type((1, 4, 5), F32), tensor_type((5,), F32), axis=-1
    ) == (tensor_type((1, 4, 5), F32),)
    with pytest.raises(TypeRelationError, match=r"alpha must have shape \[4\]"):
        infer(R.PReluOp, tensor_type((1, 4, 5), F32), tensor_type((5,), F32))
    with pytest.raises(
        TypeRelationError, match=r"bias must have shape \[5\] \(data.shape\[2\]\)"
    ):
        infer(R.BiasAddOp, tensor_type((1, 4, 5), F32), tensor_type((4,), F32), axis=2)
    with pytest.raises(TypeRelationError, match="axis 3 is out of range for rank 3"):
        infer(R.BiasAddOp, tensor_type((1, 4, 5), F32), tensor_type((4,), F32), axis=3)


def test_creators_relations():
    assert infer(R.ZerosOp, shape=(2, 3), dtype="int64") == (
        tensor_type((2, 3), "int64"),
    )
    assert infer(R.OnesOp, shape=(), dtype=F32) == (tensor_type((), F32),)
    assert infer(R.FullOp, tensor_type((), "int32"), shape=(4,)) == (
        tensor_type((4,), "int32"),
    )
    assert infer(R.FullOp, tensor_type((), "int32"), shape=(4,), dtype=F32) == (
        tensor_type((4,), F32),
    )
    with pytest.raises(TypeRelationError, match="fill_value must be a 0-d tensor"):
        infer(R.FullOp, tensor_type((1,), F32), shape=(4,))
    with pytest.raises(TypeRelationError, match="negative dimension"):
        infer(R.ZerosOp, shape=(2, -1), dtype=F32)
    assert infer(R.FullLikeOp, tensor_type((2, 2), F32), tensor_type((), F32)) == (
        tensor_type((2, 2), F32),
    )


def test_patterns():
    assert R.AddOp.PATTERN == OpPattern.BROADCAST
    assert R.ExpOp.PATTERN == OpPattern.ELEMWISE
    assert R.ReluOp.PATTERN == OpPattern.ELEMWISE
    assert R.BiasAddOp.PATTERN == OpPattern.BROADCAST
    assert R.WhereOp.PATTERN == OpPattern.BROADCAST


def test_attribute_defaults():
    op = R.LeakyReluOp.make(
        [R.ConstantOp(np.zeros(2, np.float32)).result],
    )
    assert op.alpha.value.data == pytest.approx(0.01)
    bias = R.BiasAddOp.make(
        [
            R.ConstantOp(np.zeros((1, 2), np.float32)).result,
            R.ConstantOp(np.zeros(2, np.float32)).result,
        ]
    )
    assert bias.axis.value.data == 1


# --- numpy semantics ----------------------------------------------------------------------

BINARY_ONNX = [
    (R.AddOp, "Add", {}),
    (R.SubtractOp, "Sub", {}),
    (R.MultiplyOp, "Mul", {}),
    (R.DivideOp, "Div", {}),
    (R.MaximumOp, "Max", {}),
    (R.MinimumOp, "Min", {}),
    (R.EqualOp, "Equal", {}),
    (R.LessOp, "Less", {}),
    (R.LessEqualOp, "LessOrEqual", {}),
    (R.GreaterOp, "Greater", {}),
    (R.GreaterEqualOp, "GreaterOrEqual", {}),
]


@pytest.mark.parametrize(("op", "onnx_op", "attrs"), BINARY_ONNX)
def test_binary_against_onnx(op, onnx_op, attrs):
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 1)).astype(np.float32)
    b[0, 0] = a[0, 0, 0]  # an equal pair for the comparisons
    got = one(run_op(op, a, b))
    np.testing.assert_allclose(got, onnx_run(onnx_op, [a, b], **attrs), rtol=1e-6)


def test_power_and_not_equal():
    a = np.abs(rng.standard_normal((3, 4))).astype(np.float32) + 0.1
    b = rng.standard_normal((4,)).astype(np.float32)
    np.testing.assert_allclose(
        one(run_op(R.PowerOp, a, b)), onnx_run("Pow", [a, b]), rtol=1e-5
    )
    x = np.array([1, 2, 3], np.int32)
    y = np.array([1, 0, 3], np.int32)
    np.testing.assert_array_equal(one(run_op(R.NotEqualOp, x, y)), [False, True, False])


def test_integer_division_family():
    a = np.array([7, -7, 7, -7, 0], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    # truncating division and remainder (C semantics, TVM's div / truncmod)
    np.testing.assert_array_equal(one(run_op(R.DivideOp, a, b)), [3, -3, -3, 3, 0])
    np.testing.assert_array_equal(
        one(run_op(R.ModOp, a, b)), onnx_run("Mod", [a, b], fmod=1)
    )
    np.testing.assert_array_equal(one(run_op(R.ModOp, a, b)), [1, -1, 1, -1, 0])
    # flooring division and remainder (Python semantics)
    np.testing.assert_array_equal(one(run_op(R.FloorDivideOp, a, b)), [3, -4, -4, 3, 0])
    np.testing.assert_array_equal(
        one(run_op(R.FloorModOp, a, b)), onnx_run("Mod", [a, b], fmod=0)
    )
    np.testing.assert_array_equal(one(run_op(R.FloorModOp, a, b)), [1, 1, -1, -1, 0])
    f = np.array([7.5, -7.5], np.float32)
    g = np.array([2.0, 2.0], np.float32)
    np.testing.assert_array_equal(one(run_op(R.FloorDivideOp, f, g)), [3.0, -4.0])
    np.testing.assert_array_equal(one(run_op(R.ModOp, f, g)), [1.5, -1.5])
    np.testing.assert_array_equal(one(run_op(R.FloorModOp, f, g)), [1.5, 0.5])


def test_logical():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    np.testing.assert_array_equal(
        one(run_op(R.LogicalAndOp, a, b)), [True, False, False, False]
    )
    np.testing.assert_array_equal(
        one(run_op(R.LogicalOrOp, a, b)), [True, True, True, False]
    )
    np.testing.assert_array_equal(
        one(run_op(R.LogicalNotOp, a)), [False, False, True, True]
    )


UNARY_ONNX = [
    (R.ExpOp, "Exp"),
    (R.FastExpOp, "Exp"),
    (R.LogOp, "Log"),
    (R.SqrtOp, "Sqrt"),
    (R.SigmoidOp, "Sigmoid"),
    (R.TanhOp, "Tanh"),
    (R.FastTanhOp, "Tanh"),
    (R.ErfOp, "Erf"),
    (R.FastErfOp, "Erf"),
    (R.SinOp, "Sin"),
    (R.CosOp, "Cos"),
    (R.AcosOp, "Acos"),
    (R.AsinOp, "Asin"),
    (R.AtanOp, "Atan"),
    (R.AcoshOp, "Acosh"),
    (R.AsinhOp, "Asinh"),
    (R.AtanhOp, "Atanh"),
    (R.NegativeOp, "Neg"),
    (R.AbsOp, "Abs"),
    (R.SignOp, "Sign"),
    (R.FloorOp, "Floor"),
    (R.CeilOp, "Ceil"),
    (R.ReluOp, "Relu"),
    (R.CopyOp, "Identity"),
]


@pytest.mark.parametrize(("op", "onnx_op"), UNARY_ONNX)
def test_unary_against_onnx(op, onnx_op):
    x = (rng.standard_normal((3, 5)) * 3).astype(np.float32)
    if onnx_op in ("Log", "Sqrt"):
        x = np.abs(x) + 0.01
    elif onnx_op in ("Acos", "Asin", "Atanh"):  # their domain, and its ends
        x = np.tanh(x)
        x[0, :3] = [-1.0, 1.0, 1.5]
    elif onnx_op == "Acosh":
        x = np.abs(x) + 1.0
        x[0, :2] = [1.0, 0.5]
    got = one(run_op(op, x))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, onnx_run(onnx_op, [x]), rtol=2e-6, atol=1e-7)


def test_rsqrt_round_trunc_by_hand():
    x = np.array([4.0, 0.25, 1.0], np.float32)
    np.testing.assert_allclose(one(run_op(R.RsqrtOp, x)), [0.5, 2.0, 1.0])
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4], np.float32)
    # halves round away from zero (llvm.round), unlike numpy's banker's rounding
    np.testing.assert_array_equal(
        one(run_op(R.RoundOp, halves)), [-3, -2, -1, 1, 2, 3, 2]
    )
    np.testing.assert_array_equal(
        one(run_op(R.TruncOp, halves)), [-2, -1, -0.0, 0, 1, 2, 2]
    )


def test_sigmoid_extremes_do_not_overflow():
    x = np.array([-1000.0, 0.0, 1000.0], np.float32)
    np.testing.assert_allclose(one(run_op(R.SigmoidOp, x)), [0.0, 0.5, 1.0])


def test_activations_against_onnx():
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)
    np.testing.assert_allclose(
        one(run_op(R.LeakyReluOp, x, alpha=0.2)),
        onnx_run("LeakyRelu", [x], alpha=0.2),
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        one(run_op(R.LeakyReluOp, x)), onnx_run("LeakyRelu", [x], alpha=0.01), rtol=1e-6
    )
    slope = rng.standard_normal((4,)).astype(np.float32)
    np.testing.assert_allclose(
        one(run_op(R.PReluOp, x, slope)),
        onnx_run("PRelu", [x, slope.reshape(4, 1)]),
        rtol=1e-6,
    )
    lo, hi = np.float32(-0.5), np.float32(0.7)
    np.testing.assert_allclose(
        one(run_op(R.ClipOp, x, a_min=-0.5, a_max=0.7)),
        onnx_run("Clip", [x, lo, hi]),
        rtol=1e-6,
    )


def test_clip_on_integers_keeps_dtype():
    x = np.array([-5, 0, 5, 100], np.int8)
    got = one(run_op(R.ClipOp, x, a_min=-1.5, a_max=1000.0))
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, [-1, 0, 5, 100])


def test_cast_and_cast_like():
    x = np.array([-1.7, 0.2, 2.9, 300.0], np.float32)
    got = one(run_op(R.CastOp, x, dtype="int32"))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, onnx_run("Cast", [x], to=TensorProto.INT32))
    like = np.zeros((1,), np.float16)
    half = one(run_op(R.CastLikeOp, x, like))
    assert half.dtype == np.float16
    np.testing.assert_array_equal(
        one(run_op(R.CastOp, np.array([0, 2, -1]), dtype="bool")), [False, True, True]
    )


def test_where_against_onnx():
    c = rng.standard_normal((2, 1)) > 0
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((3,)).astype(np.float32)
    np.testing.assert_array_equal(
        one(run_op(R.WhereOp, c, x, y)), onnx_run("Where", [c, x, y])
    )


def test_bias_add_by_hand():
    x = np.zeros((1, 2, 3), np.float32)
    b = np.array([1, 2], np.float32)
    np.testing.assert_array_equal(
        one(run_op(R.BiasAddOp, x, b)), [[[1, 1, 1], [2, 2, 2]]]
    )
    b3 = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(
        one(run_op(R.BiasAddOp, x, b3, axis=-1)), [[[1, 2, 3], [1, 2, 3]]]
    )


def test_creators():
    z = one(run_op(R.ZerosOp, shape=(2, 3), dtype="float16"))
    assert z.dtype == np.float16
    assert z.shape == (2, 3)
    assert not z.any()
    o = one(run_op(R.OnesOp, shape=(4,), dtype="int64"))
    np.testing.assert_array_equal(o, [1, 1, 1, 1])
    assert o.dtype == np.int64
    f = one(run_op(R.FullOp, np.array(2.5, np.float32), shape=(2, 2)))
    np.testing.assert_array_equal(f, [[2.5, 2.5], [2.5, 2.5]])
    fi = one(run_op(R.FullOp, np.array(2.5, np.float32), shape=(3,), dtype="int32"))
    assert fi.dtype == np.int32
    np.testing.assert_array_equal(fi, [2, 2, 2])
    x = rng.standard_normal((2, 2)).astype(np.float32)
    np.testing.assert_array_equal(one(run_op(R.ZerosLikeOp, x)), np.zeros((2, 2)))
    np.testing.assert_array_equal(one(run_op(R.OnesLikeOp, x)), np.ones((2, 2)))
    np.testing.assert_array_equal(
        one(run_op(R.FullLikeOp, x, np.array(7.0, np.float32))), np.full((2, 2), 7.0)
    )


def test_every_elementwise_op_is_registered():
    from xrelay.dialects.relay.elementwise import ELEMENTWISE_OPS

    for op in ELEMENTWISE_OPS:
        assert R.OPS_BY_NAME[op.name] is op
        assert op.__doc__
