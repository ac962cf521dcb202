"""``Pad`` in ``wrap`` mode (opset 19): one ``take`` per padded axis, output position
``j`` reading input position ``(j - before) mod size`` (negative pads crop; pads
longer than the axis wrap around more than once, as ``numpy.pad`` does)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node


def wrap_pad(node: Node, x: SSAValue, widths: Sequence[Sequence[int]]) -> SSAValue:
    """``x`` padded by ``widths`` (``[before, after]`` per axis) in wrap mode."""
    shape = node.shape(x)
    out = x
    for axis, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        size = shape[axis]
        length = size + before + after
        if size == 0 or length < 0:
            raise ConversionError(
                f"cannot wrap-pad axis {axis} of size {size} by ({before}, {after})"
            )
        idx = (np.arange(length, dtype=np.int64) - before) % size
        out = node.op("take", [out, node.const(idx)], axis=axis)
    return out
