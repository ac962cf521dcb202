"""Every data-movement (transform) op lowered and run against its numpy semantics,
with random shapes and attributes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import transform as tr
from xrelay.dialects.relay.layout import transform_array

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _x(rng: Gen, *shape: int, dtype: str = "float32") -> Any:
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-50, 50, shape).astype(dtype)


def _shape(rng: Gen, rank: int) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(1, 6, rank))


def test_reshapes(rng: Gen, check: Check, case: Any):
    x = _x(rng, 2, 3, 4)
    check(
        [
            case(tr.ReshapeOp, [x], {"newshape": [4, -1]}),
            case(tr.ReshapeOp, [x], {"newshape": [0, -3]}),
            case(tr.ReshapeOp, [x], {"newshape": [-4, 1, 2, -2]}),
            case(tr.ReshapeOp, [_x(rng, 6, dtype="int32")], {"newshape": [3, 2]}),
            case(tr.ReshapeLikeOp, [x, _x(rng, 6, 4)], {"lhs_end": 2, "rhs_end": 1}),
            case(tr.ReverseReshapeOp, [x], {"newshape": [-1, 0]}),
            case(tr.ReverseReshapeOp, [_x(rng, 4, 2, 3, 2)], {"newshape": [8, 0, -1]}),
            case(
                tr.ExpandDimsOp,
                [x],
                {"axis": int(rng.integers(-4, 4)), "num_newaxis": 2},
            ),
            case(tr.SqueezeOp, [_x(rng, 1, 3, 1, 2)]),
            case(tr.SqueezeOp, [_x(rng, 1, 3, 1, 2)], {"axis": [2]}),
        ]
    )


def test_transpose(rng: Gen, check: Check, case: Any):
    cases = [case(tr.TransposeOp, [_x(rng, 2, 3, 4)])]
    for rank in (2, 3, 4):
        perm = [int(a) for a in rng.permutation(rank)]
        cases.append(
            case(tr.TransposeOp, [_x(rng, *_shape(rng, rank))], {"axes": perm})
        )
    cases.append(case(tr.TransposeOp, [_x(rng, 3, 5, dtype="int8")], {"axes": [-1, 0]}))
    check(cases)


def test_concatenate_stack_split(rng: Gen, check: Check, case: Any):
    a, b, c = _x(rng, 2, 3, 4), _x(rng, 2, 1, 4), _x(rng, 2, 5, 4)
    check(
        [
            case(tr.ConcatenateOp, [a, b, c], {"axis": 1}),
            case(tr.ConcatenateOp, [a, a], {"axis": -1}),
            case(
                tr.ConcatenateOp, [_x(rng, 3, dtype="int32"), _x(rng, 2, dtype="int32")]
            ),
            case(tr.StackOp, [a, a, a], {"axis": 0}),
            case(tr.StackOp, [b, b], {"axis": -1}),
            case(tr.SplitOp, [_x(rng, 6, 4)], {"indices_or_sections": 3}),
            case(
                tr.SplitOp, [_x(rng, 3, 7)], {"indices_or_sections": [2, 5], "axis": 1}
            ),
        ]
    )


def test_strided_slice(rng: Gen, check: Check, case: Any):
    x = _x(rng, 5, 6, 7)
    check(
        [
            case(tr.StridedSliceOp, [x], {"begin": [1, 0, 2], "end": [4, 6, 7]}),
            case(
                tr.StridedSliceOp,
                [x],
                {"begin": [0, 5], "end": [5, 0], "strides": [2, -2]},
            ),
            case(tr.StridedSliceOp, [x], {"begin": [-3], "end": [-1], "axes": [2]}),
            case(
                tr.StridedSliceOp,
                [x],
                {"begin": [1, 1], "end": [2, -1], "slice_mode": "size"},
            ),
        ]
    )


def test_take_gather(rng: Gen, check: Check, case: Any):
    x = _x(rng, 4, 5, 3)
    idx = rng.integers(-7, 9, (2, 3)).astype("int32")
    gidx = rng.integers(0, 5, (4, 2, 3)).astype("int64")
    nd = np.stack([rng.integers(0, 4, (2, 3)), rng.integers(-5, 5, (2, 3))]).astype(
        "int32"
    )
    check(
        [
            case(tr.TakeOp, [x, idx], {"axis": 1}),
            case(tr.TakeOp, [x, idx], {"axis": 0, "mode": "wrap"}),
            case(tr.TakeOp, [x, idx]),
            case(
                tr.TakeOp,
                [x, rng.integers(0, 5, (4, 2)).astype("int32")],
                {"axis": 1, "batch_dims": 1},
            ),
            case(tr.GatherOp, [x, gidx], {"axis": 1}),
            case(tr.GatherNDOp, [x, nd]),
            case(
                tr.GatherNDOp,
                [x, rng.integers(0, 5, (1, 4)).astype("int32")],
                {"batch_dims": 1},
            ),
        ]
    )


def test_broadcast_tile_repeat_reverse(rng: Gen, check: Check, case: Any):
    x = _x(rng, 3, 1)
    check(
        [
            case(tr.BroadcastToOp, [x], {"shape": [2, 3, 4]}),
            case(tr.BroadcastToLikeOp, [x, _x(rng, 3, 5)]),
            case(tr.CollapseSumLikeOp, [_x(rng, 2, 3, 4), _x(rng, 3, 1)]),
            case(tr.TileOp, [_x(rng, 2, 3)], {"reps": [2, 1, 3]}),
            case(tr.TileOp, [_x(rng, 2, 3, 2)], {"reps": [2]}),
            case(tr.RepeatOp, [_x(rng, 2, 3)], {"repeats": 3, "axis": 1}),
            case(tr.ReverseOp, [_x(rng, 3, 4)], {"axis": int(rng.integers(-2, 2))}),
        ]
    )


def test_layout_transform(rng: Gen, check: Check, case: Any):
    check(
        [
            case(
                tr.LayoutTransformOp,
                [_x(rng, 1, 16, 3, 2)],
                {"src_layout": "NCHW", "dst_layout": "NCHW8c"},
            ),
            case(
                tr.LayoutTransformOp,
                [_x(rng, 2, 2, 3, 2, 8)],
                {"src_layout": "NCHW8c", "dst_layout": "NHWC"},
            ),
            case(
                tr.LayoutTransformOp,
                [_x(rng, 1, 4, 3, 2, 4)],
                {"src_layout": "NCHW4c", "dst_layout": "NCHW2c"},
            ),
            case(
                tr.LayoutTransformOp,
                [_x(rng, 8, 4, 3, 3)],
                {"src_layout": "OIHW", "dst_layout": "OIHW2i4o"},
            ),
        ]
    )


@pytest.mark.parametrize(
    ("shape", "src", "dst"),
    [
        ((2, 48, 5, 7), "NCHW", "NCHW16c"),
        ((1, 3, 5, 7, 16), "NCHW16c", "NCHW"),
        ((1, 3, 9, 11), "NCHW", "NCHW3c"),
        ((1, 1, 1, 1, 8), "NCHW8c", "NCHW"),
        ((1, 17, 1, 3, 2), "NCHW2c", "NCHW"),
        ((48,), "C", "C16c"),
        ((3, 16), "C16c", "C"),
        ((1, 5, 3, 32), "NHWC", "NHWC8c"),
        ((1, 128, 2, 3), "NCHW", "NCHW128c"),
        ((1, 2, 2, 3, 64), "NCHW64c", "NCHW"),
    ],
)
def test_blocked_layout_copy(
    shape: tuple[int, ...], src: str, dst: str, check: Check, case: Any
):
    """The blocked copy of a plain <-> blocked transform (odd planes, 1-sized
    dims, blocks of 2 to 64, a block too large to unroll) in float32 and int32."""
    rng = np.random.default_rng(len(shape) + shape[-1])
    x = _x(rng, *shape)
    np.testing.assert_array_equal(
        transform_array(transform_array(x, src, dst), dst, src), x
    )
    check(
        [
            case(tr.LayoutTransformOp, [x], {"src_layout": src, "dst_layout": dst}),
            case(
                tr.LayoutTransformOp,
                [x.astype(np.int32)],
                {"src_layout": src, "dst_layout": dst},
            ),
        ]
    )


def test_shape_of_and_one_hot(rng: Gen, check: Check, case: Any):
    idx = rng.integers(-1, 5, (2, 3)).astype("int32")
    check(
        [
            case(tr.ShapeOfOp, [_x(rng, 2, 5, 3)]),
            case(tr.ShapeOfOp, [_x(rng, 4)], {"dtype": "int64"}),
            case(tr.ShapeOfOp, [_x(rng, 3, 2)], {"dtype": "float32"}),
            case(tr.NdarraySizeOp, [_x(rng, 2, 5, 3)]),
            case(tr.NdarraySizeOp, [_x(rng, 4)], {"dtype": "int64"}),
            case(tr.CollapseSumToOp, [_x(rng, 2, 3, 4)], {"shape": [3, 1]}),
            case(tr.CollapseSumToOp, [_x(rng, 3, 4, dtype="int32")], {"shape": [4]}),
            case(
                tr.OneHotOp,
                [idx, np.float32(1.0), np.float32(0.0)],
                {"depth": 4, "dtype": "float32"},
            ),
            case(
                tr.OneHotOp,
                [idx, np.int32(5), np.int32(-1)],
                {"depth": 3, "axis": 0, "dtype": "int32"},
                constants=[1, 2],
            ),
        ]
    )


def test_every_transform_op_is_tested():
    """A new op in the family must get a case here."""
    tested = {
        tr.ReshapeOp, tr.ReshapeLikeOp, tr.TransposeOp, tr.ExpandDimsOp, tr.SqueezeOp,
        tr.ConcatenateOp, tr.StackOp, tr.SplitOp, tr.StridedSliceOp, tr.TakeOp,
        tr.GatherOp, tr.GatherNDOp, tr.BroadcastToOp, tr.BroadcastToLikeOp,
        tr.CollapseSumLikeOp, tr.TileOp, tr.RepeatOp, tr.ReverseOp,
        tr.LayoutTransformOp, tr.ShapeOfOp, tr.OneHotOp, tr.NdarraySizeOp,
        tr.CollapseSumToOp, tr.ReverseReshapeOp,
    }  # fmt: skip
    assert not [op.name for op in tr.TRANSFORM_OPS if op not in tested]


@pytest.mark.parametrize("seed", range(3))
def test_random_transposes_and_slices(seed: int, check: Check, case: Any):
    """More random permutations and slices (shapes and bounds drawn per seed)."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(4):
        rank = int(rng.integers(1, 5))
        shape = _shape(rng, rank)
        x = _x(rng, *shape)
        cases.append(
            case(tr.TransposeOp, [x], {"axes": [int(a) for a in rng.permutation(rank)]})
        )
        begin = [int(rng.integers(0, d)) for d in shape]
        end = [
            int(rng.integers(b + 1, d + 1)) for b, d in zip(begin, shape, strict=True)
        ]
        strides = [int(rng.integers(1, 3)) for _ in shape]
        cases.append(
            case(
                tr.StridedSliceOp, [x], {"begin": begin, "end": end, "strides": strides}
            )
        )
    check(cases)


def test_reshape_groups():
    """Reshapes map run by run: dims in both shapes pass through, splits and merges
    divide within their run only."""
    from xrelay.lowering.kernels.transform import reshape_groups

    def runs(src: list[int], dst: list[int]) -> Any:
        groups = reshape_groups(src, dst)
        assert groups is not None
        return [(list(a), list(b)) for a, b in groups]

    assert runs([1, 116, 28, 28], [1, 2, 58, 28, 28]) == [
        ([0], [0]), ([1], [1, 2]), ([2], [3]), ([3], [4])
    ]  # fmt: skip
    assert runs([1, 58, 2, 7, 7], [1, 116, 7, 7]) == [
        ([0], [0]), ([1, 2], [1]), ([3], [2]), ([4], [3])
    ]  # fmt: skip
    assert runs([2, 3, 4], [4, 3, 2]) == [([0, 1, 2], [0, 1, 2])]
    assert runs([6], [1, 6, 1]) == [([0], [0, 1]), ([], [2])]
    assert runs([1, 1], []) == [([0], []), ([1], [])]
    assert reshape_groups([0, 3], [3, 0]) is None


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ((1, 12, 3, 5), (1, 2, 6, 3, 5)),  # a split axis, the rest untouched
        ((1, 6, 2, 3, 5), (1, 12, 3, 5)),  # a merge
        ((2, 3, 4), (4, 3, 2)),  # one run over everything
        ((6, 1, 5), (3, 2, 5, 1)),  # size-1 dims inside runs
        ((1, 1), (1,)),
        ((4, 6, 10), (2, 2, 60)),  # runs that regroup across axes
        ((5,), (1, 5, 1, 1)),
    ],
)
def test_reshape_by_runs(
    src: tuple[int, ...], dst: tuple[int, ...], rng: Gen, check: Check, case: Any
):
    check([case(tr.ReshapeOp, [_x(rng, *src)], {"newshape": list(dst)})])


@pytest.mark.parametrize("channels", [6, 58, 116])
def test_channel_shuffle_chain(channels: int):
    """ShuffleNet's channel shuffle fused with its concatenation and the next split
    (one injective kernel of reshapes, a transpose, a concatenation in the blocked
    layout of a convolution's output) against numpy, at opt_level 3."""
    import xrelay
    from xrelay import relay

    rng = np.random.default_rng(channels)
    half, hw = channels // 2, 5
    x = relay.var("x", shape=(1, channels, hw, hw))
    wv = rng.standard_normal((half, half, 1, 1)).astype(np.float32)
    w = relay.const(wv)
    a, b = relay.split(x, 2, axis=1)
    y = relay.nn.relu(relay.nn.conv2d(b, w))
    cat = relay.concatenate([a, y], axis=1)
    shuffled = relay.reshape(
        relay.transpose(relay.reshape(cat, (1, 2, half, hw, hw)), axes=(0, 2, 1, 3, 4)),
        (1, channels, hw, hw),
    )
    first, second = relay.split(shuffled, 2, axis=1)
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.Tuple([first, second + 1.0]))
    )
    lib = xrelay.build(mod, cache=False)
    xv = rng.standard_normal((1, channels, hw, hw)).astype(np.float32)
    m = lib.create()
    m.set_input("x", xv)
    m.run()
    yv = np.maximum(np.einsum("oi,nihw->nohw", wv[:, :, 0, 0], xv[:, half:]), 0)
    ref = np.concatenate([xv[:, :half], yv], axis=1)
    ref = ref.reshape(1, 2, half, hw, hw).transpose(0, 2, 1, 3, 4).reshape(xv.shape)
    np.testing.assert_allclose(m.get_output(0), ref[:, :half], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(m.get_output(1), ref[:, half:] + 1, rtol=1e-5, atol=1e-5)
