"""QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear (quantize.py) and
MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv (qlinear.py) against the ONNX
reference evaluator, through the interpreter and the LLVM path: ties at .5 round to
even, out-of-range values saturate, negative zero points, per-axis and blocked
parameters with odd shapes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import xrelay
from xrelay.frontend import OnnxImportError, from_onnx

from .conftest import compare, make_model, reference, run_onnx_case

Gen = np.random.Generator
F32, F16 = np.float32, np.float16
I8, U8, I16, U16, I32 = np.int8, np.uint8, np.int16, np.uint16, np.int32


def check(
    nodes: onnx.NodeProto | Sequence[onnx.NodeProto],
    inputs: dict[str, np.ndarray[Any, Any]],
    opset: int = 21,
    expected: Sequence[np.ndarray[Any, Any]] | None = None,
    ort_differs: str | None = None,
) -> list[np.ndarray[Any, Any]]:
    """The model's outputs through the interpreter and the compiled library, both
    compared exactly (integers) or to 1 ulp-ish (floats) with the reference evaluator
    (or ``expected`` where the reference reads the spec differently)."""
    if expected is None:
        run_onnx_case(
            nodes, inputs, opset=opset, rtol=1e-6, atol=0, ort_differs=ort_differs
        )
    draft = make_model(nodes, inputs, opset=opset)
    want = list(expected) if expected is not None else reference(draft, inputs)
    model = make_model(nodes, inputs, opset=opset, output_values=want)
    mod, params = from_onnx(model)
    got = xrelay.build(mod, params=params)(*inputs.values())
    got = list(got) if isinstance(got, list | tuple) else [got]
    for k, (g, e) in enumerate(zip(got, want, strict=True)):
        compare(np.asarray(g), np.asarray(e), 1e-6, 0, f"compiled output #{k}: ")
    return got


def q(op: str, *inputs: str, **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(op, list(inputs), ["y"], **attrs)


# ---------------------------------------------------------------------------------------
# QuantizeLinear
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zp", "dtype"),
    [(0, U8), (128, U8), (-3, I8), (0, I8), (-1000, I16), (40000, U16)],
)
def test_quantize_ties_and_saturation(zp: int, dtype: Any) -> None:
    # x / 0.5 lands exactly on .5 ties (rounded to even), then far out of range
    ties = [0.25, 0.75, 1.25, -0.25, -0.75, -1.25, 2.2, -2.2, 0.0, -0.0, 1e9, -1e9]
    far = [np.inf, -np.inf, 63.75, -64.25, 16383.75, -16384.25]
    x = np.array([*ties, *far], F32)
    inputs = {"x": x, "s": np.array(0.5, F32), "zp": np.array(zp, dtype)}
    # the reference evaluator casts infinities to int32 (undefined); ONNX saturates
    want = np.clip(np.rint(x / F32(0.5)).astype(np.float64) + zp, *_range(dtype))
    (y,) = check(
        q("QuantizeLinear", "x", "s", "zp"), inputs, expected=[want.astype(dtype)]
    )
    assert y[0] == np.clip(zp, *_range(dtype))  # 0.5 -> 0 (even)
    assert y[12] == _range(dtype)[1]
    assert y[13] == _range(dtype)[0]
    finite = {**inputs, "x": x[np.isfinite(x)]}
    check(q("QuantizeLinear", "x", "s", "zp"), finite)


def _range(dtype: Any) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def test_quantize_per_axis_odd_shape(rng: Gen) -> None:
    x = (rng.standard_normal((3, 5, 7)) * 40).astype(F32)
    inputs = {
        "x": x,
        "s": np.array([0.3, 0.5, 1.0, 2.0, 0.25], F32),
        "zp": np.array([-128, -5, 0, 7, 127], I8),
    }
    check(q("QuantizeLinear", "x", "s", "zp", axis=-2), inputs)
    inputs["s"], inputs["zp"] = inputs["s"][:3], inputs["zp"][:3]
    check(q("QuantizeLinear", "x", "s", "zp", axis=0), inputs)


def test_quantize_blocked_remainder(rng: Gen) -> None:
    """Blocks of 2 along an axis of 5: the last block has one element."""
    x = (rng.standard_normal((3, 5)) * 60).astype(F32)
    s = (rng.random((3, 3)) + 0.2).astype(F32)
    zp = rng.integers(-20, 20, (3, 3)).astype(I8)
    inputs = {"x": x, "s": s, "zp": zp}
    check(q("QuantizeLinear", "x", "s", "zp", axis=1, block_size=2), inputs)


def test_quantize_output_dtype_without_zero_point() -> None:
    x = np.array([-70000.0, -2.5, 2.5, 3.5, 70000.0], F32)
    node = q("QuantizeLinear", "x", "s", output_dtype=TensorProto.INT16)
    (y,) = check(node, {"x": x, "s": np.array(1.0, F32)})
    np.testing.assert_array_equal(y, [-32768, -2, 2, 4, 32767])
    (y,) = check(q("QuantizeLinear", "x", "s"), {"x": x, "s": np.array(1.0, F32)})
    assert y.dtype == U8  # uint8 by default


def test_quantize_float16(rng: Gen) -> None:
    x = np.array([0.5, 1.5, 2.5, -2.5, 100.25, -300.0, 7.0], F16)
    inputs = {"x": x, "s": np.array(0.5, F16), "zp": np.array(3, I8)}
    check(q("QuantizeLinear", "x", "s", "zp"), inputs)


def test_quantize_opset10() -> None:
    x = np.array([[-3.0, 0.5, 1.5, 1000.0]], F32)
    inputs = {"x": x, "s": np.array(1.0, F32), "zp": np.array(10, U8)}
    check(q("QuantizeLinear", "x", "s", "zp"), inputs, opset=10)


# ---------------------------------------------------------------------------------------
# DequantizeLinear
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [U8, I8, I16, U16, I32])
def test_dequantize_dtypes(rng: Gen, dtype: Any) -> None:
    lo, hi = _range(dtype)
    x = np.array([lo, hi, 0, 1, lo + 1, hi - 1], dtype)
    inputs = {"x": x, "s": np.array(0.37, F32), "zp": np.array(hi // 3, dtype)}
    # onnxruntime subtracts an int32 zero point in int32 (lo - zp wraps); the spec and
    # the reference evaluator subtract exactly
    wraps = "int32 x - zero_point wraps" if dtype == I32 else None
    check(q("DequantizeLinear", "x", "s", "zp"), inputs, ort_differs=wraps)


def test_dequantize_per_axis_and_blocked(rng: Gen) -> None:
    x = rng.integers(-128, 128, (2, 5, 3)).astype(I8)
    inputs = {
        "x": x,
        "s": (rng.random(5) + 0.1).astype(F32),
        "zp": rng.integers(-128, 128, 5).astype(I8),
    }
    check(q("DequantizeLinear", "x", "s", "zp", axis=1), inputs)
    inputs["s"] = (rng.random((2, 2, 3)) + 0.1).astype(F32)
    inputs["zp"] = rng.integers(-128, 128, (2, 2, 3)).astype(I8)
    check(q("DequantizeLinear", "x", "s", "zp", axis=1, block_size=3), inputs)


def test_dequantize_float16_scale_and_output_dtype() -> None:
    x = np.array([0, 7, 255, 128], U8)
    inputs = {"x": x, "s": np.array(0.1, F16), "zp": np.array(128, U8)}
    check(q("DequantizeLinear", "x", "s", "zp"), inputs)
    node = q("DequantizeLinear", "x", "s", "zp", output_dtype=TensorProto.FLOAT)
    check(node, {**inputs, "s": np.array(0.1, F32)}, opset=23)


# ---------------------------------------------------------------------------------------
# DynamicQuantizeLinear
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x",
    [
        [0.0, 2.0, -3.0, -2.5, 1.34, 0.5],
        [1.0, 2.5, 3.0, 1000.0],  # all positive: min widened to 0
        [-1.0, -2.5, -3.0, -1000.0],  # all negative: max widened to 0
        [0.0, 0.0, 0.0],  # empty range: scale 1 / 255
        [-0.5, 0.5],
    ],
)
def test_dynamic_quantize(x: list[float]) -> None:
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "zp"])
    # on an empty range onnxruntime's scale is 1, the reference evaluator's 1 / 255
    empty = "scale of an empty range" if not any(x) else None
    check(node, {"x": np.array(x, F32)}, opset=11, ort_differs=empty)


# ---------------------------------------------------------------------------------------
# MatMulInteger, ConvInteger
# ---------------------------------------------------------------------------------------


def _ints(rng: Gen, dtype: Any, *shape: int) -> np.ndarray[Any, Any]:
    lo, hi = _range(dtype)
    return rng.integers(lo, hi + 1, shape).astype(dtype)


@pytest.mark.parametrize(("da", "db"), [(U8, U8), (I8, I8), (U8, I8)])
def test_matmul_integer(rng: Gen, da: Any, db: Any) -> None:
    a, b = _ints(rng, da, 2, 3, 5), _ints(rng, db, 5, 7)
    inputs = {"a": a, "b": b, "az": _ints(rng, da), "bz": _ints(rng, db, 7)}
    # onnxruntime's AVX2 u8 x s8 kernel (vpmaddubsw) saturates pairs of products to
    # int16: with full-range weights it is not the exact sum the spec defines
    differs = (
        "u8 x s8 pairs saturated to int16 on AVX2" if (da, db) == (U8, I8) else None
    )
    node = helper.make_node("MatMulInteger", list(inputs), ["y"])
    check(node, inputs, opset=10, ort_differs=differs)
    node = helper.make_node("MatMulInteger", ["a", "b"], ["y"])
    check(node, {"a": a, "b": b}, opset=10, ort_differs=differs)


def test_matmul_integer_per_row_zero_point(rng: Gen) -> None:
    """A 1-D ``a_zero_point`` is one per row of A, as the spec says (the reference
    evaluator subtracts it along the columns)."""
    a, b = _ints(rng, U8, 3, 4), _ints(rng, U8, 4, 2)
    az = np.array([1, 200, 3], U8)
    want = (a.astype(I32) - az.astype(I32)[:, None]) @ b.astype(I32)
    node = helper.make_node("MatMulInteger", ["a", "b", "az"], ["y"])
    check(node, {"a": a, "b": b, "az": az}, opset=10, expected=[want])


@pytest.mark.parametrize("dtype", [U8, I8])
def test_conv_integer(rng: Gen, dtype: Any) -> None:
    x, w = _ints(rng, dtype, 1, 4, 6, 5), _ints(rng, dtype, 6, 2, 3, 2)
    inputs = {"x": x, "w": w, "xz": _ints(rng, dtype), "wz": _ints(rng, dtype, 6)}
    node = helper.make_node(
        "ConvInteger", list(inputs), ["y"], pads=[1, 0, 2, 1], strides=[2, 1], group=2
    )
    # onnxruntime takes only a per-tensor weight zero point
    check(node, inputs, opset=10, ort_differs="per-channel w_zero_point")
    node = helper.make_node("ConvInteger", ["x", "w"], ["y"], auto_pad="SAME_UPPER")
    w = _ints(rng, dtype, 3, 4, 2, 3)
    check(node, {"x": x, "w": w}, opset=10)


# ---------------------------------------------------------------------------------------
# QLinearMatMul, QLinearConv
# ---------------------------------------------------------------------------------------


def _qmatmul_inputs(
    rng: Gen, dtype: Any, ftype: Any, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> dict[str, np.ndarray[Any, Any]]:
    return {
        "a": _ints(rng, dtype, *a_shape),
        "as": np.array([0.02], ftype),
        "az": _ints(rng, dtype, 1),
        "b": _ints(rng, dtype, *b_shape),
        "bs": np.array([0.03], ftype),
        "bz": _ints(rng, dtype, 1),
        "ys": np.array([0.1], ftype),
        "yz": _ints(rng, dtype, 1),
    }


@pytest.mark.parametrize("dtype", [U8, I8])
@pytest.mark.parametrize("ftype", [F32, F16])
def test_qlinear_matmul(rng: Gen, dtype: Any, ftype: Any) -> None:
    inputs = _qmatmul_inputs(rng, dtype, ftype, (2, 3, 9), (2, 9, 5))
    node = helper.make_node("QLinearMatMul", list(inputs), ["y"])
    want = None
    if ftype == F16:  # the multiplier in float32, not rounded to float16 per op
        i = {k: v.astype(I32) if v.dtype.kind in "iu" else v for k, v in inputs.items()}
        acc = (i["a"] - i["az"]) @ (i["b"] - i["bz"])
        m = i["as"].astype(F32) * i["bs"].astype(F32) / i["ys"].astype(F32)
        y = np.rint(acc * m.astype(np.float64)) + i["yz"]
        want = [np.clip(y, *_range(dtype)).astype(dtype)]
    (y,) = check(node, inputs, expected=want)
    lo, hi = _range(dtype)
    assert (y == lo).any() or (y == hi).any(), "no saturation exercised"


def test_qlinear_matmul_ties() -> None:
    """Products landing on .5 round to even."""
    a = np.array([[1, 3, 5, 7, 9, 11]], U8).T  # 6 x 1
    b = np.array([[1]], U8)
    inputs = {
        "a": a,
        "as": np.array(0.5, F32),
        "az": np.array(0, U8),
        "b": b,
        "bs": np.array(1.0, F32),
        "bz": np.array(0, U8),
        "ys": np.array(1.0, F32),
        "yz": np.array(0, U8),
    }
    node = helper.make_node("QLinearMatMul", list(inputs), ["y"])
    (y,) = check(node, inputs, opset=10)
    np.testing.assert_array_equal(y.reshape(-1), [0, 2, 2, 4, 4, 6])


@pytest.mark.parametrize("dtype", [U8, I8])
def test_qlinear_conv(rng: Gen, dtype: Any) -> None:
    inputs = {
        "x": _ints(rng, dtype, 2, 3, 7, 5),
        "xs": np.array(0.05, F32),
        "xz": _ints(rng, dtype),
        "w": _ints(rng, dtype, 4, 3, 3, 3),
        "ws": (rng.random(4) * 0.02 + 0.001).astype(F32),
        "wz": np.zeros(4, dtype),
        "ys": np.array(0.9, F32),
        "yz": _ints(rng, dtype),
        "bias": rng.integers(-5000, 5000, 4).astype(I32),
    }
    node = helper.make_node("QLinearConv", list(inputs), ["y"], pads=[1, 1, 1, 1])
    check(node, inputs, opset=10)


def test_qlinear_conv_1d_no_bias(rng: Gen) -> None:
    inputs = {
        "x": _ints(rng, U8, 1, 2, 9),
        "xs": np.array(0.1, F32),
        "xz": np.array(128, U8),
        "w": _ints(rng, U8, 3, 2, 2),
        "ws": np.array(0.01, F32),
        "wz": np.array(100, U8),
        "ys": np.array(0.2, F32),
        "yz": np.array(10, U8),
    }
    node = helper.make_node("QLinearConv", list(inputs), ["y"], strides=[2])
    check(node, inputs, opset=10)


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------

Build = Callable[..., onnx.ModelProto]


def _import_error(
    node: onnx.NodeProto,
    inputs: dict[str, np.ndarray[Any, Any]],
    out: np.ndarray[Any, Any],
    opset: int = 21,
) -> str:
    model = make_model(node, inputs, opset=opset, output_values=[out])
    with pytest.raises(OnnxImportError) as info:
        from_onnx(model)
    return str(info.value)


def test_quantize_errors() -> None:
    x = np.zeros((2, 3), F32)
    inputs = {"x": x, "s": np.ones(4, F32), "zp": np.zeros(4, U8)}
    msg = _import_error(q("QuantizeLinear", "x", "s", "zp"), inputs, x.astype(U8))
    assert "y_scale has 4 elements for axis 1 of size 3" in msg
    inputs = {"x": x, "s": np.ones((2, 3), F32)}
    node = q("QuantizeLinear", "x", "s", axis=1, block_size=2)
    msg = _import_error(node, inputs, x.astype(U8))
    assert "blocks of 2 along axis 1" in msg
    inputs = {"x": x, "s": np.ones((), F32)}
    node = q("QuantizeLinear", "x", "s", output_dtype=TensorProto.INT32)
    msg = _import_error(node, inputs, x.astype(I32))
    assert "quantized types supported are uint8, int8, uint16, int16" in msg


def test_qlinear_errors(rng: Gen) -> None:
    a, b = _ints(rng, U8, 3, 4), _ints(rng, U8, 4, 2)
    node = helper.make_node("MatMulInteger", ["a", "b", "", "bz"], ["y"])
    inputs = {"a": a, "b": b, "bz": np.zeros(3, U8)}
    msg = _import_error(node, inputs, np.zeros((3, 2), I32), opset=10)
    assert "zero point of shape [3] for an operand of shape [4, 2]" in msg
    x, w = _ints(rng, U8, 1, 2, 4, 4), _ints(rng, U8, 3, 2, 1, 1)
    node = helper.make_node("ConvInteger", ["x", "w", "", "wz"], ["y"])
    inputs = {"x": x, "w": w, "wz": np.zeros(2, U8)}
    msg = _import_error(node, inputs, np.zeros((1, 3, 4, 4), I32), opset=10)
    assert "zero point of shape [2] for an operand of shape [3, 2, 1, 1]" in msg
    assert "one per channel" in msg


# ---------------------------------------------------------------------------------------
# Which forms become QNN ops
# ---------------------------------------------------------------------------------------


def _imported_ops(nodes: onnx.NodeProto, inputs: dict[str, Any]) -> list[str]:
    want = reference(make_model([nodes], inputs, opset=21), inputs)
    mod, _ = from_onnx(make_model([nodes], inputs, opset=21, output_values=want))
    return [op.name for op in mod.module.walk()]


@pytest.mark.parametrize(
    ("op", "inputs", "attrs", "qnn"),
    [
        # per tensor and per axis, 8- and 16-bit: qnn.quantize / qnn.dequantize
        (
            "QuantizeLinear",
            {"x": np.ones((2, 3), F32), "s": np.float32(0.1), "zp": np.int8(3)},
            {},
            True,
        ),
        (
            "QuantizeLinear",
            {"x": np.ones((2, 3), F32), "s": np.ones(3, F32), "zp": np.zeros(3, I16)},
            {"axis": 1},
            True,
        ),
        (
            "DequantizeLinear",
            {"x": np.ones((2, 3), U8), "s": np.ones(2, F32), "zp": np.zeros(2, U8)},
            {"axis": 0},
            True,
        ),
        (
            "DequantizeLinear",
            {"x": np.ones((2, 3), I32), "s": np.float32(0.5)},
            {},
            True,
        ),
        # forms the QNN ops do not cover stay composed from relay ops
        (
            "QuantizeLinear",
            {"x": np.ones((2, 3), F32), "s": np.float32(0.1), "zp": np.uint16(3)},
            {},
            False,
        ),
        (
            "QuantizeLinear",
            {"x": np.ones((2, 4), F32), "s": np.ones((2, 2), F32)},
            {"axis": 1, "block_size": 2},
            False,
        ),
        (
            "QuantizeLinear",
            {"x": np.ones((2, 3), np.float16), "s": np.float16(0.1)},
            {},
            False,
        ),
        (
            "DequantizeLinear",
            {"x": np.ones((2, 3), I32), "s": np.float32(0.5), "zp": np.int32(1)},
            {},
            False,
        ),
    ],
)
def test_qnn_forms(
    op: str, inputs: dict[str, Any], attrs: dict[str, Any], qnn: bool
) -> None:
    name = "relay.qnn.quantize" if op == "QuantizeLinear" else "relay.qnn.dequantize"
    ops = _imported_ops(q(op, *inputs, **attrs), inputs)
    assert (name in ops) == qnn, ops


# ---------------------------------------------------------------------------------------
# Dynamically quantized products, as onnxruntime's quantize_dynamic writes them
# ---------------------------------------------------------------------------------------


def test_dynamic_quantized_matmuls(rng: Gen) -> None:
    """``DynamicQuantizeLinear`` feeding ``MatMulInteger`` with a constant s8
    weight (a 3-D activation: the run-time zero point corrected by the weight's
    sums) and a product of two quantized activations (both centered at run time),
    then the dequantizing ``Cast`` / ``Mul``: compiled, the integers and the floats
    are the reference evaluator's exactly (the int16 pair kernels)."""
    x = (rng.standard_normal((2, 8, 16)) * 3 + 1).astype(F32)
    x.reshape(-1)[:3] = [2.5, -2.5, 0.5]  # ties once divided by the scale
    h = rng.standard_normal((2, 16, 8)).astype(F32)
    w = rng.integers(-128, 128, (16, 24)).astype(I8)
    w.reshape(-1)[:2] = [-128, 127]
    inits = {"w": w, "wz": np.array(3, I8), "ws": np.array(0.02, F32)}
    mk = helper.make_node
    nodes = [
        mk("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        mk("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"]),
        mk("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        mk("Mul", ["xs", "ws"], ["s"]),
        mk("Mul", ["accf", "s"], ["y"]),
        mk("DynamicQuantizeLinear", ["h"], ["hq", "hs", "hz"]),
        mk("MatMulInteger", ["xq", "hq", "xz", "hz"], ["aa"]),
    ]
    inputs = {"x": x, "h": h}
    outs = ["acc", "y", "aa"]
    want = reference(make_model(nodes, inputs, inits, outs, opset=13), inputs)
    model = make_model(nodes, inputs, inits, outs, opset=13, output_values=want)
    mod, params = from_onnx(model)
    got = xrelay.build(mod, params=params, cache=False)(*inputs.values())
    for k, (g, e) in enumerate(zip(got, want, strict=True)):
        compare(np.asarray(g), np.asarray(e), 1e-7, 0, f"output #{k}: ")
