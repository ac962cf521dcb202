"""Weights above ``relay.FoldConstant.max_elements`` (2**24 elements) are still
packed once, at build time: the built library has no layout transform (or
transpose) of the weight left to run, and its results match numpy."""

from __future__ import annotations

import re

import numpy as np

import xrelay
from xrelay import relay


def _kernels(llvm_ir: str) -> list[str]:
    return re.findall(r'define (?:internal|hidden) void @"(k\d+_\w+)"\(', llvm_ir)


def test_a_9216x4096_weight_is_packed_at_build_time():
    # AlexNet's first classifier layer, as an ONNX Gemm without transB gives it: the
    # weight [K, N] is transposed, then packed for the dense kernel (37.7M elements)
    k, n = 9216, 4096
    rng = np.random.default_rng(0)
    w_kn = rng.integers(-3, 4, (k, n)).astype(np.float32)
    x_val = rng.integers(-3, 4, (1, k)).astype(np.float32)
    x = relay.var("x", shape=(1, k), dtype="float32")
    y = relay.nn.dense(x, relay.transpose(relay.const(w_kn), (1, 0)))
    lib = xrelay.build(relay.IRModule.from_expr(relay.Function([x], y)), cache=False)
    kernels = _kernels(lib.llvm_ir)
    assert kernels == ["k0_fused_nn_contrib_dense_pack"]
    # small integers: the sums are exact in any order
    np.testing.assert_array_equal(lib(x_val), x_val @ w_kn)
