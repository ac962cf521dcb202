"""The ``Indices`` output of ``MaxPool`` (any number of spatial axes): every window
tap is a strided slice of the input padded with the lowest value, the taps are
stacked on a last axis and ``argmax`` picks the first largest (the reference's
tie-break); the flat index is then ``(n * C + c) * size + base(output position) +
offset(tap)`` from constant tables (row-major, or column-major over height and width
with ``storage_order=1``). A window whose valid values are all the lowest value
takes its first valid tap, as the reference does (the padding never wins)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import dtypes
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node


def _lowest(dtype: np.dtype[Any]) -> float | int:
    if dtypes.is_float_dtype(dtype):
        return -np.inf
    if dtype.kind == "b":
        return 0
    return int(np.iinfo(dtype.type).min)


def max_pool_indices(
    node: Node,
    x: SSAValue,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    begin: Sequence[int],
    out: Sequence[int],
    storage_order: int,
) -> SSAValue:
    shape = node.shape(x)
    sizes = list(shape[2:])
    nd = len(sizes)
    if storage_order not in (0, 1) or (storage_order == 1 and nd != 2):
        raise ConversionError(
            f"storage_order={storage_order} is not supported (0, or 1 for 2-D pools)"
        )
    # strides of the flat spatial index per axis
    if storage_order == 0:
        flat = [math.prod(sizes[a + 1 :]) for a in range(nd)]
    else:
        flat = [1, sizes[0]]
    spans = [
        (o - 1) * s + (k - 1) * d + 1
        for o, s, k, d in zip(out, strides, kernel, dilations, strict=True)
    ]
    after = [
        max(sp - b - size, 0) for sp, b, size in zip(spans, begin, sizes, strict=True)
    ]
    widths = [0, 0, 0, 0]
    for b, a in zip(begin, after, strict=True):
        widths += [b, a]
    lowest = _lowest(node.dtype(x))
    padded = node.op("nn.pad", [x, node.scalar(lowest, x)], pad_width=widths)
    taps = list(itertools.product(*(range(k) for k in kernel)))
    axes = list(range(2, 2 + nd))
    slices: list[SSAValue] = []
    for tap in taps:
        start = [t * d for t, d in zip(tap, dilations, strict=True)]
        part = node.op(
            "strided_slice",
            [padded],
            begin=start,
            end=[
                st + (o - 1) * s + 1
                for st, o, s in zip(start, out, strides, strict=True)
            ],
            strides=list(strides),
            axes=axes,
        )
        slices.append(node.reshape(part, [*shape[:2], *out, 1]))
    stacked = slices[0] if len(slices) == 1 else node.op("concatenate", slices, axis=-1)
    best = node.op("argmax", [stacked], axis=[nd + 2])
    # constant tables: the window origin of each output position, each tap's offset
    grids = np.meshgrid(*(np.arange(o) for o in out), indexing="ij")
    origin = [g * s - b for g, s, b in zip(grids, strides, begin, strict=True)]
    base = sum(o * f for o, f in zip(origin, flat, strict=True))
    offsets = np.array(
        [
            sum(t * d * f for t, d, f in zip(tap, dilations, flat, strict=True))
            for tap in taps
        ],
        np.int64,
    )
    # the first tap inside the input, per output position (ties among lowest values)
    first = np.full(out, -1, np.int64)
    for k in reversed(range(len(taps))):
        inside = np.ones(out, bool)
        for a in range(nd):
            pos = origin[a] + taps[k][a] * dilations[a]
            inside &= (pos >= 0) & (pos < sizes[a])
        first = np.where(inside, k, first)
    if (first < 0).any():
        raise ConversionError("a pooling window lies entirely in the padding")
    largest = node.op("max", [stacked], axis=[nd + 2])
    only_lowest = node.op("equal", [largest, node.scalar(lowest, largest)])
    tap_index = node.op(
        "where",
        [only_lowest, node.const(first.astype(np.int32)), best],
    )
    within = node.op(
        "add",
        [
            node.const(np.asarray(base, np.int64)),
            node.op("take", [node.const(offsets), tap_index]),
        ],
    )
    planes = np.arange(shape[0] * shape[1], dtype=np.int64).reshape(
        shape[0], shape[1], *([1] * nd)
    )
    return node.op("add", [within, node.const(planes * math.prod(sizes))])
