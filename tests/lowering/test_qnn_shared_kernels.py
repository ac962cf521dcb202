"""Quantized layers of one shape share one kernel (lowering.group.runtime_scalars):
the requantize epilogue's scalars (zero points, per-tensor multipliers, the
rounding constant) are passed to the kernel as weights instead of being inlined,
so two ``qnn.conv2d`` layers whose scales and zero points differ lower to one
kernel, called twice, and still give the numpy reference's bits. Float kernels
keep their scalars inline: two float layers differing in a scalar keep two
kernels."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.runtime.interpreter import interpret

F32, I32 = "float32", "int32"
SHAPE = (1, 16, 6, 6)


def c(value: Any, dtype: str) -> Any:
    return relay.const(np.asarray(value, dtype=dtype), dtype)


def _qnn_layer(x: Any, rng: Any, k: int) -> Any:
    """quantize -> qnn.conv2d (3x3, per-channel weights) -> requantize -> dequantize,
    with scales and zero points of its own (``k``)."""
    s_in, z_in = 0.05 + 0.01 * k, 120 + 7 * k
    q = relay.qnn.op.quantize(x, c(s_in, F32), c(z_in, I32), out_dtype="uint8")
    w = c(rng.integers(-127, 128, size=(16, 16, 3, 3)), "int8")
    ws = c(rng.uniform(0.001, 0.004, size=16), F32)
    acc = relay.qnn.op.conv2d(
        q, w, c(z_in, I32), c(0, I32), c(s_in, F32), ws, 3, 16, padding=1
    )
    s_out, z_out = 0.4 + 0.1 * k, 3 + 5 * k
    rq = relay.qnn.op.requantize(
        acc,
        relay.multiply(c(s_in, F32), ws),
        c(0, I32),
        c(s_out, F32),
        c(z_out, I32),
        axis=1,
        out_dtype="uint8",
    )
    return relay.qnn.op.dequantize(rq, c(s_out, F32), c(z_out, I32))


def _conv_kernels(mod: Any) -> tuple[int, int]:
    """(convolution kernel functions, calls to them) of ``mod`` lowered at opt
    level 3."""
    from xrelay.build import optimize_module
    from xrelay.lowering.pipeline import relay_to_kernels

    with PassContext(opt_level=3):
        module = optimize_module(mod)
    relay_to_kernels(module)
    module.verify()
    names = {
        op.sym_name.data
        for op in module.ops
        if isinstance(op, func.FuncOp)
        and op.body.blocks
        and "conv2d" in op.sym_name.data
    }
    calls = sum(
        1
        for op in module.walk()
        if isinstance(op, func.CallOp) and op.callee.string_value() in names
    )
    return len(names), calls


@pytest.fixture(scope="module")
def quantized() -> tuple[Any, list[np.ndarray]]:
    rng = np.random.default_rng(5)
    x0 = relay.var("x0", shape=SHAPE, dtype=F32)
    x1 = relay.var("x1", shape=SHAPE, dtype=F32)
    out = relay.Tuple([_qnn_layer(x0, rng, 0), _qnn_layer(x1, rng, 1)])
    mod = relay.IRModule.from_expr(relay.Function([x0, x1], out))
    data = [rng.uniform(-6, 6, size=SHAPE).astype(F32) for _ in range(2)]
    return mod, data


def test_same_shaped_qnn_convolutions_share_one_kernel(
    quantized: tuple[Any, list[np.ndarray]],
) -> None:
    mod, _ = quantized
    assert _conv_kernels(mod) == (1, 2)


def test_the_shared_kernel_gives_the_references_bits(
    quantized: tuple[Any, list[np.ndarray]],
) -> None:
    mod, data = quantized
    want = interpret(mod, *data)
    with PassContext(opt_level=3):
        got = xrelay.build(mod)(*data)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_float_layers_keep_their_scalars_inline() -> None:
    """Negative: the same two layers in float32, differing in a scalar bound
    fused after the convolution (``maximum``), keep one kernel each (constants inlined)."""
    rng = np.random.default_rng(6)
    xs, outs = [], []
    for k in range(2):
        x = relay.var(f"x{k}", shape=SHAPE, dtype=F32)
        w = c(rng.standard_normal((16, 16, 3, 3)) * 0.1, F32)
        conv = relay.nn.conv2d(x, w, padding=(1, 1))
        xs.append(x)
        outs.append(relay.maximum(conv, c(0.5 + k, F32)))
    mod = relay.IRModule.from_expr(relay.Function(xs, relay.Tuple(outs)))
    assert _conv_kernels(mod) == (2, 2)
