"""Quantized convolutions and products compiled through Legalize (int16 operands,
int32 sums) and the int16 pair-product kernels (``pmaddwd``): the same integers as
the QNN ops' reference, bit for bit, for plain, strided, dilated, grouped and
depthwise convolutions, an odd input block (3 channels), the requantize epilogue
fused (the kernels store the 8-bit values), a residual add in that epilogue, and a
dense. One build for every case (module fixture)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.lowering.kernels.int16 import pair_lanes, prepack
from xrelay.runtime.interpreter import interpret

F32, I32 = "float32", "int32"
RNG = np.random.default_rng(0)


def c(value: Any, dtype: str) -> Any:
    return relay.const(np.asarray(value, dtype=dtype), dtype)


def qconv(x: Any, cin: int, cout: int, k: int, requant: bool = True, **kw: Any) -> Any:
    groups = kw.get("groups", 1)
    w = RNG.integers(-128, 128, (cout, cin // groups, k, k)).astype(np.int8)
    w.reshape(-1)[:2] = [-128, 127]
    y = relay.qnn.op.conv2d(
        x,
        c(w, "int8"),
        c(int(RNG.integers(0, 256)), I32),
        c(int(RNG.integers(-20, 20)), I32),
        c(0.05, F32),
        c(RNG.uniform(0.001, 0.01, cout).astype(np.float32), F32),
        kernel_size=(k, k),
        channels=cout,
        **kw,
    )
    if not requant:
        return y
    ratio = RNG.uniform(0.0005, 0.002, cout).astype(np.float32)
    y = relay.qnn.op.requantize(
        y, c(ratio, F32), c(0, I32), c(1.0, F32), c(3, I32), axis=1, out_dtype="uint8"
    )
    return relay.clip(y, 3, 200)  # a fused ReLU6-like clip


@pytest.fixture(scope="module")
def built() -> tuple[Any, Any, list[np.ndarray]]:
    x16 = relay.var("x16", shape=(1, 16, 9, 9), dtype="uint8")
    x3 = relay.var("x3", shape=(1, 3, 8, 8), dtype="uint8")
    xd = relay.var("xd", shape=(3, 8), dtype="uint8")
    wd = RNG.integers(-128, 128, (16, 8)).astype(np.int8)
    outs = [
        qconv(x16, 16, 16, 3, padding=(1, 1)),
        qconv(x16, 16, 32, 1, strides=(2, 2)),
        qconv(x16, 16, 16, 3, padding=(2, 2), dilation=(2, 2), requant=False),
        qconv(x16, 16, 16, 3, padding=(1, 1), groups=2),
        qconv(x16, 16, 16, 3, padding=(1, 1), groups=16),
        qconv(x3, 3, 16, 3, padding=(1, 1), strides=(2, 2)),
        relay.qnn.op.dense(
            xd, c(wd, "int8"), c(17, I32), c(-3, I32), c(1.0, F32), c(1.0, F32), 16
        ),
        # a residual block's end: the second convolution's requantize, the
        # quantized add of the block's input and a ReLU, all its epilogue
        relay.clip(
            relay.qnn.op.add(
                qconv(x16, 16, 16, 3, padding=(1, 1)),
                qconv(x16, 16, 16, 1),
                c(0.02, F32),
                c(3, I32),
                c(0.03, F32),
                c(3, I32),
                c(0.04, F32),
                c(5, I32),
            ),
            5,
            255,
        ),
    ]
    mod = relay.IRModule.from_expr(relay.Function([x16, x3, xd], relay.Tuple(outs)))
    inputs = [
        RNG.integers(0, 256, (1, 16, 9, 9)).astype(np.uint8),
        RNG.integers(0, 256, (1, 3, 8, 8)).astype(np.uint8),
        RNG.integers(0, 256, (3, 8)).astype(np.uint8),
    ]
    return mod, xrelay.build(mod, cache=False), inputs


def test_matches_the_reference(built: tuple[Any, Any, list[np.ndarray]]):
    mod, lib, inputs = built
    want = interpret(mod, *inputs)
    m = lib.create()
    for name, a in zip(("x16", "x3", "xd"), inputs, strict=True):
        m.set_input(name, a)
    m.run()
    for k, w in enumerate(want):
        got = m.get_output(k)
        assert got.dtype == w.dtype, k
        np.testing.assert_array_equal(got, w, err_msg=f"output {k}")


def test_uses_the_pair_products(built: tuple[Any, Any, list[np.ndarray]]):
    _, lib, _ = built
    ir = lib.get_source("ll")
    if pair_lanes() == 0:
        pytest.skip("the host has no pmaddwd")
    assert "pmadd" in ir


def test_prepack_pairs_the_input_channels():
    w = np.arange(2 * 1 * 1 * 1 * 4 * 3).reshape(2, 1, 1, 1, 4, 3)
    p = prepack(w).reshape(2, 1, 1, 1, 2, 3, 2)
    for ob in range(2):
        for pair in range(2):
            for o in range(3):
                for j in range(2):
                    assert p[ob, 0, 0, 0, pair, o, j] == w[ob, 0, 0, 0, 2 * pair + j, o]
