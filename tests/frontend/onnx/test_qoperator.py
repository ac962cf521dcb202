"""onnxruntime's QOperator contrib ops (``com.microsoft``: QLinearAdd, QLinearMul,
QLinearConcat, QLinearGlobalAveragePool, QGemm, QLinearAveragePool, QLinearSigmoid,
QLinearLeakyRelu) and the QDQ form of ONNX's own ops import onto the QNN ops and
compute onnxruntime's integers: compared with numpy formulas of its kernels to within
one quantization step (its kernels round a float32 sum computed in another order or
with FMAs, which may land on the other side of a tie), and with onnxruntime itself
when it is installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xrelay
from xrelay.frontend import OnnxImportError, from_onnx
from xrelay.runtime.interpreter import interpret

MS = "com.microsoft"
U8 = TensorProto.UINT8
S1, Z1, S2, Z2, S3, Z3 = 0.05, 120, 0.07, 130, 0.1, 128
SCALES = {"s1": S1, "s2": S2, "s3": S3}
ZPS = {"z1": Z1, "z2": Z2, "z3": Z3}


def model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, np.ndarray[Any, Any]],
    outputs: dict[str, tuple[int, list[int]]],
    extra: list[onnx.TensorProto] | None = None,
) -> onnx.ModelProto:
    inits = [numpy_helper.from_array(np.float32(v), k) for k, v in SCALES.items()]
    inits += [numpy_helper.from_array(np.uint8(v), k) for k, v in ZPS.items()]
    graph = helper.make_graph(
        nodes,
        "q",
        [
            helper.make_tensor_value_info(
                k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)
            )
            for k, v in inputs.items()
        ],
        [helper.make_tensor_value_info(k, t, s) for k, (t, s) in outputs.items()],
        inits + (extra or []),
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)]
    )


def quantize(v: np.ndarray[Any, Any], scale: float, zp: int) -> np.ndarray[Any, Any]:
    r = np.rint(np.asarray(v, np.float32) / np.float32(scale)) + zp
    return np.clip(r, 0, 255).astype(np.uint8)


def real(x: np.ndarray[Any, Any], scale: float, zp: int) -> np.ndarray[Any, Any]:
    return (x.astype(np.int32) - zp).astype(np.float32) * np.float32(scale)


def within_one(got: Any, want: Any) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    assert np.abs(got.astype(np.int64) - want.astype(np.int64)).max() <= 1


def against_onnxruntime(
    m: onnx.ModelProto, feed: dict[str, Any], got: list[Any]
) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    sess = ort.InferenceSession(
        m.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    for g, w in zip(got, sess.run(None, feed), strict=True):
        within_one(g, w)


@pytest.fixture(scope="module")
def contrib() -> tuple[onnx.ModelProto, dict[str, Any], list[Any], list[str]]:
    """One model with every contrib op, imported and interpreted once."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (1, 3, 4, 4)).astype(np.uint8)
    b = rng.integers(0, 256, (1, 3, 4, 4)).astype(np.uint8)
    w = rng.integers(0, 256, (5, 12)).astype(np.uint8)
    bias = rng.integers(-500, 500, (5,)).astype(np.int32)
    node = helper.make_node
    nodes = [
        node(
            "QLinearAdd",
            ["a", "s1", "z1", "b", "s2", "z2", "s3", "z3"],
            ["add"],
            domain=MS,
        ),
        node(
            "QLinearMul",
            ["a", "s1", "z1", "b", "s2", "z2", "s3", "z3"],
            ["mul"],
            domain=MS,
        ),
        node(
            "QLinearConcat",
            ["s3", "z3", "a", "s1", "z1", "b", "s2", "z2"],
            ["cat"],
            domain=MS,
            axis=1,
        ),
        node(
            "QLinearGlobalAveragePool",
            ["a", "s1", "z1", "s3", "z3"],
            ["gap"],
            domain=MS,
        ),
        node("QLinearSigmoid", ["a", "s1", "z1", "s3", "z3"], ["sig"], domain=MS),
        node(
            "QLinearLeakyRelu",
            ["a", "s1", "z1", "s3", "z3"],
            ["lrelu"],
            domain=MS,
            alpha=0.1,
        ),
        node(
            "QLinearAveragePool",
            ["a", "s1", "z1", "s3", "z3"],
            ["avg"],
            domain=MS,
            kernel_shape=[2, 2],
            strides=[2, 2],
        ),
        node("Reshape", ["a", "shape"], ["flat"]),
        node(
            "QGemm",
            ["flat", "s1", "z1", "w", "s2", "z2", "bias", "s3", "z3"],
            ["gemm"],
            domain=MS,
            transB=1,
        ),
    ]
    extra = [
        numpy_helper.from_array(np.array([4, 12], np.int64), "shape"),
        numpy_helper.from_array(w, "w"),
        numpy_helper.from_array(bias, "bias"),
    ]
    outs = {
        "add": (U8, [1, 3, 4, 4]),
        "mul": (U8, [1, 3, 4, 4]),
        "cat": (U8, [1, 6, 4, 4]),
        "gap": (U8, [1, 3, 1, 1]),
        "sig": (U8, [1, 3, 4, 4]),
        "lrelu": (U8, [1, 3, 4, 4]),
        "avg": (U8, [1, 3, 2, 2]),
        "gemm": (U8, [4, 5]),
    }
    feed = {"a": a, "b": b}
    m = model(nodes, feed, outs, extra)
    mod, params = from_onnx(m)
    names = [op.name for op in mod.module.walk()]
    got = list(interpret(mod, a, b, *params.values()))
    return m, feed, got, names


def test_contrib_ops_onto_qnn(contrib: Any) -> None:
    _, _, _, names = contrib
    for name in ("add", "mul", "concatenate", "avg_pool2d", "dense", "requantize"):
        assert f"relay.qnn.{name}" in names, name


def test_contrib_numerics(contrib: Any) -> None:
    m, feed, got, _ = contrib
    a, b = feed["a"], feed["b"]
    ra, rb = real(a, S1, Z1), real(b, S2, Z2)
    w = numpy_helper.to_array(next(i for i in m.graph.initializer if i.name == "w"))
    bias = numpy_helper.to_array(
        next(i for i in m.graph.initializer if i.name == "bias")
    )
    flat = a.reshape(4, 12).astype(np.int32) - Z1
    acc = flat @ (w.astype(np.int32) - Z2).T + bias
    ratio = np.float32(np.float32(S1) * np.float32(S2)) / np.float32(S3)
    gemm = np.clip(np.rint(acc.astype(np.float32) * ratio) + Z3, 0, 255).astype(
        np.uint8
    )
    want = [
        quantize(ra + rb, S3, Z3),
        quantize(ra * rb, S3, Z3),
        np.concatenate([quantize(ra, S3, Z3), quantize(rb, S3, Z3)], axis=1),
        quantize(ra.mean(axis=(2, 3), keepdims=True), S3, Z3),
        quantize(1 / (1 + np.exp(-ra)), S3, Z3),
        quantize(np.where(ra > 0, ra, ra * np.float32(0.1)), S3, Z3),
        quantize(ra.reshape(1, 3, 2, 2, 2, 2).mean(axis=(3, 5)), S3, Z3),
        gemm,
    ]
    for g, wnt in zip(got, want, strict=True):
        within_one(g, wnt)


def test_contrib_against_onnxruntime(contrib: Any) -> None:
    m, feed, got, _ = contrib
    against_onnxruntime(m, feed, got)


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        (
            [
                helper.make_node(
                    "QLinearAdd",
                    ["a", "sv", "z1", "a", "s1", "z1", "s3", "z3"],
                    ["y"],
                    domain=MS,
                )
            ],
            "A_scale must have one element",
        ),
        (
            [
                helper.make_node(
                    "QLinearConcat", ["s3", "z3", "a", "s1"], ["y"], domain=MS, axis=1
                )
            ],
            "expected Y_scale, Y_zero_point",
        ),
        (
            [
                helper.make_node(
                    "QLinearSigmoid",
                    ["a", "s1", "z1", "s3", "z3"],
                    ["y"],
                    domain=MS,
                    channels_last=1,
                )
            ],
            "channels_last=1 is not supported",
        ),
    ],
)
def test_contrib_errors(nodes: list[onnx.NodeProto], message: str) -> None:
    sv = numpy_helper.from_array(np.array([0.1, 0.2], np.float32), "sv")
    m = model(
        nodes, {"a": np.zeros((1, 2, 2, 2), np.uint8)}, {"y": (U8, [1, 2, 2, 2])}, [sv]
    )
    with pytest.raises(OnnxImportError, match=message):
        from_onnx(m)


# -- QDQ: ONNX's own ops in QDQ form ------------------------------------------------------


@pytest.fixture(scope="module")
def qdq_conv() -> tuple[onnx.ModelProto, dict[str, Any]]:
    """DequantizeLinear (per-channel int8 weight, int32 bias) -> Conv -> Relu ->
    QuantizeLinear -> DequantizeLinear, as onnxruntime's quantizer writes it."""
    rng = np.random.default_rng(5)
    w = rng.integers(-64, 64, (4, 3, 3, 3)).astype(np.int8)
    ws = (rng.random(4) * 0.01 + 0.002).astype(np.float32)
    bias = rng.integers(-300, 300, 4).astype(np.int32)
    node = helper.make_node
    nodes = [
        node("QuantizeLinear", ["x", "s1", "z1"], ["xq"]),
        node("DequantizeLinear", ["xq", "s1", "z1"], ["xd"]),
        node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
        node("DequantizeLinear", ["bias", "bs"], ["bd"], axis=0),
        node("Conv", ["xd", "wd", "bd"], ["c"], pads=[1, 1, 1, 1]),
        node("Relu", ["c"], ["r"]),
        node("QuantizeLinear", ["r", "s3", "z3"], ["rq"]),
        node("DequantizeLinear", ["rq", "s3", "z3"], ["y"]),
    ]
    extra = [
        numpy_helper.from_array(w, "w"),
        numpy_helper.from_array(ws, "ws"),
        numpy_helper.from_array(np.zeros(4, np.int8), "wz"),
        numpy_helper.from_array(bias, "bias"),
        numpy_helper.from_array((np.float32(S1) * ws).astype(np.float32), "bs"),
    ]
    x = rng.normal(size=(1, 3, 6, 6)).astype(np.float32) * 3
    m = model(nodes, {"x": x}, {"y": (TensorProto.FLOAT, [1, 4, 6, 6])}, extra)
    return m, {"x": x}


def test_qdq_imports_qnn_ops_with_integer_weights(qdq_conv: Any) -> None:
    m, _ = qdq_conv
    mod, _ = from_onnx(m)
    names = [op.name for op in mod.module.walk()]
    assert names.count("relay.qnn.dequantize") == 4  # the weight's is not folded
    assert names.count("relay.qnn.quantize") == 2
    out = xrelay.relay.transform.FakeQuantizationToInteger()(
        xrelay.relay.transform.InferType()(mod)
    )
    names = [op.name for op in out.module.walk()]
    assert "relay.qnn.conv2d" in names
    assert "relay.nn.conv2d" not in names


def test_qdq_build_matches_onnxruntime(qdq_conv: Any) -> None:
    """Built (FakeQuantizationToInteger on): onnxruntime's QLinearConv arithmetic, so
    within one output step of the float QDQ graph and of onnxruntime."""
    m, feed = qdq_conv
    mod, params = from_onnx(m)
    got = np.asarray(xrelay.build(mod, params=params)(feed["x"]))
    want = np.asarray(interpret(mod, feed["x"], *params.values()))
    assert np.abs(got - want).max() <= S3 * 1.001
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    sess = ort.InferenceSession(
        m.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    (ref,) = sess.run(None, feed)
    assert np.abs(got - ref).max() <= S3 * 1.001
