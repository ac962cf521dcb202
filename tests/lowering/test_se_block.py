"""EfficientNet's squeeze-and-excitation block built at opt_level 3 (issue 13): the
SiLUs are their convolutions' epilogues (the conv -> sigmoid -> multiply diamond is
one group), and the gate (global pool -> 1x1 conv -> SiLU -> 1x1 conv -> sigmoid)
scales the activation in a broadcast multiply when the projection's weight is larger
than the activation, and is folded into that weight when the activation is much
larger (ForwardFoldScaleAxis' cost rule). Compared with a float64 numpy reference
on one and two threads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext


def _conv1x1(x: Any, w: Any) -> Any:
    return np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0])


def _depthwise3x3(x: Any, w: Any) -> Any:
    _, _, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros_like(x)
    for ky in range(3):
        for kx in range(3):
            out += (
                xp[:, :, ky : ky + h, kx : kx + wd] * w[None, :, 0, ky, kx, None, None]
            )
    return out


def _silu(x: Any) -> Any:
    return x / (1.0 + np.exp(-x))


def _params(c: int, expand: int, squeeze: int, out: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)

    def w(*shape: int) -> Any:
        return (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(
            "float32"
        )

    def b(n: int) -> Any:
        return (rng.standard_normal(n) * 0.1).astype("float32")

    return {
        "w_exp": w(expand, c, 1, 1),
        "b_exp": b(expand),
        "w_dw": w(expand, 1, 3, 3),
        "b_dw": b(expand),
        "w_sq": w(squeeze, expand, 1, 1),
        "b_sq": b(squeeze),
        "w_ex": w(expand, squeeze, 1, 1),
        "b_ex": b(expand),
        "w_proj": w(out, expand, 1, 1),
        "b_proj": b(out),
    }


def _model(shape: tuple[int, int, int, int], p: dict[str, Any]) -> Any:
    x = relay.var("x", shape=shape, dtype="float32")

    def conv(v: Any, name: str, **kw: Any) -> Any:
        out = relay.nn.conv2d(v, relay.const(p["w_" + name]), **kw)
        return relay.nn.bias_add(out, relay.const(p["b_" + name]))

    def silu(v: Any) -> Any:
        return relay.multiply(v, relay.sigmoid(v))

    expand = p["w_dw"].shape[0]
    h = silu(conv(x, "exp"))
    h = silu(conv(h, "dw", padding=(1, 1), groups=expand, channels=expand))
    g = relay.nn.global_avg_pool2d(h)
    g = relay.sigmoid(conv(silu(conv(g, "sq")), "ex"))
    out = conv(relay.multiply(h, g), "proj")
    return relay.IRModule.from_expr(relay.Function([x], out))


def _reference(x: Any, p: dict[str, Any]) -> Any:
    q = {k: v.astype(np.float64) for k, v in p.items()}

    def bias(v: Any, name: str) -> Any:
        return v + q["b_" + name][None, :, None, None]

    h = _silu(bias(_conv1x1(x.astype(np.float64), q["w_exp"]), "exp"))
    h = _silu(bias(_depthwise3x3(h, q["w_dw"]), "dw"))
    g = h.mean(axis=(2, 3), keepdims=True)
    g = _silu(bias(_conv1x1(g, q["w_sq"]), "sq"))
    g = 1.0 / (1.0 + np.exp(-bias(_conv1x1(g, q["w_ex"]), "ex")))
    return bias(_conv1x1(h * g, q["w_proj"]), "proj")


@pytest.mark.parametrize(
    ("shape", "expand", "squeeze", "out", "gate_on_activation"),
    [
        # a late block: 7x7 pixels, the projection weight (96 x 192) is larger
        # than the activation (192 x 49): the gate scales the activation
        ((1, 32, 7, 7), 192, 8, 96, True),
        # an early block: 40x40 pixels, a 16 x 32 projection weight: folded
        ((1, 16, 40, 40), 32, 4, 16, False),
    ],
)
def test_se_block_matches_numpy(
    shape: tuple[int, int, int, int],
    expand: int,
    squeeze: int,
    out: int,
    gate_on_activation: bool,
):
    p = _params(shape[1], expand, squeeze, out, seed=shape[2])
    mod = _model(shape, p)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    with PassContext(opt_level=3):
        lib = xrelay.build(mod, keep_mlir=True)
    expected = _reference(x, p)
    for threads in (1, 2):
        m = lib.create()
        m.set_num_threads(threads)
        m.set_input(0, x)
        m.run()
        np.testing.assert_allclose(m.get_output(0), expected, rtol=1e-4, atol=1e-5)

    host = (
        lib.get_source("mlir").split("func.call @main")[0].split("func.func @main")[1]
    )
    groups = [
        line.split("func.call @k")[1]
        .split("(")[0]
        .split("_fused_")[1]
        .rstrip("_0123456789")
        for line in host.splitlines()
        if "func.call @k" in line
    ]
    silu_conv = "nn_contrib_conv2d_NCHWc_add_sigmoid_multiply"
    gate = (
        ["multiply"]
        if gate_on_activation
        else ["squeeze_layout_transform_expand_dims_multiply_layout_transform"]
    )
    assert groups == [
        "layout_transform",
        silu_conv,  # expansion + SiLU
        silu_conv,  # depthwise + SiLU
        "nn_global_avg_pool2d",
        silu_conv,  # squeeze + SiLU (not folded into the excitation's weight)
        "nn_contrib_conv2d_NCHWc_add_sigmoid",  # excitation + gate
        *gate,  # the gate on the activation, or on the projection's weight
        "nn_contrib_conv2d_NCHWc_add",  # projection
        "layout_transform",
    ]
