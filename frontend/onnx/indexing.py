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


@converter("GatherND")
def gather_nd(node: Node) -> Outputs:
    """``gather_nd`` with the index tuples moved from the last axis of ``indices``
    (ONNX) to the first (Relay)."""
    data = node.input(0)
    shape = node.shape(data)
    batch = node.attr_int("batch_dims", 0)
    js = node.input_shape(1)
    if not js:
        raise ConversionError("indices must have rank >= 1")
    m = js[-1]
    if batch < 0 or m + batch > len(shape):
        raise ConversionError(
            f"indices tuples of {m} after {batch} batch dims do not fit data of rank "
            f"{len(shape)}"
        )
    indices = _checked_indices(node, 1, tuple(shape[batch : batch + m]))
    perm = [len(js) - 1, *range(len(js) - 1)]
    indices = node.op("transpose", [indices], axes=perm)
    return node.op("gather_nd", [data, indices], batch_dims=batch)


_REDUCTIONS = {"none": "update", "add": "add", "mul": "mul", "min": "min", "max": "max"}


def _reduction(node: Node) -> str:
    how = node.attr_str("reduction", "none")
    if how not in _REDUCTIONS:
        raise ConversionError(f"reduction '{how}' is not supported")
    return _REDUCTIONS[how]


@converter("ScatterND")
def scatter_nd(node: Node) -> Outputs:
    """``scatter_nd`` with the index tuples moved to the first axis of ``indices``."""
    data = node.input(0)
    shape = node.shape(data)
    js = node.input_shape(1)
    if not js or js[-1] > len(shape):
        raise ConversionError(
            f"indices of shape {list(js)} do not address data of rank {len(shape)}"
        )
    indices = _checked_indices(node, 1, tuple(shape[: js[-1]]))
    indices = node.op("transpose", [indices], axes=[len(js) - 1, *range(len(js) - 1)])
    return node.op(
        "scatter_nd", [data, indices, node.input(2, "updates")], mode=_reduction(node)
    )


@converter("ScatterElements", "Scatter")
def scatter_elements(node: Node) -> Outputs:
    """``scatter_elements`` (``Scatter`` is its older name)."""
    data = node.input(0)
    shape = node.shape(data)
    axis = node.axis(node.attr_int("axis", 0), len(shape))
    indices = _checked_indices(node, 1, shape[axis])
    return node.op(
        "scatter_elements",
        [data, indices, node.input(2, "updates")],
        axis=axis,
        reduction=_reduction(node),
    )


@converter("OneHot")
def one_hot(node: Node) -> Outputs:
    """``one_hot`` of ``depth`` (static); ``values`` is ``[off, on]``; a negative
    index counts from the end (``depth`` added), others out of range give a row of
    ``off``."""
    depth_value = node.static(1, "depth").reshape(-1)
    if depth_value.size != 1:
        raise ConversionError(f"depth must hold one value, got {depth_value.size}")
    depth = int(depth_value[0])
    if depth < 1:
        raise ConversionError(f"depth must be >= 1, got {depth}")
    values = node.input(2, "values")
    if node.shape(values) != (2,):
        raise ConversionError(
            f"values must have shape [2] (off, on), got {list(node.shape(values))}"
        )
    indices = node.input(0)
    if node.dtype(indices).kind != "i":
        indices = node.op("cast", [indices], dtype="int64")
    dim = node.const(depth, node.dtype(indices))
    negative = node.op("less", [indices, node.scalar(0, indices)])
    indices = node.op("where", [negative, node.op("add", [indices, dim]), indices])
    rank = node.rank(node.input(0))
    axis = node.attr_int("axis", -1)
    if not -rank - 1 <= axis <= rank:
        raise ConversionError(f"axis {axis} is out of range for rank {rank} + 1")
    off, on = (node.op("take", [values, node.const(np.int64(i))]) for i in (0, 1))
    return node.op(
        "one_hot",
        [indices, on, off],
        depth=depth,
        axis=axis,
        dtype=str(node.dtype(values)),
    )


@converter("Trilu")
def trilu(node: Node) -> Outputs:
    """``trilu``; ``k`` (a 0-d int64 tensor) defaults to 0."""
    k = node.optional_input(1)
    if k is None:
        k = node.const(np.int64(0))
    elif node.shape(k) != ():
        k = node.reshape(k, [])
    return node.op("trilu", [node.input(0), k], upper=bool(node.attr_int("upper", 1)))
