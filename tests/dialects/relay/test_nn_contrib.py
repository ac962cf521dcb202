"""contrib_conv2d_NCHWc and contrib_dense_pack: type relations, numpy semantics
against conv2d / dense on the unblocked tensors, invalid attributes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f32, f64

from xrelay.dialects.relay import ALL_OPS, OPS_BY_NAME, OpPattern, TypeRelationError
from xrelay.dialects.relay.layout import transform_array
from xrelay.dialects.relay.nn import (
    CONTRIB_NN_OPS,
    NN_OPS,
    Conv2DNCHWcOp,
    Conv2DOp,
    DenseOp,
    DensePackOp,
)


def t(*shape: int, elem: Any = f32) -> TensorType:
    return TensorType(elem, list(shape))


def infer(cls: Any, *types: TensorType, **attrs: Any) -> TensorType:
    (ty,) = cls.make([], attrs, result_types=[t(1)]).type_relation(list(types))
    return ty


def run(cls: Any, *arrays: np.ndarray[Any, Any], **attrs: Any) -> Any:
    op = cls.make([], attrs, result_types=[t(1)])
    return op.compute(*arrays)


def test_registered_apart_from_nn_ops():
    assert {op.name for op in CONTRIB_NN_OPS} == {
        "relay.nn.contrib_conv2d_NCHWc",
        "relay.nn.contrib_dense_pack",
    }
    assert not set(CONTRIB_NN_OPS) & set(NN_OPS)
    assert all(op in ALL_OPS for op in CONTRIB_NN_OPS)
    assert OPS_BY_NAME["relay.nn.contrib_conv2d_NCHWc"] is Conv2DNCHWcOp
    assert (
        Conv2DNCHWcOp.PATTERN == DensePackOp.PATTERN == OpPattern.OUT_ELEMWISE_FUSABLE
    )


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "expected"),
    [
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 16), {"kernel_layout": "OIHW8i16o", "out_layout": "NCHW16c", "padding": (1, 1, 1, 1)}, (1, 2, 8, 8, 16)),
        ((2, 1, 7, 7, 4), (3, 1, 3, 3, 4, 4), {"data_layout": "NCHW4c", "kernel_layout": "OIHW4i4o", "strides": (2, 2)}, (2, 3, 3, 3, 4)),
        ((1, 2, 5, 5, 8), (1, 2, 1, 1, 8, 8), {}, (1, 1, 5, 5, 8)),
        # grouped: [O/y, (C/G)/x, KH, KW, x, y]; depthwise: [C/y, 1, KH, KW, 1, y]
        ((1, 4, 5, 5, 8), (6, 2, 3, 3, 8, 4), {"groups": 2, "kernel_layout": "OIHW8i4o", "out_layout": "NCHW4c"}, (1, 6, 3, 3, 4)),
        ((1, 3, 5, 5, 8), (3, 1, 3, 3, 1, 8), {"groups": 24, "kernel_layout": "OIHW1i8o", "padding": (1, 1, 1, 1)}, (1, 3, 5, 5, 8)),
    ],
)  # fmt: skip
def test_conv2d_nchwc_types(data: Any, weight: Any, attrs: Any, expected: Any):
    assert infer(Conv2DNCHWcOp, t(*data), t(*weight), **attrs) == t(*expected)


def test_conv2d_nchwc_matches_conv2d():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 8, 7, 7))
    w = rng.standard_normal((12, 8, 3, 3))
    attrs = {"strides": (2, 1), "padding": (1, 0, 2, 1), "dilation": (1, 2)}
    expected = run(Conv2DOp, x, w, **attrs)
    got = run(
        Conv2DNCHWcOp,
        transform_array(x, "NCHW", "NCHW4c"),
        transform_array(w, "OIHW", "OIHW4i6o"),
        data_layout="NCHW4c",
        kernel_layout="OIHW4i6o",
        out_layout="NCHW6c",
        **attrs,
    )
    np.testing.assert_allclose(
        transform_array(got, "NCHW6c", "NCHW"), expected, rtol=1e-12
    )


def test_conv2d_nchwc_evaluates_with_out_dtype():
    x = np.arange(2 * 4 * 3 * 3, dtype=np.int8).reshape(1, 2, 3, 3, 4) % 5
    w = np.ones((1, 2, 1, 1, 4, 4), dtype=np.int8)
    op = Conv2DNCHWcOp.make(
        [],
        {"data_layout": "NCHW4c", "kernel_layout": "OIHW4i4o", "out_dtype": "int32"},
        result_types=[t(1, 1, 3, 3, 4, elem=f64)],
    )
    (ty,) = op.type_relation([t(1, 2, 3, 3, 4), t(1, 2, 1, 1, 4, 4)])
    assert ty.element_type != f32  # i32
    out = op.compute(x, w)
    assert out.dtype == np.int32
    plain = x.transpose(0, 1, 4, 2, 3).reshape(1, 8, 3, 3).astype(np.int32).sum(axis=1)
    np.testing.assert_array_equal(out[0, 0, :, :, 0], plain[0])


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "message"),
    [
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 8), {"data_layout": "NCHW"}, "data_layout 'NCHW' is not supported"),
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 8), {"data_layout": "NCHW8h"}, "data_layout 'NCHW8h' is not supported"),
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 8), {"kernel_layout": "OIHW"}, "kernel_layout 'OIHW' does not fit"),
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 8), {"kernel_layout": "IOHW8i8o"}, "kernel_layout 'IOHW8i8o' does not fit"),
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 8), {"out_layout": "NHWC"}, "out_layout 'NHWC' does not fit"),
        ((1, 2, 8, 8), (2, 2, 3, 3, 8, 8), {}, "needs a rank-5 tensor"),
        ((1, 2, 8, 8, 4), (2, 2, 3, 3, 8, 8), {}, "differs from its block 8"),
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 8), {"groups": 2}, "needs 16 == 16"),
        # an output block straddling two groups (12 channels per group, blocks of 8)
        ((1, 2, 8, 8, 8), (3, 1, 3, 3, 8, 8), {"groups": 2}, "block 8 does not divide the 12 output"),
        # the depthwise kernel form on a convolution that is not depthwise
        ((1, 2, 8, 8, 8), (4, 1, 3, 3, 1, 8), {"groups": 16, "kernel_layout": "OIHW1i8o"}, "is the depthwise form"),
        ((1, 2, 8, 8, 8), (2, 2, 3, 3, 8, 8), {"channels": 8}, "channels=8 but the weight gives 16"),
    ],
)  # fmt: skip
def test_conv2d_nchwc_invalid(data: Any, weight: Any, attrs: Any, message: str):
    with pytest.raises(TypeRelationError, match=message):
        infer(Conv2DNCHWcOp, t(*data), t(*weight), **attrs)


def test_dense_pack_types_and_semantics():
    assert infer(DensePackOp, t(4, 32), t(2, 32, 8), weight_layout="NC8n") == t(4, 16)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 10)), rng.standard_normal((12, 10))
    expected = run(DenseOp, x, w)
    packed = transform_array(w, "NC", "NC4n")
    assert packed.shape == (3, 10, 4)
    np.testing.assert_allclose(
        run(DensePackOp, x, packed, weight_layout="NC4n"), expected, rtol=1e-12
    )


def test_dense_pack_nd_data():
    """N-D data: the leading dims are kept (Relay's DensePackRel)."""
    assert infer(DensePackOp, t(2, 5, 32), t(2, 32, 8), weight_layout="NC8n") == t(
        2, 5, 16
    )
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 3, 10)), rng.standard_normal((12, 10))
    packed = transform_array(w, "NC", "NC4n")
    np.testing.assert_allclose(
        run(DensePackOp, x, packed, weight_layout="NC4n"), x @ w.T, rtol=1e-12
    )


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "message"),
    [
        ((4, 32), (2, 32, 8), {"weight_layout": "NC"}, "weight_layout 'NC' is not supported"),
        ((4, 32), (2, 32, 8), {"weight_layout": "NC8c"}, "weight_layout 'NC8c' is not supported"),
        ((4, 32), (2, 32, 8), {"weight_layout": "NC4n"}, r"weight must be \[units/4, K, 4\]"),
        ((4, 32), (64, 32), {"weight_layout": "NC8n"}, r"weight must be \[units/8, K, 8\]"),
        ((4, 16), (2, 32, 8), {"weight_layout": "NC8n"}, "does not match the weight's K 32"),
        ((32,), (2, 32, 8), {"weight_layout": "NC8n"}, r"data must be \[\.\.\., M, K\]"),
        ((4, 32), (2, 32, 8), {"weight_layout": "NC8n", "units": 8}, "units=8"),
    ],
)  # fmt: skip
def test_dense_pack_invalid(data: Any, weight: Any, attrs: Any, message: str):
    with pytest.raises(TypeRelationError, match=message):
        infer(DensePackOp, t(*data), t(*weight), **attrs)


def test_dense_pack_requires_weight_layout():
    with pytest.raises(TypeRelationError, match="weight_layout"):
        DensePackOp.make([], {}, result_types=[t(1)])
