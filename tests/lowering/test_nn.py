"""The nn ops lowered and run against their numpy semantics: convolutions (every
attribute: strides, padding, dilation, groups, depthwise, layouts, out_dtype, the
NCHWc form), matrix products, the softmax family, dropout, batch_flatten and pad.

Sums of products are accumulated in another order than numpy's BLAS calls; inputs are
drawn with a standard deviation of 0.5 so that the rounding differences stay under the
default tolerances (rtol 1e-5, atol 1e-6).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import nn
from xrelay.dialects.relay.layout import transform_array

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _x(rng: Gen, *shape: int, dtype: str = "float32") -> Any:
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 0.5).astype(dtype)
    return rng.integers(-8, 8, shape).astype(dtype)


def _conv_case(rng: Gen, case: Any) -> Any:
    """A random conv2d: channels, kernel, strides, padding, dilation, groups."""
    groups = int(rng.choice([1, 1, 2, 3]))
    cin = groups * int(rng.integers(1, 4))
    cout = groups * int(rng.integers(1, 4))
    kh, kw = (int(k) for k in rng.integers(1, 4, 2))
    h, w = (int(d) for d in rng.integers(5, 10, 2))
    attrs = {
        "strides": [int(s) for s in rng.integers(1, 3, 2)],
        "padding": [int(p) for p in rng.integers(0, 3, 4)],
        "dilation": [int(d) for d in rng.integers(1, 3, 2)],
        "groups": groups,
    }
    return case(
        nn.Conv2DOp,
        [_x(rng, 2, cin, h, w), _x(rng, cout, cin // groups, kh, kw)],
        attrs,
    )


@pytest.mark.parametrize("seed", range(4))
def test_conv2d_random(seed: int, check: Check, case: Any):
    rng = np.random.default_rng(seed)
    check([_conv_case(rng, case) for _ in range(4)])


def test_conv2d_depthwise_layouts_and_dtypes(rng: Gen, check: Check, case: Any):
    x = _x(rng, 1, 4, 7, 6)
    check(
        [
            # depthwise: groups == channels, multiplier 1 and 2
            case(
                nn.Conv2DOp, [x, _x(rng, 4, 1, 3, 3)], {"groups": 4, "padding": [1, 1]}
            ),
            case(
                nn.Conv2DOp, [x, _x(rng, 4, 2, 3, 3)], {"groups": 4, "strides": [2, 1]}
            ),
            # NHWC data, HWIO kernel, NCHW output
            case(
                nn.Conv2DOp,
                [np.transpose(x, (0, 2, 3, 1)).copy(), _x(rng, 3, 3, 4, 5)],
                {
                    "data_layout": "NHWC",
                    "kernel_layout": "HWIO",
                    "out_layout": "NCHW",
                    "padding": [1, 0, 1, 2],
                },
            ),
            # int8 x int8 accumulated in int32
            case(
                nn.Conv2DOp,
                [_x(rng, 1, 3, 5, 5, dtype="int8"), _x(rng, 2, 3, 3, 3, dtype="int8")],
                {"out_dtype": "int32", "padding": [1, 1]},
            ),
            case(
                nn.Conv2DOp,
                [x, _x(rng, 6, 4, 1, 1)],
                {"channels": 6, "kernel_size": [1, 1]},
            ),
        ]
    )


def test_conv2d_nchwc(rng: Gen, check: Check, case: Any):
    x, w = _x(rng, 1, 8, 6, 7), _x(rng, 8, 8, 3, 3)
    xb = transform_array(x, "NCHW", "NCHW4c")
    wb = transform_array(w, "OIHW", "OIHW4i2o")
    check(
        [
            case(
                nn.Conv2DNCHWcOp,
                [xb, wb],
                {
                    "data_layout": "NCHW4c",
                    "kernel_layout": "OIHW4i2o",
                    "out_layout": "NCHW2c",
                    "padding": [1, 1],
                    "strides": [1, 2],
                },
            ),
            case(
                nn.Conv2DNCHWcOp,
                [xb, transform_array(w, "OIHW", "OIHW4i8o")],
                {
                    "data_layout": "NCHW4c",
                    "kernel_layout": "OIHW4i8o",
                    "out_layout": "NCHW8c",
                    "dilation": [2, 2],
                    "padding": [2, 1, 0, 1],
                },
            ),
        ]
    )


@pytest.mark.parametrize("seed", range(2))
def test_conv2d_transpose(seed: int, check: Check, case: Any):
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(3):
        groups = int(rng.choice([1, 2]))
        cin = groups * int(rng.integers(1, 3))
        og = int(rng.integers(1, 3))
        sh, sw = (int(s) for s in rng.integers(1, 3, 2))
        attrs = {
            "strides": [sh, sw],
            "padding": [int(p) for p in rng.integers(0, 2, 4)],
            "dilation": [int(d) for d in rng.integers(1, 3, 2)],
            "output_padding": [int(rng.integers(0, sh)), int(rng.integers(0, sw))],
            "groups": groups,
        }
        cases.append(
            case(
                nn.Conv2DTransposeOp,
                [_x(rng, 1, cin, 4, 5), _x(rng, cin, og, 3, 2)],
                attrs,
            )
        )
    check(cases)


def test_matrix_products(rng: Gen, check: Check, case: Any):
    check(
        [
            case(nn.DenseOp, [_x(rng, 3, 17), _x(rng, 5, 17)], constants=[1]),
            case(nn.DenseOp, [_x(rng, 2, 3, 8), _x(rng, 4, 8)], {"units": 4}),
            case(
                nn.DenseOp,
                [_x(rng, 2, 6, dtype="int8"), _x(rng, 3, 6, dtype="int8")],
                {"out_dtype": "int32"},
            ),
            case(
                nn.DensePackOp,
                [_x(rng, 3, 7), _x(rng, 2, 7, 4)],
                {"weight_layout": "NC4n"},
            ),
            case(nn.MatmulOp, [_x(rng, 2, 3, 4), _x(rng, 4, 5)]),
            case(
                nn.MatmulOp,
                [_x(rng, 4, 3), _x(rng, 5, 4)],
                {"transpose_a": True, "transpose_b": True},
            ),
            case(nn.MatmulOp, [_x(rng, 4), _x(rng, 4, 2)]),
            case(nn.BatchMatmulOp, [_x(rng, 2, 3, 4), _x(rng, 2, 5, 4)]),
            case(
                nn.BatchMatmulOp,
                [_x(rng, 1, 4, 3), _x(rng, 3, 4, 5)],
                {"transpose_a": True, "transpose_b": False},
            ),
        ]
    )


def test_softmax_family(rng: Gen, check: Check, case: Any):
    x = _x(rng, 3, 4, 5) * 4
    check(
        [
            case(nn.SoftmaxOp, [x]),
            case(nn.SoftmaxOp, [x], {"axis": 1}),
            case(nn.FastSoftmaxOp, [x], {"axis": 0}),
            case(nn.LogSoftmaxOp, [x], {"axis": -2}),
            case(nn.SoftmaxOp, [_x(rng, 2, 1000, dtype="float64") * 10]),
        ]
    )


def test_dropout_flatten_pad(rng: Gen, check: Check, case: Any):
    x = _x(rng, 2, 3, 4)
    check(
        [
            case(nn.DropoutOp, [x], {"rate": 0.3}),
            case(nn.BatchFlattenOp, [x]),
            case(
                nn.PadOp,
                [x, np.float32(0.25)],
                {"pad_width": [0, 1, 2, 0, 1, 3]},
                constants=[1],
            ),
            case(
                nn.PadOp,
                [x, np.float32(0.0)],
                {"pad_width": [1, 1, 2, 2, 3, 3], "pad_mode": "edge"},
            ),
            case(
                nn.PadOp,
                [x, np.float32(0.0)],
                {"pad_width": [1, 0, 2, 1, 3, 2], "pad_mode": "reflect"},
            ),
            case(
                nn.PadOp,
                [_x(rng, 3, dtype="int32"), np.int32(7)],
                {"pad_width": [2, 2]},
            ),
        ]
    )


def test_every_nn_op_is_tested():
    """A new op in the family must get a case here."""
    tested = {
        nn.Conv2DOp, nn.Conv2DNCHWcOp, nn.Conv2DTransposeOp, nn.DenseOp, nn.DensePackOp,
        nn.MatmulOp, nn.BatchMatmulOp, nn.SoftmaxOp, nn.LogSoftmaxOp, nn.FastSoftmaxOp,
        nn.DropoutOp, nn.BatchFlattenOp, nn.PadOp,
    }  # fmt: skip
    assert not [op.name for op in nn.NN_OPS if op not in tested]
