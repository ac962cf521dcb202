"""QnnCanonicalize as a TVM user tests it (``relay.qnn.transform.CanonicalizeOps()``,
Relay's ``test_pass_qnn_legalize.py`` / ``test_op_qnn_*.py`` scenarios: the QNN op is
replaced by integer relay ops, and the program computes the same values).

Covered: dequantize and conv2d become the expected relay expressions; a quantized
program evaluates to the same values before and after the pass, and after
``relay.build``; the pass runs in ``relay.build`` at opt_level 1 and up.
Out of scope: Relay's target-specific ``QnnLegalize`` (xrelay's QNN ops have one
canonical form for every target) and TVM's fixed-point requantize (xrelay follows
onnxruntime's float32 multiplier, see docs/decisions.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run(expr: Any, *passes: Any) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=3):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def test_dequantize_becomes_integer_ops():
    x = relay.var("x", shape=(2, 4), dtype="uint8")
    s, z = relay.const(0.5, "float32"), relay.const(128, "int32")
    after = run(
        relay.Function([x], relay.qnn.op.dequantize(x, s, z)),
        relay.qnn.transform.CanonicalizeOps(),
    )
    x2 = relay.var("x", shape=(2, 4), dtype="uint8")
    centred = relay.subtract(relay.cast(x2, "int32"), relay.const(128, "int32"))
    expected = relay.Function(
        [x2],
        relay.multiply(relay.cast(centred, "float32"), relay.const(0.5, "float32")),
    )
    assert_structural_equal(after, run(expected))


def test_conv2d_becomes_an_int32_conv2d():
    x = relay.var("x", shape=(1, 3, 5, 5), dtype="uint8")
    w = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    conv = relay.qnn.op.conv2d(
        x,
        w,
        relay.const(120, "int32"),
        relay.const(0, "int32"),
        relay.const(0.1, "float32"),
        relay.const(0.2, "float32"),
        kernel_size=(3, 3),
        channels=4,
        padding=(1, 1),
    )
    after = run(relay.Function([x, w], conv), relay.qnn.transform.CanonicalizeOps())
    x2 = relay.var("x", shape=(1, 3, 5, 5), dtype="uint8")
    w2 = relay.var("w", shape=(4, 3, 3, 3), dtype="int8")
    expected = relay.nn.conv2d(
        relay.subtract(relay.cast(x2, "int32"), relay.const(120, "int32")),
        relay.subtract(relay.cast(w2, "int32"), relay.const(0, "int32")),
        kernel_size=(3, 3),
        channels=4,
        padding=(1, 1),
        out_dtype="int32",
    )
    assert_structural_equal(after, run(relay.Function([x2, w2], expected)))


def quantized_dense() -> Any:
    x = relay.var("x", shape=(2, 6), dtype="float32")
    q = relay.qnn.op.quantize(x, relay.const(0.05), relay.const(3), out_dtype="uint8")
    w = relay.const(np.arange(-12, 12, dtype=np.int8).reshape(4, 6))
    acc = relay.qnn.op.dense(
        q, w, relay.const(3), relay.const(0), relay.const(0.05), relay.const(0.1), 4
    )
    out = relay.qnn.op.requantize(
        acc,
        relay.const(0.005),
        relay.const(0),
        relay.const(0.2),
        relay.const(-5),
        out_dtype="int8",
    )
    return relay.Function(
        [x], relay.qnn.op.dequantize(out, relay.const(0.2), relay.const(-5))
    )


def test_the_values_stay_the_same():
    data = np.linspace(-3, 3, 12, dtype=np.float32).reshape(2, 6)
    before = relay.IRModule.from_expr(quantized_dense())
    after = run(quantized_dense(), relay.qnn.transform.CanonicalizeOps())
    want = relay.create_executor(mod=before).evaluate()(data)
    got = relay.create_executor(mod=after).evaluate()(data)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    lib = relay.build(before, target="llvm")
    np.testing.assert_array_equal(np.asarray(lib(data)), want.numpy())


def test_build_runs_it_from_opt_level_1():
    mod = relay.IRModule.from_expr(quantized_dense())
    for level in (1, 3):
        with transform.PassContext(opt_level=level):
            optimized, _ = relay.optimize(mod, target="llvm")
        names = [op.name for op in optimized.module.walk()]
        assert not any(n.startswith("relay.qnn.") for n in names), level
