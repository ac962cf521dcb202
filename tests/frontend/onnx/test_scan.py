"""Scan unrolled into relay ops (scan.py): state variables, scan input and output
axes and directions, outer-scope values, opset 8's batched form; against a numpy
scan (the reference evaluator only scans axis 0 forwards) through the interpreter
and the LLVM path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xrelay
from xrelay.frontend import OnnxImportError, from_onnx
from xrelay.runtime.interpreter import interpret

from .conftest import compare, make_model, reference

Gen = np.random.Generator
F32 = np.float32
Arr = np.ndarray[Any, Any]


def _body(x_shape: Sequence[int]) -> onnx.GraphProto:
    """``s' = s + x * w_outer; p' = p * y; out1 = s' - p'; out2 = x + 1``."""
    t = TensorProto.FLOAT
    return helper.make_graph(
        [
            helper.make_node("Mul", ["x", "w_outer"], ["xw"]),
            helper.make_node("Add", ["s", "xw"], ["s_new"]),
            helper.make_node("Mul", ["p", "y"], ["p_new"]),
            helper.make_node("Sub", ["s_new", "p_new"], ["out1"]),
            helper.make_node("Add", ["x", "one"], ["out2"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("s", t, list(x_shape)),
            helper.make_tensor_value_info("p", t, list(x_shape)),
            helper.make_tensor_value_info("x", t, list(x_shape)),
            helper.make_tensor_value_info("y", t, list(x_shape)),
        ],
        [
            helper.make_tensor_value_info(n, t, list(x_shape))
            for n in ("s_new", "p_new", "out1", "out2")
        ],
        [numpy_helper.from_array(np.array(1.0, F32), "one")],
    )


def _numpy_scan(
    s: Arr,
    p: Arr,
    xs: Arr,
    ys: Arr,
    w: Arr,
    in_axes: Sequence[int],
    in_dirs: Sequence[int],
    out_axes: Sequence[int],
    out_dirs: Sequence[int],
) -> list[Arr]:
    x_steps = list(np.moveaxis(xs, in_axes[0], 0))
    y_steps = list(np.moveaxis(ys, in_axes[1], 0))
    if in_dirs[0]:
        x_steps.reverse()
    if in_dirs[1]:
        y_steps.reverse()
    out1: list[Arr] = []
    out2: list[Arr] = []
    for x, y in zip(x_steps, y_steps, strict=True):
        s = s + x * w
        p = p * y
        out1.append(s - p)
        out2.append(x + F32(1))
    outs: list[Arr] = [s, p]
    for vals, axis, rev in zip((out1, out2), out_axes, out_dirs, strict=True):
        outs.append(np.stack(vals[::-1] if rev else vals, axis=axis))
    return outs


def _run_both(model: onnx.ModelProto, feeds: dict[str, Arr], want: list[Arr]) -> None:
    mod, params = from_onnx(model)
    got = interpret(mod, *feeds.values())
    got = list(got) if isinstance(got, tuple) else [got]
    for k, (g, e) in enumerate(zip(got, want, strict=True)):
        compare(g, e, 1e-5, 1e-6, f"interpreter output #{k}: ")
    built = xrelay.build(mod, params=params)(*feeds.values())
    built = list(built) if isinstance(built, list | tuple) else [built]
    for k, (g, e) in enumerate(zip(built, want, strict=True)):
        compare(np.asarray(g), e, 1e-5, 1e-6, f"compiled output #{k}: ")


@pytest.mark.parametrize(
    ("in_axes", "in_dirs", "out_axes", "out_dirs"),
    [
        ([0, 0], [0, 0], [0, 0], [0, 0]),
        ([1, 0], [1, 0], [1, 0], [0, 1]),
        ([-1, 2], [0, 1], [-1, 2], [1, 1]),
    ],
)
def test_scan_axes_and_directions(
    rng: Gen,
    in_axes: list[int],
    in_dirs: list[int],
    out_axes: list[int],
    out_dirs: list[int],
) -> None:
    elem, length = (2, 3), 5
    x_shape = list(elem)
    x_shape.insert(in_axes[0] % 3, length)
    y_shape = list(elem)
    y_shape.insert(in_axes[1] % 3, length)
    feeds = {
        "s0": rng.standard_normal(elem).astype(F32),
        "p0": rng.standard_normal(elem).astype(F32),
        "xs": rng.standard_normal(x_shape).astype(F32),
        "ys": (rng.random(y_shape) + 0.5).astype(F32),
    }
    w = rng.standard_normal(elem).astype(F32)
    node = helper.make_node(
        "Scan",
        ["s0", "p0", "xs", "ys"],
        ["s", "p", "o1", "o2"],
        body=_body(elem),
        num_scan_inputs=2,
        scan_input_axes=in_axes,
        scan_input_directions=in_dirs,
        scan_output_axes=out_axes,
        scan_output_directions=out_dirs,
    )
    want = _numpy_scan(*feeds.values(), w, in_axes, in_dirs, out_axes, out_dirs)
    model = make_model(node, feeds, {"w_outer": w}, opset=16, output_values=want)
    if in_axes == [0, 0] and in_dirs == [0, 0] and out_dirs == [0, 0]:
        ref = reference(model, feeds)  # the reference evaluator's only form
        for r, e in zip(ref, want, strict=True):
            np.testing.assert_allclose(r, e, rtol=1e-5, atol=1e-6)
    _run_both(model, feeds, want)


def test_scan_no_state_one_step(rng: Gen) -> None:
    """A map over a sequence of one element: no state variables."""
    t = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"])],
        "neg",
        [helper.make_tensor_value_info("x", t, [4])],
        [helper.make_tensor_value_info("y", t, [4])],
    )
    node = helper.make_node("Scan", ["xs"], ["ys"], body=body, num_scan_inputs=1)
    feeds = {"xs": rng.standard_normal((1, 4)).astype(F32)}
    model = make_model(node, feeds, opset=11, output_values=[-feeds["xs"]])
    _run_both(model, feeds, [-feeds["xs"]])


def _scan8_model(
    feeds: dict[str, Arr], want: list[Arr], lens: Arr | None, directions: list[int]
) -> onnx.ModelProto:
    t = TensorProto.FLOAT
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s", "x"], ["s_new"]),
            helper.make_node("Mul", ["s_new", "x"], ["z"]),
        ],
        "body",
        [helper.make_tensor_value_info(n, t, [3]) for n in ("s", "x")],
        [helper.make_tensor_value_info(n, t, [3]) for n in ("s_new", "z")],
    )
    node = helper.make_node(
        "Scan",
        ["lens" if lens is not None else "", "s0", "xs"],
        ["s", "zs"],
        body=body,
        num_scan_inputs=1,
        directions=directions,
    )
    inits = {"lens": lens} if lens is not None else None
    return make_model(node, feeds, inits, opset=8, output_values=want)


@pytest.mark.parametrize("reverse", [0, 1])
def test_scan_opset8_batched(rng: Gen, reverse: int) -> None:
    batch, length = 2, 4
    feeds = {
        "s0": rng.standard_normal((batch, 3)).astype(F32),
        "xs": rng.standard_normal((batch, length, 3)).astype(F32),
    }
    finals: list[Arr] = []
    zs: list[Arr] = []
    for b in range(batch):
        s = feeds["s0"][b]
        steps = list(feeds["xs"][b])
        out: list[Arr] = []
        for x in steps[::-1] if reverse else steps:
            s = s + x
            out.append(s * x)
        finals.append(s)
        zs.append(np.stack(out))
    want = [np.stack(finals), np.stack(zs)]
    lens = np.full(batch, length, np.int32)
    model = _scan8_model(feeds, want, lens, [reverse])
    _run_both(model, feeds, want)


def test_scan_errors(rng: Gen) -> None:
    feeds = {
        "s0": rng.standard_normal((2, 3)).astype(F32),
        "xs": rng.standard_normal((2, 4, 3)).astype(F32),
    }
    want = [feeds["s0"], feeds["xs"]]
    model = _scan8_model(feeds, want, np.array([4, 2], np.int32), [0])
    with pytest.raises(OnnxImportError, match="padded sequences are not supported"):
        from_onnx(model)
    t = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"])],
        "zip",
        [helper.make_tensor_value_info(n, t, [2]) for n in ("a", "b")],
        [helper.make_tensor_value_info("c", t, [2])],
    )
    node = helper.make_node("Scan", ["x", "y"], ["z"], body=body, num_scan_inputs=2)
    feeds = {"x": np.zeros((3, 2), F32), "y": np.zeros((4, 2), F32)}
    model = make_model(node, feeds, opset=11, output_values=[np.zeros((3, 2), F32)])
    with pytest.raises(OnnxImportError, match=r"different sequence lengths \[3, 4\]"):
        from_onnx(model)
