"""Failures of the import (issue 5, item 3): unsupported operators are listed once;
unreadable, truncated, non-ONNX and checker-failing files give a one-line error naming
the file; conversion problems name the node. ``from_onnx`` never returns a partial
module."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from xrelay.frontend import OnnxImportError, from_onnx

F = TensorProto.FLOAT


def vi(name: str, shape: list[Any], elem: int = F) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    inits: list[onnx.TensorProto] | None = None,
    opsets: dict[str, int] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits or [])
    imports = [helper.make_opsetid(d, v) for d, v in (opsets or {"": 17}).items()]
    m = helper.make_model(graph, opset_imports=imports)
    m.ir_version = 8
    return m


def valid_model() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((4, 3), np.float32), "w")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Relu", ["h"], ["y"]),
    ]
    return model(nodes, [vi("x", [2, 4])], [vi("y", [2, 3])], [w])


def import_error(arg: Any, **kwargs: Any) -> str:
    with pytest.raises(OnnxImportError) as info:
        from_onnx(arg, **kwargs)
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_error_is_a_value_error() -> None:
    assert issubclass(OnnxImportError, ValueError)


# ---------------------------------------------------------------------------------------
# Unsupported operators
# ---------------------------------------------------------------------------------------


def unsupported_model() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu"),
        helper.make_node("NonZero", ["a"], ["nz"], name="nonzero_first"),
        helper.make_node("Unique", ["sq"], ["d"], name="unique_first"),
        helper.make_node("NonZero", ["a"], ["nz2"], name="nonzero_second"),
        helper.make_node("RandomNormalLike", ["x"], ["e"]),  # random: out of scope
        helper.make_node(
            "FusedConv", ["x"], ["f"], name="fused", domain="com.microsoft"
        ),
        helper.make_node("Unique", ["sq"], ["d2"], name="unique_second"),
    ]
    outputs = [
        vi("nz", ["a", "b"], TensorProto.INT64),
        vi("d", ["?"]),
        vi("e", [2, 2]),
        vi("f", ["?"]),
        vi("nz2", ["a", "b"], TensorProto.INT64),
        vi("d2", ["?"]),
    ]
    return model(
        nodes,
        [vi("x", [2, 2]), vi("sq", [3, 3])],
        outputs,
        opsets={"": 17, "com.microsoft": 1},
    )


def test_unsupported_ops_are_all_listed_once() -> None:
    message = import_error(unsupported_model())
    assert "4 unsupported ONNX operators" in message
    assert "NonZero (first at node 'nonzero_first')" in message
    assert "Unique (first at node 'unique_first')" in message
    assert "RandomNormalLike (first at node #4)" in message  # unnamed: its index
    assert "com.microsoft.FusedConv (first at node 'fused')" in message
    assert "nonzero_second" not in message
    assert "unique_second" not in message
    assert message.count("NonZero") == 1
    assert "Relu" not in message


def test_unsupported_ops_in_a_file_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "custom.onnx"
    onnx.save(unsupported_model(), path)
    message = import_error(path)
    assert message.startswith(f"{path}: ")
    assert "NonZero" in message


def test_single_unsupported_op() -> None:
    m = model(
        [helper.make_node("Unique", ["x"], ["y"], name="u")],
        [vi("x", [3, 3])],
        [vi("y", ["?"])],
    )
    assert import_error(m).endswith(
        "1 unsupported ONNX operator: Unique (first at node 'u')"
    )


# ---------------------------------------------------------------------------------------
# Bad files
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fraction", [0.001, 0.25, 0.5, 0.999])
def test_truncated_file(tmp_path: Path, fraction: float) -> None:
    data = valid_model().SerializeToString()
    path = tmp_path / "truncated.onnx"
    path.write_bytes(data[: max(1, int(len(data) * fraction))])
    message = import_error(path)
    assert message.startswith(f"{path}: "), message


def test_truncated_shared_model(tmp_path: Path) -> None:
    source = (
        Path(__file__).resolve().parents[4] / "shared" / "models" / "cnn_small.onnx"
    )
    data = source.read_bytes() if source.exists() else valid_model().SerializeToString()
    path = tmp_path / "cnn_small_cut.onnx"
    path.write_bytes(data[: len(data) // 2])
    assert import_error(path) == (
        f"{path}: not an ONNX model (the file is truncated or is not an ONNX protobuf)"
    )


def test_not_an_onnx_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.onnx"
    path.write_text("this is a text file, not a model\n" * 20)
    message = import_error(path)
    assert message.startswith(f"{path}: not an ONNX model")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.onnx"
    path.write_bytes(b"")
    assert import_error(str(path)).startswith(f"{path}: not an ONNX model")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.onnx"
    assert import_error(path) == f"{path}: no such file"


def test_bytes_that_are_not_a_model() -> None:
    assert import_error(b"\x08\x07garbage\xff\xff").startswith("<serialized model>: ")


def test_wrong_argument_type() -> None:
    assert "takes an onnx.ModelProto, a path or bytes" in import_error(42)


def checker_failing_model() -> onnx.ModelProto:
    """A node reads a value no one defines (the graph is not topologically sorted)."""
    nodes = [helper.make_node("Relu", ["undefined"], ["y"], name="r")]
    return model(nodes, [vi("x", [2])], [vi("y", [2])])


def test_checker_failure_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "bad_graph.onnx"
    onnx.save(checker_failing_model(), path)
    message = import_error(path)
    assert message.startswith(f"{path}: fails onnx.checker: "), message
    assert "undefined" in message


def test_checker_failure_of_a_model_proto() -> None:
    message = import_error(checker_failing_model())
    assert message.startswith("model 'g': fails onnx.checker: ")


def test_checker_failure_bad_attribute() -> None:
    node = helper.make_node("Relu", ["x"], ["y"], not_an_attribute=3)
    message = import_error(model([node], [vi("x", [2])], [vi("y", [2])]))
    assert "fails onnx.checker" in message
    assert "not_an_attribute" in message


# ---------------------------------------------------------------------------------------
# Conversion errors name the node
# ---------------------------------------------------------------------------------------


def test_unsupported_attribute_value_names_the_node() -> None:
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv4d")
    m = model(
        [node],
        [vi("x", [1, 1, 2, 3, 3, 3]), vi("w", [1, 1, 1, 1, 1, 1])],
        [vi("y", [1, 1, 2, 3, 3, 3])],
    )
    message = import_error(m)
    assert message.startswith("model 'g': node 'conv4d' (Conv): 4-D convolution")


def test_type_error_names_the_node() -> None:
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add0")
    m = model([node], [vi("x", [2, 3]), vi("w", [4])], [vi("y", [2, 3])])
    assert (
        import_error(m)
        == "model 'g': node 'add0' (Add): shapes [2, 3] and [4] do not broadcast"
    )


def test_dynamic_shape_input_is_rejected() -> None:
    node = helper.make_node("Reshape", ["x", "s"], ["y"])
    m = model(
        [node], [vi("x", [2, 3]), vi("s", [2], TensorProto.INT64)], [vi("y", [3, 2])]
    )
    message = import_error(m)
    assert (
        "node #0 (Reshape): input #1 (shape) ('s') must be known at import time"
        in message
    )


def test_unsupported_resize_mode() -> None:
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], mode="bicubic", name="up")
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")
    m = model([node], [vi("x", [1, 1, 2, 2])], [vi("y", [1, 1, 4, 4])], [scales])
    assert "node 'up' (Resize): mode 'bicubic' is not supported" in import_error(m)


def test_used_output_in_an_unsupported_form() -> None:
    node = helper.make_node(
        "MaxPool", ["x"], ["y", "idx"], kernel_shape=[2], storage_order=1, name="mp"
    )
    m = model(
        [node],
        [vi("x", [1, 1, 4])],
        [vi("y", [1, 1, 3]), vi("idx", [1, 1, 3], TensorProto.INT64)],
    )
    assert (
        "node 'mp' (MaxPool): storage_order=1 is not supported (0, or 1 for 2-D pools)"
        in import_error(m)
    )


def test_unsupported_input_dtype() -> None:
    m = model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [vi("x", [2], TensorProto.STRING)],
        [vi("y", [2], TensorProto.STRING)],
    )
    assert "input 'x' has the unsupported element type STRING" in import_error(m)


# ---------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------


def symbolic_model() -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    return model(nodes, [vi("x", ["batch", 3])], [vi("y", ["batch", 3])])


def test_symbolic_dim_without_shape() -> None:
    assert import_error(symbolic_model()) == (
        "model 'g': input 'x' has the symbolic dim 0 ('batch'): give its size with "
        "shape={'x': (...)}"
    )


def test_shape_for_an_unknown_input() -> None:
    message = import_error(symbolic_model(), shape={"z": (2, 3)})
    assert message.endswith(
        "shape is given for 'z', which is not an input of the graph (inputs: x)"
    )


def test_shape_of_the_wrong_rank() -> None:
    message = import_error(symbolic_model(), shape={"x": (2, 3, 1)})
    assert message.endswith(
        "shape['x'] = (2, 3, 1) has rank 3 but input 'x' has rank 2"
    )


# ---------------------------------------------------------------------------------------
# Files read once and checked from memory, unless tensors live in other files


def test_file_checked_from_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker gets the bytes that are parsed (one read of the file); when a
    tensor lives in another file, the path is checked too (which finds that file)."""
    checked: list[type] = []
    check = onnx.checker.check_model

    def spy(m: Any, *args: Any, **kwargs: Any) -> None:
        checked.append(type(m))
        check(m, *args, **kwargs)

    monkeypatch.setattr(onnx.checker, "check_model", spy)
    path = tmp_path / "m.onnx"
    onnx.save(valid_model(), path)
    mod, _ = from_onnx(path)
    assert checked == [bytes]
    assert "relay.nn.relu" in str(mod)
    folder = tmp_path / "ext"
    folder.mkdir()
    onnx.save_model(
        valid_model(),
        str(folder / "m.onnx"),
        save_as_external_data=True,
        size_threshold=0,
    )
    checked.clear()
    from_onnx(folder / "m.onnx")
    assert checked == [bytes, str]


def _external(tensor: onnx.TensorProto) -> onnx.TensorProto:
    tensor.data_location = TensorProto.EXTERNAL
    tensor.ClearField("raw_data")
    tensor.external_data.add(key="location", value="gone.bin")
    return tensor


def test_external_tensors_are_found_everywhere() -> None:
    from xrelay.frontend.onnx.importer import (
        _uses_external_data,  # pyright: ignore[reportPrivateUsage]
    )

    assert not _uses_external_data(valid_model())
    in_init = valid_model()
    _external(in_init.graph.initializer[0])
    assert _uses_external_data(in_init)
    const = numpy_helper.from_array(np.ones(3, np.float32), "c")
    in_attr = model(
        [helper.make_node("Constant", [], ["y"], value=_external(const))],
        [],
        [vi("y", [3])],
    )
    assert _uses_external_data(in_attr)
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["z"], value=_external(const))],
        "body",
        [],
        [vi("z", [3])],
    )
    in_subgraph = model(
        [helper.make_node("If", ["c0"], ["y"], then_branch=body, else_branch=body)],
        [vi("c0", [], TensorProto.BOOL)],
        [vi("y", [3])],
    )
    assert _uses_external_data(in_subgraph)


def test_missing_external_data_fails_the_checker_by_path(tmp_path: Path) -> None:
    m = valid_model()
    _external(m.graph.initializer[0])
    path = tmp_path / "ext.onnx"
    path.write_bytes(m.SerializeToString())
    message = import_error(path)
    assert message.startswith(f"{path}: "), message
