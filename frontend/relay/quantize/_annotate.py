"""``relay.quantize._annotate``: see :mod:`xrelay.frontend.relay.quantize`."""

from __future__ import annotations

from typing import Any

from xrelay.unsupported import QUANTIZE, unsupported


def __getattr__(name: str) -> Any:
    if name.startswith(("__", "_pytest")):
        raise AttributeError(name)
    return unsupported(f"relay.quantize._annotate.{name}", QUANTIZE)
