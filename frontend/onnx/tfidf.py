"""The ``TfIdfVectorizer`` converter (opset 9) for integer token ids
(``pool_int64s``), composed of relay ops; string pools are out of scope.

The pool is constant, so every count is a comparison with constants. Following the
ONNX reference (and onnxruntime): an n-gram of size ``n`` in ``[min_gram_length,
max_gram_length]`` is counted at every start ``s`` and skip distance ``d`` (the items
``X[s], X[s+d], ..., X[s+(n-1)d]`` of one row); unigrams only once (``d = 1``), longer
n-grams for every ``d`` in ``[1, max_skip_count + 1]``. Pool n-grams are numbered in
pool order over all sizes (sizes outside the range still take their numbers), and
n-gram number ``k`` counts into output column ``ngram_indexes[k]``; a repeated pool
n-gram keeps its last number.

For each ``(n, d)``: the ``n`` item positions of all windows are ``strided_slice``\\ s
of the input ``[B, W]``, each compared (``equal``) with the pool's column ``j`` by
broadcasting to ``[B, W, K]``, ``logical_and``-ed over the positions and summed over
the windows. The ``[B, K]`` counts go to their columns with ``nn.dense`` by a
constant 0/1 matrix (float32: exact for counts below 2**24), then the weights per
mode: ``TF`` the counts, ``IDF`` ``weights[c]`` (or 1) where the count is positive,
``TFIDF`` ``weights[c] * count`` (or the count).
"""

from __future__ import annotations

import itertools

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _pool_ngrams(
    node: Node,
) -> tuple[dict[int, list[tuple[tuple[int, ...], int]]], int]:
    """The pool n-grams counted, by size: (items, output column); and the output
    size."""
    if node.has_attr("pool_strings"):
        raise ConversionError(
            "pool_strings: string tokens are out of scope (only pool_int64s)"
        )
    pool = node.attr_ints("pool_int64s")
    counts = node.attr_ints("ngram_counts")
    indexes = node.attr_ints("ngram_indexes")
    lo = node.attr_int("min_gram_length")
    hi = node.attr_int("max_gram_length")
    if not 1 <= lo <= hi:
        raise ConversionError(
            f"min_gram_length {lo} and max_gram_length {hi} must satisfy "
            "1 <= min <= max"
        )
    if not indexes or min(indexes) < 0:
        raise ConversionError("ngram_indexes must be non-empty and non-negative")
    bounds = [*counts, len(pool)]
    if any(a < 0 or a > b for a, b in itertools.pairwise(bounds)):
        raise ConversionError(
            f"ngram_counts {counts} must be non-decreasing starts in the pool of "
            f"{len(pool)} items"
        )
    found: dict[int, dict[tuple[int, ...], int]] = {}
    number = 0
    for size, (start, end) in enumerate(itertools.pairwise(bounds), 1):
        many = (end - start) // size
        if lo <= size <= hi:
            grams = found.setdefault(size, {})
            for g in range(many):
                if number + g >= len(indexes):
                    raise ConversionError(
                        f"ngram_indexes has {len(indexes)} entries, fewer than the "
                        f"{number + g + 1} pool n-grams"
                    )
                items = tuple(pool[start + g * size : start + (g + 1) * size])
                grams.pop(items, None)  # a repeated n-gram keeps its last number
                grams[items] = indexes[number + g]
        number += many
    by_size = {n: list(grams.items()) for n, grams in found.items() if grams}
    return by_size, max(indexes) + 1


def _counts(
    node: Node, x: SSAValue, n: int, grams: list[tuple[int, ...]], skips: int
) -> SSAValue | None:
    """``[B, K]`` float32: how often each of the size-``n`` ``grams`` occurs in the
    rows of ``x [B, C]`` over the skip distances ``1..skips``; ``None`` when no
    window fits."""
    b, c = node.shape(x)
    table = np.asarray(grams, dtype=np.int64)  # [K, n]
    total: SSAValue | None = None
    for d in range(1, skips + 1):
        w = c - (n - 1) * d
        if w <= 0:
            break
        hit: SSAValue | None = None
        for j in range(n):
            items = node.op(
                "strided_slice", [x], begin=[j * d], end=[j * d + w], axes=[1]
            )
            items = node.reshape(items, [b, w, 1])
            eq = node.op("equal", [items, node.const(table[:, j])])
            hit = eq if hit is None else node.op("logical_and", [hit, eq])
        assert hit is not None
        found = node.op("cast", [hit], dtype=np.dtype(np.float32))
        found = node.op("sum", [found], axis=[1])
        total = found if total is None else node.op("add", [total, found])
    return total


@converter("TfIdfVectorizer")
def tfidf_vectorizer(node: Node) -> Outputs:
    x = node.input(0, "X")
    shape = node.shape(x)
    if node.dtype(x).kind not in "iu":
        raise ConversionError(
            f"X must hold integer token ids (int32/int64), not {node.dtype(x)}; "
            "string tokens are out of scope"
        )
    if len(shape) not in (1, 2) or (len(shape) == 2 and shape[0] < 1):
        raise ConversionError(f"X must be [C] or [B, C] with B >= 1, got {list(shape)}")
    mode = node.attr_str("mode")
    if mode not in ("TF", "IDF", "TFIDF"):
        raise ConversionError(f"mode must be TF, IDF or TFIDF, got '{mode}'")
    skip = node.attr_int("max_skip_count", 0)
    if skip < 0:
        raise ConversionError(f"max_skip_count must be >= 0, got {skip}")
    by_size, size = _pool_ngrams(node)
    weights = node.attr_floats("weights", [])
    if weights and len(weights) < size:
        raise ConversionError(
            f"weights has {len(weights)} entries, fewer than the output size {size}"
        )

    b = shape[0] if len(shape) == 2 else 1
    rows = node.reshape(x, [b, shape[-1]])
    if node.dtype(rows) != np.dtype(np.int64):
        rows = node.op("cast", [rows], dtype=np.dtype(np.int64))
    parts: list[SSAValue] = []
    columns: list[int] = []
    for n in sorted(by_size):
        grams = [g for g, _ in by_size[n]]
        found = _counts(node, rows, n, grams, 1 if n == 1 else skip + 1)
        if found is not None:
            parts.append(found)
            columns += [col for _, col in by_size[n]]
    if not parts:
        freq = node.const(np.zeros((b, size), np.float32))
    else:
        counts = parts[0] if len(parts) == 1 else node.op("concatenate", parts, axis=1)
        place = np.zeros((size, len(columns)), np.float32)
        place[columns, np.arange(len(columns))] = 1.0
        freq = node.op("nn.dense", [counts, node.const(place)])

    w = node.const(np.asarray(weights[:size], np.float32)) if weights else None
    if mode == "IDF":
        seen = node.op("greater", [freq, node.const(np.float32(0))])
        on = w if w is not None else node.const(np.float32(1))
        freq = node.op("where", [seen, on, node.const(np.float32(0))])
    elif mode == "TFIDF" and w is not None:
        freq = node.op("multiply", [freq, w])
    return node.reshape(freq, [size] if len(shape) == 1 else [b, size])
