"""``relay.qnn.transform``: the QNN passes under TVM's names."""

from __future__ import annotations

from xrelay.pass_manager import Pass


def CanonicalizeOps() -> Pass:
    """Rewrite the ``relay.qnn.*`` ops into integer and float relay ops
    (``QnnCanonicalize``, see :mod:`xrelay.transforms.qnn_canonicalize`)."""
    from xrelay.pass_manager import get_pass

    return get_pass("QnnCanonicalize")
