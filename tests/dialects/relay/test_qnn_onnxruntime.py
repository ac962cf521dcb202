"""The QNN ops agree bit for bit with onnxruntime's integer kernels: QuantizeLinear,
DequantizeLinear, ConvInteger, MatMulInteger, and QLinearConv / QLinearMatMul as
``qnn.conv2d`` / ``qnn.dense`` (+ int32 bias) + ``qnn.requantize`` with the input
scale ``x_scale * w_scale`` (skipped without onnxruntime).

The int8 weights stay in [-64, 63]: with full-range weights, onnxruntime's AVX2 u8 x s8
kernels (``vpmaddubsw``) saturate sums of two products to int16 and give other
numbers than the exact int32 sum that xrelay (and onnxruntime on VNNI hosts)
computes; onnxruntime's quantizer keeps weights to 7 bits (``reduce_range``) on such
hosts for that reason."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.runtime.interpreter import interpret

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

F32, I32 = "float32", "int32"
_ELEM = {
    "uint8": TensorProto.UINT8,
    "int8": TensorProto.INT8,
    "int32": TensorProto.INT32,
    "float32": TensorProto.FLOAT,
}


def c(value: Any, dtype: str) -> Any:
    return relay.const(np.asarray(value, dtype=dtype), dtype)


def run_onnx(
    node: Any, inputs: dict[str, np.ndarray], inits: dict[str, np.ndarray], out: str
) -> np.ndarray:
    def info(name: str, a: np.ndarray) -> Any:
        elem = helper.np_dtype_to_tensor_dtype(a.dtype)
        return helper.make_tensor_value_info(name, elem, list(a.shape))

    graph = helper.make_graph(
        [node],
        "g",
        [info(k, v) for k, v in inputs.items()],
        [helper.make_tensor_value_info("y", _ELEM[out], None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(
        model.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )
    return sess.run(None, inputs)[0]


def run_relay(body: Any, x: Any, value: np.ndarray) -> np.ndarray:
    mod = relay.IRModule.from_expr(relay.Function([x], body))
    return np.asarray(interpret(mod, value))


def tricky_floats(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Normal values, exact ties of the scale, values beyond the range."""
    x = rng.normal(size=shape).astype(np.float32) * 3
    flat = x.reshape(-1)
    flat[: flat.size // 4] = (rng.integers(-300, 300, flat.size // 4) + 0.5) * 0.25
    flat[-3:] = [1e9, -1e9, 0.0]
    return x


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_quantize_linear_per_tensor(dtype: str):
    rng = np.random.default_rng(0)
    x = tricky_floats(rng, (2, 3, 8, 8))
    zp = np.array(128 if dtype == "uint8" else -3, dtype=dtype)
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    want = run_onnx(node, {"x": x}, {"s": np.array(0.25, np.float32), "z": zp}, dtype)
    xv = relay.var("x", shape=x.shape, dtype=F32)
    got = run_relay(
        relay.qnn.op.quantize(xv, c(0.25, F32), c(int(zp), I32), out_dtype=dtype),
        xv,
        x,
    )
    np.testing.assert_array_equal(got, want)


def test_quantize_and_dequantize_linear_per_axis():
    rng = np.random.default_rng(1)
    x = tricky_floats(rng, (2, 4, 5))
    s = np.array([0.25, 0.013, 0.7, 0.05], np.float32)
    z = np.array([0, -5, 7, 100], np.int8)
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1)
    want_q = run_onnx(node, {"x": x}, {"s": s, "z": z}, "int8")
    xv = relay.var("x", shape=x.shape, dtype=F32)
    q = relay.qnn.op.quantize(xv, c(s, F32), c(z, I32), axis=1)
    np.testing.assert_array_equal(run_relay(q, xv, x), want_q)
    node = helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)
    want_d = run_onnx(node, {"q": want_q}, {"s": s, "z": z}, F32)
    qv = relay.var("q", shape=x.shape, dtype="int8")
    d = relay.qnn.op.dequantize(qv, c(s, F32), c(z, I32), axis=1)
    np.testing.assert_array_equal(run_relay(d, qv, want_q), want_d)


def conv_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "x": rng.integers(0, 256, size=(1, 8, 9, 9)).astype(np.uint8),
        "w": rng.integers(-64, 64, size=(6, 8, 3, 3)).astype(np.int8),
        "b": rng.integers(-5000, 5000, size=(6,)).astype(np.int32),
        "ws": rng.uniform(0.001, 0.02, size=6).astype(np.float32),
    }


def test_conv_integer():
    rng = np.random.default_rng(2)
    v = conv_inputs(rng)
    node = helper.make_node(
        "ConvInteger", ["x", "w", "xz"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2]
    )
    want = run_onnx(
        node, {"x": v["x"]}, {"w": v["w"], "xz": np.array(131, np.uint8)}, I32
    )
    xv = relay.var("x", shape=v["x"].shape, dtype="uint8")
    body = relay.qnn.op.conv2d(
        xv,
        c(v["w"], "int8"),
        c(131, I32),
        c(0, I32),
        c(1.0, F32),
        c(1.0, F32),
        kernel_size=3,
        channels=6,
        padding=1,
        strides=2,
    )
    np.testing.assert_array_equal(run_relay(body, xv, v["x"]), want)


def test_qlinear_conv_per_channel_with_bias():
    rng = np.random.default_rng(3)
    v = conv_inputs(rng)
    xs, xz, ys, yz = np.float32(0.037), 120, np.float32(0.11), 5
    node = helper.make_node(
        "QLinearConv",
        ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
        ["y"],
        pads=[1, 1, 1, 1],
    )
    inits = {
        "xs": np.array(xs),
        "xz": np.array(xz, np.uint8),
        "w": v["w"],
        "ws": v["ws"],
        "wz": np.zeros(6, np.int8),
        "ys": np.array(ys),
        "yz": np.array(yz, np.uint8),
        "b": v["b"],
    }
    want = run_onnx(node, {"x": v["x"]}, inits, "uint8")
    xv = relay.var("x", shape=v["x"].shape, dtype="uint8")
    acc = relay.qnn.op.conv2d(
        xv,
        c(v["w"], "int8"),
        c(xz, I32),
        c(0, I32),
        c(xs, F32),
        c(v["ws"], F32),
        kernel_size=3,
        channels=6,
        padding=1,
    )
    acc = relay.nn.bias_add(acc, c(v["b"], I32))
    in_scale = relay.multiply(c(xs, F32), c(v["ws"], F32))
    body = relay.qnn.op.requantize(
        acc, in_scale, c(0, I32), c(ys, F32), c(yz, I32), axis=1, out_dtype="uint8"
    )
    got = run_relay(body, xv, v["x"])
    assert np.unique(want).size > 20  # not all saturated
    np.testing.assert_array_equal(got, want)


def test_matmul_integer_and_qlinear_matmul():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 256, size=(5, 32)).astype(np.uint8)
    b = rng.integers(-64, 64, size=(32, 7)).astype(np.int8)
    node = helper.make_node("MatMulInteger", ["a", "b", "az"], ["y"])
    want = run_onnx(node, {"a": a}, {"b": b, "az": np.array(140, np.uint8)}, I32)
    av = relay.var("a", shape=a.shape, dtype="uint8")
    acc = relay.qnn.op.dense(
        av, c(b.T.copy(), "int8"), c(140, I32), c(0, I32), 1.0, 1.0, units=7
    )
    np.testing.assert_array_equal(run_relay(acc, av, a), want)
    as_, ys = np.float32(0.02), np.float32(0.9)
    bs = np.float32(0.013)
    node = helper.make_node(
        "QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"]
    )
    inits = {
        "as": np.array(as_),
        "az": np.array(140, np.uint8),
        "b": b,
        "bs": np.array(bs),
        "bz": np.array(0, np.int8),
        "ys": np.array(ys),
        "yz": np.array(7, np.uint8),
    }
    want = run_onnx(node, {"a": a}, inits, "uint8")
    body = relay.qnn.op.requantize(
        acc,
        relay.multiply(c(as_, F32), c(bs, F32)),
        c(0, I32),
        c(ys, F32),
        c(7, I32),
        out_dtype="uint8",
    )
    assert np.unique(want).size > 5  # not all saturated
    np.testing.assert_array_equal(run_relay(body, av, a), want)
