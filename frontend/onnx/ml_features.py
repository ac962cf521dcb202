"""Converters of the ``ai.onnx.ml`` domain that are plain tensor ops: ``Binarizer``
(``x > threshold`` as 1/0 in ``x``'s dtype) and ``ArrayFeatureExtractor`` (a
``take`` along the last axis). The other ``ai.onnx.ml`` operators have no converter
and are reported as unsupported (``ai.onnx.ml.<Op>``)."""

from __future__ import annotations

import math

import numpy as np

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

ML = "ai.onnx.ml."


@converter(ML + "Binarizer")
def binarizer(node: Node) -> Outputs:
    """``cast(x > threshold)``: 1 where ``x`` exceeds the threshold, else 0 (NaN
    gives 0), in ``x``'s dtype."""
    x = node.input(0, "X")
    dtype = node.dtype(x)
    if dtype.kind not in "fi":
        raise ConversionError(f"X must be a float or integer tensor, not {dtype}")
    threshold = node.attr_float("threshold", 0.0)
    if dtype.kind == "f":
        # the threshold is a float32 attribute: compare float16 data in float32
        wide = np.dtype(np.float32) if dtype.itemsize < 4 else dtype
        xw = x if wide == dtype else node.op("cast", [x], dtype=wide)
        above = node.op("greater", [xw, node.const(threshold, wide)])
    elif math.isnan(threshold):
        above = node.op("not_equal", [x, x])  # nothing exceeds NaN
    else:
        # for integers, x > t is x > floor(t); a bound outside the dtype saturates
        info = np.iinfo(dtype)
        bound = math.floor(threshold) if math.isfinite(threshold) else threshold
        if bound < info.min:
            above = node.op("greater_equal", [x, node.const(info.min, dtype)])
        else:
            above = node.op("greater", [x, node.const(min(bound, info.max), dtype)])
    return node.op("cast", [above], dtype=dtype)


@converter(ML + "ArrayFeatureExtractor")
def array_feature_extractor(node: Node) -> Outputs:
    """``take`` of the flattened ``Y`` along the last axis of ``X``; the result is
    ``[..., len(Y)]`` (``[1, len(Y)]`` for a 1-D ``X``, as the ONNX reference and
    onnxruntime give). A negative index counts from the end. Constant indices are
    checked here; run-time ones use the checked ``take`` (``mode="fast"``: an index
    out of range fails the run, nothing is read outside ``X``)."""
    x = node.input(0, "X")
    shape = node.shape(x)
    if not shape:
        raise ConversionError("X must have rank >= 1")
    dim = shape[-1]
    value = node.graph.static(node.inputs[1]) if node.has_input(1) else None
    if value is None:
        y = node.input(1, "Y")
        if node.dtype(y).kind not in "iu":
            raise ConversionError(f"Y must hold integers, not {node.dtype(y)}")
        count = int(np.prod(node.shape(y), dtype=np.int64))
        y = node.reshape(y, [count])
        out = node.op("take", [x, y], axis=len(shape) - 1, mode="fast")
    else:
        idx = np.asarray(value).astype(np.int64).reshape(-1)
        count = idx.size
        if count and (idx.min() < -dim or idx.max() >= dim):
            raise ConversionError(
                f"indices {idx.tolist()[:8]} are out of range for a last dim of {dim}"
            )
        idx = np.where(idx < 0, idx + dim, idx)
        out = node.op("take", [x, node.const(idx)], axis=len(shape) - 1)
    if len(shape) == 1:
        return node.reshape(out, [1, count])
    return out
