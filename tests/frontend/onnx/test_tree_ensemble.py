"""ai.onnx.ml TreeEnsemble (tree_ensemble.py) against the ONNX reference evaluator:
random trees of every mode, set membership, missing values, every aggregation,
one-leaf trees; compiled; the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.frontend.onnx.backend import XrelayBackend
from xrelay.runtime.interpreter import interpret

SPLITS = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])  # X is drawn from these and NaN


class Forest:
    """Random trees as the TreeEnsemble attributes (nodes numbered in creation
    order, which is not the reference's visiting order)."""

    def __init__(self, rng: np.random.Generator, features: int, targets: int):
        self.rng, self.features, self.targets = rng, features, targets
        self.nodes: list[dict[str, Any]] = []
        self.leaves: list[tuple[float, int]] = []
        self.members: list[float] = []
        self.roots: list[int] = []

    def leaf(self) -> int:
        weight = float(np.round(self.rng.standard_normal() * 10, 2))
        self.leaves.append((weight, int(self.rng.integers(self.targets))))
        return len(self.leaves) - 1

    def split(self, depth: int, modes: list[int]) -> int:
        i = len(self.nodes)
        mode = int(self.rng.choice(modes))
        self.nodes.append({
            "mode": mode,
            "feature": int(self.rng.integers(self.features)),
            "split": float(self.rng.choice(SPLITS)),
            "missing": int(self.rng.integers(2)),
        })  # fmt: skip
        for side in ("true", "false"):
            if depth > 1 and self.rng.random() < 0.8:
                self.nodes[i][side] = (self.split(depth - 1, modes), 0)
            else:
                self.nodes[i][side] = (self.leaf(), 1)
        return i

    def tree(self, depth: int, modes: list[int]) -> None:
        self.roots.append(self.split(depth, modes))

    def leaf_tree(self) -> None:
        """A tree that is one leaf: a root whose two branches are the same leaf
        (the reference then reads the leaf numbered like the root)."""
        i = len(self.nodes)
        while len(self.leaves) <= i:
            self.leaf()
        self.nodes.append({"mode": 0, "feature": 0, "split": 0.0, "missing": 0,
                           "true": (0, 1), "false": (0, 1)})  # fmt: skip
        self.roots.append(i)

    def attrs(self, dtype: Any, how: int) -> dict[str, Any]:
        # member sets in the reference's order: preorder, true branch first
        members: list[float] = []

        def visit(i: int) -> None:
            node = self.nodes[i]
            if node["mode"] == 6:
                k = int(self.rng.integers(1, 4))
                chosen = self.rng.choice(SPLITS[SPLITS != 0], k, replace=False)
                members.extend([*chosen.tolist(), float("nan")])
            for side in ("true", "false"):
                j, is_leaf = node[side]
                if not is_leaf:
                    visit(j)

        for r in self.roots:
            if self.nodes[r]["true"] != self.nodes[r]["false"]:
                visit(r)
        tensor = numpy_helper.from_array
        out: dict[str, Any] = {
            "aggregate_function": how,
            "n_targets": self.targets,
            "tree_roots": self.roots,
            "nodes_featureids": [n["feature"] for n in self.nodes],
            "nodes_modes": tensor(np.array([n["mode"] for n in self.nodes], np.uint8)),
            "nodes_splits": tensor(np.array([n["split"] for n in self.nodes], dtype)),
            "nodes_truenodeids": [n["true"][0] for n in self.nodes],
            "nodes_trueleafs": [n["true"][1] for n in self.nodes],
            "nodes_falsenodeids": [n["false"][0] for n in self.nodes],
            "nodes_falseleafs": [n["false"][1] for n in self.nodes],
            "nodes_missing_value_tracks_true": [n["missing"] for n in self.nodes],
            "leaf_weights": tensor(np.array([w for w, _ in self.leaves], dtype)),
            "leaf_targetids": [t for _, t in self.leaves],
        }
        if members:
            out["membership_values"] = tensor(np.array(members, dtype))
        return out


def model(attrs: dict[str, Any], x: np.ndarray[Any, Any], targets: int) -> Any:
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", **attrs)
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph(
        [node],
        "trees",
        [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info("y", elem, [x.shape[0], targets])],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("ai.onnx.ml", 5)])
    m.ir_version = min(m.ir_version, 10)
    return m


def check(m: onnx.ModelProto, x: np.ndarray[Any, Any], compiled: bool = False) -> Any:
    want = np.asarray(ReferenceEvaluator(m).run(None, {"x": x})[0]).astype(x.dtype)
    if compiled:
        (got,) = XrelayBackend.prepare(m).run([x])
    else:
        mod, _ = from_onnx(m)
        got = interpret(mod, x)
    got = np.asarray(got)
    assert got.dtype == x.dtype
    rtol = 1e-6 if x.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    return got


def sample(rng: np.random.Generator, n: int, f: int, dtype: Any) -> Any:
    x = rng.choice(np.append(SPLITS, [np.nan, 0.25]), size=(n, f)).astype(dtype)
    return x


@pytest.mark.parametrize("how", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_forests(how: int, dtype: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    forest = Forest(rng, features=3, targets=3)
    for depth in (1, 3, 4):
        forest.tree(depth, [0, 1, 2, 3, 4, 5, 6])
    x = sample(rng, 23, 3, dtype)
    check(model(forest.attrs(dtype, how), x, 3), x)


@pytest.mark.parametrize("mode", range(7))
def test_each_mode(mode: int) -> None:
    rng = np.random.default_rng(mode)
    forest = Forest(rng, features=2, targets=2)
    forest.tree(3, [mode])
    forest.tree(2, [mode])
    x = sample(rng, 17, 2, np.float32)
    check(model(forest.attrs(np.float32, 1), x, 2), x)


def test_one_leaf_trees_and_compiled() -> None:
    rng = np.random.default_rng(7)
    forest = Forest(rng, features=4, targets=5)
    forest.tree(3, [0, 3, 6])
    forest.leaf_tree()
    forest.tree(5, [1, 2, 4, 5, 6])
    x = sample(rng, 9, 4, np.float32)
    check(model(forest.attrs(np.float32, 1), x, 5), x, compiled=True)


def test_only_leaf_trees() -> None:
    rng = np.random.default_rng(8)
    forest = Forest(rng, features=1, targets=2)
    forest.leaf_tree()
    forest.leaf_tree()
    x = sample(rng, 3, 1, np.float64)
    check(model(forest.attrs(np.float64, 1), x, 2), x)


def _forest() -> tuple[dict[str, Any], np.ndarray[Any, Any]]:
    forest = Forest(np.random.default_rng(3), features=2, targets=2)
    forest.tree(2, [0])
    return forest.attrs(np.float32, 1), np.zeros((2, 2), np.float32)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"post_transform": 1}, "post_transform other than NONE"),
        ({"aggregate_function": 7}, "aggregate_function 7"),
        ({"nodes_featureids": [5, 5, 5]}, "reads feature 5 of 2"),
        ({"tree_roots": [9]}, "tree root 9 is out of range"),
        ({"n_targets": 1, "leaf_targetids": [1]}, "leaf target is outside"),
        (
            {"nodes_truenodeids": [0, 0, 0], "nodes_trueleafs": [0, 0, 0]},
            "reached twice",
        ),
    ],
)
def test_errors(change: dict[str, Any], message: str) -> None:
    attrs, x = _forest()
    keep = len(attrs["nodes_featureids"])
    for k, v in change.items():
        if k == "leaf_targetids":
            v = v * len(attrs[k])
        attrs[k] = v[:keep] if k.startswith("nodes_") else v
    with pytest.raises(OnnxImportError, match=message):
        from_onnx(model(attrs, x, 2))


def test_member_node_without_a_set_is_an_error() -> None:
    forest = Forest(np.random.default_rng(4), features=2, targets=2)
    forest.tree(2, [6])
    attrs = forest.attrs(np.float32, 1)
    values = numpy_helper.to_array(attrs["membership_values"])
    attrs["membership_values"] = numpy_helper.from_array(values[:-1])
    with pytest.raises(OnnxImportError, match="NaN-terminated set"):
        from_onnx(model(attrs, np.zeros((2, 2), np.float32), 2))


def test_zero_is_a_member() -> None:
    # one member node {0.0, 1.0} on feature 1; the reference would stop the set at 0.0
    attrs: dict[str, Any] = {
        "aggregate_function": 1,
        "n_targets": 1,
        "tree_roots": [0],
        "nodes_featureids": [1],
        "nodes_modes": numpy_helper.from_array(np.array([6], np.uint8)),
        "nodes_splits": numpy_helper.from_array(np.array([0.0], np.float32)),
        "nodes_truenodeids": [0],
        "nodes_trueleafs": [1],
        "nodes_falsenodeids": [1],
        "nodes_falseleafs": [1],
        "leaf_weights": numpy_helper.from_array(np.array([2.0, 3.0], np.float32)),
        "leaf_targetids": [0, 0],
        "membership_values": numpy_helper.from_array(
            np.array([0.0, 1.0, np.nan], np.float32)
        ),
    }
    x = np.array([[5, 0], [5, 1], [0, 2], [1, np.nan]], np.float32)
    mod, _ = from_onnx(model(attrs, x, 1))
    got = np.asarray(interpret(mod, x))
    assert got.reshape(-1).tolist() == [2.0, 2.0, 3.0, 3.0]
