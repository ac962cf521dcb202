"""LLVM's pipeline (xrelay.lowering.object_code.optimize_ir) keeps what the run speed
depends on: the convolution tiles' vector sums become vector FMAs in the machine
code, and a scalar loop (an elementwise kernel) is vectorised by LLVM. A cheaper
pipeline that loses either fails here (one small build, shared by the tests)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.lowering.object_code import (
    host_target,
    optimize_ir,
    release_module,
    target_machine,
)

pytestmark = pytest.mark.skipif(
    "+fma" not in host_target()[1].split(","), reason="the host has no FMA"
)


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    x = relay.var("x", shape=(1, 16, 14, 14), dtype="float32")
    z = relay.var("z", shape=(4099,), dtype="float32")
    conv = relay.nn.conv2d(
        x, relay.const(weight), padding=(1, 1), channels=16, kernel_size=(3, 3)
    )
    f = relay.Function([x, z], relay.Tuple([relay.nn.relu(conv), relay.sigmoid(z)]))
    lib = xrelay.build(xrelay.IRModule.from_expr(f), cache=False)
    tm = target_machine(pic=True)
    mod = optimize_ir(lib.llvm_ir, tm)
    try:
        optimized, assembly = str(mod), str(tm.emit_assembly(mod))
    finally:
        release_module(mod)
    return {
        "lib": lib,
        "ir": lib.llvm_ir,
        "opt": optimized,
        "asm": assembly,
        "weight": weight,
    }


def _function(text: str, pattern: str) -> str:
    found = re.search(rf"^define [^\n]*@\"?{pattern}[^\n]*\n.*?^}}", text, re.M | re.S)
    assert found is not None, pattern
    return found.group(0)


def test_conv_tiles_are_vector_fmas(built: dict[str, Any]) -> None:
    found = re.search(
        r"^k\d+_fused_nn_contrib_conv2d\w*:\n(.*?)^\.Lfunc_end",
        built["asm"],
        re.M | re.S,
    )
    assert found is not None
    fmas = re.findall(r"vfmadd\w*ps\s+[^\n]*%[yz]mm", found.group(1))
    assert len(fmas) >= 8, "the convolution's vector sums lost their vector FMAs"


def test_scalar_loop_is_vectorised(built: dict[str, Any]) -> None:
    before = _function(built["ir"], r"k\d+_fused_sigmoid")
    after = _function(built["opt"], r"k\d+_fused_sigmoid")
    assert not re.search(r"<\d+ x float>", before)  # scalar in the input
    lanes = {int(n) for n in re.findall(r"<(\d+) x float>", after)}
    assert lanes, "LLVM no longer vectorises a scalar loop"
    assert max(lanes) >= 4


def test_results(built: dict[str, Any]) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 16, 14, 14)).astype(np.float32)
    z = rng.standard_normal(4099).astype(np.float32)
    conv, sig = built["lib"](x, z)
    padded = np.pad(x[0], ((0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
    want = np.einsum("chwij,ocij->ohw", windows, built["weight"])[None]
    np.testing.assert_allclose(conv, np.maximum(want, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-z)), rtol=1e-5, atol=1e-6)


def test_host_calls_the_barrier(built: dict[str, Any]) -> None:
    """The team barrier stays one function that the host calls between layers: inlined
    at each call, its code made LLVM's work on the host grow with the layers."""
    host = _function(built["ir"], "main")
    calls = host.count('@"xrelay_barrier"(')
    assert calls >= 1
    barrier = _function(built["ir"], "xrelay_barrier")
    assert "noinline" in barrier.splitlines()[0]
    optimized_host = _function(built["opt"], "main")
    assert optimized_host.count("@xrelay_barrier(") == calls
    assert "atomicrmw" not in optimized_host
