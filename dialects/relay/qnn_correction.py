"""The legalized form of an integer product whose activation zero point is known
only at run time (dynamic quantization: ``DynamicQuantizeLinear`` computes it from
the activation's range), for ``relay.qnn.transform.Legalize``.

The activation cannot be centered into int16 at compile time, and centering it at run
time would need a zero point proven to lie in its 8-bit range. Instead the product
is split by linearity over the reduction axis ``k``::

    sum_k (x[k] - zx) * (w[k] - zw) = sum_k x[k] * w'[k]  -  zx * sum_k w'[k]

with ``w' = w - zw`` folded at compile time (a constant weight and zero point). The
first term is the same QNN product on ``int16(x)`` (an 8-bit value, uncentered: in
``[-128, 255]``) and the constant int16 ``w'`` with zero zero points, which the int16
kernels (``vpmaddwd``) run: a pair of products ``|a * b + c * d| <= 2 * 255 *
32767`` never saturates. The second is the activation zero point (a run-time
scalar) times the weight's sums per output (a constant folded here), subtracted in
int32. Both sides wrap alike in int32, so the result is the reference's bit for
bit for every input (the reference's int32 sums wrap too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.dialects.relay.base import Array

if TYPE_CHECKING:
    from xrelay.dialects.relay.qnn import QnnProductOp
    from xrelay.dialects.relay.qnn_canonical import QnnBuilder

EIGHT_BIT = ("int8", "uint8")


def _per_tensor(array: Array) -> int | None:
    return int(array.reshape(-1)[0]) if array.size == 1 else None


def corrected_product(b: QnnBuilder, op: QnnProductOp) -> SSAValue | None:
    """``op`` (a QNN product) as the product of ``int16(x)`` with the folded int16
    weight minus ``x_zero_point * weight sums`` (module docstring), when ``x`` is 8-bit
    with a per-tensor zero point that is not a constant, and the weight an 8-bit
    constant with a constant per-tensor zero point whose difference fits int16 and
    whose sums the op can take (:meth:`QnnProductOp.weight_sums`); ``None``
    otherwise (nothing is inserted)."""
    x, w, zx, zw = op.operands[0], op.operands[1], op.operands[2], op.operands[3]
    if b.dtype_of(x) not in EIGHT_BIT or b.constant_of(zx) is not None:
        return None
    if int(np.prod(b.shape_of(zx))) != 1:
        return None
    weight, w_zp = b.constant_of(w), b.constant_of(zw)
    if weight is None or w_zp is None or b.dtype_of(w) not in EIGHT_BIT:
        return None
    z = _per_tensor(w_zp)
    if z is None:
        return None
    folded = weight.astype(np.int64) - z
    if folded.min(initial=0) < -(2**15) or folded.max(initial=0) >= 2**15:
        return None
    sums = op.weight_sums(folded)
    if sums is None:
        return None
    x16 = b.cast(x, "int16")
    clone = op.clone()
    clone.operands = [
        x16,
        b.const_array(folded.astype(np.int16)),
        b.const(0, "int32"),
        b.const(0, "int32"),
        *op.operands[4:],
    ]
    clone.results[0].name_hint = None  # the name goes to the corrected value
    Rewriter.insert_op(clone, InsertPoint.before(b.anchor))
    # the sums wrap into int32 as the product's own int32 sums do
    correction = b.multiply(
        b.scalar(zx), b.const_array(sums.astype(np.int64).astype(np.int32))
    )
    return b.subtract(clone.results[0], correction)
