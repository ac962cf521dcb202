"""Convolutions, matrix products, softmax, normalisations and pooling: one-node ONNX
models over several attribute combinations, against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import from_onnx

from .conftest import make_model

RunOnnx = Callable[..., Any]
F32 = np.float32


def randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(F32)


# ---------------------------------------------------------------------------------------
# Conv
# ---------------------------------------------------------------------------------------

CONV_CASES: list[tuple[str, tuple[int, ...], tuple[int, ...], dict[str, Any]]] = [
    ("plain", (1, 3, 9, 9), (4, 3, 3, 3), {}),
    ("pads", (2, 3, 8, 7), (4, 3, 3, 3), {"pads": [1, 2, 0, 1]}),
    ("strides", (1, 3, 9, 10), (5, 3, 3, 2), {"strides": [2, 3], "pads": [1, 1, 1, 1]}),
    ("dilations", (1, 2, 11, 11), (3, 2, 3, 3), {"dilations": [2, 3]}),
    ("groups", (1, 4, 7, 7), (6, 2, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]}),
    ("depthwise", (1, 4, 8, 8), (4, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]}),
    ("depthwise_mult", (1, 3, 8, 8), (6, 1, 3, 3), {"group": 3}),
    (
        "same_upper",
        (1, 3, 8, 9),
        (4, 3, 4, 3),
        {"auto_pad": "SAME_UPPER", "strides": [2, 2]},
    ),
    (
        "same_lower",
        (1, 3, 8, 9),
        (4, 3, 4, 3),
        {"auto_pad": "SAME_LOWER", "strides": [2, 2]},
    ),
    ("valid", (1, 3, 8, 9), (4, 3, 3, 3), {"auto_pad": "VALID", "strides": [2, 1]}),
    ("kernel_shape", (1, 3, 6, 6), (2, 3, 3, 3), {"kernel_shape": [3, 3]}),
    ("conv1d", (2, 3, 12), (4, 3, 3), {"pads": [1, 2], "strides": [2]}),
    (
        "conv1d_same",
        (1, 2, 10),
        (3, 2, 4),
        {"auto_pad": "SAME_UPPER", "dilations": [2]},
    ),
]


@pytest.mark.parametrize(
    ("xs", "ws", "attrs"), [c[1:] for c in CONV_CASES], ids=[c[0] for c in CONV_CASES]
)
@pytest.mark.parametrize("bias", [False, True])
def test_conv(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    xs: tuple[int, ...],
    ws: tuple[int, ...],
    attrs: dict[str, Any],
    bias: bool,
) -> None:
    inits = {"w": randn(rng, *ws)}
    names = ["x", "w"]
    if bias:
        inits["b"] = randn(rng, ws[0])
        names.append("b")
    node = helper.make_node("Conv", names, ["y"], **attrs)
    differs = (
        "onnxruntime rejects dilations with auto_pad SAME_*"
        if "auto_pad" in attrs and "dilations" in attrs
        else None
    )
    run_onnx(
        node, {"x": randn(rng, *xs)}, inits, rtol=1e-4, atol=1e-5, ort_differs=differs
    )


def test_conv_weight_as_input(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    """A weight given at run time (not an initializer)."""
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])
    inputs = {"x": randn(rng, 1, 2, 5, 5), "w": randn(rng, 3, 2, 3, 3)}
    run_onnx(node, inputs, rtol=1e-4, atol=1e-5)


CONV_T_CASES: list[tuple[str, tuple[int, ...], tuple[int, ...], dict[str, Any]]] = [
    ("plain", (1, 3, 5, 5), (3, 4, 3, 3), {}),
    ("strides", (1, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 2]}),
    ("pads", (1, 2, 5, 5), (2, 3, 3, 3), {"strides": [2, 2], "pads": [1, 0, 1, 2]}),
    (
        "output_padding",
        (1, 2, 4, 4),
        (2, 3, 3, 3),
        {"strides": [2, 3], "output_padding": [1, 2]},
    ),
    ("dilations", (1, 2, 4, 4), (2, 2, 3, 2), {"dilations": [2, 1]}),
    (
        "output_shape",
        (1, 2, 4, 4),
        (2, 3, 3, 3),
        {"strides": [2, 2], "output_shape": [9, 10]},
    ),
    (
        "same_upper",
        (1, 2, 4, 5),
        (2, 3, 3, 3),
        {"strides": [2, 2], "auto_pad": "SAME_UPPER"},
    ),
    (
        "same_lower",
        (1, 2, 4, 5),
        (2, 3, 3, 3),
        {"strides": [2, 2], "auto_pad": "SAME_LOWER"},
    ),
    (
        "same_grows",
        (1, 2, 3, 3),
        (2, 2, 1, 1),
        {"strides": [2, 2], "auto_pad": "SAME_LOWER"},
    ),
    ("conv1d", (1, 2, 6), (2, 3, 3), {"strides": [2], "pads": [1, 0]}),
]


@pytest.mark.parametrize(
    ("xs", "ws", "attrs"),
    [c[1:] for c in CONV_T_CASES],
    ids=[c[0] for c in CONV_T_CASES],
)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    xs: tuple[int, ...],
    ws: tuple[int, ...],
    attrs: dict[str, Any],
    bias: bool,
) -> None:
    group = attrs.get("group", 1)
    inits = {"w": randn(rng, *ws)}
    names = ["x", "w"]
    if bias:
        inits["b"] = randn(rng, ws[1] * group)
        names.append("b")
    node = helper.make_node("ConvTranspose", names, ["y"], **attrs)
    # a 1x1 kernel with stride 2 and auto_pad SAME: the spec's total padding
    # (stride*(in-1) + kernel - in*stride) is negative; onnxruntime pads with the
    # negative amount (a 6x6 output), onnx.reference and xrelay clamp it at 0 (5x5)
    grows = attrs.get("auto_pad", "NOTSET") != "NOTSET" and ws[2:] == (1, 1)
    differs = "onnxruntime applies negative SAME padding" if grows else None
    run_onnx(
        node, {"x": randn(rng, *xs)}, inits, rtol=1e-4, atol=1e-5, ort_differs=differs
    )


@pytest.mark.parametrize(
    ("c", "m", "group"), [(4, 1, 2), (4, 3, 2), (6, 2, 3), (3, 1, 3)]
)
def test_conv_transpose_groups(
    import_run: RunOnnx,
    onnx_reference: RunOnnx,
    rng: np.random.Generator,
    c: int,
    m: int,
    group: int,
) -> None:
    """Grouped transposed convolution. The reference evaluator mishandles groups, so
    the expected output is the concatenation of the per-group reference outputs."""
    x, w, b = randn(rng, 1, c, 4, 5), randn(rng, c, m, 3, 3), randn(rng, m * group)
    attrs = {"strides": [2, 1], "pads": [1, 0, 0, 1]}
    node = helper.make_node(
        "ConvTranspose", ["x", "w", "b"], ["y"], group=group, **attrs
    )
    cg = c // group
    parts = []
    for g in range(group):
        single = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)
        parts += onnx_reference(
            single,
            {"x": x[:, g * cg : (g + 1) * cg]},
            {"w": w[g * cg : (g + 1) * cg], "b": b[g * m : (g + 1) * m]},
        )
    want = np.concatenate(parts, axis=1)
    (got,) = import_run(node, {"x": x}, {"w": w, "b": b}, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------
# Gemm / MatMul
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attrs",
    [
        {},
        {"transB": 1},
        {"transA": 1},
        {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0},
        {"alpha": 1.5},
        {"beta": 0.0},
    ],
)
@pytest.mark.parametrize("c_shape", [None, (5,), (3, 5), (3, 1), (1, 1), ()])
def test_gemm(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    attrs: dict[str, Any],
    c_shape: tuple[int, ...] | None,
) -> None:
    m, k, n = 3, 4, 5
    a = randn(rng, *((k, m) if attrs.get("transA") else (m, k)))
    b = randn(rng, *((n, k) if attrs.get("transB") else (k, n)))
    inits = {"b": b}
    names = ["a", "b"]
    if c_shape is not None:
        inits["c"] = randn(rng, *c_shape)
        names.append("c")
    run_onnx(helper.make_node("Gemm", names, ["y"], **attrs), {"a": a}, inits)


def test_gemm_all_runtime(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    inputs = {"a": randn(rng, 3, 4), "b": randn(rng, 4, 2), "c": randn(rng, 2)}
    run_onnx(helper.make_node("Gemm", ["a", "b", "c"], ["y"], beta=0.5), inputs)


@pytest.mark.parametrize(
    ("sa", "sb"),
    [
        ((3, 4), (4, 5)),
        ((2, 3, 4), (4, 5)),
        ((2, 3, 4), (2, 4, 5)),
        ((2, 1, 3, 4), (1, 5, 4, 2)),
        ((3, 4), (2, 4, 5)),
        ((4,), (4, 5)),
        ((2, 3, 4), (4,)),
        ((4,), (4,)),
        ((4,), (3, 4, 2)),
        ((1, 3, 4), (6, 4, 2)),
    ],
)
@pytest.mark.parametrize("b_const", [False, True])
def test_matmul(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    sa: tuple[int, ...],
    sb: tuple[int, ...],
    b_const: bool,
) -> None:
    a, b = randn(rng, *sa), randn(rng, *sb)
    node = helper.make_node("MatMul", ["a", "b"], ["y"])
    if b_const:
        run_onnx(node, {"a": a}, {"b": b}, rtol=1e-5, atol=1e-5)
    else:
        run_onnx(node, {"a": a, "b": b}, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("rows", "in_place"), [(1, True), (8, True), (9, False)])
def test_matmul_by_transposed_keys(
    run_onnx: RunOnnx, rng: np.random.Generator, rows: int, in_place: bool
) -> None:
    # q @ k.transpose(-1, -2) (attention as PyTorch exports it): a product of at
    # most DOT_MAX_ROWS rows reads the keys as they are (transpose_b), no
    # transposed copy of the KV cache
    q, k = randn(rng, 1, 2, rows, 8), randn(rng, 1, 2, 5, 8)
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["y"]),
    ]
    run_onnx(nodes, {"q": q, "k": k}, rtol=1e-5, atol=1e-5)
    expected = q @ np.swapaxes(k, -1, -2)
    mod, _ = from_onnx(make_model(nodes, {"q": q, "k": k}, output_values=[expected]))
    text = str(mod)
    assert "relay.nn.batch_matmul" in text
    assert ("transpose_b = false" not in text) is in_place  # true: the default
    assert ("relay.transpose" not in text) is in_place


def test_matmul_int(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    a = rng.integers(-5, 5, (2, 3, 4)).astype(np.int32)
    b = rng.integers(-5, 5, (2, 4, 2)).astype(np.int32)
    run_onnx(helper.make_node("MatMul", ["a", "b"], ["y"]), {"a": a, "b": b})


# ---------------------------------------------------------------------------------------
# Softmax
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize(("axis", "opset"), [(None, 13), (1, 13), (-2, 17), (0, 13)])
def test_softmax(
    run_onnx: RunOnnx, rng: np.random.Generator, op: str, axis: int | None, opset: int
) -> None:
    attrs = {} if axis is None else {"axis": axis}
    x = randn(rng, 2, 3, 4)
    run_onnx(helper.make_node(op, ["x"], ["y"], **attrs), {"x": x}, opset=opset)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize(("axis", "flat"), [(None, (2, 12)), (2, (6, 4)), (0, (1, 24))])
def test_softmax_before_opset_13(
    import_run: RunOnnx,
    rng: np.random.Generator,
    op: str,
    axis: int | None,
    flat: tuple[int, int],
) -> None:
    """Before opset 13 the input is seen as a matrix split at ``axis`` (default 1);
    the reference evaluator only knows the opset-13 rule, so numpy gives the
    expected values."""
    attrs = {} if axis is None else {"axis": axis}
    x = randn(rng, 2, 3, 4)
    m = x.reshape(flat).astype(np.float64)
    e = np.exp(m - m.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    if op == "LogSoftmax":
        want = np.log(want)
    want = want.reshape(x.shape).astype(F32)
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    (got,) = import_run(node, {"x": x}, opset=11, expected=[want])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3), (1, 3, 7)])
@pytest.mark.parametrize("epsilon", [None, 1e-3])
def test_batch_norm(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    epsilon: float | None,
) -> None:
    c = shape[1]
    inits = {
        "scale": randn(rng, c),
        "bias": randn(rng, c),
        "mean": randn(rng, c),
        "var": rng.uniform(0.5, 2, c).astype(F32),
    }
    attrs = {} if epsilon is None else {"epsilon": epsilon}
    node = helper.make_node(
        "BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"], **attrs
    )
    run_onnx(node, {"x": randn(rng, *shape)}, inits, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("axis", "scale_shape"),
    [(-1, (5,)), (2, (4, 5)), (1, (3, 4, 5)), (-2, (1, 5)), (2, (5,))],
)
@pytest.mark.parametrize("bias", [False, True])
def test_layer_norm(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    axis: int,
    scale_shape: tuple[int, ...],
    bias: bool,
) -> None:
    inits = {"scale": randn(rng, *scale_shape)}
    names = ["x", "scale"]
    if bias:
        inits["bias"] = randn(rng, *scale_shape)
        names.append("bias")
    node = helper.make_node("LayerNormalization", names, ["y"], axis=axis, epsilon=1e-4)
    run_onnx(node, {"x": randn(rng, 2, 3, 4, 5)}, inits, rtol=1e-4, atol=1e-5)


def test_layer_norm_statistics_outputs(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    node = helper.make_node(
        "LayerNormalization", ["x", "scale", "bias"], ["y", "mean", "inv"], axis=1
    )
    inits = {"scale": randn(rng, 3, 4), "bias": randn(rng, 3, 4)}
    run_onnx(node, {"x": randn(rng, 2, 3, 4)}, inits, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 2, 6)])
def test_instance_norm(
    run_onnx: RunOnnx, rng: np.random.Generator, shape: tuple[int, ...]
) -> None:
    c = shape[1]
    node = helper.make_node(
        "InstanceNormalization", ["x", "scale", "bias"], ["y"], epsilon=1e-3
    )
    inits = {"scale": randn(rng, c), "bias": randn(rng, c)}
    run_onnx(node, {"x": randn(rng, *shape)}, inits, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------

POOL_CASES: list[tuple[str, tuple[int, ...], dict[str, Any]]] = [
    ("plain", (1, 2, 8, 8), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ("overlap", (2, 3, 9, 7), {"kernel_shape": [3, 3], "strides": [2, 1]}),
    (
        "pads",
        (1, 2, 7, 7),
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 2]},
    ),
    ("ceil", (1, 2, 7, 8), {"kernel_shape": [2, 3], "strides": [2, 2], "ceil_mode": 1}),
    (
        "ceil_last_window_dropped",
        (1, 1, 5, 5),
        {
            "kernel_shape": [2, 2],
            "strides": [2, 2],
            "pads": [0, 0, 1, 1],
            "ceil_mode": 1,
        },
    ),
    (
        "ceil_pads",
        (1, 2, 6, 6),
        {
            "kernel_shape": [3, 3],
            "strides": [2, 2],
            "pads": [1, 1, 1, 1],
            "ceil_mode": 1,
        },
    ),
    (
        "same_upper",
        (1, 2, 7, 6),
        {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "SAME_UPPER"},
    ),
    (
        "same_lower",
        (1, 2, 7, 6),
        {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "SAME_LOWER"},
    ),
    (
        "same_upper_odd",
        (1, 2, 8, 7),
        {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"},
    ),
    (
        "same_lower_odd",
        (1, 2, 8, 7),
        {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_LOWER"},
    ),
    ("valid", (1, 2, 7, 6), {"kernel_shape": [3, 2], "auto_pad": "VALID"}),
    ("pool1d", (2, 3, 11), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
]


@pytest.mark.parametrize(
    ("shape", "attrs"), [c[1:] for c in POOL_CASES], ids=[c[0] for c in POOL_CASES]
)
def test_max_pool(
    run_onnx: RunOnnx,
    import_run: RunOnnx,
    onnx_reference: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    attrs: dict[str, Any],
) -> None:
    x = randn(rng, *shape)
    node = helper.make_node("MaxPool", ["x"], ["y"], **attrs)
    if attrs.get("auto_pad") != "SAME_LOWER":
        run_onnx(node, {"x": x})
        return
    # The reference evaluator's strided MaxPool gives SAME_LOWER floor(in / stride)
    # outputs and SAME_UPPER's padding, against the spec (ceil(in / stride), the odd
    # pad at the beginning): compare with the same pool with the spec's pads.
    explicit = {k: v for k, v in attrs.items() if k != "auto_pad"}
    begin, end = [], []
    for size, k, st in zip(
        shape[2:], attrs["kernel_shape"], attrs["strides"], strict=True
    ):
        total = max(0, (-(-size // st) - 1) * st + k - size)
        begin.append(total - total // 2)  # the odd unit first
        end.append(total // 2)
    explicit["pads"] = begin + end
    (want,) = onnx_reference(
        helper.make_node("MaxPool", ["x"], ["y"], **explicit), {"x": x}
    )
    (got,) = import_run(node, {"x": x}, expected=[want])
    np.testing.assert_array_equal(got, want)


def test_max_pool_dilations(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    node = helper.make_node(
        "MaxPool",
        ["x"],
        ["y"],
        kernel_shape=[2, 2],
        dilations=[2, 2],
        pads=[1, 1, 1, 1],
    )
    run_onnx(node, {"x": randn(rng, 1, 2, 7, 7)})


@pytest.mark.parametrize(
    ("shape", "attrs"), [c[1:] for c in POOL_CASES], ids=[c[0] for c in POOL_CASES]
)
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_average_pool(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    attrs: dict[str, Any],
    count_include_pad: int,
) -> None:
    node = helper.make_node(
        "AveragePool", ["x"], ["y"], count_include_pad=count_include_pad, **attrs
    )
    run_onnx(node, {"x": randn(rng, *shape)})


def test_average_pool_dilations(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    node = helper.make_node(
        "AveragePool",
        ["x"],
        ["y"],
        kernel_shape=[2, 2],
        dilations=[2, 1],
        pads=[1, 0, 1, 0],
    )
    run_onnx(node, {"x": randn(rng, 1, 2, 7, 6)}, opset=19)


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("shape", [(2, 3, 5, 4), (1, 3, 7), (1, 2, 3, 4, 2)])
def test_global_pool(
    run_onnx: RunOnnx,
    import_run: RunOnnx,
    rng: np.random.Generator,
    op: str,
    shape: tuple[int, ...],
) -> None:
    x = randn(rng, *shape)
    node = helper.make_node(op, ["x"], ["y"])
    if op == "GlobalAveragePool" or len(shape) == 4:
        run_onnx(node, {"x": x})
        return
    # the reference evaluator's GlobalMaxPool only handles 2-D images
    want = x.max(axis=tuple(range(2, x.ndim)), keepdims=True)
    (got,) = import_run(node, {"x": x}, expected=[want])
    np.testing.assert_array_equal(got, want)
