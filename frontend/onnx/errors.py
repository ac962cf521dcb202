"""The errors of the ONNX frontend."""

from __future__ import annotations


class OnnxImportError(ValueError):
    """The model cannot be imported: the file cannot be read or parsed, the graph fails
    ``onnx.checker``, it uses operators the frontend does not support, or a node cannot
    be converted. The message is one line and names the model (its file).

    ``static_input`` names the ONNX value whose contents a converter needed at import
    time (axes, a shape, sizes, scales) when that is why the import failed."""

    static_input: str | None = None


class ConversionError(Exception):
    """Raised by a converter: this node cannot be converted (the importer adds the
    model, node name and op type to the message). ``static_input``: see
    :class:`OnnxImportError`."""

    def __init__(self, message: str, static_input: str | None = None):
        super().__init__(message)
        self.static_input = static_input
