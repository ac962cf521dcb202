"""Normalisation ops: type relations and numpy semantics checked against ONNX's
reference evaluator, naive loops and hand-computed values."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType
from xdsl.utils.exceptions import VerifyException

from xrelay.dialects.relay import OpPattern, TypeRelationError
from xrelay.dialects.relay import normalization as N
from xrelay.dialects.relay.base import DYN
from xrelay.dialects.relay.dtypes import dtype_name, tensor_type
from xrelay.dialects.relay.testing import infer, run_op
from xrelay.dialects.relay.testing import onnx_node as onnx_run

F32 = "float32"
RNG = np.random.default_rng(11)


def shapes(types: Any) -> list[tuple[tuple[int, ...], str]]:
    out: list[tuple[tuple[int, ...], str]] = []
    for ty in types:
        assert isinstance(ty, TensorType)
        out.append((tuple(ty.get_shape()), dtype_name(ty.get_element_type())))
    return out


def run1(op_cls: Any, *arrays: np.ndarray, **attrs: object) -> np.ndarray:
    (out,) = run_op(op_cls, *arrays, **attrs)
    assert isinstance(out, np.ndarray)
    return out


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def vec(c: int, dtype: str = F32) -> TensorType:
    return tensor_type([c], dtype)


# ---------------------------------------------------------------------------------------
# batch_norm
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "axis", "c"),
    [
        ([2, 3, 4, 5], None, 3),
        ([2, 4, 5, 3], -1, 3),
        ([2, 4, 5, 3], 3, 3),
        ([6, 7], 1, 7),
        ([5], 0, 5),
    ],
)
def test_batch_norm_types(shape: list[int], axis: int | None, c: int):
    types = infer(N.BatchNormOp, tensor_type(shape, F32), *[vec(c)] * 4, axis=axis)
    assert shapes(types) == [(tuple(shape), F32), ((c,), F32), ((c,), F32)]


def test_batch_norm_dynamic_channels_and_f64():
    types = infer(
        N.BatchNormOp, tensor_type([2, DYN], "float64"), *[vec(DYN, "float64")] * 4
    )
    assert shapes(types) == [
        ((2, DYN), "float64"),
        ((DYN,), "float64"),
        ((DYN,), "float64"),
    ]
    types = infer(N.BatchNormOp, tensor_type([2, DYN], F32), *[vec(4)] * 4)
    assert shapes(types)[0] == ((2, DYN), F32)


@pytest.mark.parametrize("bad", [1, 2, 3, 4])
def test_batch_norm_vector_errors(bad: int):
    names = ["gamma", "beta", "moving_mean", "moving_var"]
    vectors = [vec(3)] * 4
    vectors[bad - 1] = vec(4)
    with pytest.raises(
        TypeRelationError,
        match=rf"{names[bad - 1]} must have shape \[3\] \(data.shape\[1\]\)",
    ):
        infer(N.BatchNormOp, tensor_type([2, 3, 4], F32), *vectors)
    vectors[bad - 1] = tensor_type([3, 1], F32)
    with pytest.raises(TypeRelationError, match=f"{names[bad - 1]} must have shape"):
        infer(N.BatchNormOp, tensor_type([2, 3, 4], F32), *vectors)
    vectors[bad - 1] = vec(3, "float64")
    with pytest.raises(TypeRelationError, match="relay does not promote dtypes"):
        infer(N.BatchNormOp, tensor_type([2, 3, 4], F32), *vectors)


def test_batch_norm_other_errors():
    with pytest.raises(TypeRelationError, match="axis 3 is out of range for rank 3"):
        infer(N.BatchNormOp, tensor_type([2, 3, 4], F32), *[vec(3)] * 4, axis=3)
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(N.BatchNormOp, tensor_type([2, 3], "int32"), *[vec(3, "int32")] * 4)


def test_batch_norm_result_count_is_checked():
    from xrelay.dialects.relay.testing import placeholders

    args = placeholders(tensor_type([2, 3], F32), *[vec(3)] * 4)
    op = N.BatchNormOp.make(args, {}, [tensor_type([2, 3], F32), vec(3), vec(4)])
    with pytest.raises(VerifyException, match="result #2 has type"):
        op.verify()


def bn_inputs(c: int) -> list[np.ndarray]:
    gamma, beta, mean = rand(c), rand(c), rand(c)
    var = RNG.uniform(0.5, 2.0, c).astype(np.float32)
    return [gamma, beta, mean, var]


def test_batch_norm_matches_onnx():
    x = rand(2, 3, 4, 5)
    gamma, beta, mean, var = bn_inputs(3)
    out, m, v = run_op(N.BatchNormOp, x, gamma, beta, mean, var, epsilon=1e-3)
    want = onnx_run(
        "BatchNormalization",
        {"x": x, "s": gamma, "b": beta, "m": mean, "v": var},
        15,
        epsilon=1e-3,
    )
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(m, mean)
    np.testing.assert_array_equal(v, var)
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32


def test_batch_norm_last_axis_matches_onnx_on_transposed_data():
    x = rand(2, 4, 5, 3)
    gamma, beta, mean, var = bn_inputs(3)
    out = run_op(N.BatchNormOp, x, gamma, beta, mean, var, axis=-1)[0]
    want = onnx_run(
        "BatchNormalization",
        {
            "x": x.transpose(0, 3, 1, 2).copy(),
            "s": gamma,
            "b": beta,
            "m": mean,
            "v": var,
        },
        15,
    )
    np.testing.assert_allclose(out, want.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("center", "scale"), [(False, True), (True, False), (False, False)]
)
def test_batch_norm_center_scale_naive(center: bool, scale: bool):
    x = rand(2, 3, 4)
    gamma, beta, mean, var = bn_inputs(3)
    out = run_op(N.BatchNormOp, x, gamma, beta, mean, var, center=center, scale=scale)[
        0
    ]
    want = np.zeros_like(x)
    for n, c, w in itertools.product(range(2), range(3), range(4)):
        y = (float(x[n, c, w]) - float(mean[c])) / math.sqrt(float(var[c]) + 1e-5)
        if scale:
            y *= float(gamma[c])
        if center:
            y += float(beta[c])
        want[n, c, w] = y
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------
# layer_norm / group_norm / instance_norm
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op_cls", "attrs", "shape", "c"),
    [
        (N.LayerNormOp, {}, [2, 3, 4], 4),
        (N.LayerNormOp, {"axis": 1}, [2, 3, 4], 3),
        (N.LayerNormOp, {"axis": -3}, [2, 3, 4], 2),
        (N.GroupNormOp, {"num_groups": 2}, [2, 6, 4, 4], 6),
        (N.GroupNormOp, {"num_groups": 3, "axis": -1}, [2, 4, 6], 6),
        (N.GroupNormOp, {"num_groups": 6}, [2, 6], 6),
        (N.InstanceNormOp, {}, [2, 3, 4, 5], 3),
        (N.InstanceNormOp, {"axis": -1, "epsilon": 1e-3}, [2, 4, 5, 3], 3),
    ],
)
def test_affine_norm_types(
    op_cls: Any, attrs: dict[str, object], shape: list[int], c: int
):
    x = tensor_type(shape, F32)
    assert shapes(infer(op_cls, x, vec(c), vec(c), **attrs)) == [(tuple(shape), F32)]
    with pytest.raises(TypeRelationError, match=r"gamma must have shape \[\d+\]"):
        infer(op_cls, x, vec(c + 1), vec(c), **attrs)
    with pytest.raises(TypeRelationError, match=r"beta must have shape \[\d+\]"):
        infer(op_cls, x, vec(c), tensor_type([1, c], F32), **attrs)
    with pytest.raises(TypeRelationError, match="relay does not promote dtypes"):
        infer(op_cls, x, vec(c), vec(c, "float16"), **attrs)


@pytest.mark.parametrize("op_cls", [N.LayerNormOp, N.InstanceNormOp])
def test_affine_norm_axis_and_dtype_errors(op_cls: Any):
    with pytest.raises(TypeRelationError, match="axis 2 is out of range for rank 2"):
        infer(op_cls, tensor_type([2, 3], F32), vec(3), vec(3), axis=2)
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(op_cls, tensor_type([2, 3], "int8"), vec(3, "int8"), vec(3, "int8"))


def test_group_norm_errors():
    with pytest.raises(
        TypeRelationError,
        match=r"the 6 channels \(data.shape\[1\]\) are not divisible by num_groups 4",
    ):
        infer(N.GroupNormOp, tensor_type([2, 6, 3], F32), vec(6), vec(6), num_groups=4)
    with pytest.raises(TypeRelationError, match="num_groups must be positive, got 0"):
        infer(N.GroupNormOp, tensor_type([2, 6, 3], F32), vec(6), vec(6), num_groups=0)
    with pytest.raises(TypeRelationError, match="required attribute num_groups"):
        infer(N.GroupNormOp, tensor_type([2, 6, 3], F32), vec(6), vec(6))


def test_layer_norm_matches_onnx():
    x = rand(2, 3, 5)
    gamma, beta = rand(5), rand(5)
    got = run1(N.LayerNormOp, x, gamma, beta, epsilon=1e-4)
    want = onnx_run(
        "LayerNormalization", {"x": x, "s": gamma, "b": beta}, 17, axis=-1, epsilon=1e-4
    )
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_layer_norm_middle_axis_naive():
    x = rand(2, 3, 4)
    gamma, beta = rand(3), rand(3)
    got = run1(N.LayerNormOp, x, gamma, beta, axis=1, center=False)
    want = np.zeros_like(x)
    for n, w in itertools.product(range(2), range(4)):
        col = [float(x[n, c, w]) for c in range(3)]
        mu = sum(col) / 3
        var = sum((v - mu) ** 2 for v in col) / 3
        for c in range(3):
            want[n, c, w] = (col[c] - mu) / math.sqrt(var + 1e-5) * float(gamma[c])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_layer_norm_hand_computed():
    x = np.array([[1.0, 3.0]], dtype=np.float32)
    one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
    # mean 2, variance 1: (-1, 1) / sqrt(1 + eps)
    got = run1(N.LayerNormOp, x, one, zero, epsilon=0.0)
    np.testing.assert_allclose(got, [[-1.0, 1.0]])
    got = run1(N.LayerNormOp, x, 2 * one, one, epsilon=3.0, scale=True)
    np.testing.assert_allclose(got, [[0.0, 2.0]])


@pytest.mark.parametrize(
    ("shape", "groups"),
    [((2, 6, 3, 4), 3), ((2, 4, 5), 2), ((1, 4, 2), 4), ((3, 4), 1)],
)
def test_group_norm_matches_onnx(shape: tuple[int, ...], groups: int):
    x = rand(*shape)
    c = shape[1]
    gamma, beta = rand(c), rand(c)
    got = run1(N.GroupNormOp, x, gamma, beta, num_groups=groups)
    want = onnx_run(
        "GroupNormalization",
        {"x": x, "s": gamma, "b": beta},
        21,
        num_groups=groups,
        epsilon=1e-5,
    )
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_group_norm_last_axis_naive():
    # NWC, axis -1: each group of channels is normalised together with no later axis
    x = rand(2, 3, 4)
    gamma, beta = rand(4), rand(4)
    got = run1(N.GroupNormOp, x, gamma, beta, num_groups=2, axis=-1, epsilon=1e-2)
    want = np.zeros_like(x)
    for n, w, g in itertools.product(range(2), range(3), range(2)):
        vals = [float(x[n, w, 2 * g + k]) for k in range(2)]
        mu = sum(vals) / 2
        var = sum((v - mu) ** 2 for v in vals) / 2
        for k in range(2):
            c = 2 * g + k
            want[n, w, c] = (vals[k] - mu) / math.sqrt(var + 1e-2) * float(
                gamma[c]
            ) + float(beta[c])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_instance_norm_matches_onnx():
    x = rand(2, 3, 4, 5)
    gamma, beta = rand(3), rand(3)
    got = run1(N.InstanceNormOp, x, gamma, beta, epsilon=1e-3)
    want = onnx_run(
        "InstanceNormalization", {"x": x, "s": gamma, "b": beta}, 6, epsilon=1e-3
    )
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_instance_norm_last_axis_matches_onnx_on_transposed_data():
    x = rand(2, 4, 5, 3)
    gamma, beta = rand(3), rand(3)
    got = run1(N.InstanceNormOp, x, gamma, beta, axis=3, center=False, scale=False)
    want = onnx_run(
        "InstanceNormalization",
        {
            "x": x.transpose(0, 3, 1, 2).copy(),
            "s": np.ones(3, np.float32),
            "b": np.zeros(3, np.float32),
        },
        6,
    )
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------
# l2_normalize
# ---------------------------------------------------------------------------------------


def test_l2_normalize_types():
    x = tensor_type([2, 3, 4], F32)
    assert shapes(infer(N.L2NormalizeOp, x, eps=1e-6)) == [((2, 3, 4), F32)]
    assert shapes(infer(N.L2NormalizeOp, x, eps=1e-6, axis=[1, -1])) == [
        ((2, 3, 4), F32)
    ]
    with pytest.raises(TypeRelationError, match="axis 3 is out of range for rank 3"):
        infer(N.L2NormalizeOp, x, eps=1e-6, axis=[3])
    with pytest.raises(TypeRelationError, match=r"axis \[2, -1\] repeats an axis"):
        infer(N.L2NormalizeOp, x, eps=1e-6, axis=[2, -1])
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(N.L2NormalizeOp, tensor_type([2], "int32"), eps=1e-6)
    with pytest.raises(TypeRelationError, match="required attribute eps"):
        infer(N.L2NormalizeOp, x)


def test_l2_normalize_hand_computed():
    x = np.array([[3.0, 4.0], [0.0, 0.5]], dtype=np.float32)
    np.testing.assert_allclose(
        run1(N.L2NormalizeOp, x, eps=1e-12, axis=[1]), [[0.6, 0.8], [0.0, 1.0]]
    )
    # eps bounds the squared norm from below: the second row's 0.25 becomes 1
    np.testing.assert_allclose(
        run1(N.L2NormalizeOp, x, eps=1.0, axis=[1]), [[0.6, 0.8], [0.0, 0.5]]
    )
    # all axes: the norm of the whole tensor, sqrt(25.25)
    np.testing.assert_allclose(
        run1(N.L2NormalizeOp, x, eps=1e-12), x / math.sqrt(25.25), rtol=1e-6
    )
    # columns
    np.testing.assert_allclose(
        run1(N.L2NormalizeOp, x, eps=1e-12, axis=[0]),
        [[1.0, 4 / math.sqrt(16.25)], [0.0, 0.5 / math.sqrt(16.25)]],
        rtol=1e-6,
    )


def test_l2_normalize_several_axes_naive():
    x = rand(2, 3, 4)
    got = run1(N.L2NormalizeOp, x, eps=1e-10, axis=[0, 2])
    want = np.zeros_like(x)
    for c in range(3):
        norm = math.sqrt(
            sum(float(x[n, c, w]) ** 2 for n in range(2) for w in range(4))
        )
        want[:, c, :] = x[:, c, :] / norm
    np.testing.assert_allclose(got, want, rtol=1e-5)


# ---------------------------------------------------------------------------------------
# lrn
# ---------------------------------------------------------------------------------------


def test_lrn_types():
    x = tensor_type([2, 6, 4, 4], F32)
    assert shapes(infer(N.LRNOp, x)) == [((2, 6, 4, 4), F32)]
    assert shapes(infer(N.LRNOp, x, size=3, axis=-1)) == [((2, 6, 4, 4), F32)]
    with pytest.raises(TypeRelationError, match="axis 4 is out of range for rank 4"):
        infer(N.LRNOp, x, axis=4)
    with pytest.raises(TypeRelationError, match="size must be positive, got 0"):
        infer(N.LRNOp, x, size=0)
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(N.LRNOp, tensor_type([2, 6], "int32"))


@pytest.mark.parametrize("size", [1, 3, 4, 5, 8])
def test_lrn_matches_onnx(size: int):
    # onnx 1.23's reference LRN loops over range(x.shape[0]) for the channel index, so
    # it is only right when the batch size equals the channel count
    x = rand(6, 6, 3, 4)
    got = run1(N.LRNOp, x, size=size, bias=1.5, alpha=0.1, beta=0.6)
    want = onnx_run("LRN", {"x": x}, 13, size=size, bias=1.5, alpha=0.1, beta=0.6)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def naive_lrn(
    x: np.ndarray, axis: int, size: int, bias: float, alpha: float, beta: float
) -> np.ndarray:
    """LRN with explicit loops over every element and window tap."""
    out = np.zeros_like(x)
    chans = x.shape[axis]
    for idx in itertools.product(*[range(d) for d in x.shape]):
        c = idx[axis]
        total = 0.0
        for k in range(c - (size - 1) // 2, c - (size - 1) // 2 + size):
            if 0 <= k < chans:
                j = list(idx)
                j[axis] = k
                total += float(x[tuple(j)]) ** 2
        out[idx] = float(x[idx]) / (bias + alpha / size * total) ** beta
    return out


@pytest.mark.parametrize(("axis", "size"), [(3, 5), (-1, 2), (0, 3), (1, 6)])
def test_lrn_other_axes_naive(axis: int, size: int):
    x = rand(3, 2, 4, 7)
    got = run1(N.LRNOp, x, axis=axis, size=size, alpha=0.5)
    want = naive_lrn(x, axis % 4, size, 2.0, 0.5, 0.75)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_lrn_defaults_on_last_axis_match_onnx_on_transposed_data():
    x = rand(7, 3, 4, 7)
    got = run1(N.LRNOp, x, axis=3)
    want = onnx_run(
        "LRN",
        {"x": x.transpose(0, 3, 1, 2).copy()},
        13,
        size=5,
        bias=2.0,
        alpha=1e-5,
        beta=0.75,
    )
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-6)


def test_lrn_hand_computed():
    # channels 1, 2, 3 with size 3: windows {1,2}, {1,2,3}, {2,3}
    x = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    got = run1(N.LRNOp, x, size=3, bias=1.0, alpha=3.0, beta=1.0)
    np.testing.assert_allclose(got, [[1 / 6, 2 / 15, 3 / 14]], rtol=1e-6)


def test_patterns():
    for op_cls in N.NORMALIZATION_OPS:
        assert op_cls.PATTERN == OpPattern.OPAQUE
    assert [op.name for op in N.NORMALIZATION_OPS] == [
        "relay.nn.batch_norm",
        "relay.nn.layer_norm",
        "relay.nn.group_norm",
        "relay.nn.instance_norm",
        "relay.nn.l2_normalize",
        "relay.nn.lrn",
    ]
