"""Depthwise and grouped convolutions (issue 13) built at opt_level 3: AlterOpLayout
puts them on channel-blocked tiles (``contrib_conv2d_NCHWc`` with ``groups``), a
MobileNet block (1x1 -> depthwise -> 1x1) stays blocked between its convolutions,
the bias and clip are the convolutions' epilogues; shapes no block fits run the
plain kernel. Compared with a float64 numpy reference on one and two threads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext


def _conv_ref(x: Any, w: Any, groups: int, stride: int, pad: int) -> Any:
    """float64 grouped convolution, NCHW / OIHW."""
    n, _, h, wd = x.shape
    o, i, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    og = o // groups
    out = np.zeros((n, o, oh, ow))
    for g in range(groups):
        xs = xp[:, g * i : (g + 1) * i]
        ws = w[g * og : (g + 1) * og].astype(np.float64)
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[
                    :,
                    :,
                    ky : ky + stride * (oh - 1) + 1 : stride,
                    kx : kx + stride * (ow - 1) + 1 : stride,
                ]
                out[:, g * og : (g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch, ws[:, :, ky, kx]
                )
    return out


def _run(mod: Any, data: Any) -> tuple[list[Any], str]:
    with PassContext(opt_level=3):
        lib = xrelay.build(mod, keep_mlir=True)
    outs: list[Any] = []
    for threads in (1, 2):
        m = lib.create()
        m.set_num_threads(threads)
        m.set_input(0, data)
        m.run()
        outs.append(m.get_output(0))
    host = lib.get_source("mlir").split("func.func @main")[1]
    return outs, host


def _calls(host: str) -> list[str]:
    return [line for line in host.splitlines() if "func.call @k" in line]


@pytest.mark.parametrize(
    ("c", "hw", "k", "stride", "blocked"),
    [
        (32, (9, 23), 3, 1, True),
        (16, (1, 1), 3, 1, True),
        (24, (11, 7), 5, 2, True),
        (48, (15, 13), 7, 1, True),
        (16, (8, 9), 7, 2, True),
        # no block divides the channels: the plain kernel
        (3, (7, 6), 3, 2, False),
        (17, (5, 1), 5, 1, False),
        (1001, (3, 4), 3, 1, False),
    ],
)
def test_depthwise_bias_clip(
    c: int, hw: tuple[int, int], k: int, stride: int, blocked: bool
):
    rng = np.random.default_rng(c + k)
    w = (rng.standard_normal((c, 1, k, k)) * 0.3).astype("float32")
    b = rng.standard_normal(c).astype("float32")
    x = relay.var("x", shape=(1, c, *hw), dtype="float32")
    y = relay.nn.conv2d(
        x, relay.const(w), groups=c, padding=(k // 2, k // 2), strides=(stride, stride)
    )
    y = relay.clip(relay.nn.bias_add(y, relay.const(b)), 0.0, 6.0)
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    data = rng.standard_normal((1, c, *hw)).astype("float32")
    ref = np.clip(_conv_ref(data, w, c, stride, k // 2) + b[:, None, None], 0, 6)
    outs, host = _run(mod, data)
    conv_calls = [line for line in _calls(host) if "conv2d" in line]
    assert len(conv_calls) == 1, conv_calls
    # the bias (an add after CanonicalizeOps) and the clip are the epilogue
    assert "_add_clip(" in conv_calls[0]
    assert ("contrib_conv2d_NCHWc" in conv_calls[0]) == blocked
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize(
    ("c", "o", "groups", "k", "stride", "blocked"),
    [
        (32, 64, 2, 1, 1, True),
        (64, 64, 4, 3, 2, True),
        (64, 128, 8, 1, 1, True),
        (48, 48, 3, 3, 1, True),
        # 3 channels per group: no block, the plain kernel
        (9, 18, 3, 3, 1, False),
    ],
)
def test_grouped_relu(c: int, o: int, groups: int, k: int, stride: int, blocked: bool):
    rng = np.random.default_rng(o + groups)
    w = (rng.standard_normal((o, c // groups, k, k)) * 0.3).astype("float32")
    x = relay.var("x", shape=(1, c, 7, 9), dtype="float32")
    y = relay.nn.conv2d(
        x, relay.const(w), groups=groups, padding=(k // 2, k // 2), strides=stride
    )
    y = relay.nn.relu(y)
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    data = rng.standard_normal((1, c, 7, 9)).astype("float32")
    ref = np.maximum(_conv_ref(data, w, groups, stride, k // 2), 0)
    outs, host = _run(mod, data)
    conv_calls = [line for line in _calls(host) if "conv2d" in line]
    assert len(conv_calls) == 1, conv_calls
    assert ("contrib_conv2d_NCHWc" in conv_calls[0]) == blocked
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(outs[1], outs[0])


def test_mobilenet_block_stays_blocked():
    """1x1 expand -> depthwise 3x3 (stride 2) -> 1x1 project, with biases and
    clips: three blocked convolutions, no layout transform between them."""
    rng = np.random.default_rng(7)

    def const(*shape: int) -> Any:
        return (rng.standard_normal(shape) * 0.3).astype("float32")

    w1, w2, w3 = const(96, 16, 1, 1), const(96, 1, 3, 3), const(24, 96, 1, 1)
    b1, b2 = const(96), const(96)
    x = relay.var("x", shape=(1, 16, 13, 11), dtype="float32")
    y = relay.nn.bias_add(relay.nn.conv2d(x, relay.const(w1)), relay.const(b1))
    y = relay.clip(y, 0.0, 6.0)
    y = relay.nn.conv2d(y, relay.const(w2), groups=96, padding=(1, 1), strides=2)
    y = relay.clip(relay.nn.bias_add(y, relay.const(b2)), 0.0, 6.0)
    y = relay.nn.conv2d(y, relay.const(w3))
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    data = rng.standard_normal((1, 16, 13, 11)).astype("float32")
    h = np.clip(_conv_ref(data, w1, 1, 1, 0) + b1[:, None, None], 0, 6)
    h = np.clip(_conv_ref(h, w2, 96, 2, 1) + b2[:, None, None], 0, 6)
    ref = _conv_ref(h, w3, 1, 1, 0)
    outs, host = _run(mod, data)
    calls = _calls(host)
    convs = [k for k, line in enumerate(calls) if "conv2d" in line]
    assert len(convs) == 3, calls
    assert all("contrib_conv2d_NCHWc" in calls[k] for k in convs)
    between = calls[convs[0] : convs[-1] + 1]
    assert not any("layout_transform" in line for line in between), between
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_depthwise_vector_kernel(dtype: str):
    """The blocked depthwise kernel computes on vectors of a channel block (one
    ``vector.load`` per pixel and tap, the kernel rows in an ``scf`` loop)
    for ``f32`` / ``f64``; ``f16`` (stored narrow, computed in ``f32``) keeps
    the per-lane kernel. Every dtype matches the reference."""
    rng = np.random.default_rng(5)
    c, k = 32, 3
    w = (rng.standard_normal((c, 1, k, k)) * 0.3).astype(dtype)
    x = relay.var("x", shape=(1, c, 10, 13), dtype=dtype)
    y = relay.nn.conv2d(x, relay.const(w, dtype=dtype), groups=c, padding=(1, 1))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.relu(y)))
    data = rng.standard_normal((1, c, 10, 13)).astype(dtype)
    ref = np.maximum(_conv_ref(data, w, c, 1, 1), 0)
    with PassContext(opt_level=3):
        lib = xrelay.build(mod, keep_mlir=True)
    m = lib.create()
    m.set_input(0, data)
    m.run()
    out = m.get_output(0)
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)
    src = lib.get_source("mlir")
    kernel = next(
        part
        for part in src.split("func.func @")[1:]
        if part.startswith("k") and "contrib_conv2d_NCHWc" in part.split("(")[0]
    )
    if dtype == "float16":
        assert "vector.load" not in kernel
    else:
        # per kernel column, one load of the weights and one per pixel of the tile
        # (at most the row's 13), in a loop over the kernel rows
        assert "vector.store" in kernel
        assert 0 < kernel.count("vector.load") <= 3 * (1 + 13), kernel.count(
            "vector.load"
        )


def _depthwise_ref(x: Any, w: Any, pads: tuple[int, int, int, int], dil: int) -> Any:
    """float64 stride-1 depthwise convolution, NCHW, padding (top, left, bottom,
    right)."""
    _, c, h, wd = x.shape
    _, _, kh, kw = w.shape
    pt, pl, pb, pr = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh, ow = h + pt + pb - dil * (kh - 1), wd + pl + pr - dil * (kw - 1)
    out = np.zeros((1, c, oh, ow))
    with np.errstate(invalid="ignore"):
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, :, ky * dil : ky * dil + oh, kx * dil : kx * dil + ow]
                out += patch * w[None, :, 0, ky, kx, None, None].astype(np.float64)
    return out


@pytest.mark.parametrize(
    ("hw", "k", "dil", "pads"),
    [
        ((14, 14), 3, 1, (1, 1, 1, 1)),
        ((28, 28), 3, 1, (1, 1, 1, 1)),
        ((17, 6), 5, 1, (2, 2, 2, 2)),
        ((9, 11), 7, 1, (3, 3, 3, 3)),
        ((12, 9), 3, 2, (2, 2, 2, 2)),
        ((8, 7), 3, 1, (0, 0, 2, 2)),  # one-sided padding, rows as wide
        ((6, 5), 3, 1, (2, 2, 0, 0)),
        ((5, 1), 3, 1, (1, 1, 1, 1)),
        ((1, 9), 3, 1, (1, 1, 1, 1)),
        ((3, 3), 5, 1, (2, 2, 2, 2)),
        ((11, 9), 3, 1, (1, 1, 0, 1)),  # fewer output rows than input rows
        ((12, 10), 3, 2, (0, 2, 0, 2)),  # four fewer
    ],
)
def test_plain_depthwise_rows_in_registers(
    hw: tuple[int, int], k: int, dil: int, pads: tuple[int, int, int, int]
):
    """Plain stride-1 depthwise planes (17 channels: no block) whose inner rows sum
    their taps in registers over the flat plane: the columns a tap must not reach
    (they would wrap into the neighbouring row) are skipped, which the NaN and inf
    planted at row ends show (they reach only their own windows)."""
    c = 17
    rng = np.random.default_rng(k * 100 + hw[0])
    w = (rng.standard_normal((c, 1, k, k)) * 0.3).astype("float32")
    data = rng.standard_normal((1, c, *hw)).astype("float32")
    data[0, 0, :, 0] = np.nan
    data[0, 1, :, -1] = np.inf
    data[0, 2, hw[0] // 2, 0] = -np.inf
    x = relay.var("x", shape=(1, c, *hw), dtype="float32")
    y = relay.nn.conv2d(x, relay.const(w), groups=c, padding=pads, dilation=(dil, dil))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.relu(y)))
    # np.maximum keeps the NaNs, as relu does
    ref = np.maximum(_depthwise_ref(data, w, pads, dil), 0)
    outs, host = _run(mod, data)
    assert not any("NCHWc" in line for line in _calls(host))
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize(("c", "o", "groups"), [(58, 58, 1), (116, 116, 1), (9, 18, 3)])
def test_plain_tiled_conv_is_shared_out(c: int, o: int, groups: int):
    """The plain register-tiled convolution (channels that take no block: the last
    output block partial) is called by every thread (each iteration repacks its
    block's weights into its own scratch slice) and gives the same bits on one and
    two threads."""
    rng = np.random.default_rng(c)
    w = (rng.standard_normal((o, c // groups, 1, 1)) * 0.3).astype("float32")
    x = relay.var("x", shape=(1, c, 14, 14), dtype="float32")
    y = relay.nn.relu(relay.nn.conv2d(x, relay.const(w), groups=groups))
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    data = rng.standard_normal((1, c, 14, 14)).astype("float32")
    outs, host = _run(mod, data)
    (call,) = [line for line in _calls(host) if "conv2d" in line]
    # called by every thread with its id (not by thread 0 alone, with constants)
    assert "%tid, %nthreads, %team)" in call
    ref = np.maximum(_conv_ref(data, w, groups, 1, 0), 0)
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(outs[1], outs[0])
