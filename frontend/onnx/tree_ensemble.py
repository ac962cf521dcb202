"""``ai.onnx.ml.TreeEnsemble`` (ai.onnx.ml opset 5), composed of relay ops on
constant node tables.

Every split node's condition is computed for all samples at once (``take`` of the
feature columns, compared in float64 with the node's split by its mode, or with its
set of members; ``missing`` NaNs go to the true branch where asked) into ``[N, S]``
over the states ``S`` = split nodes then leaves. All trees walk together: the state
``[N, T]`` starts at the roots and, once per tree level, becomes the true or false
child (``gather`` of the condition, ``take`` of constant child tables); a leaf is its
own child. The leaves' weights go to their targets through a constant ``[S,
n_targets]`` table and are aggregated over the trees (sum, average, min, max).
Semantics are the ONNX reference's; ``post_transform`` other than NONE is refused (the
reference ignores it, onnxruntime applies it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

_MODES = ("less_equal", "less", "greater_equal", "greater", "equal", "not_equal")
MEMBER = 6


def _tensor(node: Node, name: str, required: bool = True) -> np.ndarray[Any, Any]:
    value = node.attrs.get(name)
    if value is None:
        if required:
            raise ConversionError(f"the required attribute '{name}' is missing")
        return np.zeros(0)
    if isinstance(value, onnx.TensorProto):
        return np.asarray(numpy_helper.to_array(value)).reshape(-1)
    return np.asarray(value).reshape(-1)


class _Tables:
    """The trees as flat tables over states ``0..K-1`` (split nodes) and
    ``K..K+L-1`` (leaves)."""

    def __init__(self, node: Node, features: int):
        ints = node.attr_ints
        self.feature = ints("nodes_featureids")
        self.modes = [int(m) for m in _tensor(node, "nodes_modes")]
        self.splits = _tensor(node, "nodes_splits").astype(np.float64)
        true_ids, false_ids = ints("nodes_truenodeids"), ints("nodes_falsenodeids")
        true_leaf, false_leaf = ints("nodes_trueleafs"), ints("nodes_falseleafs")
        k = len(self.feature)
        lists = [self.modes, self.splits, true_ids, false_ids, true_leaf, false_leaf]
        if any(len(t) != k for t in lists):
            raise ConversionError(
                "the nodes_* attributes must all have one entry per node"
            )
        self.leaf_target = ints("leaf_targetids")
        self.leaf_weight = _tensor(node, "leaf_weights")
        n_leaves = len(self.leaf_target)
        if len(self.leaf_weight) != n_leaves:
            raise ConversionError("leaf_weights and leaf_targetids differ in length")
        missing = node.attr_ints("nodes_missing_value_tracks_true", [0] * k)
        if len(missing) != k:
            raise ConversionError("nodes_missing_value_tracks_true needs one per node")
        self.missing = [bool(m) for m in missing]
        for i in range(k):
            if not 0 <= self.feature[i] < features:
                raise ConversionError(
                    f"node {i} reads feature {self.feature[i]} of {features}"
                )
            if not 0 <= self.modes[i] <= MEMBER:
                raise ConversionError(f"node {i} has the unknown mode {self.modes[i]}")
        self.k, self.leaves = k, n_leaves

        def state(index: int, leaf: int) -> int:
            bound = n_leaves if leaf else k
            if not 0 <= index < bound:
                kind = "leaf" if leaf else "node"
                raise ConversionError(f"{kind} id {index} is out of range ({bound})")
            return k + index if leaf else index

        self.true_next = [
            state(t, lf) for t, lf in zip(true_ids, true_leaf, strict=True)
        ]
        self.false_next = [
            state(f, lf) for f, lf in zip(false_ids, false_leaf, strict=True)
        ]
        self.members: dict[int, list[float]] = {}
        self.roots: list[int] = []
        self.depth = 0
        values = iter(_tensor(node, "membership_values", required=False).tolist())
        seen: set[int] = set()
        for r in ints("tree_roots"):
            if not 0 <= r < k:
                raise ConversionError(f"tree root {r} is out of range ({k} nodes)")
            if true_leaf[r] and false_leaf[r] and true_ids[r] == false_ids[r]:
                self.roots.append(state(r, 1))  # a tree that is one leaf
                continue
            self.roots.append(r)
            self.depth = max(self.depth, self._walk(r, seen, values))

    def _walk(self, root: int, seen: set[int], values: Any) -> int:
        """The depth of the tree at ``root`` (split nodes on the longest path); reads
        the member sets in the reference's order (true branch first)."""
        stack = [(root, 1)]
        depth = 0
        while stack:
            i, level = stack.pop()
            if i in seen:
                raise ConversionError(
                    f"node {i} is reached twice (a shared node or a cycle): the "
                    "trees must be trees"
                )
            seen.add(i)
            depth = max(depth, level)
            if self.modes[i] == MEMBER:
                members: list[float] = []
                for v in values:
                    if math.isnan(v):
                        break
                    members.append(float(v))
                else:
                    raise ConversionError(
                        "membership_values has no NaN-terminated set for every "
                        "member node"
                    )
                self.members[i] = members
            for child in (self.false_next[i], self.true_next[i]):
                if child < self.k:
                    stack.append((child, level + 1))
        return depth


def _conditions(node: Node, x: SSAValue, t: _Tables) -> SSAValue:
    """``[N, K + L]`` bool: each split node's condition per sample (leaves: false)."""
    n = node.shape(x)[0]
    cols = node.op("take", [x, node.const(np.asarray(t.feature, np.int64))], axis=1)
    cols = node.op("cast", [cols], dtype=np.dtype(np.float64))  # exact comparisons
    modes = np.asarray(t.modes)
    cond: SSAValue | None = None
    for mode in sorted(set(t.modes)):
        if mode == MEMBER:
            width = max(len(m) for m in t.members.values()) if t.members else 0
            table = np.full((t.k, max(width, 1)), np.nan)
            for i, members in t.members.items():
                table[i, : len(members)] = members
            wide = node.reshape(cols, [n, t.k, 1])
            hit = node.op("equal", [wide, node.const(table)])
            this = node.op("cast", [hit], dtype=np.dtype(np.int8))
            this = node.op("max", [this], axis=[2])
            this = node.op("cast", [this], dtype=np.dtype(np.bool_))
        else:
            this = node.op(_MODES[mode], [cols, node.const(t.splits)])
        if cond is None:
            cond = this
        else:
            cond = node.op("where", [node.const(modes == mode), this, cond])
    assert cond is not None
    if any(t.missing):
        nan = node.op("not_equal", [cols, cols])
        nan = node.op("logical_and", [nan, node.const(np.asarray(t.missing))])
        cond = node.op("logical_or", [cond, nan])
    if t.leaves:
        leaves = node.const(np.zeros((n, t.leaves), np.bool_))
        cond = node.op("concatenate", [cond, leaves], axis=1)
    return cond


@converter("ai.onnx.ml.TreeEnsemble")
def tree_ensemble(node: Node) -> Outputs:
    x = node.input(0, "X")
    shape = node.shape(x)
    dtype = node.dtype(x)
    if dtype.kind != "f":
        raise ConversionError(f"X must be a float tensor, not {dtype}")
    if len(shape) != 2:
        raise ConversionError(f"X must be [N, F], got {list(shape)}")
    if node.attr_int("post_transform", 0) != 0:
        raise ConversionError(
            "post_transform other than NONE (0) is not supported (the ONNX reference "
            "ignores it)"
        )
    how = node.attr_int("aggregate_function", 1)
    if how not in (0, 1, 2, 3):
        raise ConversionError(f"aggregate_function {how} is not one of 0-3")
    targets = node.attr_int("n_targets")
    t = _Tables(node, shape[1])
    if not t.roots:
        raise ConversionError("tree_roots is empty")
    if any(not 0 <= g < targets for g in t.leaf_target):
        raise ConversionError(f"a leaf target is outside [0, {targets})")
    n, trees = shape[0], len(t.roots)

    states = node.const(np.broadcast_to(np.asarray(t.roots, np.int64), (n, trees)))
    if t.depth:
        cond = _conditions(node, x, t)
        on_true = np.asarray([*t.true_next, *range(t.k, t.k + t.leaves)], np.int64)
        on_false = np.asarray([*t.false_next, *range(t.k, t.k + t.leaves)], np.int64)
        for _ in range(t.depth):
            go = node.op("gather", [cond, states], axis=1)
            states = node.op(
                "where",
                [
                    go,
                    node.op("take", [node.const(on_true), states], axis=0),
                    node.op("take", [node.const(on_false), states], axis=0),
                ],
            )

    weights = t.leaf_weight.astype(np.float64)
    if how == 0:
        weights = (t.leaf_weight / t.leaf_weight.dtype.type(trees)).astype(np.float64)
    fill = {0: 0.0, 1: 0.0, 2: np.finfo(dtype).max, 3: np.finfo(dtype).min}[how]
    table = np.full((t.k + t.leaves, targets), fill, np.float64)
    table[t.k + np.arange(t.leaves), t.leaf_target] = weights
    values = node.op("take", [node.const(table.astype(dtype)), states], axis=0)
    reduce = {0: "sum", 1: "sum", 2: "min", 3: "max"}[how]
    return node.op(reduce, [values], axis=[1])
