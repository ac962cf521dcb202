"""Blocked convolutions that differ only in their count of input-channel blocks share
one kernel taking the count at run time (lowering.group.channel_blocks): the kernel
count of a DenseNet-like growth, and the shared kernel's numerics against numpy on
counts that are odd, prime, below and above a pass's chunk of blocks, bit for bit
equal to the kernels built for each count."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func, memref

from xrelay.lowering import tiling
from xrelay.lowering.graph import GraphLowering

BLOCK = 16  # DenseNet's channel counts are multiples of 16: blocks of 16 channels


def _width(one_size: bool) -> int:
    """An output row width that the host's row tiles of a 1x1 convolution with 32
    output channels cut into tiles of one size, or of two (both sum in passes over
    chunks of blocks: no tile overlaps another)."""
    from xrelay.lowering.kernels.conv import tile_blocks

    nb = tile_blocks(32 // BLOCK, BLOCK * 4)

    def sizes(w: int) -> int:
        return len(tiling.row_pieces(w, tiling.split_row_tile(w, nb, BLOCK, 4)))

    return next(w for w in range(5, 64) if (sizes(w) == 1) == one_size)


def _relu_conv(x: Any, weight: Any, bias: Any, padding: int = 0) -> Any:
    from xrelay import relay

    conv = relay.nn.conv2d(x, relay.const(weight), padding=(padding, padding))
    return relay.nn.relu(relay.nn.bias_add(conv, relay.const(bias)))


def _numpy_relu_conv(x: Any, weight: Any, bias: Any, padding: int = 0) -> Any:
    o, _, kh, kw = weight.shape
    xp = np.pad(x, [(0, 0), (0, 0), (padding, padding), (padding, padding)])
    h, w = xp.shape[2] - kh + 1, xp.shape[3] - kw + 1
    out = np.zeros((x.shape[0], o, h, w), np.float64)
    for ky in range(kh):
        for kx in range(kw):
            win = xp[:, :, ky : ky + h, kx : kx + w].astype(np.float64)
            out += np.einsum("nchw,oc->nohw", win, weight[:, :, ky, kx])
    out += bias.reshape(1, o, 1, 1)
    return np.maximum(out, 0).astype(np.float32)


def _branches(rng: Any, counts: list[int], hw: tuple[int, int], kernel: int) -> Any:
    """A model with one input per count of input-channel blocks, each through its own
    ``relu(conv + bias)`` with the same output shape; its inputs and the numpy
    results."""
    from xrelay import relay

    xs, outs, data, expected = [], [], [], []
    for k, count in enumerate(counts):
        c = count * BLOCK
        x = relay.var(f"x{k}", shape=(1, c, *hw), dtype="float32")
        weight = (rng.standard_normal((32, c, kernel, kernel)) * 0.1).astype("float32")
        bias = (rng.standard_normal(32) * 0.1).astype("float32")
        value = rng.standard_normal((1, c, *hw)).astype("float32")
        pad = kernel // 2
        xs.append(x)
        outs.append(_relu_conv(x, weight, bias, pad))
        data.append(value)
        expected.append(_numpy_relu_conv(value, weight, bias, pad))
    mod = relay.IRModule.from_expr(relay.Function(xs, relay.Tuple(outs)))
    return mod, data, expected


def _run(mod: Any, data: list[Any]) -> list[Any]:
    import xrelay
    from xrelay.pass_manager import PassContext

    with PassContext(opt_level=3):
        lib = xrelay.build(mod)
    outs = lib(*data)
    return list(outs) if isinstance(outs, list | tuple) else [outs]


def _conv_kernels(mod: Any) -> tuple[int, int]:
    """(conv kernel functions, kernel calls passing a channel-block count) of
    ``mod`` lowered to kernels at opt level 3."""
    from xrelay.build import optimize_module
    from xrelay.lowering.pipeline import relay_to_kernels
    from xrelay.pass_manager import PassContext

    with PassContext(opt_level=3):
        module = optimize_module(mod)
    relay_to_kernels(module)
    module.verify()
    kernels = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp)
        and op.body.blocks
        and "conv2d_NCHWc" in op.sym_name.data
    ]
    views = sum(
        1
        for op in module.walk()
        if isinstance(op, memref.ReinterpretCastOp)
        and "?" in str(op.result.type)
        and isinstance(op.parent_op(), func.FuncOp)
        and "conv2d" not in op.parent_op().sym_name.data  # the host's
    )
    return len(kernels), views


@pytest.mark.parametrize(
    ("counts", "hw", "kernel"),
    [
        # largest count above a pass's chunk (4 blocks): passes, the last one cut
        ([3, 17, 1, 4], (5, _width(True)), 1),
        ([3, 17, 1, 4], (5, _width(False)), 1),  # tiles of two sizes
        ([2, 3], (4, 7), 3),  # 3x3 with padding
        ([1, 3, 2], (3, 16), 1),
    ],
)
def test_shared_kernel_against_numpy(
    counts: list[int], hw: tuple[int, int], kernel: int
) -> None:
    rng = np.random.default_rng(sum(counts) + kernel)
    mod, data, expected = _branches(rng, counts, hw, kernel)
    kernels, views = _conv_kernels(mod)
    assert kernels == 1
    assert views == 2 * len(counts)  # data and weight of every call
    for got, want in zip(_run(mod, data), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("budget", [tiling.CONV_CHUNK_BYTES, 1])
def test_shared_kernel_bitwise_equal_to_static(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, budget: int
) -> None:
    """The shared kernel sums in the reference's order (channel blocks in order,
    in passes or not): its results equal those of one kernel per count, bit for
    bit. (Each build in its own compile cache: the patches are not in its key.)"""
    monkeypatch.setattr(tiling, "CONV_CHUNK_BYTES", budget)
    rng = np.random.default_rng(3)
    mod, data, _ = _branches(rng, [5, 2, 7], (6, _width(True)), 1)
    monkeypatch.setenv("XRELAY_CACHE_DIR", str(tmp_path / "shared"))
    assert _conv_kernels(mod) == (1, 6)
    shared = _run(mod, data)
    monkeypatch.setattr(GraphLowering, "_block_classes", lambda self: None)
    monkeypatch.setenv("XRELAY_CACHE_DIR", str(tmp_path / "static"))
    assert _conv_kernels(mod) == (3, 0)
    static = _run(mod, data)
    for a, b in zip(shared, static, strict=True):
        np.testing.assert_array_equal(a, b)


def test_dense_growth_one_kernel() -> None:
    """A dense block (each layer's 1x1 bottleneck reads the concatenation of every
    feature map before it: a count of input-channel blocks growing layer by layer)
    lowers its bottlenecks to one kernel; the block matches numpy."""
    from xrelay import relay

    rng = np.random.default_rng(11)
    growth, layers, hw = BLOCK, 5, (6, 6)
    x = relay.var("x", shape=(1, 2 * BLOCK, *hw), dtype="float32")
    value = rng.standard_normal((1, 2 * BLOCK, *hw)).astype("float32")
    features, ref = [x], [value]
    for _ in range(layers):
        c = sum(int(r.shape[1]) for r in ref)
        w1 = (rng.standard_normal((2 * BLOCK, c, 1, 1)) * 0.1).astype("float32")
        b1 = (rng.standard_normal(2 * BLOCK) * 0.1).astype("float32")
        w3 = (rng.standard_normal((growth, 2 * BLOCK, 3, 3)) * 0.1).astype("float32")
        b3 = (rng.standard_normal(growth) * 0.1).astype("float32")
        cat = relay.concatenate(features, axis=1) if len(features) > 1 else x
        y = _relu_conv(_relu_conv(cat, w1, b1), w3, b3, 1)
        ref_cat = np.concatenate(ref, axis=1)
        ref_y = _numpy_relu_conv(_numpy_relu_conv(ref_cat, w1, b1), w3, b3, 1)
        features.append(y)
        ref.append(ref_y)
    out = relay.concatenate(features, axis=1)
    mod = relay.IRModule.from_expr(relay.Function([x], out))
    kernels, views = _conv_kernels(mod)
    # the bottlenecks share one kernel, the 3x3 convolutions another
    assert kernels == 2
    assert views == 2 * layers
    (got,) = _run(mod, [value])
    np.testing.assert_allclose(got, np.concatenate(ref, axis=1), rtol=1e-4, atol=1e-5)
