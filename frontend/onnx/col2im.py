"""The ``Col2Im`` converter (opset 18), any number of spatial axes: the columns
``[N, C * K, L]`` (``K`` kernel offsets, ``L`` block positions, both row-major) are
added into a zero image padded by ``pads`` with one ``scatter_nd`` (``mode="add"``)
whose constant indices give each (offset, block) pair its padded position
``block * stride + offset * dilation``; the padding is then sliced off.
``image_shape`` and ``block_shape`` must be known at import time."""

from __future__ import annotations

import math

import numpy as np

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("Col2Im")
def col2im(node: Node) -> Outputs:
    x = node.input(0)
    image = node.static_ints(1, "image_shape")
    block = node.static_ints(2, "block_shape")
    assert image is not None
    assert block is not None
    nd = len(image)
    if nd == 0 or len(block) != nd:
        raise ConversionError(
            f"image_shape and block_shape must have one length, got {image} and {block}"
        )
    strides = node.attr_ints("strides", [1] * nd)
    dilations = node.attr_ints("dilations", [1] * nd)
    pads = node.attr_ints("pads", [0] * (2 * nd))
    if len(strides) != nd or len(dilations) != nd or len(pads) != 2 * nd:
        raise ConversionError(
            f"strides, dilations and pads must have {nd}, {nd} and {2 * nd} values"
        )
    if min(*image, *block, *strides, *dilations) < 1 or min(pads) < 0:
        raise ConversionError(
            "image_shape, block_shape, strides and dilations must be positive and "
            "pads non-negative"
        )
    shape = node.shape(x)
    if len(shape) != 3:
        raise ConversionError(f"input must be [N, C * K, L], got {list(shape)}")
    n, ck, length = shape
    k = math.prod(block)
    if ck % k:
        raise ConversionError(
            f"input dim 1 ({ck}) is not a multiple of the block size {k}"
        )
    padded = [image[a] + pads[a] + pads[a + nd] for a in range(nd)]
    counts = [
        (padded[a] - dilations[a] * (block[a] - 1) - 1) // strides[a] + 1
        for a in range(nd)
    ]
    if min(counts) < 1 or math.prod(counts) != length:
        raise ConversionError(
            f"input dim 2 ({length}) must be the block count {counts} "
            f"({math.prod(counts)})"
        )
    c = ck // k
    offsets = np.indices(block).reshape(nd, k, 1)
    blocks = np.indices(counts).reshape(nd, 1, length)
    step = np.array(strides).reshape(nd, 1, 1)
    dil = np.array(dilations).reshape(nd, 1, 1)
    positions = (blocks * step + offsets * dil).reshape(nd, k * length)
    updates = node.reshape(x, [n, c, k * length])
    updates = node.op("transpose", [updates], axes=[2, 0, 1])
    canvas = node.op("zeros", [], shape=[*padded, n, c], dtype=str(node.dtype(x)))
    out = node.op(
        "scatter_nd",
        [canvas, node.const(positions.astype(np.int64)), updates],
        mode="add",
    )
    out = node.op("transpose", [out], axes=[nd, nd + 1, *range(nd)])
    if any(pads):
        out = node.op(
            "strided_slice",
            [out],
            begin=pads[:nd],
            end=[pads[a] + image[a] for a in range(nd)],
            axes=list(range(2, 2 + nd)),
        )
    return out
