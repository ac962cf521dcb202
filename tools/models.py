"""Loading models for the command-line tools: relay IR in ``.mlir`` files (parsed
with ``file:line:col`` locations) and ONNX models (through
``xrelay.frontend.from_onnx``, looked up at run time: the importer is optional).
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError

from xrelay.dialects.context import mlir_context as mlir_context
from xrelay.dialects.relay.dominance import verify_module
from xrelay.runtime.files import FileKindError, read_regular_file
from xrelay.tools.diagnostics import UserError
from xrelay.tools.locations import parse_mlir

MODEL_SIZE_LIMIT = 1 << 36
"""The largest model file the tools read (64 GiB)."""


def read_bytes(path: Path) -> bytes:
    """The bytes of a model file: a regular file of at most
    :data:`MODEL_SIZE_LIMIT` bytes (a FIFO or a device is refused, never waited on
    or read without end)."""
    try:
        return read_regular_file(path, MODEL_SIZE_LIMIT)
    except FileKindError as e:
        raise UserError(str(e)) from e
    except OSError as e:
        raise UserError(f"cannot read '{path}': {e.strerror or e}") from e


def load_mlir(path: Path, ctx: Context | None = None) -> ModuleOp:
    """Parse and verify a ``.mlir`` file; errors are located :class:`UserError`s."""
    from xrelay.tools.diagnostics import located

    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"'{path}' is not UTF-8 text: {e.reason}") from e
    try:
        module = parse_mlir(ctx or mlir_context(), text, str(path))
    except ParseError as e:
        raise located(e, None) from e
    try:
        verify_module(module)
    except Exception as e:
        raise located(e, module) from e
    return module


def onnx_importer() -> Callable[..., Any] | None:
    """``xrelay.frontend.from_onnx`` if the ONNX frontend exists, else None."""
    frontend = importlib.import_module("xrelay.frontend")
    try:
        found = getattr(frontend, "from_onnx", None)
    except ImportError:  # declared, but its module (or the onnx package) is missing
        return None
    return found if callable(found) else None


def _load_external_data(model: Any, name: str) -> None:
    """Read the tensors a model stores in external files, which ONNX resolves
    relative to the model's own folder (``name`` is its path; stdin: the current
    folder). A missing or unreadable file is a one-line error."""
    from onnx import external_data_helper

    if not any(
        t.data_location == t.EXTERNAL
        for t in external_data_helper._get_all_tensors(model)  # pyright: ignore[reportPrivateUsage]
    ):
        return
    base = os.path.dirname(os.path.abspath(name)) if os.path.isfile(name) else "."
    try:
        external_data_helper.load_external_data_for_model(model, base)
    except Exception as e:
        from xrelay.tools.diagnostics import first_line

        raise UserError(
            f"{name}: cannot read the model's external data (looked up in {base}): "
            f"{first_line(str(e))}"
        ) from e


def load_onnx(
    data: bytes, name: str, shapes: Mapping[str, Sequence[int]] | None = None
) -> tuple[ModuleOp, dict[str, Any]]:
    """Import an ONNX model with ``xrelay.frontend.from_onnx``: the module and its
    params (``{}`` when the importer binds the weights into the module)."""
    importer = onnx_importer()
    if importer is None:
        raise UserError(
            f"{name}: ONNX models need the ONNX frontend "
            "(xrelay.frontend.from_onnx), which this build does not have yet; "
            "convert the model to relay IR (.mlir) instead"
        )
    try:
        import onnx
    except ImportError as e:
        raise UserError(f"{name}: the 'onnx' package is not installed") from e
    try:
        model = onnx.load_model_from_string(data)
    except Exception as e:
        raise UserError(f"{name}: not a valid ONNX model: {e}") from e
    _load_external_data(model, name)
    kwargs: dict[str, Any] = {}
    if shapes:
        try:
            if "shape" in inspect.signature(importer).parameters:
                kwargs["shape"] = {k: tuple(v) for k, v in shapes.items()}
        except (TypeError, ValueError):
            pass
    try:
        result = importer(model, **kwargs)
    except UserError:
        raise
    except Exception as e:
        from xrelay.tools.diagnostics import first_line

        raise UserError(f"{name}: {first_line(str(e))}") from e
    params: dict[str, Any] = {}
    if isinstance(result, tuple):
        mod: Any = result[0]
        if len(result) > 1 and isinstance(result[1], Mapping):
            params = dict(result[1])
    else:
        mod = result
    module = mod if isinstance(mod, ModuleOp) else getattr(mod, "module", None)
    if not isinstance(module, ModuleOp):
        raise UserError(
            f"{name}: the ONNX frontend returned {type(mod).__name__}, not a module"
        )
    return module, {k: _as_array(v) for k, v in params.items()}


def _as_array(value: Any) -> Any:
    numpy = getattr(value, "numpy", None)
    return numpy() if callable(numpy) else value
