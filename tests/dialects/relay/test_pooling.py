"""relay pooling ops (max/avg, global, adaptive): type relations and numpy semantics,
checked against onnx.reference and naive loops written here."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import Float32Type, IntegerType, TensorType

from xrelay.dialects.relay import OpPattern, TypeRelationError
from xrelay.dialects.relay.base import DYN, get_bool, get_ints
from xrelay.dialects.relay.pooling import (
    POOLING_OPS,
    AdaptiveAvgPool2DOp,
    AdaptiveMaxPool2DOp,
    AvgPool2DOp,
    GlobalAvgPool2DOp,
    GlobalMaxPool2DOp,
    MaxPool2DOp,
)
from xrelay.dialects.relay.testing import infer, placeholders, run_op

F32 = Float32Type()
I32 = IntegerType(32)
RNG = np.random.default_rng(4321)


def t(*shape: int, elem=F32) -> TensorType:
    return TensorType(elem, list(shape))


def shape_of(ty) -> tuple[int, ...]:
    assert isinstance(ty, TensorType)
    return tuple(ty.get_shape())


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def onnx_run(op_type: str, x: np.ndarray, **attrs) -> np.ndarray:
    node = helper.make_node(op_type, ["x"], ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    (out,) = ReferenceEvaluator(model).run(None, {"x": x})
    return np.asarray(out)


def naive_pool_nchw(x, kind, pool, strides, dilation, pads, ceil_mode, include_pad):
    """Direct loops over output pixels and window taps (Relay's rules)."""
    n, c, h, w = x.shape
    pt, pl, pb, pr = pads
    extra = [s - 1 if ceil_mode else 0 for s in strides]
    oh = (h + pt + pb - (pool[0] - 1) * dilation[0] - 1 + extra[0]) // strides[0] + 1
    ow = (w + pl + pr - (pool[1] - 1) * dilation[1] - 1 + extra[1]) // strides[1] + 1
    out = np.zeros((n, c, oh, ow))
    for b, ch, y, xx in itertools.product(range(n), range(c), range(oh), range(ow)):
        values, counted = [], 0
        for i, j in itertools.product(range(pool[0]), range(pool[1])):
            yy = y * strides[0] + i * dilation[0] - pt
            xi = xx * strides[1] + j * dilation[1] - pl
            inside = 0 <= yy < h and 0 <= xi < w
            in_padded = -pt <= yy < h + pb and -pl <= xi < w + pr
            if inside:
                values.append(float(x[b, ch, yy, xi]))
            if inside or (include_pad and in_padded):
                counted += 1
        if kind == "max":
            out[b, ch, y, xx] = max(values)
        else:
            out[b, ch, y, xx] = sum(values) / counted
    return out


def test_ops_are_listed_with_patterns():
    assert {op.name for op in POOLING_OPS} == {
        "relay.nn.max_pool2d",
        "relay.nn.avg_pool2d",
        "relay.nn.global_avg_pool2d",
        "relay.nn.global_max_pool2d",
        "relay.nn.adaptive_avg_pool2d",
        "relay.nn.adaptive_max_pool2d",
    }
    for op in POOLING_OPS:
        assert op.PATTERN == OpPattern.OUT_ELEMWISE_FUSABLE


# ---------------------------------------------------------------------------------------
# max_pool2d / avg_pool2d: type relation
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("op_cls", [MaxPool2DOp, AvgPool2DOp])
def test_window_pool_defaults(op_cls):
    op = op_cls.make(placeholders(t(1, 3, 8, 8)))
    assert get_ints(op.pool_size) == (1, 1)
    assert get_ints(op.strides) == (1, 1)
    assert get_ints(op.dilation) == (1, 1)
    assert get_ints(op.padding) == (0, 0, 0, 0)
    assert op.layout.data == "NCHW"
    assert op.out_layout.data == ""
    assert not get_bool(op.ceil_mode)
    assert op.result_types[0] == t(1, 3, 8, 8)


def test_avg_pool_count_include_pad_default():
    op = AvgPool2DOp.make(placeholders(t(1, 3, 8, 8)))
    assert not get_bool(op.count_include_pad)


@pytest.mark.parametrize("op_cls", [MaxPool2DOp, AvgPool2DOp])
@pytest.mark.parametrize(
    ("data", "attrs", "expected"),
    [
        ((1, 3, 8, 8), {"pool_size": (2, 2), "strides": (2, 2)}, (1, 3, 4, 4)),
        ((1, 3, 7, 7), {"pool_size": (2, 2), "strides": (2, 2)}, (1, 3, 3, 3)),
        (
            (1, 3, 7, 7),
            {"pool_size": (2, 2), "strides": (2, 2), "ceil_mode": True},
            (1, 3, 4, 4),
        ),
        (
            (1, 3, 112, 112),
            {"pool_size": 3, "strides": 2, "padding": 1},
            (1, 3, 56, 56),
        ),
        ((1, 3, 9, 8), {"pool_size": (3, 2), "padding": (1, 0, 2, 1)}, (1, 3, 10, 8)),
        ((1, 3, 9, 9), {"pool_size": (3, 3), "dilation": (2, 3)}, (1, 3, 5, 3)),
        (
            (1, 8, 8, 3),
            {"pool_size": (2, 2), "strides": (2, 2), "layout": "NHWC"},
            (1, 4, 4, 3),
        ),
        (
            (1, 3, 8, 8),
            {"pool_size": (2, 2), "strides": (2, 2), "out_layout": "NHWC"},
            (1, 4, 4, 3),
        ),
        ((DYN, 3, DYN, 8), {"pool_size": (2, 2), "strides": (2, 2)}, (DYN, 3, DYN, 4)),
    ],
)
def test_window_pool_shapes(op_cls, data, attrs, expected):
    (ty,) = infer(op_cls, t(*data), **attrs)
    assert shape_of(ty) == expected
    assert ty.get_element_type() == F32


def test_window_pool_make_widens_relay_forms():
    op = MaxPool2DOp.make(
        placeholders(t(1, 3, 8, 8)), {"pool_size": 3, "strides": 2, "padding": (1, 0)}
    )
    assert get_ints(op.pool_size) == (3, 3)
    assert get_ints(op.strides) == (2, 2)
    assert get_ints(op.padding) == (1, 0, 1, 0)


@pytest.mark.parametrize("op_cls", [MaxPool2DOp, AvgPool2DOp])
@pytest.mark.parametrize(
    ("data", "attrs", "message"),
    [
        ((1, 3, 8, 8), {"padding": (1, 1, 1)}, "padding must have 4 values"),
        ((1, 3, 8, 8), {"padding": (0, 0, -1, 0)}, "padding must be non-negative"),
        ((1, 3, 8, 8), {"pool_size": (0, 2)}, "pool_size must be positive"),
        ((1, 3, 8, 8), {"pool_size": (2, 2, 2)}, "pool_size must have 2 values"),
        ((1, 3, 8, 8), {"strides": (1, 0)}, "strides must be positive"),
        ((1, 3, 8, 8), {"dilation": (-1, 1)}, "dilation must be positive"),
        ((1, 3, 2, 8), {"pool_size": (3, 3)}, "output height would be 0"),
        (
            (1, 3, 8, 2),
            {"pool_size": (2, 2), "dilation": (1, 2)},
            "output width would be 0",
        ),
        ((1, 3, 8, 8), {"layout": "NCHW16h"}, "layout 'NCHW16h' is not supported"),
        ((1, 3, 8, 8), {"layout": "NCHW16c"}, "layout 'NCHW16c' needs a rank-5 tensor"),
        ((1, 3, 8, 8), {"out_layout": "HW"}, "out_layout 'HW' is not supported"),
        ((1, 3, 8), {}, "needs a rank-4 tensor"),
    ],
)
def test_window_pool_errors(op_cls, data, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(op_cls, t(*data), **attrs)


# ---------------------------------------------------------------------------------------
# max_pool2d / avg_pool2d: numerics
# ---------------------------------------------------------------------------------------

# (shape, pool, strides, dilation, pads (t, l, b, r), ceil_mode)
WINDOW_CASES = [
    ((1, 2, 6, 6), (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), False),
    ((2, 3, 7, 8), (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), False),
    ((1, 2, 7, 7), (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), True),
    ((1, 2, 6, 6), (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), True),
    ((1, 2, 8, 9), (3, 2), (2, 3), (1, 1), (1, 1, 2, 1), True),
    ((1, 2, 9, 8), (2, 3), (1, 2), (2, 1), (1, 1, 0, 2), False),
    ((1, 1, 10, 10), (3, 3), (2, 2), (2, 2), (2, 1, 1, 2), True),
]


@pytest.mark.parametrize(
    ("shape", "pool", "strides", "dilation", "pads", "ceil"), WINDOW_CASES
)
def test_max_pool_matches_onnx(shape, pool, strides, dilation, pads, ceil):
    x = rand(*shape) - 3.0  # mostly negative: zero padding would win, -inf must not
    (out,) = run_op(
        MaxPool2DOp,
        x,
        pool_size=pool,
        strides=strides,
        dilation=dilation,
        padding=pads,
        ceil_mode=ceil,
    )
    pt, pl, pb, pr = pads
    expected = onnx_run(
        "MaxPool",
        x,
        kernel_shape=list(pool),
        strides=list(strides),
        dilations=list(dilation),
        pads=[pt, pl, pb, pr],
        ceil_mode=int(ceil),
    )
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_allclose(
        out, naive_pool_nchw(x, "max", pool, strides, dilation, pads, ceil, False)
    )


@pytest.mark.parametrize("count_include_pad", [False, True])
@pytest.mark.parametrize(
    ("shape", "pool", "strides", "dilation", "pads", "ceil"), WINDOW_CASES
)
def test_avg_pool_matches_onnx(
    shape, pool, strides, dilation, pads, ceil, count_include_pad
):
    x = rand(*shape)
    (out,) = run_op(
        AvgPool2DOp,
        x,
        pool_size=pool,
        strides=strides,
        dilation=dilation,
        padding=pads,
        ceil_mode=ceil,
        count_include_pad=count_include_pad,
    )
    pt, pl, pb, pr = pads
    expected = onnx_run(
        "AveragePool",
        x,
        kernel_shape=list(pool),
        strides=list(strides),
        dilations=list(dilation),
        pads=[pt, pl, pb, pr],
        ceil_mode=int(ceil),
        count_include_pad=int(count_include_pad),
    )
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    naive = naive_pool_nchw(
        x, "avg", pool, strides, dilation, pads, ceil, count_include_pad
    )
    np.testing.assert_allclose(out, naive, rtol=1e-5, atol=1e-6)


def test_avg_pool_ceil_mode_divisors_by_hand():
    # W = 5, window 3, stride 2, right padding 1, ceil mode: 3 windows over padded
    # positions [0, 3), [2, 5), [4, 7); the last covers x[4], the pad, and a position
    # beyond the padded input that is never counted
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0], dtype=np.float32).reshape(1, 1, 1, 5)
    attrs = {
        "pool_size": (1, 3),
        "strides": (1, 2),
        "padding": (0, 0, 0, 1),
        "ceil_mode": True,
    }
    (excl,) = run_op(AvgPool2DOp, x, **attrs)
    (incl,) = run_op(AvgPool2DOp, x, count_include_pad=True, **attrs)
    np.testing.assert_allclose(excl.reshape(-1), [7 / 3, 28 / 3, 16.0], rtol=1e-6)
    np.testing.assert_allclose(incl.reshape(-1), [7 / 3, 28 / 3, 8.0], rtol=1e-6)
    (mx,) = run_op(MaxPool2DOp, -x, **attrs)
    np.testing.assert_allclose(mx.reshape(-1), [-1.0, -4.0, -16.0])


def test_ceil_mode_keeps_windows_that_start_in_the_padding():
    # Relay's output size has no "last window must start inside the input" rule (ONNX
    # and PyTorch drop such a window): W = 9, window 2, stride 3, right pad 1 gives 4
    # columns, the last one covering only padding
    x = rand(1, 2, 4, 9)
    attrs = {
        "pool_size": (1, 2),
        "strides": (1, 3),
        "padding": (0, 0, 0, 1),
        "ceil_mode": True,
    }
    (mx,) = run_op(MaxPool2DOp, x, **attrs)
    (avg,) = run_op(AvgPool2DOp, x, **attrs)
    assert mx.shape == avg.shape == (1, 2, 4, 4)
    assert np.all(mx[..., 3] == -np.inf)
    assert np.all(avg[..., 3] == 0.0)
    onnx_attrs = {
        "kernel_shape": [1, 2],
        "strides": [1, 3],
        "pads": [0, 0, 0, 1],
        "ceil_mode": 1,
    }
    np.testing.assert_array_equal(mx[..., :3], onnx_run("MaxPool", x, **onnx_attrs))
    np.testing.assert_allclose(
        avg[..., :3], onnx_run("AveragePool", x, **onnx_attrs), rtol=1e-6
    )


def test_avg_pool_int_truncates():
    x = np.array([[[[1, 2], [2, 2]], [[-1, -2], [-2, -2]]]], dtype=np.int32)
    (out,) = run_op(AvgPool2DOp, x, pool_size=(2, 2))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.reshape(-1), [1, -1])  # 7/4 and -7/4 toward zero


def test_max_pool_int_padding_never_wins():
    x = np.full((1, 1, 2, 2), -100, dtype=np.int32)
    (out,) = run_op(MaxPool2DOp, x, pool_size=(2, 2), padding=1)
    np.testing.assert_array_equal(out, np.full((1, 1, 3, 3), -100))


@pytest.mark.parametrize("op_cls", [MaxPool2DOp, AvgPool2DOp])
@pytest.mark.parametrize(
    ("layout", "out_layout"),
    [("NHWC", ""), ("NHWC", "NCHW"), ("NCHW", "NHWC"), ("HWCN", "")],
)
def test_window_pool_layouts(op_cls, layout, out_layout):
    x_nchw = rand(2, 3, 7, 6)
    x = np.transpose(x_nchw, ["NCHW".index(c) for c in layout])
    attrs = {"pool_size": (3, 2), "strides": (2, 1), "padding": (1, 0, 1, 1)}
    (out,) = run_op(op_cls, x, layout=layout, out_layout=out_layout, **attrs)
    kind = "max" if op_cls is MaxPool2DOp else "avg"
    expected = naive_pool_nchw(
        x_nchw, kind, (3, 2), (2, 1), (1, 1), (1, 0, 1, 1), False, False
    )
    final = out_layout or layout
    np.testing.assert_allclose(
        out,
        np.transpose(expected, ["NCHW".index(c) for c in final]),
        rtol=1e-5,
        atol=1e-6,
    )


# ---------------------------------------------------------------------------------------
# global pools
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("op_cls", [GlobalAvgPool2DOp, GlobalMaxPool2DOp])
@pytest.mark.parametrize(
    ("data", "attrs", "expected"),
    [
        ((2, 3, 7, 5), {}, (2, 3, 1, 1)),
        ((2, 7, 5, 3), {"layout": "NHWC"}, (2, 1, 1, 3)),
        ((2, 3, 7, 5), {"out_layout": "NHWC"}, (2, 1, 1, 3)),
        ((-1, 3, -1, -1), {}, (-1, 3, 1, 1)),
    ],
)
def test_global_pool_shapes(op_cls, data, attrs, expected):
    op = op_cls.make(placeholders(t(1, 2, 3, 4)))
    assert op.layout.data == "NCHW"
    assert op.out_layout.data == ""
    (ty,) = infer(op_cls, t(*data), **attrs)
    assert shape_of(ty) == expected


@pytest.mark.parametrize("op_cls", [GlobalAvgPool2DOp, GlobalMaxPool2DOp])
def test_global_pool_errors(op_cls):
    with pytest.raises(TypeRelationError, match="layout 'NCH' is not supported"):
        infer(op_cls, t(1, 2, 3, 4), layout="NCH")
    with pytest.raises(TypeRelationError, match="needs a rank-4 tensor"):
        infer(op_cls, t(2, 3, 4))


@pytest.mark.parametrize(
    ("op_cls", "onnx_op"),
    [(GlobalAvgPool2DOp, "GlobalAveragePool"), (GlobalMaxPool2DOp, "GlobalMaxPool")],
)
def test_global_pool_matches_onnx(op_cls, onnx_op):
    x = rand(2, 3, 7, 5)
    (out,) = run_op(op_cls, x)
    np.testing.assert_allclose(out, onnx_run(onnx_op, x), rtol=1e-6, atol=1e-6)
    (out_nhwc,) = run_op(op_cls, np.transpose(x, (0, 2, 3, 1)), layout="NHWC")
    np.testing.assert_allclose(
        out_nhwc, np.transpose(onnx_run(onnx_op, x), (0, 2, 3, 1)), rtol=1e-6, atol=1e-6
    )


# ---------------------------------------------------------------------------------------
# adaptive pools
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("op_cls", [AdaptiveAvgPool2DOp, AdaptiveMaxPool2DOp])
@pytest.mark.parametrize(
    ("data", "attrs", "expected"),
    [
        ((2, 3, 7, 5), {}, (2, 3, 7, 5)),
        ((2, 3, 7, 5), {"output_size": (1, 1)}, (2, 3, 1, 1)),
        ((2, 3, 7, 5), {"output_size": 3}, (2, 3, 3, 3)),
        ((2, 3, 7, 5), {"output_size": (3, 2)}, (2, 3, 3, 2)),
        ((2, 7, 5, 3), {"output_size": (3, 2), "layout": "NHWC"}, (2, 3, 2, 3)),
        ((2, 3, 7, 5), {"output_size": (4, 6), "out_layout": "NHWC"}, (2, 4, 6, 3)),
        ((-1, 3, -1, 5), {"output_size": (2, 2)}, (-1, 3, 2, 2)),
    ],
)
def test_adaptive_pool_shapes(op_cls, data, attrs, expected):
    (ty,) = infer(op_cls, t(*data), **attrs)
    assert shape_of(ty) == expected


@pytest.mark.parametrize("op_cls", [AdaptiveAvgPool2DOp, AdaptiveMaxPool2DOp])
@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"output_size": (1, 2, 3)}, "output_size must have 1 or 2 values"),
        ({"output_size": (0, 2)}, "output_size must be positive"),
        ({"layout": "NCHWc"}, "layout 'NCHWc' is not supported"),
    ],
)
def test_adaptive_pool_errors(op_cls, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(op_cls, t(1, 2, 6, 6), **attrs)


def naive_adaptive(x, kind, oh, ow):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for b, ch, i, j in itertools.product(range(n), range(c), range(oh), range(ow)):
        hs, he = math.floor(i * h / oh), math.ceil((i + 1) * h / oh)
        ws, we = math.floor(j * w / ow), math.ceil((j + 1) * w / ow)
        region = [float(x[b, ch, y, xx]) for y in range(hs, he) for xx in range(ws, we)]
        out[b, ch, i, j] = max(region) if kind == "max" else sum(region) / len(region)
    return out


@pytest.mark.parametrize(
    ("op_cls", "kind"), [(AdaptiveAvgPool2DOp, "avg"), (AdaptiveMaxPool2DOp, "max")]
)
@pytest.mark.parametrize(
    ("hw", "out_size"),
    [
        ((7, 5), (3, 2)),
        ((8, 8), (4, 4)),
        ((5, 7), (5, 7)),
        ((4, 3), (6, 5)),
        ((9, 6), (1, 1)),
        ((10, 10), (7, 3)),
    ],
)
def test_adaptive_pool_matches_naive_bins(op_cls, kind, hw, out_size):
    x = rand(2, 3, *hw)
    (out,) = run_op(op_cls, x, output_size=out_size)
    np.testing.assert_allclose(
        out, naive_adaptive(x, kind, *out_size), rtol=1e-5, atol=1e-6
    )


def test_adaptive_pool_hand_computed_bins():
    # H = 5 into 3 bins: [0, 2), [1, 4), [3, 5)
    x = np.array([1.0, 2.0, 3.0, 4.0, 10.0], dtype=np.float32).reshape(1, 1, 5, 1)
    (avg,) = run_op(AdaptiveAvgPool2DOp, x, output_size=(3, 1))
    np.testing.assert_allclose(avg.reshape(-1), [1.5, 3.0, 7.0])
    (mx,) = run_op(AdaptiveMaxPool2DOp, x, output_size=(3, 1))
    np.testing.assert_allclose(mx.reshape(-1), [2.0, 4.0, 10.0])


def test_adaptive_pool_layouts_and_default_size():
    x_nchw = rand(1, 3, 7, 6)
    x = np.transpose(x_nchw, (0, 2, 3, 1))
    (out,) = run_op(
        AdaptiveAvgPool2DOp, x, output_size=(2, 4), layout="NHWC", out_layout="NCHW"
    )
    np.testing.assert_allclose(
        out, naive_adaptive(x_nchw, "avg", 2, 4), rtol=1e-5, atol=1e-6
    )
    (same,) = run_op(AdaptiveMaxPool2DOp, x, layout="NHWC")
    np.testing.assert_array_equal(same, x)
    (one,) = run_op(AdaptiveAvgPool2DOp, x_nchw, output_size=1)
    np.testing.assert_allclose(
        one, onnx_run("GlobalAveragePool", x_nchw), rtol=1e-5, atol=1e-6
    )


def test_adaptive_pool_int_result_type():
    (ty,) = infer(AdaptiveAvgPool2DOp, t(1, 2, 4, 4, elem=I32), output_size=2)
    assert ty == t(1, 2, 2, 2, elem=I32)
