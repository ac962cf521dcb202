"""DeformConv (opset 19) against the ONNX reference evaluator: groups, offset
groups, strides, dilations, asymmetric pads, mask and bias, offsets reaching outside
the data; a one-pixel-high input (which the reference cannot run) against a plain
convolution with zero offsets; import errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]
F32 = np.float32


def _out(size: int, k: int, s: int, d: int, pad: int) -> int:
    return (size + pad - (k - 1) * d - 1) // s + 1


@pytest.mark.parametrize(
    ("c", "oc", "group", "offset_group", "kernel", "strides", "dil", "pads"),
    [
        (2, 3, 1, 1, (2, 2), (1, 1), (1, 1), (0, 0, 0, 0)),
        (4, 6, 2, 2, (3, 2), (2, 1), (1, 2), (1, 0, 2, 1)),
        (6, 2, 2, 3, (1, 3), (1, 2), (2, 1), (0, 1, 0, 1)),
    ],
)
@pytest.mark.parametrize("extras", ["none", "bias", "mask", "both"])
def test_deform_conv(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    c: int,
    oc: int,
    group: int,
    offset_group: int,
    kernel: tuple[int, int],
    strides: tuple[int, int],
    dil: tuple[int, int],
    pads: tuple[int, int, int, int],
    extras: str,
) -> None:
    n, h, w = 2, 6, 7
    oh = _out(h, kernel[0], strides[0], dil[0], pads[0] + pads[2])
    ow = _out(w, kernel[1], strides[1], dil[1], pads[1] + pads[3])
    k = kernel[0] * kernel[1]
    feeds = {
        "x": rng.standard_normal((n, c, h, w)).astype(F32),
        "w": rng.standard_normal((oc, c // group, *kernel)).astype(F32),
        "offset": (rng.standard_normal((n, offset_group * 2 * k, oh, ow)) * 2).astype(
            F32
        ),
    }
    names = ["x", "w", "offset", "", ""]
    if extras in ("bias", "both"):
        feeds["b"] = rng.standard_normal(oc).astype(F32)
        names[3] = "b"
    if extras in ("mask", "both"):
        feeds["mask"] = rng.uniform(0, 1, (n, offset_group * k, oh, ow)).astype(F32)
        names[4] = "mask"
    while names[-1] == "":
        names.pop()
    node = helper.make_node(
        "DeformConv",
        names,
        ["y"],
        group=group,
        offset_group=offset_group,
        kernel_shape=list(kernel),
        strides=list(strides),
        dilations=list(dil),
        pads=list(pads),
    )
    run_onnx(node, feeds, opset=19, rtol=1e-4, atol=1e-4)


def test_deform_conv_one_pixel_high_zero_offsets_is_a_convolution(
    import_run: RunOnnx, onnx_reference: RunOnnx, rng: np.random.Generator
) -> None:
    x = rng.standard_normal((1, 2, 1, 5)).astype(F32)
    w = rng.standard_normal((3, 2, 1, 2)).astype(F32)
    offset = np.zeros((1, 4, 1, 4), F32)
    conv = helper.make_node("Conv", ["x", "w"], ["y"])
    (want,) = onnx_reference(conv, {"x": x, "w": w}, opset=19)
    node = helper.make_node("DeformConv", ["x", "w", "offset"], ["y"])
    feeds = {"x": x, "w": w, "offset": offset}
    (got,) = import_run(node, feeds, opset=19, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("offset_shape", "attrs", "message"),
    [
        ((1, 8, 3, 3), {"offset_group": 3}, "offset_group=3 does not divide 2"),
        ((1, 6, 3, 3), {}, r"offset must be \[1, 8, 3, 3\]"),
        ((1, 8, 3, 3), {"group": 2, "kernel_shape": [2, 2]}, "do not fit group=2"),
    ],
)
def test_deform_conv_errors(
    import_run: RunOnnx,
    offset_shape: tuple[int, ...],
    attrs: dict[str, Any],
    message: str,
) -> None:
    feeds = {
        "x": np.zeros((1, 2, 4, 4), F32),
        "w": np.zeros((2, 2, 2, 2), F32),
        "offset": np.zeros(offset_shape, F32),
    }
    node = helper.make_node("DeformConv", ["x", "w", "offset"], ["y"], **attrs)
    with pytest.raises(OnnxImportError, match=message):
        import_run(node, feeds, opset=19, expected=[np.zeros((1, 2, 3, 3), F32)])
