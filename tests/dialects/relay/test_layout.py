"""Layout strings: parsing, queries, shape mapping and array rearrangement (checked
against explicit index loops)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from xrelay.dialects.relay.layout import Layout, LayoutAxis, transform_array

RNG = np.random.default_rng(3)


# ---------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "axes", "primal"),
    [
        ("NCHW", ["N", "C", "H", "W"], "NCHW"),
        ("NHWC", ["N", "H", "W", "C"], "NHWC"),
        ("NCHW8c", ["N", "C", "H", "W", "8c"], "NCHW"),
        ("OIHW16i16o", ["O", "I", "H", "W", "16i", "16o"], "OIHW"),
        ("NC8n", ["N", "C", "8n"], "NC"),
        ("NCW", ["N", "C", "W"], "NCW"),
        ("", [], ""),
    ],
)
def test_parse(text: str, axes: list[str], primal: str):
    layout = Layout.parse(text)
    assert [str(a) for a in layout.axes] == axes
    assert layout.name == text
    assert str(layout) == text
    assert layout.ndim == len(axes)
    assert layout.primal.name == primal
    assert Layout.parse(layout) is layout


def test_axes_are_structured():
    layout = Layout.parse("NCHW16c")
    assert layout.axes[1] == LayoutAxis("C")
    assert layout.axes[1].is_primal
    assert layout.axes[4] == LayoutAxis("c", 16)
    assert not layout.axes[4].is_primal
    assert layout.axes[4].primal_letter == "C"


def test_equality_and_hash():
    assert Layout.parse("NCHW8c") == Layout.parse("NCHW8c")
    assert Layout.parse("NCHW8c") != Layout.parse("NCHW4c")
    assert Layout.parse("NCHW") != Layout.parse("NHWC")
    assert len({Layout.parse("NCHW"), Layout.parse("NCHW")}) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NCHC", "duplicate axis 'C'"),
        ("NCHW8c4c", "duplicate axis 'c'"),
        ("NHW8c", "sub-axis '8c' has no primal axis 'C'"),
        ("NCHW0c", "factor 0"),
        ("NCHW00c", "factor 0"),
        ("NCHWc", "sub-axis 'c' has no factor"),
        ("N8CHW", "factor 8 before the primal axis 'C'"),
        ("NCHW8", "factor 8 at the end"),
        ("NC-HW", "unexpected character '-'"),
        ("NC_HW", "unexpected character '_'"),
    ],
)
def test_parse_errors(text: str, message: str):
    with pytest.raises(ValueError, match=message):
        Layout.parse(text)


# ---------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------


def test_index_of_and_factor_of():
    layout = Layout.parse("NCHW8c")
    assert layout.index_of("N") == 0
    assert layout.index_of("W") == 3
    assert layout.index_of("c") == 4
    assert layout.index_of("h") == -1
    assert layout.index_of("D") == -1
    assert layout.factor_of("C") == 8
    assert layout.factor_of("c") == 8
    assert layout.factor_of("H") == -1
    assert layout.factor_of("D") == -1
    assert layout.contains("c")
    assert not layout.contains("w")

    kernel = Layout.parse("OIHW16i4o")
    assert kernel.factor_of("I") == 16
    assert kernel.factor_of("o") == 4
    assert kernel.index_of("o") == 5


# ---------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("layout", "primal_shape", "shape"),
    [
        ("NCHW", (1, 16, 5, 7), (1, 16, 5, 7)),
        ("NCHW8c", (1, 16, 5, 7), (1, 2, 5, 7, 8)),
        ("NHWC4c", (2, 5, 7, 12), (2, 5, 7, 3, 4)),
        ("OIHW16i16o", (32, 48, 3, 3), (2, 3, 3, 3, 16, 16)),
        ("NC8n", (16, 3), (2, 3, 8)),
    ],
)
def test_shape_from_primal_and_back(
    layout: str, primal_shape: tuple[int, ...], shape: tuple[int, ...]
):
    lay = Layout.parse(layout)
    assert lay.shape_from_primal(primal_shape) == shape
    assert lay.to_primal_shape(shape) == primal_shape


def test_shape_from_primal_errors():
    with pytest.raises(ValueError, match="axis C of size 12 cannot be split by 8"):
        Layout.parse("NCHW8c").shape_from_primal((1, 12, 4, 4))
    with pytest.raises(ValueError, match="has rank 3 but layout 'NCHW' has 4 axes"):
        Layout.parse("NCHW8c").shape_from_primal((1, 16, 4))
    with pytest.raises(ValueError, match="differs from its factor 8"):
        Layout.parse("NCHW8c").to_primal_shape((1, 2, 4, 4, 4))
    with pytest.raises(ValueError, match="has rank 4 but layout 'NCHW8c' has 5"):
        Layout.parse("NCHW8c").to_primal_shape((1, 2, 4, 4))


@pytest.mark.parametrize(
    ("src", "dst", "shape", "expected"),
    [
        ("NCHW", "NHWC", (1, 3, 5, 7), (1, 5, 7, 3)),
        ("NHWC", "NCHW", (1, 5, 7, 3), (1, 3, 5, 7)),
        ("NCHW", "NCHW8c", (2, 16, 5, 7), (2, 2, 5, 7, 8)),
        ("NCHW8c", "NCHW", (2, 2, 5, 7, 8), (2, 16, 5, 7)),
        ("NCHW8c", "NCHW4c", (2, 2, 5, 7, 8), (2, 4, 5, 7, 4)),
        ("NCHW8c", "NHWC", (2, 2, 5, 7, 8), (2, 5, 7, 16)),
        ("NCHW", "NCHW2h", (1, 3, 6, 7), (1, 3, 3, 7, 2)),
        ("OIHW", "OIHW16i16o", (32, 48, 3, 3), (2, 3, 3, 3, 16, 16)),
        ("NCHW", "NCHW", (1, 2, 3, 4), (1, 2, 3, 4)),
    ],
)
def test_transform_shape(
    src: str, dst: str, shape: tuple[int, ...], expected: tuple[int, ...]
):
    assert Layout.parse(src).transform_shape(shape, dst) == expected
    assert Layout.parse(src).transform_shape(shape, Layout.parse(dst)) == expected


def test_transform_shape_errors():
    with pytest.raises(ValueError, match="primal axes differ"):
        Layout.parse("NCHW").transform_shape((1, 2, 3, 4), "NCDHW")
    with pytest.raises(ValueError, match="primal axes differ"):
        Layout.parse("NCHW").transform_shape((1, 2, 3, 4), "NCH")
    with pytest.raises(ValueError, match="cannot be split by 8"):
        Layout.parse("NCHW").transform_shape((1, 12, 3, 4), "NCHW8c")
    with pytest.raises(ValueError, match="has rank 3"):
        Layout.parse("NCHW").transform_shape((1, 12, 3), "NHWC")


# ---------------------------------------------------------------------------------------
# Arrays, against explicit index loops
# ---------------------------------------------------------------------------------------


def test_nchw_to_nchw8c_matches_loops():
    x = RNG.standard_normal((2, 16, 3, 4)).astype(np.float32)
    out = transform_array(x, "NCHW", "NCHW8c")
    assert out.shape == (2, 2, 3, 4, 8)
    expected = np.empty((2, 2, 3, 4, 8), np.float32)
    for n, co, h, w, ci in itertools.product(*(range(d) for d in expected.shape)):
        expected[n, co, h, w, ci] = x[n, co * 8 + ci, h, w]
    np.testing.assert_array_equal(out, expected)


def test_round_trip_nchw_nchw8c():
    x = RNG.standard_normal((1, 24, 5, 3)).astype(np.float32)
    packed = transform_array(x, "NCHW", "NCHW8c")
    np.testing.assert_array_equal(transform_array(packed, "NCHW8c", "NCHW"), x)


def test_nchw_to_nhwc_matches_loops():
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    out = transform_array(x, "NCHW", "NHWC")
    expected = np.empty((2, 4, 5, 3), np.float32)
    for n, h, w, c in itertools.product(*(range(d) for d in expected.shape)):
        expected[n, h, w, c] = x[n, c, h, w]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(transform_array(out, "NHWC", "NCHW"), x)


def test_nchw8c_to_nchw4c_matches_loops():
    x = RNG.standard_normal((1, 2, 3, 2, 8)).astype(np.float32)
    out = transform_array(x, "NCHW8c", "NCHW4c")
    expected = np.empty((1, 4, 3, 2, 4), np.float32)
    for n, co, h, w, ci in itertools.product(*(range(d) for d in expected.shape)):
        c = co * 4 + ci
        expected[n, co, h, w, ci] = x[n, c // 8, h, w, c % 8]
    np.testing.assert_array_equal(out, expected)


def test_nchw8c_to_nhwc_matches_loops():
    x = RNG.standard_normal((2, 2, 3, 2, 8)).astype(np.float32)
    out = transform_array(x, "NCHW8c", "NHWC")
    expected = np.empty((2, 3, 2, 16), np.float32)
    for n, h, w, c in itertools.product(*(range(d) for d in expected.shape)):
        expected[n, h, w, c] = x[n, c // 8, h, w, c % 8]
    np.testing.assert_array_equal(out, expected)


def test_oihw_to_oihw4i2o_matches_loops():
    x = RNG.standard_normal((4, 8, 3, 3)).astype(np.float32)
    out = transform_array(x, "OIHW", "OIHW4i2o")
    expected = np.empty((2, 2, 3, 3, 4, 2), np.float32)
    for oo, io, h, w, ii, oi in itertools.product(*(range(d) for d in expected.shape)):
        expected[oo, io, h, w, ii, oi] = x[oo * 2 + oi, io * 4 + ii, h, w]
    np.testing.assert_array_equal(out, expected)


def test_transform_array_errors():
    with pytest.raises(ValueError, match="cannot be split by 8"):
        transform_array(np.zeros((1, 12, 2, 2)), "NCHW", "NCHW8c")
    with pytest.raises(ValueError, match="primal axes differ"):
        transform_array(np.zeros((1, 12, 2, 2)), "NCHW", "NCDW")
