"""``from_onnx``: an ONNX model into a relay module.

The import runs in three steps, and fails before returning anything:

1. load and check: the file must parse as an ONNX ``ModelProto`` and pass
   ``onnx.checker`` (a failure is one line naming the file);
2. scan: every node's op type must have a converter; otherwise ONE error lists each
   unsupported op type with the first node using it;
3. convert: graph inputs become the parameters of ``main`` (static shapes), weights
   (initializers) become constants or extra parameters, nodes are converted in graph
   order (the graph is topologically sorted, the checker ensures it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from typing import Any, cast

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Region, SSAValue

from xrelay.dialects.relay.structural import TupleOp
from xrelay.frontend.onnx.errors import ConversionError, OnnxImportError
from xrelay.frontend.onnx.folding import fold_node
from xrelay.frontend.onnx.graph import (
    CONVERTERS,
    Builder,
    Graph,
    Initializer,
    Node,
    mark_result,
    numpy_dtype_of,
)
from xrelay.frontend.relay.module import IRModule

ModelLike = onnx.ModelProto | str | os.PathLike[str] | bytes
ShapeDict = Mapping[str, Sequence[int]]


def from_onnx(
    model_or_path: ModelLike,
    shape: ShapeDict | None = None,
    dtype: str | Mapping[str, str] = "float32",
    freeze_params: bool = True,
) -> tuple[IRModule, dict[str, np.ndarray[Any, Any]]]:
    """Import an ONNX model (a ``ModelProto``, a file path or the serialized bytes).

    Returns ``(mod, params)``: ``mod["main"]`` takes the graph inputs (initializers are
    not inputs) and returns the graph output (a tuple for several outputs).

    * ``shape``: static shapes by input name, overriding the declared ones (e.g. a
      symbolic batch dim); an input with a symbolic dim and no entry is an error.
    * ``dtype``: the dtype of inputs that declare none (a string), or by input name (a
      dict, overriding the declared ones).
    * ``freeze_params``: weights become constants of ``main`` (``params`` is empty);
      with ``False`` each weight used as a tensor becomes a parameter of ``main`` after
      the inputs, and ``params`` maps its name to its array (no copy).

    Raises :class:`OnnxImportError` (a ``ValueError``) with a one-line message.
    """
    label, model = load_model(model_or_path)
    return _Importer(model, label, shape, dtype, freeze_params).run()


# ---------------------------------------------------------------------------------------
# Loading and checking
# ---------------------------------------------------------------------------------------


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).replace("==> Context:", "(context:").split())
    if "(context:" in text:
        text += ")"
    return text or type(error).__name__


def load_model(model_or_path: ModelLike) -> tuple[str, onnx.ModelProto]:
    """The model and a label naming it in errors (its path), checked."""
    if isinstance(model_or_path, onnx.ModelProto):
        label = f"model '{model_or_path.graph.name or '?'}'"
        _check(model_or_path, label)
        return label, model_or_path
    if isinstance(model_or_path, bytes):
        label = "<serialized model>"
        model = _parse(lambda: onnx.load_model_from_string(model_or_path), label)
        _check(model, label)
        return label, model
    if not isinstance(cast(object, model_or_path), str | os.PathLike):
        raise OnnxImportError(
            "from_onnx takes an onnx.ModelProto, a path or bytes, got "
            f"{type(model_or_path).__name__}"
        )
    path = os.fspath(model_or_path)
    if not os.path.isfile(path):
        raise OnnxImportError(f"{path}: no such file")
    if os.path.getsize(path) < IN_MEMORY_CHECK_BYTES:
        # the bytes onnx.load would read, checked as they are (the checker's own
        # read and parse of the file cost twice the whole load: ResNet-18 0.06-0.1 s
        # against 0.01 s); checked before parsing, so that the checker's copy of the
        # model is freed before the parsed one is made (the peak of checking by path)
        data = _read(path)
        failure: str | None = None
        try:
            onnx.checker.check_model(data)
        except Exception as e:
            failure = _one_line(e)
        model = _parse(lambda: onnx.load_model_from_string(data), path)
        if not _uses_external_data(model):
            if failure is not None:
                raise OnnxImportError(f"{path}: fails onnx.checker: {failure}")
            return path, model
        # tensors in other files (which the checker finds from the path only)
        del data, model
    try:
        # checking the file first (C++ reads it) keeps the peak memory lower than
        # checking a loaded model, which is serialized again for the checker
        onnx.checker.check_model(path)
    except Exception as e:
        _parse(lambda: onnx.load(path, load_external_data=False), path)
        raise OnnxImportError(f"{path}: fails onnx.checker: {_one_line(e)}") from None
    model = _parse(lambda: onnx.load(path), path)
    return path, model


IN_MEMORY_CHECK_BYTES = 1 << 31
"""Model files smaller than this (the checker's limit for serialized models) are
read once, then parsed and checked from memory."""


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise OnnxImportError(f"{path}: cannot read the file: {_one_line(e)}") from None


def _graph_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    """The tensors of a graph: initializers and node attributes, subgraphs too."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in graph.node:
        yield from _node_tensors(node)


def _node_tensors(node: onnx.NodeProto) -> Iterator[onnx.TensorProto]:
    for attr in node.attribute:
        if attr.HasField("t"):
            yield attr.t
        yield from attr.tensors
        if attr.HasField("g"):
            yield from _graph_tensors(attr.g)
        for g in attr.graphs:
            yield from _graph_tensors(g)


def _uses_external_data(model: onnx.ModelProto) -> bool:
    """Whether a tensor of ``model`` keeps its data in another file."""
    tensors = chain(
        _graph_tensors(model.graph),
        (t for f in model.functions for n in f.node for t in _node_tensors(n)),
    )
    return any(t.data_location == onnx.TensorProto.EXTERNAL for t in tensors)


def _parse(load: Any, label: str) -> onnx.ModelProto:
    try:
        model = cast(onnx.ModelProto, load())
    except OSError as e:
        raise OnnxImportError(
            f"{label}: cannot read the file: {_one_line(e)}"
        ) from None
    except Exception:
        raise OnnxImportError(
            f"{label}: not an ONNX model (the file is truncated or is not an ONNX "
            "protobuf)"
        ) from None
    if not model.HasField("graph") and model.ir_version == 0:
        raise OnnxImportError(
            f"{label}: not an ONNX model (no graph; the file is empty or not an ONNX "
            "protobuf)"
        )
    return model


def _check(model: onnx.ModelProto, label: str) -> None:
    try:
        onnx.checker.check_model(model)
    except Exception as e:
        raise OnnxImportError(f"{label}: fails onnx.checker: {_one_line(e)}") from None


# ---------------------------------------------------------------------------------------
# The import
# ---------------------------------------------------------------------------------------


def op_key(node: onnx.NodeProto) -> str:
    """The registry key of a node: its op type, prefixed by its domain when that is
    not the default one."""
    if node.domain in ("", "ai.onnx"):
        return node.op_type
    return f"{node.domain}.{node.op_type}"


def node_label(node: onnx.NodeProto, index: int) -> str:
    return f"'{node.name}'" if node.name else f"#{index}"


def unsupported_ops(graph: onnx.GraphProto) -> dict[str, str]:
    """Op types without a converter → the first node using each."""
    found: dict[str, str] = {}
    for index, node in enumerate(graph.node):
        key = op_key(node)
        if key not in CONVERTERS and key not in found:
            found[key] = node_label(node, index)
    return found


class _Importer:
    def __init__(
        self,
        model: onnx.ModelProto,
        label: str,
        shape: ShapeDict | None,
        dtype: str | Mapping[str, str],
        freeze_params: bool,
    ):
        self.model = model
        self.label = label
        self.shapes = dict(shape or {})
        self.dtype = dtype
        self.freeze_params = freeze_params

    def fail(self, message: str) -> OnnxImportError:
        return OnnxImportError(f"{self.label}: {message}")

    def opset(self) -> int:
        for imp in self.model.opset_import:
            if imp.domain in ("", "ai.onnx"):
                return int(imp.version)
        if all(node.domain not in ("", "ai.onnx") for node in self.model.graph.node):
            # only other domains (ai.onnx.ml): no converter reads the default opset
            return int(onnx.defs.onnx_opset_version())
        raise self.fail("the model imports no version of the default ONNX opset")

    def run(self) -> tuple[IRModule, dict[str, np.ndarray[Any, Any]]]:
        graph = self.model.graph
        opset = self.opset()
        # nodes without a converter are folded when their inputs are constants;
        # the others are listed in one error after the walk
        foldable = bool(unsupported_ops(graph))
        if len(graph.sparse_initializer):
            raise self.fail("sparse initializers are not supported")

        builder = Builder()
        g = Graph(builder, self.freeze_params, opset)
        g.consumed = {name for node in graph.node for name in node.input if name}
        g.consumed |= {out.name for out in graph.output}
        for order, init in enumerate(graph.initializer):
            g.env[init.name] = Initializer(init.name, self.weight(init), order)
        self.add_inputs(graph, g)
        if foldable:
            self.convert_folding(graph, g)
        else:
            for index, proto in enumerate(graph.node):
                self.convert(proto, index, g)

        results: list[SSAValue] = []
        for out in graph.output:
            if out.name not in g.env:
                raise self.fail(
                    f"graph output '{out.name}' is not computed by any node"
                )
            results.append(g.runtime(out.name))
        if not results:
            raise self.fail("the graph has no outputs")
        if len(results) == 1:
            result = results[0]
        else:  # never folded: a tuple of values, not a constant
            result = TupleOp.make(results).results[0]
            builder.block.add_op(cast(TupleOp, result.owner))
        builder.block.add_op(ReturnOp(result))
        builder.remove_dead_ops()
        builder.remove_unused_params()
        # in the order of main's parameters
        params = {name: g.params[name] for name in builder.param_names}
        func = FuncOp(
            "main",
            ([a.type for a in builder.block.args], [result.type]),
            Region(builder.block),
        )
        module = ModuleOp([func])
        try:
            module.verify()
        except Exception as e:  # a converter bug rather than a user error
            raise self.fail(
                f"the imported module does not verify: {_one_line(e)}"
            ) from e
        return IRModule(module), params

    def weight(self, init: onnx.TensorProto) -> np.ndarray[Any, Any]:
        """An initializer's array (``to_array`` views the raw bytes: one copy of the
        weight, shared by the constant or returned in ``params``)."""
        try:
            numpy_dtype_of(init.data_type, f"initializer '{init.name}'")
            return numpy_helper.to_array(init)
        except ConversionError as e:
            raise self.fail(str(e)) from None
        except Exception as e:
            raise self.fail(
                f"cannot read initializer '{init.name}': {_one_line(e)}"
            ) from None

    # -- inputs -------------------------------------------------------------------------

    def add_inputs(self, graph: onnx.GraphProto, g: Graph) -> None:
        names = [i.name for i in graph.input if i.name not in g.env]
        unknown = [k for k in self.shapes if k not in names]
        if unknown:
            raise self.fail(
                f"shape is given for {', '.join(repr(k) for k in unknown)}, which "
                f"{'is not an input' if len(unknown) == 1 else 'are not inputs'} of "
                f"the graph (inputs: {', '.join(names) or 'none'})"
            )
        for info in graph.input:
            if info.name in g.env:  # an initializer also listed as an input
                continue
            shape, dtype = self.input_type(info)
            g.env[info.name] = g.builder.add_input(info.name, shape, dtype)

    def input_type(self, info: onnx.ValueInfoProto) -> tuple[list[int], np.dtype[Any]]:
        name = info.name
        if info.type.WhichOneof("value") != "tensor_type":
            raise self.fail(f"input '{name}' is not a tensor")
        tt = info.type.tensor_type
        declared: list[int | str] | None = None
        if tt.HasField("shape"):
            declared = [
                d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
                for d in tt.shape.dim
            ]
        override = self.shapes.get(name)
        if override is not None:
            try:
                shape = [int(d) for d in override]
            except (TypeError, ValueError):
                raise self.fail(
                    f"shape[{name!r}] must be a sequence of ints, got {override!r}"
                ) from None
            if any(d < 0 for d in shape):
                raise self.fail(f"shape[{name!r}] = {shape} has a negative dim")
            if declared is not None and len(declared) != len(shape):
                raise self.fail(
                    f"shape[{name!r}] = {tuple(shape)} has rank {len(shape)} but input "
                    f"'{name}' has rank {len(declared)}"
                )
        elif declared is None:
            raise self.fail(
                f"input '{name}' has no declared shape: give it with "
                f"shape={{{name!r}: (...)}}"
            )
        else:
            for k, d in enumerate(declared):
                if isinstance(d, str):
                    raise self.fail(
                        f"input '{name}' has the symbolic dim {k} ('{d}'): give its size "
                        f"with shape={{{name!r}: (...)}}"
                    )
            shape = [int(d) for d in declared]
        if isinstance(self.dtype, Mapping) and name in self.dtype:
            dtype_name = self.dtype[name]
        elif tt.elem_type:
            try:
                return shape, numpy_dtype_of(tt.elem_type, f"input '{name}'")
            except ConversionError as e:
                raise self.fail(str(e)) from None
        elif isinstance(self.dtype, str):
            dtype_name = self.dtype
        else:
            raise self.fail(f"input '{name}' declares no dtype: give it with dtype=")
        try:
            return shape, np.dtype(dtype_name)
        except TypeError:
            raise self.fail(
                f"unknown dtype {dtype_name!r} for input '{name}'"
            ) from None

    # -- nodes --------------------------------------------------------------------------

    def convert_folding(self, graph: onnx.GraphProto, g: Graph) -> None:
        """Convert the nodes; a node without a converter is evaluated when its inputs
        are constants (:mod:`.folding`), else it is unsupported and the nodes reading
        its outputs are skipped. Raises one error listing every unsupported op type
        (before any other conversion error)."""
        opsets = {imp.domain or "": int(imp.version) for imp in self.model.opset_import}
        missing: dict[str, str] = {}
        poisoned: set[str] = set()
        deferred: OnnxImportError | None = None
        for index, proto in enumerate(graph.node):
            key = op_key(proto)
            if key not in CONVERTERS:
                if not fold_node(proto, g, opsets):
                    missing.setdefault(key, node_label(proto, index))
                    poisoned.update(proto.output)
                continue
            if poisoned.intersection(proto.input) or deferred is not None:
                poisoned.update(proto.output)
                continue
            try:
                self.convert(proto, index, g)
            except OnnxImportError as e:
                deferred = e
                poisoned.update(proto.output)
        if missing:
            listing = ", ".join(f"{k} (first at node {v})" for k, v in missing.items())
            raise self.fail(
                f"{len(missing)} unsupported ONNX operator"
                f"{'s' if len(missing) > 1 else ''}: {listing}"
            )
        if deferred is not None:
            raise deferred

    def convert(self, proto: onnx.NodeProto, index: int, g: Graph) -> None:
        where = f"node {node_label(proto, index)} ({proto.op_type})"
        for name in proto.input:
            if name and name not in g.env:
                raise self.fail(f"{where}: input '{name}' is not defined before it")
        node = Node(proto, g)
        try:
            result = CONVERTERS[op_key(proto)](node)
        except ConversionError as e:
            error = self.fail(f"{where}: {e}")
            error.static_input = e.static_input
            raise error from None
        except OnnxImportError:
            raise
        except Exception as e:
            raise self.fail(f"{where}: {_one_line(e)}") from e
        values = [result] if isinstance(result, SSAValue) else list(result)
        for i, name in enumerate(proto.output):
            if not name:
                continue
            value = values[i] if i < len(values) else None
            if value is None:
                if name in g.consumed:
                    raise self.fail(
                        f"{where}: output #{i} ('{name}') is not supported by the "
                        "frontend"
                    )
                continue
            mark_result(value, name)
            g.env[name] = value
