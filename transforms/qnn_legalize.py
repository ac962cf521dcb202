"""QnnLegalize (``relay.qnn.transform.Legalize()``): rewrite the QNN ops into the
form of themselves the CPU kernels run fastest (mirrors Relay's ``QnnLegalize``, the
``FTVMQnnLegalize`` hooks: a function pass at opt_level 1 that requires InferType;
``xrelay.build`` runs it before ``QnnCanonicalize``).

Each QNN op says how (:meth:`xrelay.dialects.relay.qnn.QnnOp.legalize`). The integer
convolution and products (``qnn.conv2d``, ``qnn.dense``, ``qnn.batch_matmul``) with
8-bit operands and constant per-tensor zero points become the same op on
``int16(x) - zero_point`` operands with zero zero points (a constant operand is
folded): ``x - zp`` of an 8-bit value lies in ``[-255, 255]``, so the products of
pairs of such values summed into int32 are exact, which is what x86's
``vpmaddwd`` computes (AVX2, AVX-512BW) and, with the add after it, ``vpdpwssd``
(AVX-512 VNNI, AVX-VNNI: LLVM fuses the two). CanonicalizeOps then emits the relay
op on the int16 operands with int32 sums (``out_dtype``), and the kernels multiply
them with those instructions (:mod:`xrelay.lowering.kernels.int16`). Same bits as
the op's reference; every other op, and operands the rule does not fit (a zero
point not known at compile time, int16 or int32 operands), are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xrelay.pass_manager import PassInfo, PatternPass, register_pass
from xrelay.transforms.qnn_canonicalize import QNN_ROOTS, RewriteQnnOp


@register_pass("QnnLegalize")
@dataclass(frozen=True, eq=False, repr=False)
class QnnLegalize(PatternPass):
    """Rewrite the QNN ops into the forms the kernels run fastest (Relay's
    QnnLegalize: function pass, opt_level 1, requires InferType): one walk of
    :class:`RewriteQnnOp` asking each QNN op's ``legalize``."""

    def __post_init__(self) -> None:
        super().__init__(
            [RewriteQnnOp(lambda op, b: op.legalize(b))],
            PassInfo(1, "QnnLegalize", ["InferType"]),
            roots=QNN_ROOTS,
            types_checked=True,
        )
