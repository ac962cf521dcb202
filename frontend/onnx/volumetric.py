"""3-D convolution and pooling (``[N, C, D, H, W]``) composed from the 2-D relay
ops: the depth axis is unrolled over the kernel's depth, not over the data.

* Convolution: for each kernel depth ``kd``, the depth slices ``x[:, :, kd * dil ::
  stride]`` (one per output depth) are folded into the batch and convolved with
  ``w[:, :, kd]`` by ``nn.conv2d``; the ``KD`` partial results are added.
* Pooling: ``nn.max_pool2d`` / ``nn.avg_pool2d`` pool height and width with depth
  folded into the channels; then the depth windows are reduced with ``maximum``
  (or added and divided by their count: the window is a product of per-axis ranges,
  so the 3-D count is the depth count times the 2-D one).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xrelay.dialects.relay import dtypes
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node


def _pad_depth(
    node: Node, x: SSAValue, begin: int, end: int, value: float | int
) -> SSAValue:
    """``x`` with ``begin`` / ``end`` planes of ``value`` around axis 2 (negative
    counts drop planes)."""
    shape = node.shape(x)
    if begin < 0 or end < 0:
        lo, hi = max(-begin, 0), shape[2] - max(-end, 0)
        x = node.op("strided_slice", [x], begin=[lo], end=[hi], axes=[2])
        shape = node.shape(x)
        begin, end = max(begin, 0), max(end, 0)
    parts: list[SSAValue] = []
    for count in (begin, None, end):
        if count is None:
            parts.append(x)
        elif count > 0:
            fill = np.full((shape[0], shape[1], count, *shape[3:]), value)
            parts.append(node.const(fill.astype(node.dtype(x))))
    if len(parts) == 1:
        return x
    return node.op("concatenate", parts, axis=2)


def _depth_slice(
    node: Node, x: SSAValue, start: int, count: int, step: int
) -> SSAValue:
    """``x[:, :, start : start + (count - 1) * step + 1 : step]``."""
    return node.op(
        "strided_slice",
        [x],
        begin=[start],
        end=[start + (count - 1) * step + 1],
        strides=[step],
        axes=[2],
    )


def conv3d(
    node: Node,
    x: SSAValue,
    w: SSAValue,
    strides: Sequence[int],
    dilations: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
    groups: int,
) -> SSAValue:
    """ONNX ``Conv`` on ``[N, C, D, H, W]`` with weight ``[O, C / groups, KD, KH,
    KW]``."""
    x = _pad_depth(node, x, begin[0], end[0], 0)
    n, c, depth, h, wd = node.shape(x)
    o, cg, kd, kh, kw = node.shape(w)
    out_depth = (depth - (kd - 1) * dilations[0] - 1) // strides[0] + 1
    if out_depth < 1:
        raise ConversionError(
            f"the kernel depth {kd} (dilation {dilations[0]}) exceeds the padded "
            f"input depth {depth}"
        )
    acc: SSAValue | None = None
    for k in range(kd):
        planes = _depth_slice(node, x, k * dilations[0], out_depth, strides[0])
        planes = node.op("transpose", [planes], axes=[0, 2, 1, 3, 4])
        planes = node.reshape(planes, [n * out_depth, c, h, wd])
        wk = node.op("strided_slice", [w], begin=[k], end=[k + 1], axes=[2])
        part = node.op(
            "nn.conv2d",
            [planes, node.reshape(wk, [o, cg, kh, kw])],
            strides=list(strides[1:]),
            padding=[begin[1], begin[2], end[1], end[2]],
            dilation=list(dilations[1:]),
            groups=groups,
        )
        acc = part if acc is None else node.op("add", [acc, part])
    assert acc is not None
    oh, ow = node.shape(acc)[2:]
    out = node.reshape(acc, [n, out_depth, o, oh, ow])
    return node.op("transpose", [out], axes=[0, 2, 1, 3, 4])


def pool3d_depth(
    node: Node,
    y: SSAValue,
    is_max: bool,
    size: int,
    begin: int,
    end: int,
    kernel: int,
    stride: int,
    dilation: int,
    out_len: int,
    count_include_pad: bool,
) -> SSAValue:
    """The depth windows (axis 2) of ``y``, already pooled over height and width:
    their maximum, or their mean over the positions ONNX counts."""
    span = (out_len - 1) * stride + (kernel - 1) * dilation + 1
    dtype = node.dtype(y)
    fill: float | int = 0
    if is_max:
        fill = -np.inf if dtypes.is_float_dtype(dtype) else int(np.iinfo(dtype).min)
    y = _pad_depth(node, y, begin, span - size - begin, fill)
    acc: SSAValue | None = None
    for k in range(kernel):
        part = _depth_slice(node, y, k * dilation, out_len, stride)
        if acc is None:
            acc = part
        else:
            acc = node.op("maximum" if is_max else "add", [acc, part])
    assert acc is not None
    if is_max:
        return acc
    pos = np.arange(out_len)[:, None] * stride + np.arange(kernel)[None, :] * dilation
    pos = pos - begin
    lo, hi = (-begin, size + end) if count_include_pad else (0, size)
    count = ((pos >= lo) & (pos < hi)).sum(axis=1).astype(dtype)
    count = np.maximum(count, 1).reshape(out_len, 1, 1)
    return node.op("divide", [acc, node.const(count)])


def conv_transpose3d(
    node: Node,
    x: SSAValue,
    w: SSAValue,
    strides: Sequence[int],
    dilations: Sequence[int],
    output_padding: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
    groups: int,
) -> SSAValue:
    """ONNX ``ConvTranspose`` on ``[N, C, D, H, W]`` with weight ``[C, O / groups,
    KD, KH, KW]``: for each kernel depth ``kd``, ``nn.conv2d_transpose`` of every
    input plane with ``w[:, :, kd]`` lands at output depth ``d * stride + kd *
    dilation``; the planes are spread by ``stride`` with zeros, shifted, added, and
    the depth pads cropped (negative ones add zero planes)."""
    n, c, depth, h, wd = node.shape(x)
    ci, og, kd, kh, kw = node.shape(w)
    stride, dil = strides[0], dilations[0]
    spread = (depth - 1) * stride + 1
    full = spread + (kd - 1) * dil + output_padding[0]
    planes = node.reshape(
        node.op("transpose", [x], axes=[0, 2, 1, 3, 4]), [n * depth, c, h, wd]
    )
    acc: SSAValue | None = None
    for k in range(kd):
        wk = node.op("strided_slice", [w], begin=[k], end=[k + 1], axes=[2])
        part = node.op(
            "nn.conv2d_transpose",
            [planes, node.reshape(wk, [ci, og, kh, kw])],
            strides=list(strides[1:]),
            padding=[max(p, 0) for p in (begin[1], begin[2], end[1], end[2])],
            dilation=list(dilations[1:]),
            groups=groups,
            output_padding=list(output_padding[1:]),
        )
        if any(p < 0 for p in (*begin[1:], *end[1:])):
            widths = [0, 0, 0, 0]
            for a in (1, 2):
                widths += [max(-begin[a], 0), max(-end[a], 0)]
            part = node.op("nn.pad", [part, node.scalar(0, part)], pad_width=widths)
        o, oh, ow = node.shape(part)[1:]
        part = node.reshape(part, [n, depth, o, oh, ow])
        part = node.op("transpose", [part], axes=[0, 2, 1, 3, 4])
        if stride > 1:  # d -> d * stride, zeros between
            gaps = np.zeros((n, o, depth, stride - 1, oh, ow), node.dtype(part))
            part = node.op(
                "concatenate",
                [node.op("expand_dims", [part], axis=3), node.const(gaps)],
                axis=3,
            )
            part = node.reshape(part, [n, o, depth * stride, oh, ow])
            part = _depth_slice(node, part, 0, spread, 1)
        part = _pad_depth(node, part, k * dil, full - k * dil - spread, 0)
        acc = part if acc is None else node.op("add", [acc, part])
    assert acc is not None
    return _pad_depth(node, acc, -begin[0], -end[0], 0)
