"""Pooling, reductions and normalisations lowered and run against their numpy
semantics, with random shapes and attributes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import normalization as norm
from xrelay.dialects.relay import pooling as pl
from xrelay.dialects.relay import reduce as red

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _x(rng: Gen, *shape: int, dtype: str = "float32") -> Any:
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    return rng.integers(-20, 20, shape).astype(dtype)


@pytest.mark.parametrize("seed", range(3))
def test_window_pooling(seed: int, check: Check, case: Any):
    rng = np.random.default_rng(seed)
    cases = []
    for op in (pl.MaxPool2DOp, pl.AvgPool2DOp):
        for _ in range(3):
            ph, pw = (int(k) for k in rng.integers(1, 4, 2))
            attrs: dict[str, Any] = {
                "pool_size": [ph, pw],
                "strides": [int(s) for s in rng.integers(1, 3, 2)],
                "dilation": [int(d) for d in rng.integers(1, 3, 2)],
                "padding": [
                    int(rng.integers(0, ph)),
                    int(rng.integers(0, pw)),
                    int(rng.integers(0, ph)),
                    int(rng.integers(0, pw)),
                ],
                "ceil_mode": bool(rng.integers(0, 2)),
            }
            if op is pl.AvgPool2DOp:
                attrs["count_include_pad"] = bool(rng.integers(0, 2))
            cases.append(case(op, [_x(rng, 2, 3, int(rng.integers(5, 9)), 7)], attrs))
    cases.append(
        case(
            pl.MaxPool2DOp,
            [_x(rng, 1, 5, 6, 3).transpose(0, 2, 3, 1).copy()],
            {"pool_size": [2, 2], "layout": "NHWC", "out_layout": "NCHW"},
        )
    )
    cases.append(
        case(
            pl.AvgPool2DOp,
            [_x(rng, 1, 2, 6, 6, dtype="int32")],
            {"pool_size": [3, 3], "padding": [1, 1]},
        )
    )
    check(cases)


@pytest.mark.parametrize(
    ("hw", "k", "dil", "pads", "include_pad"),
    [
        ((35, 35), 3, 1, [1, 1, 1, 1], True),  # Inception's average pool branch
        ((35, 35), 3, 1, [1, 1, 1, 1], False),
        ((9, 17), 5, 1, [2, 2, 2, 2], False),
        ((12, 7), 3, 2, [2, 2, 2, 2], True),
        ((8, 6), 3, 1, [0, 0, 2, 2], False),  # one-sided padding, rows as wide
        ((6, 5), 3, 1, [2, 2, 0, 0], True),
        ((5, 1), 3, 1, [1, 1, 1, 1], False),
        ((4, 4), 3, 1, [1, 1, 1, 1], True),  # no inner rows: every output folded
        ((9, 7), 3, 1, [1, 1, 0, 1], False),  # fewer output rows than input rows
        ((9, 7), 3, 2, [0, 2, 0, 2], True),  # four fewer
    ],
)
def test_plain_stride1_pools_fold_rows_in_registers(
    hw: tuple[int, int],
    k: int,
    dil: int,
    pads: list[int],
    include_pad: bool,
    check: Check,
    case: Any,
):
    """Stride-1 max and average pools on plain NCHW planes whose rows are as wide
    as the input's fold their inner rows over the flat plane; NaN and infinities at
    the row ends must reach only their own windows (not the neighbouring row's)."""
    rng = np.random.default_rng(hw[0] * 10 + k)
    x = _x(rng, 2, 3, *hw)
    x[0, 0, :, 0] = np.nan
    x[0, 1, :, -1] = np.inf
    x[1, 2, hw[0] // 2, 0] = -np.inf
    attrs: dict[str, Any] = {
        "pool_size": [k, k],
        "dilation": [dil, dil],
        "padding": pads,
    }
    check(
        [
            case(pl.MaxPool2DOp, [x], attrs),
            case(pl.AvgPool2DOp, [x], {**attrs, "count_include_pad": include_pad}),
            case(
                pl.AvgPool2DOp,
                [x.astype("float64")],
                {**attrs, "count_include_pad": include_pad},
            ),
        ]
    )


def test_global_and_adaptive_pooling(rng: Gen, check: Check, case: Any):
    x = _x(rng, 2, 3, 7, 5)
    check(
        [
            case(pl.GlobalAvgPool2DOp, [x]),
            case(pl.GlobalMaxPool2DOp, [x]),
            case(
                pl.GlobalAvgPool2DOp,
                [x.transpose(0, 2, 3, 1).copy()],
                {"layout": "NHWC"},
            ),
            case(pl.GlobalAvgPool2DOp, [_x(rng, 1, 2, 3, 3, dtype="int32")]),
            case(pl.AdaptiveAvgPool2DOp, [x], {"output_size": [3, 2]}),
            case(pl.AdaptiveMaxPool2DOp, [x], {"output_size": [4]}),
            case(pl.AdaptiveAvgPool2DOp, [x]),
        ]
    )


def _blocked(x: Any, block: int) -> Any:
    """An NCHW array laid out as NCHW{block}c (numpy only)."""
    n, c, h, w = x.shape
    return x.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2).copy()


def _semantics(
    cls: Any, x: Any, layout: str, attrs: dict[str, Any] | None = None
) -> Any:
    """The op's numpy semantics on ``x`` (its type relation checked first)."""
    from xdsl.ir import Block

    from xrelay.dialects.relay.testing import type_of

    block = Block(arg_types=[type_of(x)])
    op = cls.make([block.args[0]], {**(attrs or {}), "layout": layout})
    op.verify()
    return op.evaluate(x)[0]


def test_global_pooling_on_blocked_channels(rng: Gen, check: Check, case: Any):
    """NCHW{k}c global pools (odd planes, one block, one-pixel plane, a large plane
    with NaNs) give the NCHW pool laid out as NCHW{k}c: checked against numpy directly and lowered."""
    cases = []
    for shape, block in (
        ((2, 48, 7, 5), 16),
        ((1, 8, 1, 1), 8),
        ((1, 12, 3, 9), 4),
        ((1, 32, 41, 37), 16),  # a large plane; NaNs in some channels (they win)
    ):
        x = _x(rng, *shape)
        if shape[2] > 40:
            x[0, ::7, 3, 5] = np.nan
        xb = _blocked(x, block)
        layout = f"NCHW{block}c"
        avg = _semantics(pl.GlobalAvgPool2DOp, xb, layout)
        mx = _semantics(pl.GlobalMaxPool2DOp, xb, layout)
        np.testing.assert_allclose(
            avg, _blocked(x.mean(axis=(2, 3), keepdims=True), block), rtol=1e-6
        )
        np.testing.assert_array_equal(
            mx, _blocked(x.max(axis=(2, 3), keepdims=True), block)
        )
        cases.append(case(pl.GlobalAvgPool2DOp, [xb], {"layout": layout}))
        cases.append(case(pl.GlobalMaxPool2DOp, [xb], {"layout": layout}))
    check(cases)


def test_window_pooling_on_blocked_channels(rng: Gen, check: Check, case: Any):
    """NCHW{k}c max/avg pools (padding, strides, ceil mode, count_include_pad) give
    the NCHW pool laid out as NCHW{k}c."""
    cases = []
    for shape, block, attrs in (
        ((1, 32, 9, 7), 16, {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]}),
        ((2, 8, 6, 5), 4, {"pool_size": [2, 2], "strides": [2, 2], "ceil_mode": True}),
        ((1, 6, 5, 5), 3, {"pool_size": [3, 2], "padding": [1, 0, 1, 1], "count_include_pad": True}),
        # dilation, a window wider than the data, 1-pixel planes; NaNs (max: they win)
        ((1, 16, 7, 11), 8, {"pool_size": [3, 5], "dilation": [2, 3], "padding": [2, 2, 1, 6]}),
        ((3, 16, 1, 1), 16, {"pool_size": [3, 3], "padding": [1, 1, 1, 1]}),
        ((1, 32, 17, 6), 16, {"pool_size": [2, 3], "strides": [3, 1], "nan": True}),
    ):  # fmt: skip
        nan = attrs.pop("nan", False)
        x = _x(rng, *shape)
        if nan:
            x.reshape(-1)[::37] = np.nan
        xb = _blocked(x, block)
        layout = f"NCHW{block}c"
        for cls in (pl.MaxPool2DOp, pl.AvgPool2DOp):
            a = {
                k: v
                for k, v in attrs.items()
                if cls is pl.AvgPool2DOp or k != "count_include_pad"
            }
            plain = _semantics(cls, x, "NCHW", a)
            got = _semantics(cls, xb, layout, a)
            np.testing.assert_allclose(got, _blocked(plain, block), rtol=1e-6)
            cases.append(case(cls, [xb], {**a, "layout": layout}))
    check(cases)


REDUCTIONS = [red.SumOp, red.MeanOp, red.MaxOp, red.MinOp, red.ProdOp]


def _axes(rng: Gen, rank: int) -> list[int]:
    k = int(rng.integers(1, rank + 1))
    return [
        int(a) - (rank if rng.random() < 0.3 else 0)
        for a in rng.choice(rank, k, replace=False)
    ]


@pytest.mark.parametrize("op", REDUCTIONS, ids=lambda c: c.name)
def test_reductions(op: Any, rng: Gen, check: Check, case: Any):
    cases = []
    for dtype in ("float32", "float64", "int32"):
        x = _x(rng, 3, 4, 5, dtype=dtype)
        if op is red.ProdOp:
            x = (x / 4 if dtype.startswith("float") else np.sign(x)).astype(dtype)
        cases.append(
            case(op, [x], {"axis": _axes(rng, 3), "keepdims": bool(rng.integers(0, 2))})
        )
    cases.append(case(op, [_x(rng, 2, 3)]))
    cases.append(case(op, [_x(rng, 2, 3, 4)], {"axis": [1], "exclude": True}))
    cases.append(case(op, [_x(rng, 3, 2000)], {"axis": [1]}))
    check(cases)


def test_logical_and_index_reductions(rng: Gen, check: Check, case: Any):
    x = _x(rng, 3, 4, 5)
    ties = rng.integers(0, 3, (4, 6)).astype("float32")
    check(
        [
            case(red.AllOp, [_x(rng, 3, 4, dtype="bool")], {"axis": [1]}),
            case(red.AnyOp, [_x(rng, 3, 4, dtype="bool")], {"keepdims": True}),
            case(red.ArgMaxOp, [x], {"axis": [1]}),
            case(red.ArgMinOp, [x], {"axis": [0, 2], "keepdims": True}),
            case(red.ArgMaxOp, [ties], {"axis": [1], "select_last_index": True}),
            case(red.ArgMinOp, [ties], {"axis": [1]}),
            case(red.ArgMaxOp, [x]),
            case(red.ArgMaxOp, [np.array([1.0, np.nan, 3.0, np.nan], "float32")]),
        ]
    )


def test_statistics(rng: Gen, check: Check, case: Any):
    x = _x(rng, 3, 4, 5)
    mean = np.mean(x, axis=(1,), keepdims=True)
    check(
        [
            case(red.VarianceOp, [x, mean], {"axis": [1]}),
            case(
                red.VarianceOp,
                [x, mean],
                {"axis": [1], "unbiased": True, "keepdims": True},
            ),
            case(red.StdOp, [x], {"axis": [0, 2]}),
            case(red.StdOp, [x], {"unbiased": True}),
            case(red.LogSumExpOp, [x * 30], {"axis": [2]}),
            case(
                red.LogSumExpOp,
                [np.array([[-np.inf, -np.inf], [1.0, 2.0]], "float32")],
                {"axis": [1]},
            ),
        ]
    )


def test_normalizations(rng: Gen, check: Check, case: Any):
    x = _x(rng, 2, 6, 3, 4)
    g, b = _x(rng, 6), _x(rng, 6)
    check(
        [
            case(norm.BatchNormOp, [x, g, b, _x(rng, 6), np.abs(_x(rng, 6)) + 0.1]),
            case(
                norm.BatchNormOp,
                [x.transpose(0, 2, 3, 1).copy(), g, b, _x(rng, 6), np.abs(_x(rng, 6))],
                {"axis": 3, "center": False},
            ),
            case(norm.LayerNormOp, [x, _x(rng, 4), _x(rng, 4)]),
            case(
                norm.LayerNormOp,
                [x, g, b],
                {"axis": 1, "scale": False, "epsilon": 1e-3},
            ),
            case(norm.InstanceNormOp, [x, g, b]),
            case(norm.GroupNormOp, [x, g, b], {"num_groups": 3}),
            case(norm.GroupNormOp, [x, g, b], {"num_groups": 6, "center": False}),
            case(norm.L2NormalizeOp, [x], {"eps": 1e-4}),
            case(norm.L2NormalizeOp, [x], {"eps": 1e-4, "axis": [1, 3]}),
            case(norm.LRNOp, [x], {"size": 3, "alpha": 1e-2}),
            case(norm.LRNOp, [x], {"size": 4, "axis": 3, "bias": 1.0}),
        ]
    )


def test_every_op_of_these_families_is_tested():
    tested = {
        pl.MaxPool2DOp, pl.AvgPool2DOp, pl.GlobalAvgPool2DOp, pl.GlobalMaxPool2DOp,
        pl.AdaptiveAvgPool2DOp, pl.AdaptiveMaxPool2DOp, *REDUCTIONS, red.AllOp, red.AnyOp,
        red.ArgMaxOp, red.ArgMinOp, red.VarianceOp, red.StdOp, red.LogSumExpOp,
        norm.BatchNormOp, norm.LayerNormOp, norm.InstanceNormOp, norm.GroupNormOp,
        norm.L2NormalizeOp, norm.LRNOp,
    }  # fmt: skip
    ops = [*pl.POOLING_OPS, *red.REDUCE_OPS, *norm.NORMALIZATION_OPS]
    assert not [op.name for op in ops if op not in tested]


def test_integer_max_pool_on_blocked_channels_is_vectorised(rng: Gen):
    """An 8-bit NCHW16c max pool (a quantized CNN's, between two integer
    convolutions) gives numpy's max, padding never winning (unsigned: 0, signed:
    -128), and runs one vector max per tap over the block's 16 channels (not one
    window fold per element, 20x slower)."""
    import xrelay
    from xrelay import relay

    shape = (1, 32, 9, 8)
    attrs: dict[str, Any] = {
        "pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]
    }  # fmt: skip
    params, outs, arrays, expected = [], [], [], []
    for dtype, low in (("uint8", 0), ("int8", -128)):
        x = rng.integers(low, low + 256, shape).astype(dtype)
        x.reshape(-1)[::7] = low  # the type's minimum, as the padding
        xb = _blocked(x, 16)
        v = relay.var(f"x_{dtype}", shape=xb.shape, dtype=dtype)
        params.append(v)
        outs.append(relay.nn.max_pool2d(v, layout="NCHW16c", **attrs))
        arrays.append(xb)
        plain = _semantics(pl.MaxPool2DOp, x, "NCHW", attrs)
        expected.append(_blocked(plain, 16))
    func = relay.Function(params, relay.Tuple(outs))
    lib = xrelay.build(relay.IRModule.from_expr(func), num_threads=1)
    got = lib(*arrays)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
    ll = lib.get_source("ll")
    assert "load <16 x i8>" in ll
    assert "icmp ugt <16 x i8>" in ll
    assert "icmp sgt <16 x i8>" in ll
