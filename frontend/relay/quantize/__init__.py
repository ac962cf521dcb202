"""``relay.quantize`` (TVM's automatic quantization) is not part of xrelay: the names
import, and using one is a one-line error naming it. Quantized models come from ONNX
(``QuantizeLinear`` / ``QLinearConv`` ...) or ``relay.qnn.op``."""

from __future__ import annotations

from typing import Any

from xrelay.unsupported import QUANTIZE, unsupported


def __getattr__(name: str) -> Any:
    if name.startswith(("__", "_pytest")):
        raise AttributeError(name)
    return unsupported(f"relay.quantize.{name}", QUANTIZE)
