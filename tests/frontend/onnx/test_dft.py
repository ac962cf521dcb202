"""DFT and STFT (dft.py): matrix products against the ONNX reference evaluator
(numpy's FFT), through the interpreter and the compiled path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.frontend.onnx.backend import XrelayBackend
from xrelay.frontend.onnx.dft import dft_matrix

RunOnnx = Callable[..., Any]
F32 = np.float32
I64 = np.int64


def _signal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    return rng.standard_normal(shape).astype(F32)


@pytest.mark.parametrize("complex_in", [False, True])
@pytest.mark.parametrize("length", [1, 2, 7, 8, 12])
@pytest.mark.parametrize("dft_length", [None, 5, 16])
@pytest.mark.parametrize("onesided", [0, 1])
def test_forward(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    complex_in: bool,
    length: int,
    dft_length: int | None,
    onesided: int,
) -> None:
    x = _signal(rng, (2, length, 3, 2 if complex_in else 1))
    inits = {} if dft_length is None else {"n": np.array(dft_length, I64)}
    inputs = ["x", "n" if dft_length is not None else "", "axis"]
    inits["axis"] = np.array(1, I64)
    node = helper.make_node("DFT", inputs, ["y"], onesided=onesided)
    run_onnx(node, {"x": x}, inits, opset=20, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("complex_in", [False, True])
@pytest.mark.parametrize("length", [1, 3, 8, 11])
@pytest.mark.parametrize("dft_length", [None, 4, 13])
def test_inverse(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    complex_in: bool,
    length: int,
    dft_length: int | None,
) -> None:
    x = _signal(rng, (length, 4, 2 if complex_in else 1))
    node = helper.make_node(
        "DFT", ["x", "n"] if dft_length else ["x"], ["y"], inverse=1, axis=0
    )
    inits = {"n": np.array(dft_length, I64)} if dft_length else {}
    run_onnx(node, {"x": x}, inits, opset=19, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("length", [2, 5, 6])
@pytest.mark.parametrize("dft_length", [None, 7, 8, 3])
def test_inverse_onesided_is_irfft(
    run_onnx: RunOnnx, rng: np.random.Generator, length: int, dft_length: int | None
) -> None:
    x = _signal(rng, (3, length, 2))
    node = helper.make_node(
        "DFT",
        ["x", "n"] if dft_length else ["x"],
        ["y"],
        inverse=1,
        onesided=1,
        axis=-2,
    )
    inits = {"n": np.array(dft_length, I64)} if dft_length else {}
    # onnxruntime pads or truncates a one-sided inverse to dft_length differently
    differs = "one-sided inverse with dft_length" if dft_length else None
    run_onnx(node, {"x": x}, inits, opset=19, rtol=1e-4, atol=1e-5, ort_differs=differs)


@pytest.mark.parametrize("axis", [0, 2, -3])
def test_axes(run_onnx: RunOnnx, rng: np.random.Generator, axis: int) -> None:
    x = _signal(rng, (5, 3, 6, 2))
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"])
    run_onnx(
        node, {"x": x}, {"axis": np.array(axis, I64)}, opset=20, rtol=1e-4, atol=1e-4
    )


def test_round_trip_is_identity(rng: np.random.Generator) -> None:
    forward = dft_matrix(9, 9, False, False, True)  # rfft: [5 * 2, 9]
    back = dft_matrix(5, 9, True, True, True)  # irfft: [9, 5 * 2]
    np.testing.assert_allclose(back @ forward, np.eye(9), atol=1e-12)


def test_compiled_dft_and_float16(build_model: Any, rng: np.random.Generator) -> None:
    from onnx.reference import ReferenceEvaluator

    x = _signal(rng, (2, 9, 2)).astype(np.float16)
    node = helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=1)
    ref = ReferenceEvaluator(build_model(node, {"x": x}, opset=19)).run(None, {"x": x})
    model = build_model(node, {"x": x}, opset=19, output_values=ref)
    (got,) = XrelayBackend.prepare(model).run([x])
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, ref[0], rtol=1e-2, atol=2e-2)


def test_dynamic_dft_length_is_named(build_model: Any) -> None:
    x = np.zeros((4, 1), F32)
    node = helper.make_node("DFT", ["x", "n"], ["y"], axis=0)
    model = build_model(
        node,
        {"x": x, "n": np.array(4, I64)},
        opset=19,
        output_values=[np.zeros((4, 2), F32)],
    )
    with pytest.raises(OnnxImportError, match=r"\('n'\) must be known"):
        from_onnx(model)


def test_last_axis_is_an_error(build_model: Any) -> None:
    x = np.zeros((4, 2), F32)
    node = helper.make_node("DFT", ["x"], ["y"], axis=1)
    model = build_model(node, {"x": x}, opset=19, output_values=[np.zeros((4, 2), F32)])
    with pytest.raises(OnnxImportError, match="cannot be the last"):
        from_onnx(model)


@pytest.mark.parametrize("with_window", [False, True])
@pytest.mark.parametrize(
    ("length", "step", "frame"), [(37, 4, 8), (16, 16, 16), (21, 3, 5), (10, 7, 9)]
)
@pytest.mark.parametrize("onesided", [0, 1])
@pytest.mark.parametrize("channels", [1, 2])
def test_stft(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    with_window: bool,
    length: int,
    step: int,
    frame: int,
    onesided: int,
    channels: int,
) -> None:
    x = _signal(rng, (2, length, channels))
    inputs = {"x": x}
    inits = {"step": np.array(step, I64), "frame": np.array(frame, I64)}
    names = ["x", "step", "", "frame"]
    if with_window:
        inputs["w"] = _signal(rng, (frame,))
        names[2] = "w"
    node = helper.make_node("STFT", names, ["y"], onesided=onesided)
    run_onnx(node, inputs, inits, rtol=1e-4, atol=1e-4)


def test_stft_frame_longer_than_the_signal_is_an_error(build_model: Any) -> None:
    x = np.zeros((1, 4, 1), F32)
    node = helper.make_node("STFT", ["x", "step", "", "frame"], ["y"])
    inits = {"step": np.array(1, I64), "frame": np.array(5, I64)}
    model = build_model(
        node, {"x": x}, inits, output_values=[np.zeros((1, 1, 3, 2), F32)]
    )
    with pytest.raises(OnnxImportError, match="frame_length 5 must be in"):
        from_onnx(model)


def test_too_long_a_dft_is_an_error(build_model: Any) -> None:
    x = np.zeros((1, 4096, 2), F32)
    node = helper.make_node("DFT", ["x"], ["y"], axis=1)
    model = build_model(
        node, {"x": x}, opset=19, output_values=[np.zeros((1, 4096, 2), F32)]
    )
    with pytest.raises(OnnxImportError, match="8192 x 8192 matrix, more than"):
        from_onnx(model)


def test_stft_window_shorter_than_the_frame(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    """The window's length sets the samples per frame, frame_length the DFT
    length (zero padded) and the frame count."""
    x = _signal(rng, (1, 30, 1))
    inputs = {"x": x, "w": _signal(rng, (6,))}
    inits = {"step": np.array(5, I64), "frame": np.array(8, I64)}
    node = helper.make_node("STFT", ["x", "step", "w", "frame"], ["y"])
    run_onnx(node, inputs, inits, rtol=1e-4, atol=1e-4)


def test_compiled_stft_float64(build_model: Any, rng: np.random.Generator) -> None:
    from onnx.reference import ReferenceEvaluator

    x = rng.standard_normal((2, 50, 1))
    inits = {"step": np.array(6, I64), "frame": np.array(11, I64)}
    node = helper.make_node("STFT", ["x", "step", "", "frame"], ["y"], onesided=0)
    draft = build_model(node, {"x": x}, inits)
    ref = ReferenceEvaluator(draft).run(None, {"x": x})
    model = build_model(node, {"x": x}, inits, output_values=ref)
    (got,) = XrelayBackend.prepare(model).run([x])
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, ref[0], rtol=1e-10, atol=1e-10)
