"""Reductions: type relations (axes, keepdims, exclude, errors) and numpy semantics
checked against ONNX's reference evaluator, naive loops and hand-computed values."""

from __future__ import annotations

import itertools
import math
import statistics
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from xrelay.dialects.relay import OpPattern, TypeRelationError
from xrelay.dialects.relay import reduce as R
from xrelay.dialects.relay.dtypes import tensor_type
from xrelay.dialects.relay.testing import infer, run_op
from xrelay.dialects.relay.testing import onnx_node as onnx_run

F32 = "float32"
RNG = np.random.default_rng(7)


def shape_and_dtype(ty: Any) -> tuple[tuple[int, ...], str]:
    assert isinstance(ty, TensorType)
    from xrelay.dialects.relay.dtypes import dtype_name

    return tuple(ty.get_shape()), dtype_name(ty.get_element_type())


def infer_one(op_cls: Any, *types: Any, **attrs: object) -> tuple[tuple[int, ...], str]:
    (ty,) = infer(op_cls, *types, **attrs)
    return shape_and_dtype(ty)


def run1(op_cls: Any, *arrays: np.ndarray, **attrs: object) -> np.ndarray:
    (out,) = run_op(op_cls, *arrays, **attrs)
    assert isinstance(out, np.ndarray)
    return out


# ---------------------------------------------------------------------------------------
# Type relations
# ---------------------------------------------------------------------------------------

PLAIN = [R.SumOp, R.MeanOp, R.MaxOp, R.MinOp, R.ProdOp]


@pytest.mark.parametrize("op_cls", PLAIN)
@pytest.mark.parametrize(
    ("attrs", "shape"),
    [
        ({}, ()),
        ({"keepdims": True}, (1, 1, 1)),
        ({"axis": [1]}, (2, 4)),
        ({"axis": 1}, (2, 4)),
        ({"axis": [-1]}, (2, 3)),
        ({"axis": [0, 2], "keepdims": True}, (1, 3, 1)),
        ({"axis": [2, 0]}, (3,)),
        ({"axis": [1], "exclude": True}, (3,)),
        ({"axis": [-3, 1], "exclude": True, "keepdims": True}, (2, 3, 1)),
        ({"axis": []}, (2, 3, 4)),
        ({"axis": [], "exclude": True}, ()),
        ({"axis": [0, 1, 2], "exclude": True}, (2, 3, 4)),
    ],
)
def test_reduce_shapes(op_cls: Any, attrs: dict[str, object], shape: tuple[int, ...]):
    assert infer_one(op_cls, tensor_type([2, 3, 4], F32), **attrs) == (shape, F32)


def test_reduce_keeps_dtype_and_dynamic_dims():
    assert infer_one(R.SumOp, tensor_type([2, 5], "int64"), axis=[0]) == (
        (5,),
        "int64",
    )
    assert infer_one(R.MaxOp, tensor_type([-1, 5], F32), axis=[1]) == ((-1,), F32)


def test_reduce_of_a_scalar_is_the_scalar():
    assert infer_one(R.SumOp, tensor_type([], F32)) == ((), F32)
    np.testing.assert_array_equal(run1(R.SumOp, np.float32(3.5)), np.float32(3.5))


@pytest.mark.parametrize("op_cls", [R.ArgMaxOp, R.ArgMinOp])
def test_arg_reduce_types(op_cls: Any):
    x = tensor_type([2, 3, 4], F32)
    assert infer_one(op_cls, x) == ((), "int32")
    assert infer_one(op_cls, x, axis=[1]) == ((2, 4), "int32")
    assert infer_one(op_cls, x, axis=[1], keepdims=True, select_last_index=True) == (
        (2, 1, 4),
        "int32",
    )
    assert infer_one(op_cls, tensor_type([5], "int8"), axis=[0]) == ((), "int32")


@pytest.mark.parametrize("op_cls", [R.AllOp, R.AnyOp])
def test_all_any_types(op_cls: Any):
    assert infer_one(op_cls, tensor_type([2, 3], "bool"), axis=[0]) == ((3,), "bool")
    with pytest.raises(TypeRelationError, match="data must be an i1 tensor"):
        infer(op_cls, tensor_type([2, 3], F32))


def test_variance_std_logsumexp_types():
    x = tensor_type([2, 3, 4], F32)
    assert infer_one(
        R.VarianceOp, x, tensor_type([2, 1, 4], F32), axis=[1], unbiased=True
    ) == ((2, 4), F32)
    # the mean is accepted in any shape that broadcasts to data
    assert infer_one(R.VarianceOp, x, tensor_type([4], F32), axis=[0, 1]) == (
        (4,),
        F32,
    )
    assert infer_one(R.VarianceOp, x, tensor_type([], F32)) == ((), F32)
    assert infer_one(R.StdOp, x, axis=[1], keepdims=True) == ((2, 1, 4), F32)
    assert infer_one(R.StdOp, x, axis=[1], exclude=True) == ((3,), F32)
    assert infer_one(R.LogSumExpOp, x, axis=[-1]) == ((2, 3), F32)
    assert infer_one(R.LogSumExpOp, x, keepdims=True) == ((1, 1, 1), F32)


def test_logsumexp_has_no_exclude():
    with pytest.raises(TypeError, match="no attribute 'exclude'"):
        infer(R.LogSumExpOp, tensor_type([2], F32), exclude=True)


@pytest.mark.parametrize("op_cls", [*PLAIN, R.ArgMaxOp, R.StdOp, R.LogSumExpOp])
def test_reduce_axis_errors(op_cls: Any):
    x = tensor_type([2, 3, 4], F32)
    with pytest.raises(TypeRelationError, match="axis 3 is out of range for rank 3"):
        infer(op_cls, x, axis=[3])
    with pytest.raises(TypeRelationError, match="axis -4 is out of range for rank 3"):
        infer(op_cls, x, axis=[0, -4])
    with pytest.raises(TypeRelationError, match=r"axis \[1, -2\] repeats an axis"):
        infer(op_cls, x, axis=[1, -2])


def test_reduce_dtype_errors():
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(R.LogSumExpOp, tensor_type([2], "int32"))
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(R.StdOp, tensor_type([2], "int32"))
    with pytest.raises(TypeRelationError, match="relay does not promote dtypes"):
        infer(R.VarianceOp, tensor_type([2, 3], F32), tensor_type([2, 1], "float64"))
    with pytest.raises(TypeRelationError, match=r"mean shape \[3\] does not broadcast"):
        infer(R.VarianceOp, tensor_type([2, 4], F32), tensor_type([3], F32))
    with pytest.raises(TypeRelationError, match=r"mean shape \[2, 2, 4\]"):
        infer(R.VarianceOp, tensor_type([2, 4], F32), tensor_type([2, 2, 4], F32))
    with pytest.raises(TypeRelationError, match=r"mean shape \[3, 4\]"):
        infer(R.VarianceOp, tensor_type([1, 4], F32), tensor_type([3, 4], F32))


def test_patterns_are_comm_reduce():
    for op_cls in R.REDUCE_OPS:
        assert op_cls.PATTERN == OpPattern.COMM_REDUCE
    assert len(R.REDUCE_OPS) == 12


# ---------------------------------------------------------------------------------------
# Semantics against ONNX
# ---------------------------------------------------------------------------------------

ONNX_REDUCE = [
    (R.SumOp, "ReduceSum"),
    (R.MeanOp, "ReduceMean"),
    (R.MaxOp, "ReduceMax"),
    (R.MinOp, "ReduceMin"),
    (R.ProdOp, "ReduceProd"),
    (R.LogSumExpOp, "ReduceLogSumExp"),
]

AXES = [None, [0], [-1], [1, 2], [0, 2], [2, 0, 1]]


def onnx_reduce(onnx_op: str, x: np.ndarray, axes: list[int] | None, keepdims: bool):
    inputs = {"x": x}
    if axes is not None:
        inputs["axes"] = np.array(axes, dtype=np.int64)
    return onnx_run(onnx_op, inputs, keepdims=int(keepdims))


@pytest.mark.parametrize(("op_cls", "onnx_op"), ONNX_REDUCE)
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_matches_onnx(
    op_cls: Any, onnx_op: str, axes: list[int] | None, keepdims: bool
):
    x = RNG.uniform(0.5, 1.5, (2, 3, 4)).astype(np.float32)
    got = run1(op_cls, x, axis=axes, keepdims=keepdims)
    want = onnx_reduce(onnx_op, x, axes, keepdims)
    assert got.dtype == np.float32
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize(("op_cls", "onnx_op"), ONNX_REDUCE[:-1])
def test_exclude_reduces_the_other_axes(op_cls: Any, onnx_op: str):
    x = RNG.uniform(0.5, 1.5, (2, 3, 4, 2)).astype(np.float32)
    got = run1(op_cls, x, axis=[1, -1], exclude=True, keepdims=True)
    want = onnx_reduce(onnx_op, x, [0, 2], keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("op_cls", [*PLAIN, R.LogSumExpOp])
def test_empty_axis_list_is_identity(op_cls: Any):
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(run1(op_cls, x, axis=[]), x, rtol=1e-6)
    if op_cls is not R.LogSumExpOp:
        np.testing.assert_allclose(
            run1(op_cls, x, axis=[0, 1], exclude=True), x, rtol=1e-6
        )


def test_integer_reductions():
    x = np.array([[-3, -4, 5], [2, 7, -1]], dtype=np.int32)
    np.testing.assert_array_equal(run1(R.SumOp, x, axis=[1]), [-2, 8])
    np.testing.assert_array_equal(run1(R.ProdOp, x, axis=[0]), [-6, -28, -5])
    np.testing.assert_array_equal(run1(R.MaxOp, x), 7)
    np.testing.assert_array_equal(run1(R.MinOp, x, axis=[1]), [-4, -1])
    # integer mean truncates toward zero: -7 / 2 -> -3, 7 / 2 -> 3, 8 / 3 -> 2
    mean = run1(R.MeanOp, np.array([[-3, -4], [3, 4]], dtype=np.int32), axis=[1])
    np.testing.assert_array_equal(mean, [-3, 3])
    assert mean.dtype == np.int32
    np.testing.assert_array_equal(run1(R.MeanOp, x, axis=[1]), [-0, 2])


def test_all_any():
    x = np.array([[True, True, False], [True, True, True]])
    np.testing.assert_array_equal(run1(R.AllOp, x, axis=[1]), [False, True])
    np.testing.assert_array_equal(run1(R.AllOp, x, axis=[0]), [True, True, False])
    np.testing.assert_array_equal(run1(R.AllOp, x), False)
    np.testing.assert_array_equal(run1(R.AnyOp, ~x, axis=[1]), [True, False])
    np.testing.assert_array_equal(
        run1(R.AnyOp, ~x, axis=[0], keepdims=True), [[False, False, True]]
    )
    assert run1(R.AnyOp, x).dtype == np.bool_


@pytest.mark.parametrize(
    ("op_cls", "onnx_op"), [(R.ArgMaxOp, "ArgMax"), (R.ArgMinOp, "ArgMin")]
)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("last", [False, True])
def test_arg_reduce_matches_onnx(
    op_cls: Any, onnx_op: str, axis: int, keepdims: bool, last: bool
):
    # few distinct values, so ties are common
    x = RNG.integers(0, 3, (3, 4, 5)).astype(np.float32)
    got = run1(op_cls, x, axis=[axis], keepdims=keepdims, select_last_index=last)
    want = onnx_run(
        onnx_op,
        {"x": x},
        opset=13,
        axis=axis,
        keepdims=int(keepdims),
        select_last_index=int(last),
    )
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


def naive_arg(x: np.ndarray, axes: list[int], largest: bool, last: bool) -> np.ndarray:
    """The row-major index within the reduced axes of the extreme element (loops)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    out = np.zeros([x.shape[i] for i in kept], dtype=np.int64)
    for kidx in itertools.product(*[range(x.shape[i]) for i in kept]):
        best, best_pos = None, 0
        for pos, ridx in enumerate(
            itertools.product(*[range(x.shape[i]) for i in axes])
        ):
            full = [0] * x.ndim
            for i, v in zip(kept, kidx, strict=True):
                full[i] = v
            for i, v in zip(axes, ridx, strict=True):
                full[i] = v
            val = x[tuple(full)]
            better = best is None or (val > best if largest else val < best)
            tie = best is not None and val == best
            if better or (last and tie):
                best, best_pos = val, pos
        out[kidx] = best_pos
    return out


@pytest.mark.parametrize("axes", [[0, 2], [1, 2], [2, 1], [0, 1, 2]])
@pytest.mark.parametrize("last", [False, True])
def test_arg_reduce_over_several_axes(axes: list[int], last: bool):
    x = RNG.integers(0, 4, (2, 3, 4)).astype(np.float32)
    sorted_axes = sorted(axes)
    np.testing.assert_array_equal(
        run1(R.ArgMaxOp, x, axis=axes, select_last_index=last),
        naive_arg(x, sorted_axes, True, last),
    )
    np.testing.assert_array_equal(
        run1(R.ArgMinOp, x, axis=axes, select_last_index=last),
        naive_arg(x, sorted_axes, False, last),
    )


def test_arg_reduce_defaults_and_exclude():
    x = np.array([[1.0, 9.0, 9.0], [7.0, 0.0, 7.0]], dtype=np.float32)
    np.testing.assert_array_equal(run1(R.ArgMaxOp, x), 1)
    np.testing.assert_array_equal(run1(R.ArgMaxOp, x, select_last_index=True), 2)
    np.testing.assert_array_equal(run1(R.ArgMinOp, x), 4)
    # exclude=[0] reduces axis 1
    np.testing.assert_array_equal(run1(R.ArgMaxOp, x, axis=[0], exclude=True), [1, 0])
    np.testing.assert_array_equal(
        run1(R.ArgMaxOp, x, axis=[0], exclude=True, select_last_index=True), [2, 2]
    )
    # no reduced axes: every index is 0
    np.testing.assert_array_equal(run1(R.ArgMaxOp, x, axis=[]), np.zeros((2, 3)))


# ---------------------------------------------------------------------------------------
# variance / std / logsumexp
# ---------------------------------------------------------------------------------------


def slices(x: np.ndarray, axis: int):
    """Every 1-D slice along ``axis`` of a 2-D array, as Python floats."""
    other = 1 - axis
    return [
        [float(x[i, j] if axis == 1 else x[j, i]) for j in range(x.shape[axis])]
        for i in range(x.shape[other])
    ]


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("unbiased", [False, True])
def test_variance_and_std(axis: int, unbiased: bool):
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    mean = x.mean(axis=axis, keepdims=True)
    var_fn = statistics.variance if unbiased else statistics.pvariance
    std_fn = statistics.stdev if unbiased else statistics.pstdev
    rows = slices(x, axis)
    np.testing.assert_allclose(
        run1(R.VarianceOp, x, mean, axis=[axis], unbiased=unbiased),
        [var_fn(r) for r in rows],
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        run1(R.StdOp, x, axis=[axis], unbiased=unbiased),
        [std_fn(r) for r in rows],
        rtol=1e-5,
    )


def test_variance_uses_the_given_mean():
    x = np.array([[1.0, 3.0], [5.0, 9.0]], dtype=np.float32)
    # around 0 instead of the true mean: mean of squares
    got = run1(R.VarianceOp, x, np.zeros((2, 1), np.float32), axis=[1], keepdims=True)
    np.testing.assert_allclose(got, [[5.0], [53.0]])
    # a broadcast (1-D) mean over both axes
    got = run1(R.VarianceOp, x, np.array([3.0, 6.0], np.float32))
    np.testing.assert_allclose(got, (4 + 9 + 4 + 9) / 4)


def test_std_whole_tensor_and_exclude():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    np.testing.assert_allclose(run1(R.StdOp, x), math.sqrt(1.25), rtol=1e-6)
    np.testing.assert_allclose(
        run1(R.StdOp, x, axis=[1], exclude=True, keepdims=True), [[1.0, 1.0]]
    )


def test_logsumexp_is_stable():
    x = np.array([[1000.0, 1000.0], [-1000.0, -1000.0]], dtype=np.float32)
    np.testing.assert_allclose(
        run1(R.LogSumExpOp, x, axis=[1]),
        [1000.0 + math.log(2.0), -1000.0 + math.log(2.0)],
        rtol=1e-6,
    )
    y = np.array([-np.inf, -np.inf], dtype=np.float32)
    assert run1(R.LogSumExpOp, y) == -np.inf
    assert run1(R.LogSumExpOp, x).dtype == np.float32
