"""Converters of ONNX indexing ops: ``GatherElements``, ``GatherND``, ``ScatterND``,
``ScatterElements``, ``OneHot`` and ``Trilu``.

Indices may be run-time values: the relay ops clamp each index read from data into
its dim (after counting a negative one from the end), so that no kernel reads or
writes outside a buffer. Constant indices are checked here and an out-of-range one
is an import error.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _checked_indices(
    node: Node, i: int, dims: tuple[int, ...] | int, what: str = "indices"
) -> SSAValue:
    """Input ``i`` (integer indices); when constant, checked against ``dims`` (one dim
    for every index, or one per column of the last axis) and made non-negative."""
    value = node.graph.static(node.inputs[i]) if node.has_input(i) else None
    if value is None:
        return node.input(i, what)
    idx = np.asarray(value).astype(np.int64)
    bound = np.asarray(dims, dtype=np.int64)
    if idx.size and (np.any(idx < -bound) or np.any(idx >= bound)):
        raise ConversionError(
            f"{what} {idx.reshape(-1).tolist()[:8]} are out of range for dims "
            f"{np.asarray(dims).reshape(-1).tolist()}"
        )
    return node.const(np.where(idx < 0, idx + bound, idx))


@converter("GatherElements")
def gather_elements(node: Node) -> Outputs:
    """``gather`` along ``axis`` (ONNX's GatherElements is Relay's ``gather``)."""
    data = node.input(0)
    shape = node.shape(data)
    axis = node.axis(node.attr_int("axis", 0), len(shape))
    indices = _checked_indices(node, 1, shape[axis])
    return node.op("gather", [data, indices], axis=axis)
