"""``relay.qnn.transform``: the QNN passes under TVM's names."""

from __future__ import annotations

from xrelay.pass_manager import Pass


def CanonicalizeOps() -> Pass:
    """Rewrite the ``relay.qnn.*`` ops into integer and float relay ops
    (``QnnCanonicalize``, see :mod:`xrelay.transforms.qnn_canonicalize`)."""
    from xrelay.pass_manager import get_pass

    return get_pass("QnnCanonicalize")


def Legalize() -> Pass:
    """Rewrite the QNN ops into the forms the CPU kernels run fastest: 8-bit
    operands of the integer convolution and products centered into int16
    (``QnnLegalize``, see :mod:`xrelay.transforms.qnn_legalize`)."""
    from xrelay.pass_manager import get_pass

    return get_pass("QnnLegalize")
