"""vision.roi_align lowered and run against its numpy semantics: both modes, aligned
or not, fixed and adaptive sample grids, regions inside, across and far outside the
data, huge ones (the adaptive grid is visited only where it can be inside: no
hang), NaN and infinite coordinates, fractional batch indices, float64; a bad batch
index fails the compiled run as it fails the interpreter."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import vision

Gen = np.random.Generator
Check = Callable[[Sequence[Any]], None]


def _rois(rng: Gen, count: int, batch: int, lo: float, hi: float) -> Any:
    corner = rng.uniform(lo, hi, (count, 2))
    size = rng.uniform(0.2, (hi - lo) / 2, (count, 2))
    b = rng.integers(0, batch, (count, 1)).astype(np.float64)
    return np.concatenate([b, corner, corner + size], axis=1)


@pytest.mark.parametrize("mode", vision.ROI_ALIGN_MODES)
def test_roi_align(rng: Gen, check: Check, case: Any, mode: str):
    cases = []
    for aligned in (False, True):
        for ratio in (-1, 0, 2, 3):
            for scale in (1.0, 0.625):
                x = rng.standard_normal((2, 3, 7, 9)).astype("float32")
                rois = _rois(rng, 6, 2, -4.0, 14.0).astype("float32")
                attrs = {
                    "pooled_size": [3, 2],
                    "spatial_scale": scale,
                    "sample_ratio": ratio,
                    "mode": mode,
                    "aligned": aligned,
                }
                cases.append(case(vision.RoiAlignOp, [x, rois], attrs))
    check(cases)


def test_roi_align_hostile_regions(rng: Gen, check: Check, case: Any):
    rows = [
        [0, 1e30, 2, 3e30, 5],  # far outside: every sample is 0
        [1, -1e30, -1e30, 1e30, 1e30],  # huge across the data: a window of samples
        [0, 1.5, 2.5, 1.5, 2.5],  # empty
        [1, 5, 4, 2, 1],  # inverted
        [0, np.nan, 1, 4, 4],
        [1, 1, 1, np.inf, 3],
        [0, -np.inf, -np.inf, np.inf, np.inf],
        [1.9, 0.5, 0.5, 6.5, 5.5],  # batch index truncated to 1
        [-0.5, 0.5, 0.5, 6.5, 5.5],  # truncated to 0
    ]
    rois = np.array(rows, "float32")
    cases = []
    for mode in vision.ROI_ALIGN_MODES:
        for aligned in (False, True):
            for ratio in (0, 2):
                x = rng.standard_normal((2, 2, 6, 5)).astype("float32")
                attrs = {
                    "pooled_size": [2, 3],
                    "spatial_scale": 1.0,
                    "sample_ratio": ratio,
                    "mode": mode,
                    "aligned": aligned,
                }
                cases.append(case(vision.RoiAlignOp, [x, rois], attrs))
    check(cases)


def test_roi_align_float64(rng: Gen, check: Check, case: Any):
    x = rng.standard_normal((1, 2, 5, 6))
    rois = _rois(rng, 4, 1, -2.0, 8.0)
    attrs = {"pooled_size": [2, 2], "spatial_scale": 1.0, "mode": "avg"}
    check([case(vision.RoiAlignOp, [x, rois], attrs)])


@pytest.mark.parametrize("b", [2.0, -1.0, np.nan, 1e30])
def test_roi_align_bad_batch_index_fails_the_run(b: float):
    import xrelay
    from xrelay import relay
    from xrelay.runtime.interpreter import interpret
    from xrelay.status import IndexOutOfRangeError

    x = np.ones((2, 1, 4, 4), "float32")
    rois = np.array([[0, 0, 0, 2, 2], [b, 0, 0, 2, 2]], "float32")
    xv = relay.var("x", shape=x.shape, dtype="float32")
    rv = relay.var("rois", shape=rois.shape, dtype="float32")
    call = relay.Call(
        relay.op.get("vision.roi_align"),
        [xv, rv],
        attrs={"pooled_size": [2, 2], "spatial_scale": 1.0},
    )
    mod = relay.IRModule.from_expr(relay.Function([xv, rv], call))
    want = -1 if b != b or abs(b) > 2**62 else int(b)
    message = f"relay.vision.roi_align: index {want} is out of range"
    with pytest.raises(IndexOutOfRangeError, match=message):
        interpret(mod, x, rois)
    with pytest.raises(IndexOutOfRangeError, match=message):
        xrelay.build(mod)(x, rois)


def test_roi_align_nhwc_is_the_nchw_result_transposed(
    rng: Gen, check: Check, case: Any
):
    """NHWC data runs as NCHW between transforms: the semantics (and the compiled
    kernel) give the NCHW result transposed."""
    from xrelay import relay
    from xrelay.runtime.interpreter import interpret

    x = rng.standard_normal((2, 3, 7, 9)).astype("float32")
    rois = _rois(rng, 5, 2, -2.0, 10.0).astype("float32")
    attrs: dict[str, Any] = {
        "pooled_size": [3, 2],
        "spatial_scale": 0.5,
        "sample_ratio": 2,
    }

    def run(data: np.ndarray, layout: str) -> Any:
        d = relay.var("d", shape=data.shape)
        r = relay.var("r", shape=rois.shape)
        y = relay.vision.roi_align(d, r, layout=layout, **attrs)
        return interpret(
            relay.IRModule.from_expr(relay.Function([d, r], y)), data, rois
        )

    nhwc_x = x.transpose(0, 2, 3, 1).copy()
    nchw = run(x, "NCHW")
    np.testing.assert_array_equal(run(nhwc_x, "NHWC"), nchw.transpose(0, 2, 3, 1))
    check([case(vision.RoiAlignOp, [nhwc_x, rois], {**attrs, "layout": "NHWC"})])


def roi_pool_reference(
    x: np.ndarray, rois: np.ndarray, pooled: Any, scale: float
) -> Any:
    """Relay's roi_pool written bin by bin in float64 bounds (the test regions avoid
    float32 ties), NCHW."""
    out = np.zeros((len(rois), x.shape[1], *pooled), x.dtype)
    h, w = x.shape[2:]
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sw, sh = round(x1 * scale), round(y1 * scale)
        ew, eh = round(x2 * scale), round(y2 * scale)
        bh = max(eh - sh + 1, 1) / pooled[0]
        bw = max(ew - sw + 1, 1) / pooled[1]
        for p in range(pooled[0]):
            h0 = min(max(math.floor(p * bh + 1e-5) + sh, 0), h)
            h1 = min(max(math.ceil((p + 1) * bh - 1e-5) + sh, 0), h)
            for q in range(pooled[1]):
                w0 = min(max(math.floor(q * bw + 1e-5) + sw, 0), w)
                w1 = min(max(math.ceil((q + 1) * bw - 1e-5) + sw, 0), w)
                if h0 < h1 and w0 < w1:
                    out[r, :, p, q] = x[int(b), :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def test_roi_pool(rng: Gen, check: Check, case: Any):
    """Regions inside, across the border, smaller than a bin, far outside, NaN and
    huge coordinates; NCHW and NHWC, compiled against the semantics."""
    x = rng.standard_normal((2, 3, 9, 7)).astype("float32")
    rows = [
        [0, 1, 1, 5, 6],
        [1, 0, 0, 20, 20],
        [1, 3, 2, 3, 2],
        [0, -5, -5, 2, 2],
        [1, 30, 30, 40, 40],
    ]
    rois = np.array(rows, "float32")
    attrs = {"pooled_size": [3, 2], "spatial_scale": 0.5}
    want = roi_pool_reference(x, rois, (3, 2), 0.5)
    got = vision.roi_pool(x, rois, (3, 2), 0.5)
    np.testing.assert_array_equal(got, want)
    hostile = np.array(
        [[1, np.nan, 1, 2, 3], [0, 1e12, 0, 3, 3], [1.7, 2, 2, 6, 8]], "float32"
    )
    got_h = vision.roi_pool(x, hostile, (3, 2), 0.5)
    assert not got_h[:2].any()  # NaN / huge coordinates: empty regions
    np.testing.assert_array_equal(
        got_h[2], roi_pool_reference(x, hostile[2:], (3, 2), 0.5)[0]
    )
    nhwc = {**attrs, "layout": "NHWC"}
    both = np.concatenate([rois, hostile])
    check(
        [
            case(vision.RoiPoolOp, [x, both], attrs),
            case(vision.RoiPoolOp, [x.transpose(0, 2, 3, 1).copy(), both], nhwc),
        ]
    )


def test_roi_pool_bad_batch_index_fails_the_run():
    import xrelay
    from xrelay import relay
    from xrelay.runtime.interpreter import interpret
    from xrelay.status import IndexOutOfRangeError

    x = np.ones((2, 1, 4, 4), "float32")
    rois = np.array([[0, 0, 0, 2, 2], [np.nan, 0, 0, 2, 2]], "float32")
    xv = relay.var("x", shape=x.shape)
    rv = relay.var("rois", shape=rois.shape)
    y = relay.vision.roi_pool(xv, rv, pooled_size=(2, 2), spatial_scale=1.0)
    mod = relay.IRModule.from_expr(relay.Function([xv, rv], y))
    message = "relay.vision.roi_pool: index -1 is out of range"
    with pytest.raises(IndexOutOfRangeError, match=message):
        interpret(mod, x, rois)
    with pytest.raises(IndexOutOfRangeError, match=message):
        xrelay.build(mod)(x, rois)
