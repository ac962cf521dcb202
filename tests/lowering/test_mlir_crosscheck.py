"""MLIR's own lowering of xrelay's memref-level output agrees with xrelay's.

Where ``mlir-opt-22`` and ``mlir-translate-22`` are installed, the kernels and host of
a model (after relay-to-kernels and plan-memory) go through MLIR's
``--convert-scf-to-cf --finalize-memref-to-llvm --convert-arith-to-llvm
--convert-math-to-llvm --convert-math-to-libm --convert-func-to-llvm
--convert-cf-to-llvm --reconcile-unrealized-casts`` and ``--mlir-to-llvmir``; the
LLVM IR is JIT-compiled with llvmlite and called with MLIR's memref-descriptor ABI
(allocated pointer, aligned pointer, offset, sizes, strides per memref). Its outputs
must match xrelay's JIT.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from typing import Any

import numpy as np
import pytest

MLIR_OPT = shutil.which("mlir-opt-22") or shutil.which("mlir-opt")
MLIR_TRANSLATE = shutil.which("mlir-translate-22") or shutil.which("mlir-translate")

pytestmark = pytest.mark.skipif(
    MLIR_OPT is None or MLIR_TRANSLATE is None,
    reason="needs mlir-opt-22 and mlir-translate-22 (Debian mlir-22-tools)",
)

MLIR_PIPELINE = [
    "--convert-scf-to-cf",
    "--finalize-memref-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-math-to-llvm",
    "--convert-math-to-libm",
    "--convert-func-to-llvm",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
]


def _model() -> Any:
    from xrelay import relay

    rng = np.random.default_rng(7)

    def const(*shape: int) -> Any:
        return relay.const((rng.standard_normal(shape) * 0.3).astype("float32"))

    x = relay.var("x", shape=(1, 3, 9, 9), dtype="float32")
    k = relay.var("k", shape=(4,), dtype="int32")
    y = relay.nn.conv2d(x, const(6, 3, 3, 3), padding=(1, 1), strides=(2, 2))
    y = relay.nn.relu(relay.nn.bias_add(y, const(6)))
    y = relay.nn.max_pool2d(y, pool_size=(2, 2), strides=(1, 1), padding=(1, 1))
    y = relay.nn.batch_norm(y, const(6), const(6), const(6), relay.abs(const(6)))[0]
    y = relay.erf(relay.tanh(y))
    flat = relay.nn.batch_flatten(
        relay.nn.avg_pool2d(y, pool_size=(2, 2), ceil_mode=True)
    )
    z = relay.nn.softmax(relay.nn.dense(flat, const(5, 150)))
    t = relay.take(relay.transpose(y, (0, 2, 3, 1)), k, axis=1, mode="wrap")
    m = relay.mod(relay.sum(t, axis=[3]), relay.const(np.float32(0.7)))
    mod = relay.IRModule.from_expr(relay.Function([x, k], relay.Tuple([z, m])))
    inputs = [
        rng.standard_normal((1, 3, 9, 9)).astype("float32"),
        np.array([0, 3, -1, 7], dtype="int32"),
    ]
    return mod, inputs


def _descriptor_args(arrays: list[Any]) -> list[Any]:
    """MLIR's expanded memref ABI: allocated, aligned, offset, sizes..., strides..."""
    out: list[Any] = []
    for a in arrays:
        ptr = ctypes.c_void_p(a.ctypes.data)
        out += [ptr, ptr, ctypes.c_int64(0)]
        out += [ctypes.c_int64(d) for d in a.shape]
        out += [ctypes.c_int64(s // a.itemsize) for s in a.strides]
    return out


def test_mlir_lowering_agrees_with_xrelay():
    import llvmlite.binding as llvm

    from xrelay.lowering.llvm.threads import runtime_ir
    from xrelay.lowering.memory_plan import plan_memory
    from xrelay.lowering.pipeline import lower_model, relay_to_kernels
    from xrelay.runtime.jit import JITModule
    from xrelay.runtime.library import Library

    mod, inputs = _model()
    module = mod.module
    lowered = lower_model(module)
    ours = Library(lowered.spec, lowered.llvm_ir)(*inputs)

    work = module.clone()
    relay_to_kernels(work)
    plan_memory(work)
    opt = subprocess.run(
        [MLIR_OPT, *MLIR_PIPELINE], input=str(work), capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    translated = subprocess.run(
        [MLIR_TRANSLATE, "--mlir-to-llvmir"], input=opt.stdout, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    llvm_ir = translated.stdout
    assert "@main" in llvm_ir
    # the host and kernels call the thread runtime: link xrelay's definitions in
    runtime = ("@xrelay_barrier", "@xrelay_claim", "@xrelay_reset")
    llvm_ir = "\n".join(
        line
        for line in llvm_ir.splitlines()
        if not (line.startswith("declare") and any(f in line for f in runtime))
    )
    llvm_ir += "\n" + runtime_ir()
    llvm.parse_assembly(llvm_ir).verify()

    jit = JITModule(llvm_ir)
    outputs = [np.zeros(spec.shape, spec.dtype) for spec in lowered.spec.outputs]
    buffers = [np.ascontiguousarray(a) for a in inputs] + outputs
    # one thread: thread id 0, a team of 1 (the barrier returns at once)
    team = np.zeros(6, dtype=np.int64)
    team[1] = 1
    args = [ctypes.c_int64(0), ctypes.c_int64(1), ctypes.c_void_p(team.ctypes.data)]
    args += _descriptor_args(buffers)
    entry = ctypes.CFUNCTYPE(None, *[type(a) for a in args])(jit.address("main"))
    entry(*args)
    assert len(outputs) == len(ours) == 2
    for theirs, mine in zip(outputs, ours, strict=True):
        np.testing.assert_allclose(theirs, mine, rtol=1e-5, atol=1e-6)
