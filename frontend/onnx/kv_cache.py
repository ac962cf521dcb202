"""``TensorScatter`` (opset 24): the KV-cache write, as ``scatter_elements`` along
the sequence axis with indices ``write_indices[b] + s`` for the ``s``-th update row
of batch ``b`` (``write_indices`` defaults to zeros).

``mode="linear"`` uses those indices as they are, so ``scatter_elements``' data
checks apply: an index past the cache (``write_indices + sequence_length >
max_sequence_length``, which ONNX forbids) fails the run instead of writing out of
bounds, and a negative one counts from the end, as numpy indexing does in ONNX's
pseudocode. ``mode="circular"`` takes the indices modulo ``max_sequence_length``
(``floor_mod``): they always land in the cache.
"""

from __future__ import annotations

import numpy as np

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("TensorScatter")
def tensor_scatter(node: Node) -> Outputs:
    cache, update = node.input(0, "past_cache"), node.input(1, "update")
    cshape, ushape = node.shape(cache), node.shape(update)
    rank = len(cshape)
    if rank < 2 or len(ushape) != rank:
        raise ConversionError(
            f"past_cache and update must have one rank of at least 2, got "
            f"{list(cshape)} and {list(ushape)}"
        )
    axis = node.axis(node.attr_int("axis", -2), rank)
    if axis == 0:
        raise ConversionError("axis cannot be 0 (the batch dimension)")
    mode = node.attr_str("mode", "linear")
    if mode not in ("linear", "circular"):
        raise ConversionError(f"mode must be 'linear' or 'circular', got '{mode}'")
    bad = [d for d in range(rank) if d != axis and cshape[d] != ushape[d]]
    if bad or ushape[axis] > cshape[axis]:
        raise ConversionError(
            f"update {list(ushape)} does not fit past_cache {list(cshape)} (they "
            f"differ only in axis {axis}, where update is not longer)"
        )
    if node.dtype(update) != node.dtype(cache):
        raise ConversionError(
            f"update is {node.dtype(update)}, past_cache {node.dtype(cache)}"
        )
    batch, length = cshape[0], ushape[axis]
    steps = np.arange(length, dtype=np.int64).reshape(
        [length if d == axis else 1 for d in range(rank)]
    )
    index = node.const(steps)
    if node.has_input(2):
        write = node.input(2, "write_indices")
        if node.shape(write) != (batch,) or node.dtype(write).kind not in "iu":
            raise ConversionError(
                f"write_indices must be integers of shape [{batch}], got "
                f"{node.dtype(write)}{list(node.shape(write))}"
            )
        if node.dtype(write) != np.int64:
            write = node.op("cast", [write], dtype="int64")
        start = node.reshape(write, [batch] + [1] * (rank - 1))
        index = node.op("add", [start, index])
    if mode == "circular":
        index = node.op("floor_mod", [index, node.const(np.int64(cshape[axis]))])
    index = node.op("broadcast_to", [index], shape=list(ushape))
    return node.op("scatter_elements", [cache, index, update], axis=axis)
