"""TfIdfVectorizer on integer token ids (tfidf.py) against the ONNX reference
evaluator: every mode, gram range and skip count, 1-D and 2-D input, repeated and
shared pool entries; compiled; the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper

from xrelay.frontend import from_onnx
from xrelay.frontend.onnx import OnnxImportError
from xrelay.frontend.onnx.backend import XrelayBackend

# n-grams: 4 unigrams, 3 bigrams, 2 trigrams (token ids 0..5)
POOL = [2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 2, 3, 5, 2, 3, 5]
COUNTS = [0, 4, 10]
INDEXES = [0, 1, 2, 3, 4, 5, 6, 7, 8]


def tfidf(**attrs: Any) -> Any:
    base: dict[str, Any] = {
        "mode": "TF",
        "min_gram_length": 1,
        "max_gram_length": 3,
        "max_skip_count": 0,
        "ngram_counts": COUNTS,
        "ngram_indexes": INDEXES,
        "pool_int64s": POOL,
    }
    base.update(attrs)
    if not base.get("weights", True):
        del base["weights"]
    return helper.make_node("TfIdfVectorizer", ["x"], ["y"], **base)


def tokens(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> Any:
    # ids 2..8 so that pool n-grams occur often
    return rng.integers(2, 9, size=shape).astype(dtype)


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("lo", "hi"), [(1, 1), (1, 3), (2, 2), (2, 3), (3, 3)])
@pytest.mark.parametrize("skip", [0, 1, 4])
def test_tfidf_modes_and_ranges(
    run_onnx: Any,
    import_run: Any,
    onnx_reference: Any,
    rng: np.random.Generator,
    mode: str,
    weighted: bool,
    lo: int,
    hi: int,
    skip: int,
) -> None:
    x = tokens(rng, (3, 13), np.int64)
    weights = (np.arange(9) * 0.25 + 0.5).tolist() if weighted else []
    node = tfidf(
        mode=mode, min_gram_length=lo, max_gram_length=hi, max_skip_count=skip,
        weights=weights,
    )  # fmt: skip
    if weighted or mode == "TF":
        run_onnx(node, {"x": x})
        return
    # the reference fails without weights in IDF and TFIDF: derived from its TF
    tf_node = tfidf(min_gram_length=lo, max_gram_length=hi, max_skip_count=skip)
    (tf,) = onnx_reference(tf_node, {"x": x})
    want = (tf > 0).astype(np.float32) if mode == "IDF" else tf
    (got,) = import_run(node, {"x": x}, expected=[want])
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float32


@pytest.mark.parametrize("shape", [(1,), (2,), (11,), (1, 5), (4, 2), (2, 0), (0,)])
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=lambda d: d.__name__)
def test_tfidf_shapes(
    run_onnx: Any, rng: np.random.Generator, shape: tuple[int, ...], dtype: Any
) -> None:
    run_onnx(tfidf(max_skip_count=2), {"x": tokens(rng, shape, dtype)})


def test_tfidf_shared_columns_and_repeated_ngrams(
    run_onnx: Any, rng: np.random.Generator
) -> None:
    # unigram 2 repeated (the last number counts), columns shared and left empty
    pool = [2, 3, 2, 5, 3, 5, 2, 3]
    node = tfidf(
        pool_int64s=pool, ngram_counts=[0, 4], ngram_indexes=[0, 6, 2, 2, 6, 1],
        max_gram_length=2, max_skip_count=3, mode="TFIDF",
        weights=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    )  # fmt: skip
    run_onnx(node, {"x": tokens(rng, (2, 9), np.int64) - 1})


def test_tfidf_empty_levels(run_onnx: Any, rng: np.random.Generator) -> None:
    # no unigrams and no bigrams: only trigrams
    node = tfidf(
        pool_int64s=[2, 3, 4, 5, 6, 7], ngram_counts=[0, 0, 0],
        ngram_indexes=[1, 0], min_gram_length=1, max_skip_count=1,
    )  # fmt: skip
    x = np.array([2, 3, 4, 5, 6, 7, 2, 5, 3, 6, 4, 7], np.int64)
    got = run_onnx(node, {"x": x})
    assert got[0].tolist() == [2.0, 2.0]  # each at skip 0 and skip 1 (from 2 and 5)


def test_tfidf_token_ids_beyond_int32(run_onnx: Any) -> None:
    big = 2**40 + 3
    node = tfidf(
        pool_int64s=[big, 3], ngram_counts=[0], ngram_indexes=[0, 1],
        max_gram_length=1,
    )  # fmt: skip
    x = np.array([3, 3, 3, 3], np.int32)  # big wraps to 3 in int32: must not match
    got = run_onnx(node, {"x": x})
    assert got[0].tolist() == [0.0, 4.0]


def test_tfidf_compiled(rng: np.random.Generator, build_model: Any) -> None:
    from onnx.reference import ReferenceEvaluator

    node = tfidf(max_skip_count=3, mode="TFIDF", weights=[0.5] * 9)
    x = tokens(rng, (5, 17), np.int32)
    want = ReferenceEvaluator(build_model(node, {"x": x})).run(None, {"x": x})
    model = build_model(node, {"x": x}, output_values=want)
    (got,) = XrelayBackend.prepare(model).run([x])
    np.testing.assert_array_equal(got, want[0])


@pytest.mark.parametrize(
    ("attrs", "x", "message"),
    [
        ({"pool_strings": ["a", "b"], "pool_int64s": None}, None, "string tokens"),
        ({"min_gram_length": 3, "max_gram_length": 2}, None, "1 <= min <= max"),
        ({"ngram_counts": [0, 12, 10]}, None, "non-decreasing starts"),
        ({"ngram_indexes": [0, 1, 2]}, None, "fewer than the 4 pool n-grams"),
        ({"ngram_indexes": [0, -1] * 5}, None, "non-negative"),
        ({"weights": [1.0, 2.0]}, None, "fewer than the output size 9"),
        ({"mode": "BM25"}, None, "mode must be TF, IDF or TFIDF"),
        ({}, np.zeros((2, 2, 2), np.int64), r"\[C\] or \[B, C\]"),
        ({}, np.zeros((3,), np.float32), "integer token ids"),
    ],
)
def test_tfidf_errors(
    build_model: Any, attrs: dict[str, Any], x: Any, message: str
) -> None:
    full = {k: v for k, v in attrs.items() if v is not None}
    node = tfidf(**full)
    if "pool_int64s" in attrs:
        node.attribute.remove(
            next(a for a in node.attribute if a.name == "pool_int64s")
        )
    x = np.zeros((2, 5), np.int64) if x is None else x
    model = build_model(node, {"x": x}, output_values=[np.zeros((2, 9), np.float32)])
    with pytest.raises(OnnxImportError, match=message):
        from_onnx(model)
