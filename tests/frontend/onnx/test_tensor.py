"""Shape and data-movement ONNX ops, constants and constant folding: one-node (or
small) models against the ONNX reference evaluator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from xrelay.dialects.relay.structural import ConstantOp
from xrelay.frontend import from_onnx

RunOnnx = Callable[..., Any]
F32 = np.float32
I64 = np.int64


def randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(F32)


def ints(*values: int) -> np.ndarray:
    return np.array(values, dtype=I64)


@pytest.mark.parametrize("axis", [None, 0, 1, 2, 3, -1, -3])
def test_flatten(run_onnx: RunOnnx, rng: np.random.Generator, axis: int | None) -> None:
    attrs = {} if axis is None else {"axis": axis}
    run_onnx(
        helper.make_node("Flatten", ["x"], ["y"], **attrs), {"x": randn(rng, 2, 3, 4)}
    )


@pytest.mark.parametrize(
    ("shape", "target", "allowzero"),
    [
        ((2, 3, 4), (4, 6), 0),
        ((2, 3, 4), (-1,), 0),
        ((2, 3, 4), (0, -1), 0),
        ((2, 3, 4), (0, 0, 2, 2), 0),
        ((2, 3, 4), (2, -1, 2), 0),
        ((2, 0, 4), (0, 4, 0), 1),
        ((6,), (1, 2, 1, 3), 0),
    ],
)
def test_reshape(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    target: tuple[int, ...],
    allowzero: int,
) -> None:
    node = helper.make_node("Reshape", ["x", "shape"], ["y"], allowzero=allowzero)
    run_onnx(node, {"x": randn(rng, *shape)}, {"shape": ints(*target)}, opset=14)


@pytest.mark.parametrize("perm", [None, [0, 2, 1], [2, 0, 1], [0, 1, 2]])
def test_transpose(
    run_onnx: RunOnnx, rng: np.random.Generator, perm: list[int] | None
) -> None:
    attrs = {} if perm is None else {"perm": perm}
    run_onnx(
        helper.make_node("Transpose", ["x"], ["y"], **attrs), {"x": randn(rng, 2, 3, 4)}
    )


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(run_onnx: RunOnnx, rng: np.random.Generator, axis: int) -> None:
    shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
    for s in shapes[1:]:
        s[axis] = 1 + len(s)
    inputs = {f"x{k}": randn(rng, *s) for k, s in enumerate(shapes)}
    run_onnx(helper.make_node("Concat", list(inputs), ["y"], axis=axis), inputs)


def test_concat_with_constant(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    node = helper.make_node("Concat", ["x", "c"], ["y"], axis=0)
    run_onnx(node, {"x": randn(rng, 2, 3)}, {"c": randn(rng, 1, 3)})


SPLIT_CASES: list[
    tuple[str, int, tuple[int, ...], int, dict[str, Any], list[int] | None, int]
] = [
    ("equal", 13, (6, 4), 3, {"axis": 0}, None, 3),
    ("sizes_input", 13, (2, 7), 1, {"axis": 1}, [2, 4, 1], 3),
    ("negative_axis", 13, (2, 6, 3), -2, {"axis": -2}, [1, 5], 2),
    ("sizes_attr", 11, (2, 7), 1, {"axis": 1, "split": [3, 4]}, None, 2),
    ("num_outputs_uneven", 18, (2, 7), 1, {"axis": 1, "num_outputs": 3}, None, 3),
    ("one_output", 13, (4, 2), 0, {}, None, 1),
]


@pytest.mark.parametrize(
    ("opset", "shape", "axis", "attrs", "sizes", "n"),
    [c[1:] for c in SPLIT_CASES],
    ids=[c[0] for c in SPLIT_CASES],
)
def test_split(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    opset: int,
    shape: tuple[int, ...],
    axis: int,
    attrs: dict[str, Any],
    sizes: list[int] | None,
    n: int,
) -> None:
    outs = [f"y{k}" for k in range(n)]
    names = ["x"] if sizes is None else ["x", "split"]
    inits = {} if sizes is None else {"split": ints(*sizes)}
    node = helper.make_node("Split", names, outs, **attrs)
    run_onnx(node, {"x": randn(rng, *shape)}, inits, opset=opset)


SLICE_CASES: list[
    tuple[str, list[int], list[int], list[int] | None, list[int] | None]
] = [
    ("basic", [0, 1], [2, 3], None, None),
    ("axes", [1], [-1], [2], None),
    ("negative", [-3, -2], [-1, 100], [0, 1], None),
    ("steps", [0, 4], [6, 0], [0, 2], [2, -1]),
    ("reverse_all", [-1], [-(2**63)], [1], [-1]),
    ("clamp", [-100, 2], [100, 1000], [1, 2], [1, 1]),
    ("empty", [3], [1], [0], None),
    ("empty_negative_step", [0], [3], [1], [-1]),
    ("int_max_end", [1], [2**63 - 1], [0], None),
    ("step3", [5], [0], [2], [-3]),
]


@pytest.mark.parametrize(
    ("starts", "ends", "axes", "steps"),
    [c[1:] for c in SLICE_CASES],
    ids=[c[0] for c in SLICE_CASES],
)
def test_slice(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    starts: list[int],
    ends: list[int],
    axes: list[int] | None,
    steps: list[int] | None,
) -> None:
    inits = {"starts": ints(*starts), "ends": ints(*ends)}
    names = ["x", "starts", "ends"]
    if axes is not None:
        inits["axes"] = ints(*axes)
        names.append("axes")
    if steps is not None:
        inits["steps"] = ints(*steps)
        names.append("steps")
    node = helper.make_node("Slice", names, ["y"])
    run_onnx(node, {"x": randn(rng, 6, 5, 7)}, inits)


def test_slice_opset_9_attributes(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    node = helper.make_node(
        "Slice", ["x"], ["y"], starts=[1, -3], ends=[3, 100], axes=[0, 2]
    )
    run_onnx(node, {"x": randn(rng, 4, 3, 5)}, opset=9)


@pytest.mark.parametrize(
    ("axes", "opset"), [([1], 13), ([1, -1], 13), (None, 13), ([3], 11)]
)
def test_squeeze(
    run_onnx: RunOnnx, rng: np.random.Generator, axes: list[int] | None, opset: int
) -> None:
    x = randn(rng, 2, 1, 3, 1)
    if axes is None:
        node, inits = helper.make_node("Squeeze", ["x"], ["y"]), {}
    elif opset >= 13:
        node, inits = (
            helper.make_node("Squeeze", ["x", "axes"], ["y"]),
            {"axes": ints(*axes)},
        )
    else:
        node, inits = helper.make_node("Squeeze", ["x"], ["y"], axes=axes), {}
    run_onnx(node, {"x": x}, inits, opset=opset)


@pytest.mark.parametrize(
    ("axes", "opset"),
    [([0], 13), ([1, -1], 13), ([0, 4], 13), ([4, 0, 2], 13), ([0, 2], 11), ([-1], 11)],
)
def test_unsqueeze(
    run_onnx: RunOnnx, rng: np.random.Generator, axes: list[int], opset: int
) -> None:
    x = randn(rng, 2, 3, 4)
    if opset >= 13:
        node, inits = (
            helper.make_node("Unsqueeze", ["x", "axes"], ["y"]),
            {"axes": ints(*axes)},
        )
    else:
        node, inits = helper.make_node("Unsqueeze", ["x"], ["y"], axes=axes), {}
    run_onnx(node, {"x": x}, inits, opset=opset)


def test_unsqueeze_scalar(run_onnx: RunOnnx) -> None:
    node = helper.make_node("Unsqueeze", ["x", "axes"], ["y"])
    run_onnx(node, {"x": np.array(3.5, F32)}, {"axes": ints(0)})


@pytest.mark.parametrize(
    ("axis", "indices"),
    [
        (0, np.array([0, 2, 1], I64)),
        (1, np.array([[0, -1], [2, 1]], I64)),
        (-1, np.array(2, I64)),
        (2, np.array([-4, 3], np.int32)),
    ],
)
@pytest.mark.parametrize("const_indices", [True, False])
def test_gather(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    axis: int,
    indices: np.ndarray,
    const_indices: bool,
) -> None:
    node = helper.make_node("Gather", ["x", "i"], ["y"], axis=axis)
    x = randn(rng, 3, 4, 4)
    if const_indices:
        run_onnx(node, {"x": x}, {"i": indices})
    else:
        run_onnx(node, {"x": x, "i": indices})


@pytest.mark.parametrize(
    ("shape", "target"),
    [
        ((3, 1), (2, 3, 4)),
        ((3, 4), (4,)),
        ((1, 4), (3, 1)),
        ((2, 3), (2, 3)),
        ((), (2, 2)),
    ],
)
def test_expand(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    shape: tuple[int, ...],
    target: tuple[int, ...],
) -> None:
    node = helper.make_node("Expand", ["x", "shape"], ["y"])
    run_onnx(node, {"x": randn(rng, *shape)}, {"shape": ints(*target)})


@pytest.mark.parametrize("repeats", [(2, 1, 3), (1, 1, 1), (1, 4, 1)])
def test_tile(
    run_onnx: RunOnnx, rng: np.random.Generator, repeats: tuple[int, ...]
) -> None:
    node = helper.make_node("Tile", ["x", "r"], ["y"])
    run_onnx(node, {"x": randn(rng, 2, 3, 2)}, {"r": ints(*repeats)})


PAD_CASES: list[tuple[str, str, list[int], float | None, list[int] | None]] = [
    ("constant", "constant", [0, 1, 2, 0, 2, 1], None, None),
    ("value", "constant", [1, 0, 0, 1, 2, 3], 1.5, None),
    ("edge", "edge", [1, 1, 1, 2, 0, 2], None, None),
    ("reflect", "reflect", [1, 2, 2, 1, 1, 0], None, None),
    ("axes", "constant", [1, 2, 3, 0], 0.5, [2, -3]),
]


@pytest.mark.parametrize(
    ("mode", "pads", "value", "axes"),
    [c[1:] for c in PAD_CASES],
    ids=[c[0] for c in PAD_CASES],
)
def test_pad(
    run_onnx: RunOnnx,
    rng: np.random.Generator,
    mode: str,
    pads: list[int],
    value: float | None,
    axes: list[int] | None,
) -> None:
    inits: dict[str, np.ndarray] = {"pads": ints(*pads)}
    names = ["x", "pads", "", ""]
    if value is not None:
        inits["value"], names[2] = np.array(value, F32), "value"
    if axes is not None:
        inits["axes"], names[3] = ints(*axes), "axes"
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Pad", names, ["y"], mode=mode)
    run_onnx(node, {"x": randn(rng, 3, 4, 5)}, inits, opset=18)


@pytest.mark.parametrize("mode", ["constant", "edge"])
def test_pad_negative_crops(
    import_run: RunOnnx, rng: np.random.Generator, mode: str
) -> None:
    """Negative pads remove elements (the reference evaluator rejects them)."""
    x = randn(rng, 3, 4, 5)
    pads = [-1, 2, 0, 1, -2, 1]  # begins for axes 0..2, then ends
    width = [(max(pads[k], 0), max(pads[k + 3], 0)) for k in range(3)]
    want = np.pad(x, width, mode=mode)[
        1:, :-2, :
    ]  # crop 1 before axis 0, 2 after axis 1
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    (got,) = import_run(node, {"x": x}, {"pads": ints(*pads)}, expected=[want])
    np.testing.assert_array_equal(got, want)


def test_pad_runtime_value(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    node = helper.make_node("Pad", ["x", "pads", "v"], ["y"])
    run_onnx(
        node,
        {"x": randn(rng, 2, 3), "v": np.array(-2.0, F32)},
        {"pads": ints(1, 0, 0, 2)},
    )


def test_pad_opset_2_attributes(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    node = helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 1, 0], value=2.0)
    run_onnx(node, {"x": randn(rng, 2, 3)}, opset=2)


@pytest.mark.parametrize(
    "attr",
    [
        {"value": numpy_helper.from_array(np.arange(6, dtype=F32).reshape(2, 3))},
        {"value": numpy_helper.from_array(np.array([1, -2], dtype=I64))},
        {"value_float": 2.5},
        {"value_floats": [1.0, 2.0]},
        {"value_int": 7},
        {"value_ints": [3, 4, 5]},
    ],
)
def test_constant(run_onnx: RunOnnx, attr: dict[str, Any]) -> None:
    run_onnx(helper.make_node("Constant", [], ["y"], **attr), {})


@pytest.mark.parametrize(
    ("start", "end"), [(None, None), (1, None), (-2, None), (0, -1), (-10, 10)]
)
def test_shape(
    run_onnx: RunOnnx, rng: np.random.Generator, start: int | None, end: int | None
) -> None:
    attrs = {k: v for k, v in (("start", start), ("end", end)) if v is not None}
    run_onnx(
        helper.make_node("Shape", ["x"], ["y"], **attrs),
        {"x": randn(rng, 2, 3, 4)},
        opset=15,
    )


def test_size(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    run_onnx(helper.make_node("Size", ["x"], ["y"]), {"x": randn(rng, 2, 3, 4)})


@pytest.mark.parametrize(
    "value",
    [
        None,
        numpy_helper.from_array(np.array([3], I64)),
        numpy_helper.from_array(np.array([0.5], F32)),
    ],
)
@pytest.mark.parametrize("shape", [(2, 3), (), (1,)])
def test_constant_of_shape(
    run_onnx: RunOnnx, value: Any, shape: tuple[int, ...]
) -> None:
    attrs = {} if value is None else {"value": value}
    node = helper.make_node("ConstantOfShape", ["s"], ["y"], **attrs)
    run_onnx(node, {}, {"s": np.array(shape, I64)})


def test_range(run_onnx: RunOnnx) -> None:
    node = helper.make_node("Range", ["a", "b", "d"], ["y"])
    run_onnx(
        node, {}, {"a": np.array(1, I64), "b": np.array(10, I64), "d": np.array(3, I64)}
    )


def test_dropout_is_identity(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    node = helper.make_node("Dropout", ["x", "ratio"], ["y", "mask"])
    inits = {"ratio": np.array(0.3, F32)}
    run_onnx(node, {"x": randn(rng, 3, 4)}, inits, outputs=["y", "mask"])


# ---------------------------------------------------------------------------------------
# Constant folding of shape computations
# ---------------------------------------------------------------------------------------


def shape_chain_nodes() -> list[Any]:
    """A PyTorch-export style flatten: ``x.reshape(x.shape[0], -1)`` computed with
    Shape / Gather / Unsqueeze / Concat, then Expand and Tile driven by shapes."""
    return [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "scalar0"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["flat"]),
        helper.make_node("Shape", ["flat"], ["fs"]),
        helper.make_node(
            "ConstantOfShape",
            ["fs"],
            ["ones"],
            value=numpy_helper.from_array(np.array([1.0], F32)),
        ),
        helper.make_node("Mul", ["flat", "ones"], ["scaled"]),
        helper.make_node("Cast", ["fs"], ["fs_f"], to=TensorProto.FLOAT),
        helper.make_node("Div", ["fs_f", "two"], ["half_f"]),
        helper.make_node("Cast", ["half_f"], ["half"], to=TensorProto.INT64),
        helper.make_node("Slice", ["scaled", "zero", "half", "axes1"], ["y"]),
    ]


def shape_chain_inits() -> dict[str, np.ndarray]:
    return {
        "scalar0": np.array(0, I64),
        "zero": ints(0),
        "axes0": ints(0),
        "axes1": ints(1),
        "minus1": ints(-1),
        "two": np.array([2.0], F32),
    }


def test_shape_computations_fold(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    nodes = shape_chain_nodes()
    inits = shape_chain_inits()
    nodes[-1] = helper.make_node("Slice", ["scaled", "zero1", "half1", "axes1"], ["y"])
    nodes.insert(-1, helper.make_node("Slice", ["half", "one", "two_i"], ["half1"]))
    inits.update(zero1=ints(0), one=ints(1), two_i=ints(2))
    run_onnx(nodes, {"x": randn(rng, 2, 3, 4)}, inits)


def test_folded_shape_ops_leave_no_trace(
    build_model: Callable[..., Any], rng: np.random.Generator
) -> None:
    """Only the data path remains: shapes became constants, and the constants left
    unused by folding are removed."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = {"zero": np.array(0, I64), "axes0": ints(0), "minus1": ints(-1)}
    x = randn(rng, 2, 3, 4)
    model = build_model(nodes, {"x": x}, inits, output_values=[x.reshape(2, 12)])
    mod, _ = from_onnx(model)
    names = [op.name for op in mod["main"].body.block.ops]
    assert names == ["relay.reshape", "func.return"], names
    assert not any(isinstance(op, ConstantOp) for op in mod["main"].body.block.ops)
