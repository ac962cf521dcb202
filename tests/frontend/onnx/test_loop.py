"""Loop unrolled into relay ops (loop.py): loop-carried values, scan outputs, a
condition that stops the loop early, no trip count, zero steps, outer-scope values,
a Loop nested in a Loop and in an If; against onnx.reference through the
interpreter, and through the backend (LLVM path) with the trip count a graph
input; the errors of loops that cannot be unrolled."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from xrelay.frontend import OnnxImportError, from_onnx
from xrelay.frontend.onnx.backend import XrelayBackend

from .conftest import RunOnnx, compare, make_model, reference

F32 = np.float32
I64 = np.int64
Arr = np.ndarray[Any, Any]
FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _vi(name: str, elem: int, shape: list[int] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _body(cond_node: onnx.NodeProto | None = None) -> onnx.GraphProto:
    """``s' = s + x * (i + 1); out = s' * 2``, ``x`` read from the outer scope;
    ``cond_out`` made by ``cond_node`` (default: ``cond_in``)."""
    cond = cond_node or helper.make_node("Identity", ["cond_in"], ["cond_out"])
    return helper.make_graph(
        [
            cond,
            helper.make_node("Cast", ["i"], ["i_f"], to=FLOAT),
            helper.make_node("Add", ["i_f", "one"], ["i1"]),
            helper.make_node("Mul", ["x", "i1"], ["xi"]),
            helper.make_node("Add", ["s", "xi"], ["s_new"]),
            helper.make_node("Add", ["s_new", "s_new"], ["out"]),
        ],
        "body",
        [_vi("i", INT64, []), _vi("cond_in", BOOL, []), _vi("s", FLOAT, [3])],
        [
            _vi("cond_out", BOOL, []),
            _vi("s_new", FLOAT, [3]),
            _vi("out", FLOAT, [3]),
        ],
        [onnx.numpy_helper.from_array(np.array(1.0, F32), "one")],
    )


def _loop(body: onnx.GraphProto, m: str = "m", cond: str = "c") -> onnx.NodeProto:
    return helper.make_node("Loop", [m, cond, "s0"], ["s_end", "outs"], body=body)


def _feeds(rng: np.random.Generator) -> dict[str, Arr]:
    return {
        "x": rng.standard_normal(3).astype(F32),
        "s0": rng.standard_normal(3).astype(F32),
    }


def _less(bound: int) -> list[onnx.NodeProto]:
    """``cond_out = i < bound`` (folds to a constant in every step)."""
    return [
        helper.make_node(
            "Constant", [], ["bound"], value=helper.make_tensor("b", INT64, [], [bound])
        ),
        helper.make_node("Less", ["i", "bound"], ["cond_out"]),
    ]


def _with(body: onnx.GraphProto, extra: list[onnx.NodeProto]) -> onnx.GraphProto:
    """``body`` whose ``cond_out`` is computed by ``extra`` instead."""
    nodes = [*extra, *body.node[1:]]
    return helper.make_graph(nodes, "body", body.input, body.output, body.initializer)


@pytest.mark.parametrize("trips", [1, 4])
def test_carried_values_and_scan_outputs(
    run_onnx: RunOnnx, rng: np.random.Generator, trips: int
) -> None:
    got = run_onnx(
        _loop(_body()),
        _feeds(rng),
        {"m": np.array(trips, I64), "c": np.array(True)},
    )
    assert got[1].shape == (trips, 3)


@pytest.mark.parametrize("bound", [0, 2, 9])
def test_condition_stops_the_loop(
    run_onnx: RunOnnx, rng: np.random.Generator, bound: int
) -> None:
    """``i < bound`` after each step: ``bound + 1`` steps, at most ``m`` = 5."""
    body = _with(_body(), _less(bound))
    got = run_onnx(
        _loop(body), _feeds(rng), {"m": np.array(5, I64), "c": np.array(True)}
    )
    assert got[1].shape == (min(bound + 1, 5), 3)


def test_no_trip_count(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    """A while loop: only the condition (constant in each step) bounds it."""
    body = _with(_body(), _less(2))
    got = run_onnx(_loop(body, m=""), _feeds(rng), {"c": np.array(True)})
    assert got[1].shape == (3, 3)


def test_no_condition(
    import_run: RunOnnx, onnx_reference: RunOnnx, rng: np.random.Generator
) -> None:
    """No condition input: as a true one (the reference evaluator runs no step
    then, so it runs the loop with a true condition)."""
    feeds = _feeds(rng)
    m = {"m": np.array(3, I64)}
    want = onnx_reference(_loop(_body()), feeds, {**m, "c": np.array(True)})
    got = import_run(_loop(_body(), cond=""), feeds, m, expected=want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        compare(g, w, 1e-5, 1e-6, f"output #{k}: ")


@pytest.mark.parametrize(("m", "c"), [(0, True), (3, False)])
def test_zero_steps(
    run_onnx: RunOnnx, rng: np.random.Generator, m: int, c: bool
) -> None:
    """No step: the loop-carried values are the initial ones."""
    node = helper.make_node("Loop", ["m", "c", "s0"], ["s_end"], body=_carry_only())
    feeds = _feeds(rng)
    (got,) = run_onnx(node, feeds, {"m": np.array(m, I64), "c": np.array(c)})
    np.testing.assert_array_equal(got, feeds["s0"])


def _carry_only() -> onnx.GraphProto:
    body = _body()
    return helper.make_graph(
        list(body.node[:-1]), "body", body.input, body.output[:2], body.initializer
    )


def test_nested_in_loop(import_run: RunOnnx, rng: np.random.Generator) -> None:
    """An inner Loop (2 steps) in an outer Loop's body (3 steps), the inner body
    reading the outer iteration number; against numpy (onnx 1.23's reference
    evaluator reads a stale outer iteration number in the inner body)."""
    inner = helper.make_graph(
        [
            helper.make_node("Identity", ["ci"], ["co"]),
            helper.make_node("Add", ["j", "i"], ["ij"]),
            helper.make_node("Cast", ["ij"], ["ij_f"], to=FLOAT),
            helper.make_node("Add", ["t", "ij_f"], ["t_new"]),
        ],
        "inner",
        [_vi("j", INT64, []), _vi("ci", BOOL, []), _vi("t", FLOAT, [3])],
        [_vi("co", BOOL, []), _vi("t_new", FLOAT, [3])],
    )
    outer = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Loop", ["two", "", "s"], ["s_in"], body=inner),
            helper.make_node("Mul", ["s_in", "x"], ["s_new"]),
        ],
        "outer",
        [_vi("i", INT64, []), _vi("cond_in", BOOL, []), _vi("s", FLOAT, [3])],
        [_vi("cond_out", BOOL, []), _vi("s_new", FLOAT, [3])],
        [onnx.numpy_helper.from_array(np.array(2, I64), "two")],
    )
    node = helper.make_node("Loop", ["m", "c", "s0"], ["s_end"], body=outer)
    feeds = _feeds(rng)
    weights = {"m": np.array(3, I64), "c": np.array(True)}
    (got,) = import_run(node, feeds, weights, expected=[feeds["s0"]])
    s = feeds["s0"]
    for i in range(3):
        for j in range(2):
            s = s + F32(i + j)
        s = s * feeds["x"]
    compare(got, s, 1e-5, 1e-6)


def test_nested_in_if(run_onnx: RunOnnx, rng: np.random.Generator) -> None:
    """A Loop in each branch of an If whose condition is data."""

    def branch(m: int) -> onnx.GraphProto:
        return helper.make_graph(
            [
                helper.make_node(
                    "Constant",
                    [],
                    ["bm"],
                    value=helper.make_tensor("v", INT64, [], [m]),
                ),
                _loop(_body(), m="bm"),
            ],
            f"loop{m}",
            [],
            [_vi("s_end", FLOAT, [3]), _vi("outs", FLOAT, [m, 3])],
        )

    node = helper.make_node(
        "If",
        ["p"],
        ["y", "ys"],
        then_branch=branch(2),
        else_branch=_loop_branch_same_shape(),
    )
    for p in (True, False):
        feeds = {**_feeds(rng), "p": np.array(p)}
        run_onnx(node, feeds, {"c": np.array(True)})


def _loop_branch_same_shape() -> onnx.GraphProto:
    """Two steps of a body that subtracts: the same types as the then branch."""
    body = _body()
    nodes = list(body.node)
    nodes[4] = helper.make_node("Sub", ["s", "xi"], ["s_new"])
    sub = helper.make_graph(nodes, "body", body.input, body.output, body.initializer)
    return helper.make_graph(
        [
            helper.make_node(
                "Constant", [], ["bm"], value=helper.make_tensor("v", INT64, [], [2])
            ),
            _loop(sub, m="bm"),
        ],
        "loop_sub",
        [],
        [_vi("s_end", FLOAT, [3]), _vi("outs", FLOAT, [2, 3])],
    )


def test_trip_count_input_through_backend(rng: np.random.Generator) -> None:
    """The trip count and condition are graph inputs: ``from_onnx`` names the trip
    count; the backend compiles for their values (LLVM path)."""
    feeds = {**_feeds(rng), "m": np.array(3, I64), "c": np.array(True)}
    draft = make_model(_loop(_body()), feeds, opset=17)
    want = reference(draft, feeds)
    model = make_model(_loop(_body()), feeds, opset=17, output_values=want)
    with pytest.raises(OnnxImportError, match=r"trip count M\) \('m'\) must be known"):
        from_onnx(model)
    rep = XrelayBackend.prepare(model)
    got = rep.run(feeds)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        compare(g, w, 1e-5, 1e-6, f"output #{k}: ")
    assert set(rep.specialized) == {"m", "c"}


def _import(body: onnx.GraphProto, weights: dict[str, Arr]) -> None:
    feeds = {"x": np.zeros(3, F32), "s0": np.zeros(3, F32)}
    outs = [np.zeros(3, F32), np.zeros((1, 3), F32)]
    from_onnx(make_model(_loop(body), feeds, weights, opset=17, output_values=outs))


def test_condition_from_data_is_an_error() -> None:
    cond = [
        helper.make_node("ReduceSum", ["s"], ["total"], keepdims=0),
        helper.make_node("Greater", ["total", "one"], ["cond_out"]),
    ]
    weights = {"m": np.array(4, I64), "c": np.array(True)}
    with pytest.raises(
        OnnxImportError, match=r"Loop.*condition after step 0 depends on data"
    ):
        _import(_with(_body(), cond), weights)


def test_last_step_condition_may_be_data(
    run_onnx: RunOnnx, rng: np.random.Generator
) -> None:
    """The condition after the last step the trip count allows is never read."""
    cond = [
        helper.make_node("ReduceSum", ["s"], ["total"], keepdims=0),
        helper.make_node("Greater", ["total", "one"], ["cond_out"]),
    ]
    body = _with(_body(), cond)
    run_onnx(_loop(body), _feeds(rng), {"m": np.array(1, I64), "c": np.array(True)})


def test_too_many_steps_is_an_error() -> None:
    with pytest.raises(OnnxImportError, match="more than the 4096 steps unrolled"):
        _import(_body(), {"m": np.array(5000, I64), "c": np.array(True)})


def test_endless_loop_is_an_error() -> None:
    node = helper.make_node("Loop", ["", "", "s0"], ["s_end"], body=_carry_only())
    feeds = {"x": np.zeros(3, F32), "s0": np.zeros(3, F32)}
    with pytest.raises(OnnxImportError, match="without a trip count and a condition"):
        from_onnx(make_model(node, feeds, opset=17, output_values=[feeds["s0"]]))


def test_empty_scan_output_is_an_error() -> None:
    with pytest.raises(OnnxImportError, match="runs no step has empty scan outputs"):
        _import(_body(), {"m": np.array(0, I64), "c": np.array(True)})


def test_carried_type_change_is_an_error() -> None:
    body = _body()
    nodes = [*body.node[:4], helper.make_node("Cast", ["s"], ["s_new"], to=INT64)]
    bad = helper.make_graph(
        [*nodes, body.node[5]],
        "body",
        body.input,
        [body.output[0], _vi("s_new", INT64, [3]), body.output[2]],
        body.initializer,
    )
    with pytest.raises(OnnxImportError, match="loop-carried value #0 changes type"):
        _import(bad, {"m": np.array(2, I64), "c": np.array(True)})
