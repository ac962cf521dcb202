"""relay nn ops (conv2d, conv2d_transpose, dense, matmul, batch_matmul, softmax family,
dropout, batch_flatten, pad): type relations and numpy semantics, checked against
onnx.reference and naive loops written here."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import Float32Type, IntegerType, TensorType

from xrelay.dialects.relay import OpPattern, TypeRelationError
from xrelay.dialects.relay.base import DYN, get_bool, get_ints
from xrelay.dialects.relay.nn import (
    NN_OPS,
    BatchFlattenOp,
    BatchMatmulOp,
    Conv2DOp,
    Conv2DTransposeOp,
    DenseOp,
    DropoutOp,
    FastSoftmaxOp,
    LogSoftmaxOp,
    MatmulOp,
    PadOp,
    SoftmaxOp,
)
from xrelay.dialects.relay.testing import infer, placeholders, run_op

F32 = Float32Type()
I8 = IntegerType(8)
I32 = IntegerType(32)
RNG = np.random.default_rng(1234)


def t(*shape: int, elem=F32) -> TensorType:
    return TensorType(elem, list(shape))


def shape_of(ty) -> tuple[int, ...]:
    assert isinstance(ty, TensorType)
    return tuple(ty.get_shape())


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def onnx_run(op_type: str, inputs: list[np.ndarray], **attrs) -> np.ndarray:
    """Evaluate a one-node ONNX model with the reference evaluator."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op_type, names, ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(
                n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
            )
            for n, a in zip(names, inputs, strict=True)
        ],
        [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    (out,) = ReferenceEvaluator(model).run(None, dict(zip(names, inputs, strict=True)))
    return np.asarray(out)


def naive_conv_nchw(x, w, strides, pads, dilation, groups, acc=np.float64):
    """Direct loops: x [N,C,H,W], w [O,C/G,KH,KW], pads (top, left, bottom, right)."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    pt, pl, pb, pr = pads
    oh = (h + pt + pb - (kh - 1) * dilation[0] - 1) // strides[0] + 1
    ow = (wd + pl + pr - (kw - 1) * dilation[1] - 1) // strides[1] + 1
    out = np.zeros((n, o, oh, ow), dtype=acc)
    og = o // groups
    for b, oc, y, xx in itertools.product(range(n), range(o), range(oh), range(ow)):
        g = oc // og
        total = acc(0)
        for ic, i, j in itertools.product(range(cg), range(kh), range(kw)):
            yy = y * strides[0] + i * dilation[0] - pt
            xi = xx * strides[1] + j * dilation[1] - pl
            if 0 <= yy < h and 0 <= xi < wd:
                total += acc(x[b, g * cg + ic, yy, xi]) * acc(w[oc, ic, i, j])
        out[b, oc, y, xx] = total
    return out


def test_ops_are_listed_with_patterns():
    names = {op.name for op in NN_OPS}
    assert names == {
        "relay.nn.conv2d",
        "relay.nn.conv2d_transpose",
        "relay.nn.dense",
        "relay.nn.matmul",
        "relay.nn.batch_matmul",
        "relay.nn.softmax",
        "relay.nn.log_softmax",
        "relay.nn.fast_softmax",
        "relay.nn.dropout",
        "relay.nn.batch_flatten",
        "relay.nn.pad",
    }
    assert Conv2DOp.PATTERN == OpPattern.OUT_ELEMWISE_FUSABLE
    assert Conv2DTransposeOp.PATTERN == OpPattern.OUT_ELEMWISE_FUSABLE
    assert DenseOp.PATTERN == OpPattern.OUT_ELEMWISE_FUSABLE
    assert BatchMatmulOp.PATTERN == OpPattern.OUT_ELEMWISE_FUSABLE
    assert SoftmaxOp.PATTERN == OpPattern.OUT_ELEMWISE_FUSABLE
    assert DropoutOp.PATTERN == OpPattern.OPAQUE
    assert BatchFlattenOp.PATTERN == OpPattern.INJECTIVE
    assert PadOp.PATTERN == OpPattern.INJECTIVE


# ---------------------------------------------------------------------------------------
# conv2d: type relation
# ---------------------------------------------------------------------------------------


def test_conv2d_defaults():
    op = Conv2DOp.make(placeholders(t(1, 3, 8, 8), t(4, 3, 3, 3)))
    assert get_ints(op.strides) == (1, 1)
    assert get_ints(op.padding) == (0, 0, 0, 0)
    assert get_ints(op.dilation) == (1, 1)
    assert op.groups.value.data == 1
    assert op.channels is None
    assert op.kernel_size is None
    assert op.out_dtype is None
    assert op.data_layout.data == "NCHW"
    assert op.kernel_layout.data == "OIHW"
    assert op.out_layout.data == ""
    assert shape_of(op.result_types[0]) == (1, 4, 6, 6)


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "expected"),
    [
        ((1, 3, 8, 8), (4, 3, 3, 3), {"padding": (1, 1, 1, 1)}, (1, 4, 8, 8)),
        ((2, 3, 9, 7), (5, 3, 3, 2), {"strides": (2, 3)}, (2, 5, 4, 2)),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"padding": (0, 1, 2, 3)}, (1, 4, 8, 10)),
        ((1, 3, 9, 9), (4, 3, 3, 3), {"dilation": (2, 3)}, (1, 4, 5, 3)),
        ((1, 4, 6, 6), (6, 2, 1, 1), {"groups": 2}, (1, 6, 6, 6)),
        ((1, 4, 6, 6), (4, 1, 3, 3), {"groups": 4}, (1, 4, 4, 4)),
        # Relay's depthwise weight form [C, multiplier, KH, KW]
        ((1, 4, 6, 6), (4, 2, 3, 3), {"groups": 4, "channels": 8}, (1, 8, 4, 4)),
        # 1- and 2-int padding forms are widened by make()
        ((1, 3, 8, 8), (4, 3, 3, 3), {"padding": 1}, (1, 4, 8, 8)),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"padding": (2, 1)}, (1, 4, 10, 8)),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"channels": 4, "kernel_size": (3, 3)},
            (1, 4, 6, 6),
        ),
        # layouts
        (
            (1, 8, 8, 3),
            (3, 3, 3, 4),
            {"data_layout": "NHWC", "kernel_layout": "HWIO"},
            (1, 6, 6, 4),
        ),
        (
            (1, 8, 8, 3),
            (4, 3, 3, 3),
            {"data_layout": "NHWC", "kernel_layout": "OHWI"},
            (1, 6, 6, 4),
        ),
        (
            (1, 8, 8, 3),
            (3, 3, 4, 3),
            {"data_layout": "NHWC", "kernel_layout": "HWOI"},
            (1, 6, 6, 4),
        ),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"out_layout": "NHWC"}, (1, 6, 6, 4)),
        (
            (1, 8, 8, 3),
            (3, 3, 3, 4),
            {"data_layout": "NHWC", "kernel_layout": "HWIO", "out_layout": "NCHW"},
            (1, 4, 6, 6),
        ),
        # dynamic batch and height
        ((DYN, 3, DYN, 8), (4, 3, 3, 3), {}, (DYN, 4, DYN, 6)),
    ],
)
def test_conv2d_shapes(data, weight, attrs, expected):
    (ty,) = infer(Conv2DOp, t(*data), t(*weight), **attrs)
    assert shape_of(ty) == expected
    assert ty.get_element_type() == F32


def test_conv2d_padding_is_stored_as_four_ints():
    op = Conv2DOp.make(placeholders(t(1, 3, 8, 8), t(4, 3, 3, 3)), {"padding": (2, 1)})
    assert get_ints(op.padding) == (2, 1, 2, 1)


def test_conv2d_out_dtype():
    (ty,) = infer(
        Conv2DOp, t(1, 3, 5, 5, elem=I8), t(2, 3, 3, 3, elem=I8), out_dtype="int32"
    )
    assert ty == t(1, 2, 3, 3, elem=I32)
    (ty,) = infer(Conv2DOp, t(1, 3, 5, 5, elem=I8), t(2, 3, 3, 3, elem=I8))
    assert ty.get_element_type() == I8


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "message"),
    [
        ((1, 3, 8, 8), (4, 2, 3, 3), {}, r"3 input channels .* 2 per group"),
        ((1, 4, 8, 8), (4, 3, 3, 3), {"groups": 2}, r"needs 4 == 3 \* 2"),
        ((1, 4, 8, 8), (3, 2, 3, 3), {"groups": 2}, "not divisible by groups=2"),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"channels": 5},
            "channels=5 but the weight gives 4",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"kernel_size": (2, 2)},
            r"kernel_size \(2, 2\) does not match",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"kernel_size": (3,)},
            "kernel_size must have 2 values",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"padding": (1, 1, 1)},
            "padding must have 4 values",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"padding": (1, -1, 1, 1)},
            "padding must be non-negative",
        ),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"strides": (0, 1)}, "strides must be positive"),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"dilation": (1, -2)},
            "dilation must be positive",
        ),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"groups": 0}, "groups must be positive"),
        ((1, 3, 2, 8), (4, 3, 3, 3), {}, "output height would be 0"),
        ((1, 3, 8, 8), (4, 3, 3, 5), {"dilation": (1, 2)}, "output width would be 0"),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"data_layout": "NCHW8c"},
            "data_layout 'NCHW8c' needs a rank-5 tensor",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"kernel_layout": "OIHH"},
            "kernel_layout: invalid layout 'OIHH': duplicate axis 'H'",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"out_layout": "NCW"},
            "out_layout 'NCW' is not supported",
        ),
        ((1, 3, 8), (4, 3, 3, 3), {}, "needs a rank-4 tensor"),
    ],
)
def test_conv2d_errors(data, weight, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(Conv2DOp, t(*data), t(*weight), **attrs)


def test_conv2d_dtype_mismatch():
    with pytest.raises(TypeRelationError, match="relay does not promote"):
        infer(Conv2DOp, t(1, 3, 5, 5), t(2, 3, 3, 3, elem=I8))


# ---------------------------------------------------------------------------------------
# conv2d: numerics
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "weight", "strides", "pads", "dilation", "groups"),
    [
        ((1, 3, 7, 7), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
        ((2, 3, 8, 9), (5, 3, 3, 3), (2, 1), (1, 2, 0, 1), (1, 1), 1),
        ((1, 2, 11, 10), (3, 2, 3, 2), (1, 2), (2, 0, 1, 3), (2, 3), 1),
        ((1, 4, 7, 7), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
        ((2, 6, 9, 9), (6, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 6),
        ((1, 6, 8, 8), (12, 2, 2, 3), (3, 2), (0, 1, 2, 0), (2, 1), 3),
    ],
)
def test_conv2d_matches_onnx(data, weight, strides, pads, dilation, groups):
    x, w = rand(*data), rand(*weight)
    (out,) = run_op(
        Conv2DOp, x, w, strides=strides, padding=pads, dilation=dilation, groups=groups
    )
    pt, pl, pb, pr = pads
    expected = onnx_run(
        "Conv",
        [x, w],
        strides=list(strides),
        pads=[pt, pl, pb, pr],
        dilations=list(dilation),
        group=groups,
        kernel_shape=list(weight[2:]),
    )
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_conv2d_matches_naive_loops():
    x, w = rand(1, 4, 6, 7), rand(6, 2, 3, 2)
    (out,) = run_op(
        Conv2DOp, x, w, strides=(2, 1), padding=(1, 0, 2, 1), dilation=(1, 2), groups=2
    )
    expected = naive_conv_nchw(x, w, (2, 1), (1, 0, 2, 1), (1, 2), 2)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("data_layout", "kernel_layout", "out_layout"),
    [
        ("NHWC", "HWIO", ""),
        ("NHWC", "OHWI", ""),
        ("NHWC", "HWOI", "NCHW"),
        ("NCHW", "HWIO", "NHWC"),
        ("NCHW", "IOHW", ""),
    ],
)
def test_conv2d_layouts(data_layout, kernel_layout, out_layout):
    x_nchw, w_oihw = rand(2, 3, 7, 6), rand(4, 3, 3, 2)
    x = np.transpose(x_nchw, ["NCHW".index(ch) for ch in data_layout])
    w = np.transpose(w_oihw, ["OIHW".index(ch) for ch in kernel_layout])
    (out,) = run_op(
        Conv2DOp,
        x,
        w,
        padding=(1, 0, 1, 2),
        strides=(1, 2),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
    )
    expected = naive_conv_nchw(x_nchw, w_oihw, (1, 2), (1, 0, 1, 2), (1, 1), 1)
    final = out_layout or data_layout
    expected = np.transpose(expected, ["NCHW".index(ch) for ch in final])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_conv2d_depthwise_multiplier_nhwc_hwoi():
    # TensorFlow-style depthwise: data NHWC, weight [KH, KW, C, M]
    c, m = 3, 2
    x = rand(1, 6, 5, c)
    w = rand(3, 3, c, m)
    (out,) = run_op(
        Conv2DOp,
        x,
        w,
        padding=1,
        groups=c,
        channels=c * m,
        data_layout="NHWC",
        kernel_layout="HWOI",
    )
    assert out.shape == (1, 6, 5, c * m)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    expected = np.zeros((1, 6, 5, c * m))
    for y, xx, ch, k in itertools.product(range(6), range(5), range(c), range(m)):
        expected[0, y, xx, ch * m + k] = sum(
            float(xp[0, y + i, xx + j, ch]) * float(w[i, j, ch, k])
            for i in range(3)
            for j in range(3)
        )
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_conv2d_int8_accumulates_in_out_dtype():
    x = RNG.integers(-128, 128, (1, 4, 5, 5)).astype(np.int8)
    w = RNG.integers(-128, 128, (3, 4, 3, 3)).astype(np.int8)
    (out,) = run_op(Conv2DOp, x, w, padding=1, out_dtype="int32")
    assert out.dtype == np.int32
    expected = naive_conv_nchw(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1, acc=np.int64)
    np.testing.assert_array_equal(out, expected)


def test_conv2d_resnet_sized_layer():
    # a ResNet-18 stage-1 convolution; the vectorised im2col form takes milliseconds
    x, w = rand(1, 64, 56, 56), rand(64, 64, 3, 3)
    (out,) = run_op(Conv2DOp, x, w, padding=1, channels=64, kernel_size=(3, 3))
    assert out.shape == (1, 64, 56, 56)
    assert out.dtype == np.float32
    # spot-check a few outputs (corners, edges and the middle) against direct sums
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    for o, y, xx in [(0, 0, 0), (63, 55, 55), (17, 0, 30), (5, 28, 28), (40, 55, 0)]:
        expected = np.sum(xp[0, :, y : y + 3, xx : xx + 3] * w[o])
        assert out[0, o, y, xx] == pytest.approx(expected, rel=1e-4, abs=1e-3)


# ---------------------------------------------------------------------------------------
# conv2d_transpose
# ---------------------------------------------------------------------------------------


def test_conv2d_transpose_defaults():
    op = Conv2DTransposeOp.make(placeholders(t(1, 4, 5, 5), t(4, 2, 3, 3)))
    assert op.kernel_layout.data == "IOHW"
    assert get_ints(op.output_padding) == (0, 0)
    assert shape_of(op.result_types[0]) == (1, 2, 7, 7)


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "expected"),
    [
        ((1, 4, 5, 5), (4, 2, 3, 3), {"strides": (2, 2), "padding": 1}, (1, 2, 9, 9)),
        (
            (1, 4, 5, 5),
            (4, 2, 3, 3),
            {"strides": (2, 2), "padding": 1, "output_padding": (1, 0)},
            (1, 2, 10, 9),
        ),
        (
            (1, 4, 5, 6),
            (4, 3, 2, 3),
            {"dilation": (2, 1), "padding": (0, 1, 1, 0)},
            (1, 3, 6, 7),
        ),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"groups": 2}, (1, 6, 7, 7)),
        (
            (1, 5, 5, 4),
            (3, 3, 4, 2),
            {"data_layout": "NHWC", "kernel_layout": "HWIO"},
            (1, 7, 7, 2),
        ),
        (
            (1, 4, 5, 5),
            (4, 2, 3, 3),
            {"channels": 2, "kernel_size": (3, 3)},
            (1, 2, 7, 7),
        ),
    ],
)
def test_conv2d_transpose_shapes(data, weight, attrs, expected):
    (ty,) = infer(Conv2DTransposeOp, t(*data), t(*weight), **attrs)
    assert shape_of(ty) == expected


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "message"),
    [
        (
            (1, 4, 5, 5),
            (3, 2, 3, 3),
            {},
            "data has 4 input channels but the weight has 3",
        ),
        ((1, 3, 5, 5), (3, 2, 3, 3), {"groups": 2}, "not divisible by groups=2"),
        (
            (1, 4, 5, 5),
            (4, 2, 3, 3),
            {"channels": 3},
            "channels=3 but the weight gives 2",
        ),
        (
            (1, 4, 5, 5),
            (4, 2, 3, 3),
            {"output_padding": (-1, 0)},
            "output_padding must be",
        ),
        (
            (1, 4, 1, 1),
            (4, 2, 1, 1),
            {"padding": (1, 0, 0, 0)},
            "output height would be 0",
        ),
        ((1, 4, 5, 5), (4, 2, 3, 3), {"kernel_size": (3, 1)}, "does not match"),
    ],
)
def test_conv2d_transpose_errors(data, weight, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(Conv2DTransposeOp, t(*data), t(*weight), **attrs)


@pytest.mark.parametrize(
    ("data", "weight", "strides", "pads", "dilation", "out_pad", "groups"),
    [
        ((1, 3, 4, 4), (3, 2, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), (0, 0), 1),
        ((2, 3, 4, 5), (3, 4, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (1, 1), 1),
        ((1, 2, 5, 4), (2, 3, 2, 3), (3, 2), (0, 2, 1, 0), (2, 1), (2, 0), 1),
        # onnx.reference handles groups only when each group has one output channel
        ((1, 4, 3, 3), (4, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (0, 0), 4),
    ],
)
def test_conv2d_transpose_matches_onnx(
    data, weight, strides, pads, dilation, out_pad, groups
):
    x, w = rand(*data), rand(*weight)
    (out,) = run_op(
        Conv2DTransposeOp,
        x,
        w,
        strides=strides,
        padding=pads,
        dilation=dilation,
        output_padding=out_pad,
        groups=groups,
    )
    expected = onnx_run(
        "ConvTranspose",
        [x, w],
        strides=list(strides),
        pads=list(pads),
        dilations=list(dilation),
        output_padding=list(out_pad),
        group=groups,
        kernel_shape=list(weight[2:]),
    )
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def naive_conv_transpose_nchw(x, w, strides, pads, dilation, out_pad, groups):
    """Direct scatter loops: x [N,C,H,W], w [C,O/G,KH,KW]."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    pt, pl, pb, pr = pads
    full_h = (h - 1) * strides[0] + (kh - 1) * dilation[0] + 1 + out_pad[0]
    full_w = (wd - 1) * strides[1] + (kw - 1) * dilation[1] + 1 + out_pad[1]
    full = np.zeros((n, og * groups, full_h, full_w))
    cg = c // groups
    for b, ic, y, xx, o, i, j in itertools.product(
        range(n), range(c), range(h), range(wd), range(og), range(kh), range(kw)
    ):
        g = ic // cg
        full[
            b,
            g * og + o,
            y * strides[0] + i * dilation[0],
            xx * strides[1] + j * dilation[1],
        ] += float(x[b, ic, y, xx]) * float(w[ic, o, i, j])
    return full[:, :, pt : full_h - pb, pl : full_w - pr]


@pytest.mark.parametrize(
    ("data", "weight", "strides", "pads", "dilation", "out_pad", "groups"),
    [
        ((1, 4, 4, 4), (4, 3, 3, 3), (2, 1), (1, 0, 0, 1), (1, 2), (1, 0), 2),
        ((2, 6, 3, 4), (6, 2, 2, 3), (1, 3), (0, 2, 1, 0), (2, 1), (0, 2), 3),
    ],
)
def test_conv2d_transpose_groups_match_naive_scatter(
    data, weight, strides, pads, dilation, out_pad, groups
):
    x, w = rand(*data), rand(*weight)
    (out,) = run_op(
        Conv2DTransposeOp,
        x,
        w,
        strides=strides,
        padding=pads,
        dilation=dilation,
        output_padding=out_pad,
        groups=groups,
    )
    expected = naive_conv_transpose_nchw(x, w, strides, pads, dilation, out_pad, groups)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_conv2d_transpose_nhwc_matches_naive_scatter():
    x_nchw, w_iohw = rand(1, 3, 3, 4), rand(3, 2, 2, 3)
    pads = (1, 0, 0, 1)
    x = np.transpose(x_nchw, (0, 2, 3, 1))
    w = np.transpose(w_iohw, (2, 3, 0, 1))  # HWIO
    (out,) = run_op(
        Conv2DTransposeOp,
        x,
        w,
        strides=(2, 2),
        padding=pads,
        data_layout="NHWC",
        kernel_layout="HWIO",
    )
    expected = naive_conv_transpose_nchw(
        x_nchw, w_iohw, (2, 2), pads, (1, 1), (0, 0), 1
    )
    np.testing.assert_allclose(
        out, np.transpose(expected, (0, 2, 3, 1)), rtol=1e-5, atol=1e-5
    )
    (out_nchw,) = run_op(
        Conv2DTransposeOp,
        x,
        w,
        strides=(2, 2),
        padding=pads,
        data_layout="NHWC",
        kernel_layout="HWIO",
        out_layout="NCHW",
    )
    np.testing.assert_allclose(out_nchw, expected, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------
# dense, matmul, batch_matmul
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "expected"),
    [
        ((4, 8), (5, 8), {}, (4, 5)),
        ((2, 3, 8), (5, 8), {"units": 5}, (2, 3, 5)),
        ((8,), (5, 8), {}, (5,)),
        ((-1, 8), (5, 8), {}, (-1, 5)),
    ],
)
def test_dense_shapes(data, weight, attrs, expected):
    (ty,) = infer(DenseOp, t(*data), t(*weight), **attrs)
    assert shape_of(ty) == expected


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "message"),
    [
        ((4, 8), (5, 7), {}, "last dimension 8 does not match the weight's K 7"),
        ((4, 8), (5, 8), {"units": 6}, "units=6 but the weight gives 5"),
        ((4, 8), (5, 8, 1), {}, "weight must be a matrix"),
        ((), (5, 8), {}, "rank >= 1"),
    ],
)
def test_dense_errors(data, weight, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(DenseOp, t(*data), t(*weight), **attrs)


def test_dense_matches_onnx_gemm():
    x, w = rand(4, 7), rand(5, 7)
    (out,) = run_op(DenseOp, x, w)
    expected = onnx_run("Gemm", [x, w], transB=1)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    x3 = rand(2, 3, 7)
    (out3,) = run_op(DenseOp, x3, w, units=5)
    np.testing.assert_allclose(
        out3, onnx_run("MatMul", [x3, w.T.copy()]), rtol=1e-5, atol=1e-5
    )


def test_dense_out_dtype():
    x = np.array([[100, 100]], dtype=np.int8)
    w = np.array([[100, 100], [-1, 2]], dtype=np.int8)
    (out,) = run_op(DenseOp, x, w, out_dtype="int32")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[20000, 100]])


@pytest.mark.parametrize(
    ("a", "b", "attrs", "expected"),
    [
        ((4, 8), (8, 5), {}, (4, 5)),
        ((8, 4), (8, 5), {"transpose_a": True}, (4, 5)),
        ((4, 8), (5, 8), {"transpose_b": True}, (4, 5)),
        (
            (8, 4),
            (5, 8),
            {"transpose_a": True, "transpose_b": True, "units": 5},
            (4, 5),
        ),
        ((2, 3, 4, 8), (8, 5), {}, (2, 3, 4, 5)),
        ((8,), (8, 5), {}, (5,)),
    ],
)
def test_matmul_shapes(a, b, attrs, expected):
    (ty,) = infer(MatmulOp, t(*a), t(*b), **attrs)
    assert shape_of(ty) == expected


@pytest.mark.parametrize(
    ("a", "b", "attrs", "message"),
    [
        ((4, 8), (5, 8), {}, "reduction dimensions differ"),
        ((4, 8), (8, 5), {"transpose_b": True}, "reduction dimensions differ"),
        ((4, 8), (2, 8, 5), {}, "tensor_b must be a matrix"),
        ((8,), (8, 5), {"transpose_a": True}, "rank >= 2"),
        ((4, 8), (8, 5), {"units": 4}, "units=4 but the weight gives 5"),
    ],
)
def test_matmul_errors(a, b, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(MatmulOp, t(*a), t(*b), **attrs)


@pytest.mark.parametrize(
    ("ta", "tb"), [(False, False), (True, False), (False, True), (True, True)]
)
def test_matmul_matches_onnx(ta, tb):
    a_plain, b_plain = rand(2, 4, 6), rand(6, 3)
    a = np.swapaxes(a_plain, -1, -2).copy() if ta else a_plain
    b = b_plain.T.copy() if tb else b_plain
    (out,) = run_op(MatmulOp, a, b, transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(
        out, onnx_run("MatMul", [a_plain, b_plain]), rtol=1e-5, atol=1e-5
    )


def test_batch_matmul_defaults_transpose_b():
    op = BatchMatmulOp.make(placeholders(t(2, 3, 4), t(2, 5, 4)))
    assert get_bool(op.transpose_b)
    assert not get_bool(op.transpose_a)
    assert shape_of(op.result_types[0]) == (2, 3, 5)


@pytest.mark.parametrize(
    ("x", "y", "attrs", "expected"),
    [
        ((2, 3, 4), (2, 5, 4), {}, (2, 3, 5)),
        ((2, 3, 4), (2, 4, 5), {"transpose_b": False}, (2, 3, 5)),
        ((2, 4, 3), (2, 5, 4), {"transpose_a": True}, (2, 3, 5)),
        ((1, 3, 4), (6, 5, 4), {}, (6, 3, 5)),
        ((6, 3, 4), (1, 5, 4), {}, (6, 3, 5)),
        ((2, 3, 4), (2, 5, 4), {"out_dtype": "float64"}, (2, 3, 5)),
    ],
)
def test_batch_matmul_shapes(x, y, attrs, expected):
    (ty,) = infer(BatchMatmulOp, t(*x), t(*y), **attrs)
    assert shape_of(ty) == expected


@pytest.mark.parametrize(
    ("x", "y", "attrs", "message"),
    [
        ((2, 3, 4), (3, 5, 4), {}, "batch dimensions 2 and 3 do not broadcast"),
        ((2, 3, 4), (2, 4, 5), {}, "reduction dimensions differ"),
        ((3, 4), (2, 5, 4), {}, "rank-3 operands"),
    ],
)
def test_batch_matmul_errors(x, y, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(BatchMatmulOp, t(*x), t(*y), **attrs)


@pytest.mark.parametrize(
    ("bx", "by", "ta", "tb"),
    [
        (3, 3, False, True),
        (1, 4, False, False),
        (4, 1, True, True),
        (2, 2, True, False),
    ],
)
def test_batch_matmul_matches_onnx(bx, by, ta, tb):
    x_plain, y_plain = rand(bx, 3, 5), rand(by, 5, 2)
    x = np.swapaxes(x_plain, 1, 2).copy() if ta else x_plain
    y = np.swapaxes(y_plain, 1, 2).copy() if tb else y_plain
    (out,) = run_op(BatchMatmulOp, x, y, transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(
        out, onnx_run("MatMul", [x_plain, y_plain]), rtol=1e-5, atol=1e-5
    )


# ---------------------------------------------------------------------------------------
# softmax family
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("op_cls", [SoftmaxOp, LogSoftmaxOp, FastSoftmaxOp])
def test_softmax_types(op_cls):
    op = op_cls.make(placeholders(t(2, 3, 4)))
    assert op.axis.value.data == -1
    assert op.result_types[0] == t(2, 3, 4)
    (ty,) = infer(op_cls, t(2, 3), axis=0)
    assert ty == t(2, 3)
    with pytest.raises(TypeRelationError, match="axis 3 is out of range for rank 3"):
        infer(op_cls, t(2, 3, 4), axis=3)
    with pytest.raises(TypeRelationError, match="floating-point"):
        infer(op_cls, t(2, 3, elem=I32))


@pytest.mark.parametrize("axis", [-1, 0, 1, -2])
@pytest.mark.parametrize(
    ("op_cls", "onnx_op"),
    [(SoftmaxOp, "Softmax"), (FastSoftmaxOp, "Softmax"), (LogSoftmaxOp, "LogSoftmax")],
)
def test_softmax_matches_onnx(op_cls, onnx_op, axis):
    x = rand(3, 4, 5) * 3
    (out,) = run_op(op_cls, x, axis=axis)
    assert out.dtype == np.float32
    np.testing.assert_allclose(
        out, onnx_run(onnx_op, [x], axis=axis), rtol=1e-5, atol=1e-6
    )


def test_softmax_is_numerically_stable():
    x = np.array(
        [[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0]], dtype=np.float32
    )
    (sm,) = run_op(SoftmaxOp, x)
    e = np.exp([-2.0, -1.0, 0.0])
    np.testing.assert_allclose(sm[0], e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(sm[1], [1 / 3] * 3, rtol=1e-6)
    (lsm,) = run_op(LogSoftmaxOp, x)
    assert np.all(np.isfinite(lsm))
    np.testing.assert_allclose(lsm[0], np.log(e / e.sum()), rtol=1e-6)


# ---------------------------------------------------------------------------------------
# dropout, batch_flatten, pad
# ---------------------------------------------------------------------------------------


def test_dropout_types_and_inference_semantics():
    op = DropoutOp.make(placeholders(t(2, 3)))
    assert op.rate.value.data == 0.5
    assert list(op.result_types) == [t(2, 3), t(2, 3)]
    x = rand(2, 3)
    out, mask = run_op(DropoutOp, x, rate=0.2)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(mask, np.ones((2, 3), np.float32))
    assert mask.dtype == np.float32
    with pytest.raises(TypeRelationError, match=r"rate must be in \[0, 1\]"):
        infer(DropoutOp, t(2, 3), rate=1.5)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ((2, 3, 4, 5), (2, 60)),
        ((7,), (7, 1)),
        ((3, 4), (3, 4)),
        ((-1, 2, 3), (-1, 6)),
        ((2, -1), (2, -1)),
    ],
)
def test_batch_flatten_shapes(shape, expected):
    (ty,) = infer(BatchFlattenOp, t(*shape))
    assert shape_of(ty) == expected


def test_batch_flatten_errors_and_values():
    with pytest.raises(TypeRelationError, match="rank >= 1"):
        infer(BatchFlattenOp, t())
    x = rand(2, 3, 4)
    (out,) = run_op(BatchFlattenOp, x)
    np.testing.assert_array_equal(out, onnx_run("Flatten", [x], axis=1))


def test_pad_shapes_and_defaults():
    op = PadOp.make(placeholders(t(2, 3), t()), {"pad_width": ((1, 2), (0, 3))})
    assert get_ints(op.pad_width) == (1, 2, 0, 3)
    assert op.pad_mode.data == "constant"
    assert op.result_types[0] == t(5, 6)
    (ty,) = infer(PadOp, t(DYN, 3), t(), pad_width=(1, 1, 2, 2))
    assert shape_of(ty) == (DYN, 7)


@pytest.mark.parametrize(
    ("shape", "value", "attrs", "message"),
    [
        (
            (2, 3),
            (),
            {"pad_width": (1, 1)},
            "pad_width has 2 values but a rank-2 tensor needs 4",
        ),
        ((2, 3), (), {"pad_width": (1, -1, 0, 0)}, "pad_width must be non-negative"),
        ((2, 3), (1,), {"pad_width": (1, 1, 0, 0)}, "pad_value must be a 0-d tensor"),
        (
            (2, 3),
            (),
            {"pad_width": (1, 1, 0, 0), "pad_mode": "wrap"},
            "pad_mode 'wrap'",
        ),
        (
            (2, 3),
            (),
            {"pad_width": (2, 0, 0, 0), "pad_mode": "reflect"},
            "must be smaller than its size 2",
        ),
    ],
)
def test_pad_errors(shape, value, attrs, message):
    with pytest.raises(TypeRelationError, match=message):
        infer(PadOp, t(*shape), t(*value), **attrs)


def test_pad_value_dtype_must_match():
    with pytest.raises(TypeRelationError, match="relay does not promote"):
        infer(PadOp, t(2, 3), t(elem=I32), pad_width=(0, 0, 0, 0))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_matches_onnx(mode):
    x = rand(3, 4, 5)
    widths = [(1, 2), (0, 3), (2, 1)]
    flat = [v for pair in widths for v in pair]
    value = np.array(-7.5, dtype=np.float32)
    (out,) = run_op(PadOp, x, value, pad_width=flat, pad_mode=mode)
    onnx_pads = np.array(
        [p[0] for p in widths] + [p[1] for p in widths], dtype=np.int64
    )
    inputs = [x, onnx_pads] + ([value] if mode == "constant" else [])
    np.testing.assert_array_equal(out, onnx_run("Pad", inputs, mode=mode))


def test_pad_hand_computed():
    x = np.array([[1, 2, 3]], dtype=np.int32)
    (out,) = run_op(PadOp, x, np.array(9, np.int32), pad_width=(1, 0, 2, 1))
    np.testing.assert_array_equal(out, [[9, 9, 9, 9, 9, 9], [9, 9, 1, 2, 3, 9]])
    (out,) = run_op(
        PadOp, x, np.array(0, np.int32), pad_width=(0, 0, 2, 2), pad_mode="reflect"
    )
    np.testing.assert_array_equal(out, [[3, 2, 1, 2, 3, 2, 1]])
    (out,) = run_op(
        PadOp, x, np.array(0, np.int32), pad_width=(0, 1, 1, 2), pad_mode="edge"
    )
    np.testing.assert_array_equal(out, [[1, 1, 2, 3, 3, 3], [1, 1, 2, 3, 3, 3]])
