"""Shape and data-movement ops: type relations (special codes, negative axes, defaults,
errors) and numpy semantics checked against ONNX's reference evaluator where an ONNX op
matches, otherwise against hand-computed values or explicit loops."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType

from xrelay.dialects.relay import OpPattern, TypeRelationError
from xrelay.dialects.relay import transform as T
from xrelay.dialects.relay.dtypes import dtype_name, tensor_type
from xrelay.dialects.relay.testing import infer, placeholders, run_op
from xrelay.dialects.relay.testing import onnx_node_outputs as onnx_run

F32 = "float32"
RNG = np.random.default_rng(11)


def tt(shape: tuple[int, ...], dtype: str = F32) -> TensorType:
    return tensor_type(shape, dtype)


def shape_and_dtype(ty: Any) -> tuple[tuple[int, ...], str]:
    assert isinstance(ty, TensorType)
    return tuple(ty.get_shape()), dtype_name(ty.get_element_type())


def infer_shape(op_cls: Any, *types: Any, **attrs: object) -> tuple[int, ...]:
    (ty,) = infer(op_cls, *types, **attrs)
    return shape_and_dtype(ty)[0]


def run1(op_cls: Any, *arrays: np.ndarray, **attrs: object) -> np.ndarray:
    (out,) = run_op(op_cls, *arrays, **attrs)
    assert isinstance(out, np.ndarray)
    return out


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


# ---------------------------------------------------------------------------------------
# Patterns and registration
# ---------------------------------------------------------------------------------------

PATTERNS = {
    T.ReshapeOp: OpPattern.INJECTIVE,
    T.ReshapeLikeOp: OpPattern.INJECTIVE,
    T.ReverseReshapeOp: OpPattern.INJECTIVE,
    T.TransposeOp: OpPattern.INJECTIVE,
    T.ExpandDimsOp: OpPattern.BROADCAST,
    T.SqueezeOp: OpPattern.INJECTIVE,
    T.ConcatenateOp: OpPattern.INJECTIVE,
    T.StackOp: OpPattern.INJECTIVE,
    T.SplitOp: OpPattern.INJECTIVE,
    T.StridedSliceOp: OpPattern.INJECTIVE,
    T.TakeOp: OpPattern.INJECTIVE,
    T.GatherOp: OpPattern.INJECTIVE,
    T.GatherNDOp: OpPattern.INJECTIVE,
    T.BroadcastToOp: OpPattern.BROADCAST,
    T.BroadcastToLikeOp: OpPattern.BROADCAST,
    T.CollapseSumLikeOp: OpPattern.COMM_REDUCE,
    T.CollapseSumToOp: OpPattern.COMM_REDUCE,
    T.TileOp: OpPattern.BROADCAST,
    T.RepeatOp: OpPattern.BROADCAST,
    T.ReverseOp: OpPattern.INJECTIVE,
    T.LayoutTransformOp: OpPattern.INJECTIVE,
    T.ShapeOfOp: OpPattern.OPAQUE,
    T.NdarraySizeOp: OpPattern.OPAQUE,
    T.OneHotOp: OpPattern.OUT_ELEMWISE_FUSABLE,
}


def test_patterns_and_op_list():
    assert set(PATTERNS) == set(T.TRANSFORM_OPS)
    for op_cls, pattern in PATTERNS.items():
        assert op_cls.PATTERN == pattern, op_cls.name
        assert op_cls.name.startswith("relay.")


# ---------------------------------------------------------------------------------------
# reshape
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "newshape", "expected"),
    [
        # plain
        ((3, 4, 5), [60], (60,)),
        ((3, 4, 5), [12, 5], (12, 5)),
        # 0: copy the input dim at the same position
        ((3, 4, 5), [5, 0, 3], (5, 4, 3)),
        ((3, 4, 5), [0, 0, 0], (3, 4, 5)),
        # -1: infer from what is left
        ((3, 4, 5), [-1], (60,)),
        ((3, 4, 5), [2, -1, 5], (2, 6, 5)),
        ((3, 4, 5), [0, -1], (3, 20)),
        # -2: copy all remaining input dims
        ((3, 4, 5), [-2], (3, 4, 5)),
        ((3, 4, 5), [3, -2], (3, 4, 5)),
        ((3, 4, 5), [-2, 1, 1], (3, 4, 5, 1, 1)),
        # -3: merge the next two input dims
        ((3, 4, 5), [-3, 5], (12, 5)),
        ((3, 4, 5), [0, -3], (3, 20)),
        ((3, 4, 5, 2), [-3, -3], (12, 10)),
        ((3, 4, 5), [-3, -2], (12, 5)),
        # -4: split one input dim into the following two values
        ((12, 5), [-4, 3, 4, 0], (3, 4, 5)),
        ((12, 5), [-4, -1, 6, -2], (2, 6, 5)),
        ((12, 5), [-4, 2, -1, -2], (2, 6, 5)),
        ((2, 12), [0, -4, 4, -1], (2, 4, 3)),
        # -1 together with the other codes
        ((2, 3, 4, 5), [-3, -1], (6, 20)),
        ((2, 3, 4), [-1, 0], (8, 3)),
    ],
)
def test_reshape_type(shape: Any, newshape: list[int], expected: Any):
    assert infer_shape(T.ReshapeOp, tt(shape), newshape=newshape) == expected


def test_reshape_allowzero():
    # with allowzero a 0 is a zero-sized dim; without it a 0 copies the input dim
    assert infer_shape(T.ReshapeOp, tt((0, 3)), newshape=[3, 0], allowzero=True) == (
        3,
        0,
    )
    with pytest.raises(TypeRelationError, match=r"to \[3, 3\] \(9 elements\)"):
        infer(T.ReshapeOp, tt((0, 3)), newshape=[3, 0])
    x = np.zeros((0, 3), np.float32)
    assert run1(T.ReshapeOp, x, newshape=[3, 0], allowzero=True).shape == (3, 0)
    # -1 cannot be inferred next to a zero-sized dim
    with pytest.raises(TypeRelationError, match="other dims have zero elements"):
        infer(T.ReshapeOp, tt((0, 4)), newshape=[-1, 0], allowzero=True)
    # without allowzero the 0 copies the 4 and -1 infers 0
    assert infer_shape(T.ReshapeOp, tt((0, 4)), newshape=[-1, 0]) == (0, 4)


def test_reshape_keeps_dtype():
    (ty,) = infer(T.ReshapeOp, tt((2, 3), "int8"), newshape=[-1])
    assert shape_and_dtype(ty) == ((6,), "int8")


@pytest.mark.parametrize(
    ("shape", "newshape", "message"),
    [
        ((2, 3, 4), [5, 5], r"cannot reshape \[2, 3, 4\] \(24 elements\) to \[5, 5\]"),
        ((2, 3, 4), [-1, -1], "more than one -1"),
        ((2, 3, 4), [0, 0, 0, 0], "copies input dim 3 but the input"),
        ((2, 3, 4), [0, 0, -3], "merges input dims 2 and 3"),
        ((2, 3, 4), [-4, -1, -1, -2], "cannot both be -1"),
        ((2, 3, 4), [-4, 2], "must be followed by two values"),
        ((2, 3, 4), [-4, 0, 2, -2], "must be positive or -1"),
        ((6, 4), [-4, 4, -1, 0], r"cannot split input dim 0 of size 6 into 4 x -1"),
        ((6, 4), [-4, 2, 2, 0], "cannot split input dim 0 of size 6"),
        ((2, 3, 4), [-5, 24], "unsupported value -5"),
    ],
)
def test_reshape_errors(shape: Any, newshape: list[int], message: str):
    with pytest.raises(TypeRelationError, match=message):
        infer(T.ReshapeOp, tt(shape), newshape=newshape)


@pytest.mark.parametrize("newshape", [[4, 6], [0, -1], [-1, 3, 2], [24], [2, 0, 0]])
def test_reshape_against_onnx(newshape: list[int]):
    x = rand(2, 3, 4)
    (expected,) = onnx_run("Reshape", {"x": x, "shape": i64(*newshape)})
    np.testing.assert_array_equal(run1(T.ReshapeOp, x, newshape=newshape), expected)


@pytest.mark.parametrize(
    ("newshape", "expected_shape"),
    [([-2, 1], (3, 4, 5, 1)), ([-3, 5], (12, 5)), ([-4, 1, 3, -2], (1, 3, 4, 5))],
)
def test_reshape_special_codes_keep_row_major_order(
    newshape: list[int], expected_shape: tuple[int, ...]
):
    x = rand(3, 4, 5)
    out = run1(T.ReshapeOp, x, newshape=newshape)
    assert out.shape == expected_shape
    # reshape never reorders: the flat element sequence is unchanged
    assert list(out.reshape(-1)) == [x[i, j, k] for i, j, k in np.ndindex(3, 4, 5)]


# ---------------------------------------------------------------------------------------
# reshape_like
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lhs", "rhs", "attrs", "expected"),
    [
        ((2, 3, 4), (4, 6), {}, (4, 6)),
        ((2, 3, 4), (6, 4, 7), {"lhs_end": 2, "rhs_end": 1}, (6, 4)),
        ((2, 3, 4), (12,), {"lhs_begin": -2}, (2, 12)),
        ((5, 2, 3), (9, 6, 1), {"lhs_begin": 1, "rhs_begin": 1, "rhs_end": -1}, (5, 6)),
        ((2, 3, 4), (1, 2, 3, 4), {"lhs_end": 0, "rhs_end": 1}, (1, 2, 3, 4)),
    ],
)
def test_reshape_like_type(lhs: Any, rhs: Any, attrs: dict[str, int], expected: Any):
    assert infer_shape(T.ReshapeLikeOp, tt(lhs), tt(rhs, "int32"), **attrs) == expected
    x = rand(*lhs)
    out = run1(T.ReshapeLikeOp, x, np.zeros(rhs, np.int32), **attrs)
    assert out.shape == expected
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.reshape(-1), x.reshape(-1))


def test_reshape_like_errors():
    with pytest.raises(TypeRelationError, match=r"cannot reshape \[2, 3\]"):
        infer(T.ReshapeLikeOp, tt((2, 3)), tt((7,)))
    with pytest.raises(TypeRelationError, match="lhs_begin 2 and lhs_end 1"):
        infer(T.ReshapeLikeOp, tt((2, 3)), tt((6,)), lhs_begin=2, lhs_end=1)
    with pytest.raises(TypeRelationError, match="rhs_begin 0 and rhs_end 5"):
        infer(T.ReshapeLikeOp, tt((2, 3)), tt((6,)), rhs_end=5)


@pytest.mark.parametrize(
    ("shape", "newshape", "expected"),
    [
        ((10, 5, 4), (-1, 0), (50, 4)),  # reshape would give (40, 5)
        ((4, 8, 16, 16), (32, 0, -1), (32, 16, 16)),
        ((2, 3, 4), (-2,), (2, 3, 4)),
        ((2, 3, 4), (0, -3), (2, 12)),
    ],
)
def test_reverse_reshape_reads_codes_from_the_right(
    shape: Any, newshape: Any, expected: Any
):
    assert infer_shape(T.ReverseReshapeOp, tt(shape), newshape=newshape) == expected
    x = rand(*shape)
    out = run1(T.ReverseReshapeOp, x, newshape=newshape)
    np.testing.assert_array_equal(out, x.reshape(expected))


def test_reverse_reshape_errors():
    with pytest.raises(TypeRelationError, match=r"cannot reshape .* from the right"):
        infer(T.ReverseReshapeOp, tt((2, 3)), newshape=[7])
    with pytest.raises(TypeRelationError, match="more than one -1"):
        infer(T.ReverseReshapeOp, tt((2, 3)), newshape=[-1, -1])


# ---------------------------------------------------------------------------------------
# transpose
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axes", "expected"),
    [
        (None, (5, 4, 3, 2)),
        ([0, 2, 3, 1], (2, 4, 5, 3)),
        ([-1, 0, -2, 1], (5, 2, 4, 3)),
        ([0, 1, 2, 3], (2, 3, 4, 5)),
    ],
)
def test_transpose(axes: list[int] | None, expected: Any):
    assert infer_shape(T.TransposeOp, tt((2, 3, 4, 5)), axes=axes) == expected
    x = rand(2, 3, 4, 5)
    perm = [a % 4 for a in axes] if axes is not None else [3, 2, 1, 0]
    (ref,) = onnx_run("Transpose", {"x": x}, perm=perm)
    np.testing.assert_array_equal(run1(T.TransposeOp, x, axes=axes), ref)


def test_transpose_errors():
    with pytest.raises(TypeRelationError, match="not a permutation"):
        infer(T.TransposeOp, tt((2, 3, 4)), axes=[0, 1, -2])
    with pytest.raises(TypeRelationError, match="has 2 entries but data has rank 3"):
        infer(T.TransposeOp, tt((2, 3, 4)), axes=[1, 0])
    with pytest.raises(TypeRelationError, match="axis 3 is out of range"):
        infer(T.TransposeOp, tt((2, 3, 4)), axes=[0, 1, 3])


# ---------------------------------------------------------------------------------------
# expand_dims / squeeze
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axis", "num", "expected", "onnx_axes"),
    [
        (0, 1, (1, 2, 3), [0]),
        (1, 1, (2, 1, 3), [1]),
        (2, 1, (2, 3, 1), [2]),
        (-1, 1, (2, 3, 1), [2]),
        (-3, 1, (1, 2, 3), [0]),
        (1, 2, (2, 1, 1, 3), [1, 2]),
        (-1, 3, (2, 3, 1, 1, 1), [2, 3, 4]),
    ],
)
def test_expand_dims(axis: int, num: int, expected: Any, onnx_axes: list[int]):
    assert (
        infer_shape(T.ExpandDimsOp, tt((2, 3)), axis=axis, num_newaxis=num) == expected
    )
    x = rand(2, 3)
    (ref,) = onnx_run("Unsqueeze", {"x": x, "axes": i64(*onnx_axes)})
    np.testing.assert_array_equal(
        run1(T.ExpandDimsOp, x, axis=axis, num_newaxis=num), ref
    )


def test_expand_dims_defaults_and_errors():
    assert infer_shape(T.ExpandDimsOp, tt((2, 3)), axis=1) == (2, 1, 3)
    assert infer_shape(T.ExpandDimsOp, tt((2, 3)), axis=1, num_newaxis=0) == (2, 3)
    with pytest.raises(TypeRelationError, match=r"axis 3 is out of range \[-3, 2\]"):
        infer(T.ExpandDimsOp, tt((2, 3)), axis=3)
    with pytest.raises(TypeRelationError, match="axis -4 is out of range"):
        infer(T.ExpandDimsOp, tt((2, 3)), axis=-4)
    with pytest.raises(TypeRelationError, match="num_newaxis must be >= 0"):
        infer(T.ExpandDimsOp, tt((2, 3)), axis=0, num_newaxis=-1)


@pytest.mark.parametrize(
    ("shape", "axis", "expected"),
    [
        ((1, 3, 1, 2), None, (3, 2)),
        ((1, 3, 1, 2), [0], (3, 1, 2)),
        ((1, 3, 1, 2), [-2, 0], (3, 2)),
        ((1, 3, 1, 2), [], (1, 3, 1, 2)),
        ((1, 1), None, ()),
        ((2, 3), None, (2, 3)),
    ],
)
def test_squeeze(shape: Any, axis: list[int] | None, expected: Any):
    assert infer_shape(T.SqueezeOp, tt(shape), axis=axis) == expected
    x = rand(*shape)
    inputs = {"x": x} if axis is None else {"x": x, "axes": i64(*axis)}
    (ref,) = onnx_run("Squeeze", inputs)
    np.testing.assert_array_equal(run1(T.SqueezeOp, x, axis=axis), ref)


def test_squeeze_errors():
    with pytest.raises(TypeRelationError, match="cannot squeeze axis 1 of size 3"):
        infer(T.SqueezeOp, tt((1, 3)), axis=[1])
    with pytest.raises(TypeRelationError, match="axis 2 is out of range for rank 2"):
        infer(T.SqueezeOp, tt((1, 3)), axis=[2])


# ---------------------------------------------------------------------------------------
# concatenate / stack
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shapes", "axis", "expected"),
    [
        ([(2, 3), (4, 3)], 0, (6, 3)),
        ([(2, 3), (2, 1), (2, 5)], 1, (2, 9)),
        ([(2, 3), (2, 1), (2, 5)], -1, (2, 9)),
        ([(2, 3, 4)], 2, (2, 3, 4)),
        ([(2, 0), (2, 3)], 1, (2, 3)),
    ],
)
def test_concatenate(shapes: list[Any], axis: int, expected: Any):
    assert infer_shape(T.ConcatenateOp, *(tt(s) for s in shapes), axis=axis) == expected
    arrays = [rand(*s) for s in shapes]
    (ref,) = onnx_run("Concat", {f"x{k}": a for k, a in enumerate(arrays)}, axis=axis)
    np.testing.assert_array_equal(run1(T.ConcatenateOp, *arrays, axis=axis), ref)


def test_concatenate_default_axis_and_errors():
    assert infer_shape(T.ConcatenateOp, tt((1, 2)), tt((3, 2))) == (4, 2)
    with pytest.raises(TypeRelationError, match="needs at least one tensor"):
        infer(T.ConcatenateOp)
    with pytest.raises(TypeRelationError, match="relay does not promote"):
        infer(T.ConcatenateOp, tt((1, 2)), tt((1, 2), "int32"))
    with pytest.raises(TypeRelationError, match="data.1. has rank 1 but data.0. has"):
        infer(T.ConcatenateOp, tt((1, 2)), tt((2,)))
    with pytest.raises(TypeRelationError, match=r"equal dims on axis 1, got \[2, 3\]"):
        infer(T.ConcatenateOp, tt((1, 2)), tt((1, 3)), axis=0)
    with pytest.raises(TypeRelationError, match="axis 2 is out of range for rank 2"):
        infer(T.ConcatenateOp, tt((1, 2)), tt((1, 2)), axis=2)


@pytest.mark.parametrize(
    ("axis", "expected"),
    [(0, (3, 2, 4)), (1, (2, 3, 4)), (2, (2, 4, 3)), (-1, (2, 4, 3))],
)
def test_stack(axis: int, expected: Any):
    arrays = [rand(2, 4) for _ in range(3)]
    assert infer_shape(T.StackOp, *(tt((2, 4)) for _ in arrays), axis=axis) == expected
    out = run1(T.StackOp, *arrays, axis=axis)
    pos = axis % 3
    for k, a in enumerate(arrays):
        # the k-th slice along the new axis is the k-th operand
        for i, j in itertools.product(range(2), range(4)):
            index = [i, j]
            index.insert(pos, k)
            assert out[tuple(index)] == a[i, j]


def test_stack_errors():
    with pytest.raises(TypeRelationError, match=r"equal dims on axis 0, got \[2, 3\]"):
        infer(T.StackOp, tt((2, 4)), tt((3, 4)), axis=0)
    with pytest.raises(TypeRelationError, match=r"axis 3 is out of range \[-3, 2\]"):
        infer(T.StackOp, tt((2, 4)), tt((2, 4)), axis=3)
    with pytest.raises(TypeRelationError, match="relay does not promote"):
        infer(T.StackOp, tt((2, 4)), tt((2, 4), "float64"), axis=0)
    with pytest.raises(TypeRelationError, match="needs at least one tensor"):
        infer(T.StackOp, axis=0)


# ---------------------------------------------------------------------------------------
# split
# ---------------------------------------------------------------------------------------


def split_shapes(shape: Any, **attrs: object) -> list[tuple[int, ...]]:
    return [shape_and_dtype(t)[0] for t in infer(T.SplitOp, tt(shape), **attrs)]


def test_split_attribute_forms():
    (x,) = placeholders(tt((6, 4)))
    by_count = T.SplitOp.make([x], {"indices_or_sections": 3})
    assert isinstance(by_count.indices_or_sections, IntegerAttr)
    assert len(by_count.results) == 3
    by_points = T.SplitOp.make([x], {"indices_or_sections": [3]})
    assert isinstance(by_points.indices_or_sections, DenseArrayBase)
    assert len(by_points.results) == 2
    single = T.SplitOp.make([x], {"indices_or_sections": 1})
    assert len(single.results) == 1


@pytest.mark.parametrize(
    ("shape", "attrs", "expected"),
    [
        ((6, 4), {"indices_or_sections": 3}, [(2, 4)] * 3),
        ((6, 4), {"indices_or_sections": 2, "axis": 1}, [(6, 2)] * 2),
        ((6, 4), {"indices_or_sections": 4, "axis": -1}, [(6, 1)] * 4),
        ((6, 4), {"indices_or_sections": 1}, [(6, 4)]),
        ((6, 4), {"indices_or_sections": [2, 5]}, [(2, 4), (3, 4), (1, 4)]),
        ((6, 4), {"indices_or_sections": [1], "axis": 1}, [(6, 1), (6, 3)]),
        # numpy.split semantics: pieces may be empty
        (
            (6, 4),
            {"indices_or_sections": [0, 2, 2, 9]},
            [(0, 4), (2, 4), (0, 4), (4, 4), (0, 4)],
        ),
        ((6, 4), {"indices_or_sections": [-2]}, [(4, 4), (2, 4)]),
    ],
)
def test_split_type(shape: Any, attrs: dict[str, Any], expected: list[Any]):
    assert split_shapes(shape, **attrs) == expected


def test_split_errors():
    with pytest.raises(TypeRelationError, match="4 sections do not divide"):
        infer(T.SplitOp, tt((6, 4)), indices_or_sections=4)
    with pytest.raises(TypeRelationError, match="number of sections must be >= 1"):
        infer(T.SplitOp, tt((6, 4)), indices_or_sections=0)
    with pytest.raises(TypeRelationError, match="cannot split a 0-d tensor"):
        infer(T.SplitOp, tt(()), indices_or_sections=1)
    with pytest.raises(TypeRelationError, match="axis 2 is out of range"):
        infer(T.SplitOp, tt((6, 4)), indices_or_sections=2, axis=2)


@pytest.mark.parametrize(
    ("attrs", "sizes"),
    [
        ({"indices_or_sections": 3}, [2, 2, 2]),
        ({"indices_or_sections": [1, 4]}, [1, 3, 2]),
        ({"indices_or_sections": [2], "axis": 1}, [2, 3]),
    ],
)
def test_split_against_onnx(attrs: dict[str, Any], sizes: list[int]):
    x = rand(6, 5)
    axis = attrs.get("axis", 0)
    refs = onnx_run(
        "Split", {"x": x, "split": i64(*sizes)}, n_outputs=len(sizes), axis=axis
    )
    outs = run_op(T.SplitOp, x, **attrs)
    assert len(outs) == len(refs)
    for out, ref in zip(outs, refs, strict=True):
        np.testing.assert_array_equal(out, ref)


def test_split_empty_pieces_by_hand():
    x = np.arange(6, dtype=np.float32)
    outs = run_op(T.SplitOp, x, indices_or_sections=[2, 2, 9])
    assert [list(np.asarray(o)) for o in outs] == [[0, 1], [], [2, 3, 4, 5], []]


# ---------------------------------------------------------------------------------------
# strided_slice
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({"begin": [0, 1], "end": [2, 4]}, (2, 3, 5)),
        ({"begin": [1], "end": [3]}, (2, 4, 5)),  # missing dims: whole
        ({"begin": [0, 0, 0], "end": [3, 4, 5], "strides": [2, 3, 2]}, (2, 2, 3)),
        ({"begin": [-1], "end": [-4], "strides": [-1]}, (3, 4, 5)),
        ({"begin": [10, -10], "end": [20, 10]}, (0, 4, 5)),  # clamped
        ({"begin": [1], "end": [3], "axes": [2]}, (3, 4, 2)),
        ({"begin": [1, 0], "end": [3, 2], "axes": [-1, 0]}, (2, 4, 2)),
        ({"begin": [1, 1], "end": [1, -1], "slice_mode": "size"}, (1, 3, 5)),
        ({"begin": [0], "end": [2], "strides": [-1], "slice_mode": "size"}, (2, 4, 5)),
    ],
)
def test_strided_slice_type(attrs: dict[str, Any], expected: Any):
    assert infer_shape(T.StridedSliceOp, tt((3, 4, 5)), **attrs) == expected


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"begin": [0], "end": [2], "strides": [0]}, "contain a zero stride"),
        (
            {"begin": [2], "end": [1]},
            r"begin 2 and end 1 .clamped to 2 and 1. are invalid",
        ),
        ({"begin": [0], "end": [2], "strides": [-1]}, "invalid for axis 0 of size 3"),
        ({"begin": [0], "end": [2], "slice_mode": "stride"}, "slice_mode must be"),
        ({"begin": [0, 0], "end": [1], "axes": [0, 1]}, "must have the same length"),
        (
            {"begin": [0, 0, 0, 0], "end": [1]},
            "begin has 4 entries but data has rank 3",
        ),
        ({"begin": [0], "end": [1], "axes": [3]}, "axes entry 3 is out of range"),
    ],
)
def test_strided_slice_errors(attrs: dict[str, Any], message: str):
    with pytest.raises(TypeRelationError, match=message):
        infer(T.StridedSliceOp, tt((3, 4, 5)), **attrs)


@pytest.mark.parametrize(
    ("begin", "end", "steps", "axes"),
    [
        ([0, 1, 0], [3, 4, 5], [1, 2, 2], [0, 1, 2]),
        ([-1], [-5], [-1], [1]),
        ([4, 3], [0, -6], [-2, -1], [2, 0]),
        ([1, -3], [-1, 100], [1, 1], [0, 2]),
        ([-100], [100], [3], [2]),
    ],
)
def test_strided_slice_against_onnx(
    begin: list[int], end: list[int], steps: list[int], axes: list[int]
):
    x = rand(3, 4, 5)
    (ref,) = onnx_run(
        "Slice",
        {
            "x": x,
            "starts": i64(*begin),
            "ends": i64(*end),
            "axes": i64(*axes),
            "steps": i64(*steps),
        },
    )
    out = run1(T.StridedSliceOp, x, begin=begin, end=end, strides=steps, axes=axes)
    np.testing.assert_array_equal(out, ref)


def test_strided_slice_negative_strides_by_hand():
    x = np.arange(6, dtype=np.int32)
    # begin wraps (-1 -> 5), end -7 wraps to -1 and clamps to -1: down to index 0
    assert list(run1(T.StridedSliceOp, x, begin=[-1], end=[-7], strides=[-2])) == [
        5,
        3,
        1,
    ]
    # begin beyond the end clamps to the last element for a negative stride
    assert list(run1(T.StridedSliceOp, x, begin=[10], end=[1], strides=[-3])) == [5, 2]
    # Relay pads a missing end with 0 for a negative stride: index 0 is excluded
    assert list(run1(T.StridedSliceOp, x, begin=[], end=[], strides=[-1])) == [
        5,
        4,
        3,
        2,
        1,
    ]
    # with an explicit end of "before the start" the whole axis is reversed
    assert list(run1(T.StridedSliceOp, x, begin=[5], end=[-100], strides=[-1])) == [
        5,
        4,
        3,
        2,
        1,
        0,
    ]


def test_strided_slice_size_mode_by_hand():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = run1(T.StridedSliceOp, x, begin=[1, 1], end=[2, 2], slice_mode="size")
    np.testing.assert_array_equal(out, [[5, 6], [9, 10]])
    # -1 takes everything to the end; strides are ignored in size mode
    out = run1(
        T.StridedSliceOp,
        x,
        begin=[0, 2],
        end=[-1, -1],
        strides=[2, 2],
        slice_mode="size",
    )
    np.testing.assert_array_equal(out, [[2, 3], [6, 7], [10, 11]])
    # a negative begin counts from the end; the size is added to the raw begin
    out = run1(T.StridedSliceOp, x, begin=[-2], end=[1], axes=[1], slice_mode="size")
    np.testing.assert_array_equal(out, [[2], [6], [10]])


def test_strided_slice_sweep_against_python_slicing():
    """Every begin/end/stride on a small axis: Relay either rejects a slice running
    against its stride (where Python gives an empty slice) or agrees with Python's
    slicing, element by element."""
    x = list(range(5))
    arr = np.array(x, dtype=np.int32)
    for b, e, s in itertools.product(range(-7, 8), range(-7, 8), (1, 2, 3, -1, -2)):
        try:
            out = run1(T.StridedSliceOp, arr, begin=[b], end=[e], strides=[s])
        except TypeRelationError:
            assert x[b:e:s] == [], (b, e, s)
            continue
        assert list(out) == x[b:e:s], (b, e, s)


def test_strided_slice_default_strides_with_axes():
    x = rand(3, 4, 5)
    out = run1(T.StridedSliceOp, x, begin=[1, 2], end=[3, 5], axes=[0, 2])
    np.testing.assert_array_equal(out, x[1:3, :, 2:5])


# ---------------------------------------------------------------------------------------
# take
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "indices", "attrs", "expected"),
    [
        ((3, 4, 5), (2, 2), {}, (2, 2)),
        ((3, 4, 5), (2, 2), {"axis": 1}, (3, 2, 2, 5)),
        ((3, 4, 5), (), {"axis": 0}, (4, 5)),
        ((3, 4, 5), (6,), {"axis": -1}, (3, 4, 6)),
        ((2, 3, 4), (2, 5), {"axis": 1, "batch_dims": 1}, (2, 5, 4)),
        ((2, 3, 4), (2, 5), {"axis": 2, "batch_dims": -1}, (2, 3, 5)),
        ((2, 3, 4), (2, 3, 5), {"axis": 2, "batch_dims": 2}, (2, 3, 5)),
    ],
)
def test_take_type(data: Any, indices: Any, attrs: dict[str, Any], expected: Any):
    assert infer_shape(T.TakeOp, tt(data), tt(indices, "int32"), **attrs) == expected


def test_take_errors():
    with pytest.raises(TypeRelationError, match="indices must be an integer tensor"):
        infer(T.TakeOp, tt((3, 4)), tt((2,)), axis=0)
    with pytest.raises(TypeRelationError, match="batch dim 0: data has 2 but indices"):
        infer(T.TakeOp, tt((2, 3)), tt((3, 2), "int32"), axis=1, batch_dims=1)
    with pytest.raises(TypeRelationError, match=r"batch_dims 2 must be in \[0, 1\]"):
        infer(T.TakeOp, tt((2, 3, 4)), tt((2, 3), "int32"), axis=1, batch_dims=2)
    with pytest.raises(TypeRelationError, match="mode must be"):
        infer(T.TakeOp, tt((2, 3)), tt((2,), "int32"), axis=1, mode="raise")
    with pytest.raises(TypeRelationError, match="axis 2 is out of range"):
        infer(T.TakeOp, tt((2, 3)), tt((2,), "int32"), axis=2)


@pytest.mark.parametrize(
    ("axis", "ishape"), [(0, (2, 3)), (1, (4,)), (-1, (2, 2)), (2, ())]
)
def test_take_against_onnx_gather(axis: int, ishape: tuple[int, ...]):
    x = rand(3, 4, 5)
    idx = RNG.integers(0, x.shape[axis], ishape).astype(np.int64)
    (ref,) = onnx_run("Gather", {"x": x, "i": idx}, axis=axis)
    np.testing.assert_array_equal(run1(T.TakeOp, x, idx, axis=axis), ref)


def test_take_flat_and_modes_by_hand():
    x = np.array([[1, 2], [3, 4]], dtype=np.float32)
    np.testing.assert_array_equal(
        run1(T.TakeOp, x, np.array([3, 0, 2], np.int32)), [4, 1, 3]
    )
    row = np.array([10, 20, 30, 40], dtype=np.int32)
    idx = np.array([-5, -1, 0, 3, 4, 9], dtype=np.int32)
    np.testing.assert_array_equal(
        run1(T.TakeOp, row, idx, axis=0), [10, 10, 10, 40, 40, 40]
    )  # clip: negative indices clamp to 0
    np.testing.assert_array_equal(
        run1(T.TakeOp, row, idx, axis=0, mode="wrap"), [40, 40, 10, 40, 10, 20]
    )
    np.testing.assert_array_equal(
        run1(T.TakeOp, row, np.array([2, 0], np.int32), axis=0, mode="fast"), [30, 10]
    )
    # flattened take clips against the total size
    np.testing.assert_array_equal(
        run1(T.TakeOp, x, np.array([7, -1], np.int32)), [4, 1]
    )


def test_take_batch_dims_against_loops():
    x = rand(2, 3, 4, 5)
    idx = RNG.integers(0, 4, (2, 3, 6)).astype(np.int32)
    out = run1(T.TakeOp, x, idx, axis=2, batch_dims=2)
    assert out.shape == (2, 3, 6, 5)
    for b0, b1, j, r in itertools.product(range(2), range(3), range(6), range(5)):
        assert out[b0, b1, j, r] == x[b0, b1, idx[b0, b1, j], r]

    idx1 = RNG.integers(0, 4, (2, 7)).astype(np.int32)
    out = run1(T.TakeOp, x, idx1, axis=2, batch_dims=1)
    assert out.shape == (2, 3, 7, 5)
    for b0, d1, j, r in itertools.product(range(2), range(3), range(7), range(5)):
        assert out[b0, d1, j, r] == x[b0, d1, idx1[b0, j], r]


# ---------------------------------------------------------------------------------------
# gather / gather_nd
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("axis", "ishape"), [(0, (5, 4)), (1, (3, 2)), (-1, (3, 7))])
def test_gather(axis: int, ishape: tuple[int, ...]):
    x = rand(3, 4)
    assert infer_shape(T.GatherOp, tt((3, 4)), tt(ishape, "int64"), axis=axis) == ishape
    idx = RNG.integers(0, x.shape[axis], ishape).astype(np.int64)
    # (ONNX's reference GatherElements mishandles a negative axis: give it 0..rank-1)
    (ref,) = onnx_run("GatherElements", {"x": x, "i": idx}, axis=axis % 2)
    np.testing.assert_array_equal(run1(T.GatherOp, x, idx, axis=axis), ref)


def test_gather_errors():
    with pytest.raises(
        TypeRelationError, match="indices has rank 1 but data has rank 2"
    ):
        infer(T.GatherOp, tt((3, 4)), tt((3,), "int32"), axis=0)
    with pytest.raises(
        TypeRelationError, match="indices dim 1 is 5 but data dim 1 is 4"
    ):
        infer(T.GatherOp, tt((3, 4)), tt((3, 5), "int32"), axis=0)
    with pytest.raises(TypeRelationError, match="must be >= 1"):
        infer(T.GatherOp, tt((3, 4)), tt((0, 4), "int32"), axis=0)
    with pytest.raises(TypeRelationError, match="indices must be an integer tensor"):
        infer(T.GatherOp, tt((3, 4)), tt((3, 4)), axis=0)


@pytest.mark.parametrize(
    ("data", "indices", "batch", "expected"),
    [
        ((2, 3, 4), (2, 5), 0, (5, 4)),
        ((2, 3, 4), (3, 2, 2), 0, (2, 2)),
        ((2, 3, 4), (1,), 0, (3, 4)),
        ((2, 3, 4), (1, 2, 5), 1, (2, 5, 4)),
        ((2, 3, 4), (2, 2, 6), 1, (2, 6)),
    ],
)
def test_gather_nd(data: Any, indices: Any, batch: int, expected: Any):
    assert (
        infer_shape(T.GatherNDOp, tt(data), tt(indices, "int64"), batch_dims=batch)
        == expected
    )
    x = rand(*data)
    m = indices[0]
    idx = np.stack(
        [RNG.integers(0, data[batch + k], indices[1:]) for k in range(m)]
    ).astype(np.int64)
    if batch:
        # the batch dims of indices must index data's batch dims in order
        idx = idx[:, : data[0]]
    (ref,) = onnx_run(
        "GatherND", {"x": x, "i": np.moveaxis(idx, 0, -1).copy()}, batch_dims=batch
    )
    np.testing.assert_array_equal(run1(T.GatherNDOp, x, idx, batch_dims=batch), ref)


def test_gather_nd_errors():
    with pytest.raises(TypeRelationError, match="address 4 dims after 0 batch dims"):
        infer(T.GatherNDOp, tt((2, 3, 4)), tt((4, 2), "int32"))
    with pytest.raises(TypeRelationError, match="batch dim 0: data has 2 but indices"):
        infer(T.GatherNDOp, tt((2, 3, 4)), tt((1, 3), "int32"), batch_dims=1)
    with pytest.raises(TypeRelationError, match="index_rank 1 differs"):
        infer(T.GatherNDOp, tt((2, 3, 4)), tt((2, 3), "int32"), index_rank=1)
    with pytest.raises(TypeRelationError, match="indices must be an integer tensor"):
        infer(T.GatherNDOp, tt((2, 3, 4)), tt((2, 3)))
    assert infer_shape(T.GatherNDOp, tt((2, 3)), tt((2, 4), "int32"), index_rank=2) == (
        4,
    )


# ---------------------------------------------------------------------------------------
# broadcast_to / broadcast_to_like / collapse_sum_like
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "dst"), [((3, 1), (2, 3, 4)), ((), (2, 2)), ((1,), (0,)), ((2, 3), (2, 3))]
)
def test_broadcast_to(src: Any, dst: Any):
    assert infer_shape(T.BroadcastToOp, tt(src), shape=list(dst)) == dst
    x = rand(*src)
    (ref,) = onnx_run("Expand", {"x": x, "shape": i64(*dst)})
    np.testing.assert_array_equal(run1(T.BroadcastToOp, x, shape=list(dst)), ref)


def test_broadcast_to_errors():
    with pytest.raises(TypeRelationError, match=r"\[3\] does not broadcast to \[4\]"):
        infer(T.BroadcastToOp, tt((3,)), shape=[4])
    with pytest.raises(
        TypeRelationError, match=r"\[2, 3\] does not broadcast to \[3\]"
    ):
        infer(T.BroadcastToOp, tt((2, 3)), shape=[3])
    with pytest.raises(TypeRelationError, match="negative dimension"):
        infer(T.BroadcastToOp, tt((1,)), shape=[-1])


def test_broadcast_to_like():
    (ty,) = infer(T.BroadcastToLikeOp, tt((3, 1)), tt((2, 3, 4)))
    assert shape_and_dtype(ty) == ((2, 3, 4), F32)
    x = np.array([[1.0], [2.0], [3.0]], np.float32)
    out = run1(T.BroadcastToLikeOp, x, np.zeros((2, 3, 4), np.float32))
    for i, j, k in np.ndindex(2, 3, 4):
        assert out[i, j, k] == j + 1
    with pytest.raises(TypeRelationError, match="relay does not promote"):
        infer(T.BroadcastToLikeOp, tt((3, 1)), tt((3, 4), "int32"))
    with pytest.raises(TypeRelationError, match="does not broadcast"):
        infer(T.BroadcastToLikeOp, tt((3, 2)), tt((3, 4)))


def test_collapse_sum_like():
    (ty,) = infer(T.CollapseSumLikeOp, tt((2, 3, 4)), tt((3, 1)))
    assert shape_and_dtype(ty) == ((3, 1), F32)
    x = rand(2, 3, 4)
    out = run1(T.CollapseSumLikeOp, x, np.zeros((3, 1), np.float32))
    assert out.shape == (3, 1)
    for j in range(3):
        total = sum(float(x[i, j, k]) for i in range(2) for k in range(4))
        assert out[j, 0] == pytest.approx(total, rel=1e-5)
    same = run1(T.CollapseSumLikeOp, x, np.zeros((2, 3, 4), np.float32))
    np.testing.assert_array_equal(same, x)
    with pytest.raises(TypeRelationError, match=r"\[2, 4\] does not broadcast"):
        infer(T.CollapseSumLikeOp, tt((3, 4)), tt((2, 4)))
    with pytest.raises(TypeRelationError, match="relay does not promote"):
        infer(T.CollapseSumLikeOp, tt((3, 4)), tt((4,), "float16"))


# ---------------------------------------------------------------------------------------
# tile / repeat / reverse
# ---------------------------------------------------------------------------------------


def test_tile_against_onnx():
    x = rand(2, 3)
    assert infer_shape(T.TileOp, tt((2, 3)), reps=[3, 2]) == (6, 6)
    (ref,) = onnx_run("Tile", {"x": x, "r": i64(3, 2)})
    np.testing.assert_array_equal(run1(T.TileOp, x, reps=[3, 2]), ref)


def test_tile_rank_padding_against_loops():
    x = rand(2, 3)
    assert infer_shape(T.TileOp, tt((2, 3)), reps=[2]) == (2, 6)
    assert infer_shape(T.TileOp, tt((2, 3)), reps=[2, 1, 2]) == (2, 2, 6)
    out = run1(T.TileOp, x, reps=[2, 1, 2])
    for a, i, j in np.ndindex(2, 2, 6):
        assert out[a, i, j] == x[i, j % 3]
    out = run1(T.TileOp, x, reps=[2])
    for i, j in np.ndindex(2, 6):
        assert out[i, j] == x[i, j % 3]
    with pytest.raises(TypeRelationError, match="must all be > 0"):
        infer(T.TileOp, tt((2, 3)), reps=[1, 0])


def test_repeat():
    assert infer_shape(T.RepeatOp, tt((2, 3)), repeats=2, axis=1) == (2, 6)
    assert infer_shape(T.RepeatOp, tt((2, 3)), repeats=3, axis=-2) == (6, 3)
    x = np.array([[1, 2], [3, 4]], np.int32)
    np.testing.assert_array_equal(
        run1(T.RepeatOp, x, repeats=2, axis=1), [[1, 1, 2, 2], [3, 3, 4, 4]]
    )
    np.testing.assert_array_equal(
        run1(T.RepeatOp, x, repeats=2, axis=0), [[1, 2], [1, 2], [3, 4], [3, 4]]
    )
    with pytest.raises(TypeRelationError, match="repeats must be >= 1"):
        infer(T.RepeatOp, tt((2, 3)), repeats=0, axis=0)
    with pytest.raises(TypeRelationError, match="axis 2 is out of range"):
        infer(T.RepeatOp, tt((2, 3)), repeats=2, axis=2)


def test_reverse():
    assert infer_shape(T.ReverseOp, tt((2, 3)), axis=-1) == (2, 3)
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    np.testing.assert_array_equal(run1(T.ReverseOp, x, axis=0), [[4, 5, 6], [1, 2, 3]])
    np.testing.assert_array_equal(run1(T.ReverseOp, x, axis=-1), [[3, 2, 1], [6, 5, 4]])
    with pytest.raises(TypeRelationError, match="axis 2 is out of range"):
        infer(T.ReverseOp, tt((2, 3)), axis=2)


# ---------------------------------------------------------------------------------------
# layout_transform
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "dst", "shape", "expected"),
    [
        ("NCHW", "NCHW8c", (1, 16, 4, 5), (1, 2, 4, 5, 8)),
        ("NCHW8c", "NCHW", (1, 2, 4, 5, 8), (1, 16, 4, 5)),
        ("NCHW", "NHWC", (1, 3, 4, 5), (1, 4, 5, 3)),
        ("NCHW4c", "NCHW8c", (1, 4, 4, 5, 4), (1, 2, 4, 5, 8)),
    ],
)
def test_layout_transform_type(src: str, dst: str, shape: Any, expected: Any):
    assert (
        infer_shape(T.LayoutTransformOp, tt(shape), src_layout=src, dst_layout=dst)
        == expected
    )


def test_layout_transform_errors():
    with pytest.raises(TypeRelationError, match="cannot be split by 8"):
        infer(
            T.LayoutTransformOp,
            tt((1, 12, 4, 4)),
            src_layout="NCHW",
            dst_layout="NCHW8c",
        )
    with pytest.raises(TypeRelationError, match="primal axes differ"):
        infer(
            T.LayoutTransformOp,
            tt((1, 12, 4, 4)),
            src_layout="NCHW",
            dst_layout="NCDHW",
        )
    with pytest.raises(TypeRelationError, match="duplicate axis 'C'"):
        infer(
            T.LayoutTransformOp, tt((1, 12, 4, 4)), src_layout="NCHC", dst_layout="NCHW"
        )
    with pytest.raises(TypeRelationError, match="has rank 3 but layout 'NCHW'"):
        infer(T.LayoutTransformOp, tt((1, 12, 4)), src_layout="NCHW", dst_layout="NHWC")


def test_layout_transform_round_trip_and_loops():
    x = rand(2, 16, 3, 4)
    packed = run1(T.LayoutTransformOp, x, src_layout="NCHW", dst_layout="NCHW8c")
    assert packed.shape == (2, 2, 3, 4, 8)
    for n, co, h, w, ci in np.ndindex(*packed.shape):
        assert packed[n, co, h, w, ci] == x[n, co * 8 + ci, h, w]
    back = run1(T.LayoutTransformOp, packed, src_layout="NCHW8c", dst_layout="NCHW")
    np.testing.assert_array_equal(back, x)


def test_layout_transform_nchw_to_nhwc():
    x = rand(2, 3, 4, 5)
    out = run1(T.LayoutTransformOp, x, src_layout="NCHW", dst_layout="NHWC")
    assert out.shape == (2, 4, 5, 3)
    for n, h, w, c in np.ndindex(*out.shape):
        assert out[n, h, w, c] == x[n, c, h, w]


# ---------------------------------------------------------------------------------------
# shape_of / one_hot
# ---------------------------------------------------------------------------------------


def test_shape_of():
    (ty,) = infer(T.ShapeOfOp, tt((2, 3, 4)))
    assert shape_and_dtype(ty) == ((3,), "int32")
    (ty,) = infer(T.ShapeOfOp, tt((2, 3, 4)), dtype="int64")
    assert shape_and_dtype(ty) == ((3,), "int64")
    (ty,) = infer(T.ShapeOfOp, tt(()))
    assert shape_and_dtype(ty) == ((0,), "int32")
    x = rand(2, 3, 4)
    (ref,) = onnx_run("Shape", {"x": x})
    out = run1(T.ShapeOfOp, x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref)
    out = run1(T.ShapeOfOp, x, dtype="float32")  # Relay allows a float dtype
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [2.0, 3.0, 4.0])
    with pytest.raises(TypeRelationError, match="dtype must be an integer or float"):
        infer(T.ShapeOfOp, tt((2,)), dtype="bool")


@pytest.mark.parametrize(
    ("axis", "expected"),
    [(-1, (2, 3, 4)), (0, (4, 2, 3)), (1, (2, 4, 3)), (2, (2, 3, 4))],
)
def test_one_hot(axis: int, expected: Any):
    attrs: dict[str, Any] = {"depth": 4, "axis": axis, "dtype": "float32"}
    types = (tt((2, 3), "int32"), tt((), "float32"), tt((), "float32"))
    assert infer_shape(T.OneHotOp, *types, **attrs) == expected
    idx = RNG.integers(0, 4, (2, 3)).astype(np.int64)
    on, off = np.array(5.0, np.float32), np.array(-1.0, np.float32)
    (ref,) = onnx_run(
        "OneHot",
        {
            "i": idx,
            "depth": np.array(4, np.int64),
            "values": np.array([-1.0, 5.0], np.float32),
        },
        axis=axis,
    )
    out = run1(T.OneHotOp, idx, on, off, **attrs)
    np.testing.assert_array_equal(out, ref)


def test_one_hot_dtype_and_out_of_range_by_hand():
    idx = np.array([0, 2, 3, -1], np.int32)
    out = run1(
        T.OneHotOp,
        idx,
        np.array(1, np.int32),
        np.array(0, np.int32),
        depth=3,
        dtype="int8",
    )
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])


def test_one_hot_errors():
    scalar = tt((), "float32")
    with pytest.raises(TypeRelationError, match="depth must be > 0"):
        infer(T.OneHotOp, tt((2,), "int32"), scalar, scalar, depth=0, dtype="float32")
    with pytest.raises(TypeRelationError, match="on_value must be a 0-d tensor"):
        infer(T.OneHotOp, tt((2,), "int32"), tt((1,)), scalar, depth=2, dtype="float32")
    with pytest.raises(TypeRelationError, match="indices must be an integer tensor"):
        infer(T.OneHotOp, tt((2,)), scalar, scalar, depth=2, dtype="float32")
    with pytest.raises(TypeRelationError, match=r"axis 2 is out of range \[-2, 1\]"):
        infer(
            T.OneHotOp,
            tt((2,), "int32"),
            scalar,
            scalar,
            depth=2,
            axis=2,
            dtype="float32",
        )
