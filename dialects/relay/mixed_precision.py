"""What each relay op does under ToMixedPrecision (Relay's
``FTVMMixedPrecisionConversionType``): the op's category, and the dtypes it
accumulates and returns in.

* ``ALWAYS``: compute-bound ops (convolutions, matrix products) run on operands in
  the low-precision type; where the op has ``out_dtype`` it accumulates and returns
  ``float32`` and ToMixedPrecision casts the result to the low type after it.
* ``FOLLOW``: elementwise and data-movement ops run in the low type when every
  floating operand is already in it (or is a parameter or constant, which can be
  cast), otherwise in ``float32``. Relay's default for an op it knows nothing about.
* ``NEVER``: ops whose result loses too much in 8 bits of mantissa (``exp``, ``log``,
  softmax, sums and means, normalisations) run in ``float32``.

Each op class states its category (``RelayOp.MIXED_PRECISION``) and answers
:meth:`~xrelay.dialects.relay.base.RelayOp.mixed_precision_conversion`; a function
registered under :data:`CONVERSION_KEY` for the op's name
(``relay.op.register_mixed_precision_conversion``) replaces that answer, as in TVM.
"""

from __future__ import annotations

from enum import IntEnum


class MixedPrecisionCategory(IntEnum):
    """Relay's ``MixedTypeConversionCategory`` (same values)."""

    ALWAYS = 0
    FOLLOW = 1
    NEVER = 2


MIXED_PRECISION_ALWAYS = MixedPrecisionCategory.ALWAYS
MIXED_PRECISION_FOLLOW = MixedPrecisionCategory.FOLLOW
MIXED_PRECISION_NEVER = MixedPrecisionCategory.NEVER

CONVERSION_KEY = "FTVMMixedPrecisionConversionType"
"""The op attribute a TVM user registers to override an op's answer."""

MIXED_PRECISION_TYPES: tuple[str, ...] = ("bfloat16", "float16")
"""The low-precision types ToMixedPrecision converts to."""

ACCUMULATION_TYPE = "float32"
"""What ``ALWAYS`` ops with an ``out_dtype`` accumulate and return in."""
