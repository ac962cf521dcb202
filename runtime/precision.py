"""``precision=`` of :func:`xrelay.build` and ``xrelay-run --precision``: float32 (the
default) or bf16, and where the bf16 choice is made.

``"bf16"`` asks for bfloat16 compute with float32 accumulation: relay.build's
pipeline runs ToMixedPrecision(bfloat16) (config ``xrelay.mixed_precision_type``),
so convolutions and matrix products take bfloat16 operands and accumulate in
float32. That only pays on a CPU with AVX512-BF16 (``vdpbf16ps``: two bfloat16
products per float32 lane per instruction). Elsewhere bfloat16 is a storage type
whose every load and store costs integer shifts and rounding, for no faster
arithmetic, so the choice is made here, per host: without AVX512-BF16 the model is
built exactly as in float32, and a one-line warning says so.
"""

from __future__ import annotations

import functools
import warnings

PRECISIONS: tuple[str, ...] = ("float32", "bf16")
"""The values ``precision`` takes."""

_ALIASES = {"fp32": "float32", "f32": "float32", "bfloat16": "bf16"}


class PrecisionError(ValueError):
    """An unknown ``precision``."""


class PrecisionWarning(UserWarning):
    """The precision asked for is not the one the model runs in on this host."""


def check_precision(value: str) -> str:
    """``value`` as one of :data:`PRECISIONS` (``bfloat16``, ``fp32`` accepted), else
    a one-line :class:`PrecisionError`."""
    name = _ALIASES.get(str(value), str(value))
    if name not in PRECISIONS:
        raise PrecisionError(
            f"precision must be one of {', '.join(PRECISIONS)}, got {value!r}"
        )
    return name


@functools.cache
def host_has_avx512bf16() -> bool:
    """The host CPU has AVX512-BF16 (``vdpbf16ps``), as LLVM reports its features."""
    try:
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features()
    except Exception:  # no usable LLVM: no bf16 compute
        return False
    return bool(features.get("avx512bf16", False))


def build_mixed_precision_type(precision: str) -> str:
    """The ToMixedPrecision type relay.build's pipeline runs for ``precision`` on
    this host: ``""`` (float32 throughout) or ``"bfloat16"``. ``bf16`` on a host
    without AVX512-BF16 gives ``""`` and a :class:`PrecisionWarning`."""
    name = check_precision(precision)
    if name == "float32":
        return ""
    if not host_has_avx512bf16():
        warnings.warn(
            "xrelay: precision bf16: this CPU has no AVX512-BF16 (vdpbf16ps), "
            "so the model runs in float32",
            PrecisionWarning,
            stacklevel=3,
        )
        return ""
    return "bfloat16"
