"""The ONNX frontend: ``from_onnx(model_or_path, shape=None, dtype="float32",
freeze_params=True) -> (mod, params)``, shaped like TVM's
``relay.frontend.from_onnx``.

``mod["main"]`` takes the graph inputs with static shapes and computes the graph
outputs with relay ops; weights are constants of ``main`` (``freeze_params=True``) or
extra parameters returned in ``params``. Errors are :class:`OnnxImportError` with a
one-line message naming the model file.

Modules: :mod:`.importer` (loading, checking, inputs, the graph walk), :mod:`.graph`
(the builder converters emit with, constant folding, the converter registry) and one
module per op family (:mod:`.elementwise`, :mod:`.nn`, :mod:`.tensor`,
:mod:`.reduce`, :mod:`.resize`).
"""

from __future__ import annotations

from xrelay.frontend.onnx.errors import OnnxImportError as OnnxImportError
from xrelay.frontend.onnx.graph import CONVERTERS, load_converters
from xrelay.frontend.onnx.importer import from_onnx as from_onnx

load_converters()  # every converter module registers itself in CONVERTERS


def supported_ops() -> list[str]:
    """The ONNX op types the frontend converts, sorted."""
    return sorted(CONVERTERS)


__all__ = ["OnnxImportError", "from_onnx", "supported_ops"]
