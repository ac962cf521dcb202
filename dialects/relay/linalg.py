"""Linear algebra on stacks of matrices: ``det``.

``det`` is numpy's ``linalg.det``: the LU factorization with partial pivoting of each
``[n, n]`` matrix (the pivot of a column is its first entry of largest magnitude on
or below the diagonal, as LAPACK's ``getrf``), and the product of the pivots with the
sign of the row swaps. A singular matrix meets a zero pivot and gives 0. float16 is
factored in float32 (numpy has no float16 ``det``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    DYN,
    FORMAT,
    OpPattern,
    RelayOp,
    TypeRelationError,
    ranked,
    tensor,
)
from xrelay.dialects.relay.dtypes import astype, is_float_dtype, numpy_dtype


@irdl_op_definition
class DetOp(RelayOp):
    """The determinants of the matrices ``data [..., n, n]`` (floats): ``[...]``."""

    name = "relay.det"
    data = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        x = ranked(operand_types[0], "data")
        shape = x.get_shape()
        dt = numpy_dtype(x.get_element_type())
        if not is_float_dtype(dt):
            raise TypeRelationError(f"data must be floating point, got {dt}")
        if len(shape) < 2:
            raise TypeRelationError(
                f"data must be [..., n, n] (rank 2 or more), got rank {len(shape)}"
            )
        n, m = shape[-2], shape[-1]
        if DYN not in (n, m) and n != m:
            raise TypeRelationError(f"the matrices must be square, got {n} x {m}")
        return [tensor(shape[:-2], x.get_element_type())]

    def compute(self, *args: Any) -> Any:
        x = np.asarray(args[0])
        work = np.float32 if x.dtype == np.float16 else x.dtype
        return astype(np.linalg.det(x.astype(work)), x.dtype)


LINALG_OPS: list[type[RelayOp]] = [DetOp]

__all__ = ["LINALG_OPS", "DetOp"]
