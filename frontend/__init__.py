"""xrelay.frontend: the ``tvm.relay``-shaped builder (:mod:`xrelay.frontend.relay`) and
the ONNX importer (``xrelay.frontend.from_onnx``, from :mod:`xrelay.frontend.onnx`;
loaded on first use so that the builder does not import ONNX)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xrelay.frontend.onnx import OnnxImportError as OnnxImportError
    from xrelay.frontend.onnx import from_onnx as from_onnx


def __getattr__(name: str) -> object:
    if name in ("from_onnx", "OnnxImportError"):
        from xrelay.frontend import onnx

        return getattr(onnx, name)
    raise AttributeError(f"module 'xrelay.frontend' has no attribute {name!r}")
