"""``relay.frontend`` (TVM's ``tvm.relay.frontend``): model importers with TVM's
signatures. Only ONNX is here; other frameworks are a one-line error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def from_onnx(
    model: Any,
    shape: Mapping[str, Any] | None = None,
    dtype: str | Mapping[str, str] = "float32",
    opset: int | None = None,
    freeze_params: bool = True,
    convert_config: Mapping[str, Any] | None = None,
    export_node_renamed_model_path: str | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Import an ONNX model (a ``ModelProto``, a path or its bytes): ``(mod, params)``.

    ``opset`` overrides nothing: the model's own opset imports are what xrelay
    reads (an ``opset`` differing from them is an error, not a reinterpretation).
    ``convert_config`` and ``export_node_renamed_model_path`` have no xrelay meaning
    and must be left unset."""
    from xrelay.frontend import from_onnx as import_onnx

    if convert_config:
        raise ValueError(
            f"relay.frontend.from_onnx: convert_config {dict(convert_config)!r} is not "
            "supported by xrelay"
        )
    if export_node_renamed_model_path is not None:
        raise ValueError(
            "relay.frontend.from_onnx: export_node_renamed_model_path is not supported"
        )
    if opset is not None:
        declared = _default_opset(model)
        if declared is not None and declared != int(opset):
            raise ValueError(
                f"relay.frontend.from_onnx: opset={opset} differs from the model's "
                f"opset {declared} (xrelay reads the model's)"
            )
    return import_onnx(model, shape, dtype, freeze_params)


def _default_opset(model: Any) -> int | None:
    imports = getattr(model, "opset_import", None)
    if imports is None:
        return None
    for entry in imports:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    return None


def _unsupported(framework: str) -> Any:
    def importer(*args: Any, **kwargs: Any) -> Any:
        del args, kwargs
        raise NotImplementedError(
            f"relay.frontend.from_{framework}: xrelay imports ONNX models only "
            "(export the model to ONNX and use relay.frontend.from_onnx)"
        )

    importer.__name__ = f"from_{framework}"
    return importer


from_pytorch = _unsupported("pytorch")
from_tensorflow = _unsupported("tensorflow")
from_tflite = _unsupported("tflite")
from_keras = _unsupported("keras")
from_mxnet = _unsupported("mxnet")
from_paddle = _unsupported("paddle")
from_caffe2 = _unsupported("caffe2")
from_coreml = _unsupported("coreml")
from_darknet = _unsupported("darknet")
