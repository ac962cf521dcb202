"""GridSample (opsets 16, 20, 22) against the ONNX reference evaluator: every mode,
padding mode and align_corners on odd 4-D and 5-D shapes with grids reaching outside
the data, opset 16's mode names, a float64 grid on float32 data, and the import
errors."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import OnnxImportError

RunOnnx = Callable[..., Any]
F32 = np.float32
MODES_20 = ["linear", "nearest", "cubic"]
PADDINGS = ["zeros", "border", "reflection"]


def _node(**attrs: Any) -> Any:
    return helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs)


@pytest.mark.parametrize(
    ("mode", "padding", "align"), list(itertools.product(MODES_20, PADDINGS, [0, 1]))
)
def test_grid_sample_2d(
    run_onnx: RunOnnx, rng: np.random.Generator, mode: str, padding: str, align: int
) -> None:
    x = rng.standard_normal((2, 3, 5, 4)).astype(F32)
    grid = (rng.standard_normal((2, 3, 6, 2)) * 1.5).astype(F32)
    node = _node(mode=mode, padding_mode=padding, align_corners=align)
    # onnxruntime clamps the cubic sample point under border padding, the reference
    # evaluator (and xrelay) each of the 16 taps
    differs = (
        "cubic with border padding" if (mode, padding) == ("cubic", "border") else None
    )
    run_onnx(
        node,
        {"x": x, "grid": grid},
        opset=20,
        rtol=1e-5,
        atol=1e-5,
        ort_differs=differs,
    )


@pytest.mark.parametrize(
    ("mode", "padding", "align"),
    list(itertools.product(["linear", "nearest"], PADDINGS, [0, 1])),
)
def test_grid_sample_3d(
    run_onnx: RunOnnx, rng: np.random.Generator, mode: str, padding: str, align: int
) -> None:
    x = rng.standard_normal((1, 2, 3, 4, 5)).astype(F32)
    grid = (rng.standard_normal((1, 2, 3, 4, 3)) * 1.5).astype(F32)
    node = _node(mode=mode, padding_mode=padding, align_corners=align)
    run_onnx(node, {"x": x, "grid": grid}, opset=22, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("mode", "new_mode"),
    [
        ("bilinear", "linear"),
        ("nearest", "nearest"),
        ("bicubic", "cubic"),
        (None, None),
    ],
)
def test_grid_sample_opset16_names(
    import_run: RunOnnx,
    onnx_reference: RunOnnx,
    rng: np.random.Generator,
    mode: str | None,
    new_mode: str | None,
) -> None:
    # the reference evaluator knows opset 20's names only: compare with those
    x = rng.standard_normal((1, 1, 4, 6)).astype(F32)
    grid = rng.uniform(-1.2, 1.2, (1, 5, 5, 2)).astype(F32)
    feeds = {"x": x, "grid": grid}
    old = _node() if mode is None else _node(mode=mode)
    new = _node() if new_mode is None else _node(mode=new_mode)
    (want,) = onnx_reference(new, feeds, opset=20)
    (got,) = import_run(old, feeds, opset=16, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_grid_sample_exact_pixel_centres(run_onnx: RunOnnx) -> None:
    # with align_corners, -1 .. 1 in size - 1 steps hits every pixel exactly
    x = np.arange(12, dtype=F32).reshape(1, 1, 3, 4)
    gx, gy = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 3))
    grid = np.stack([gx, gy], axis=-1)[None].astype(F32)
    for mode in MODES_20:
        (y,) = run_onnx(_node(mode=mode, align_corners=1), {"x": x, "grid": grid})
        np.testing.assert_allclose(y, x, atol=1e-5)


def test_grid_sample_float64_grid(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    x = rng.standard_normal((1, 2, 3, 5)).astype(F32)
    grid = rng.uniform(-1.5, 1.5, (1, 4, 2, 2))
    run_onnx(_node(mode="linear"), {"x": x, "grid": grid}, opset=20)


@pytest.mark.parametrize(
    ("x", "grid", "attrs", "message"),
    [
        (
            np.zeros((1, 1, 2, 2, 2), F32),
            np.zeros((1, 2, 2, 2, 3), F32),
            {"mode": "cubic"},
            "cubic mode is supported for 4-D data only",
        ),
        (
            np.zeros((1, 1, 2, 2), np.int32),
            np.zeros((1, 2, 2, 2), F32),
            {},
            "X must be a float tensor",
        ),
        (
            np.zeros((1, 1, 2, 2), F32),
            np.zeros((1, 2, 2, 2), F32),
            {"mode": "area"},
            "unknown mode 'area'",
        ),
        (
            np.zeros((1, 1, 2, 2), F32),
            np.zeros((1, 2, 2, 2), F32),
            {"padding_mode": "wrap"},
            'unknown padding_mode "wrap"',
        ),
        (
            np.zeros((1, 1, 2, 2), F32),
            np.zeros((1, 2, 2, 3), F32),
            {},
            r"grid must be \[N, 2, \?, \?\]",
        ),
    ],
)
def test_grid_sample_errors(
    import_run: RunOnnx, x: Any, grid: Any, attrs: dict[str, Any], message: str
) -> None:
    out = np.zeros((1, 1, *grid.shape[1:-1]), x.dtype)
    with pytest.raises(OnnxImportError, match=message):
        import_run(_node(**attrs), {"x": x, "grid": grid}, opset=20, expected=[out])
