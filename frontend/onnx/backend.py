"""An ONNX backend (``onnx.backend.base.Backend``) on the LLVM path: ``prepare``
imports the model with :func:`from_onnx`, compiles it with ``xrelay.build`` and
returns a :class:`XrelayRep` whose ``run`` feeds the executor.

    from xrelay.frontend.onnx.backend import XrelayBackend

    rep = XrelayBackend.prepare(model)
    (y,) = rep.run([x])

Where a converter needs the contents of a graph input at import time (the axes of a
reduction, the shape of a Reshape, the sizes of a Resize: xrelay's shapes are
static), ``prepare`` defers the build and ``run`` compiles the model specialised on
the values given for those inputs (they become weights), once per distinct value;
when the value needed is computed from inputs, the small inputs it is computed
from are specialised on (else every small integer input).
``from_onnx`` itself never does this: it fails naming the input.

This is the backend the project runs ``onnx.backend.test``'s node tests with
(``tests/onnx_backend``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.base import Backend, BackendRep

from xrelay.frontend.onnx.errors import OnnxImportError
from xrelay.frontend.onnx.importer import from_onnx

SMALL = 64
"""Integer inputs with at most this many elements may be specialised on when the
import needs a value computed from inputs (a window size, a crop shape)."""


class XrelayRep(BackendRep):
    """A compiled model: ``run(inputs)`` with the graph inputs in order (a list) or
    by name (a dict); returns a tuple of numpy arrays, one per graph output.
    ``specialized``: the inputs the model is compiled for the values of."""

    def __init__(self, model: onnx.ModelProto, options: dict[str, Any]):
        self.model = model
        self.options = options
        initializers = {init.name for init in model.graph.initializer}
        self.input_names = [
            i.name for i in model.graph.input if i.name not in initializers
        ]
        self.specialized: list[str] = []
        self._libs: dict[bytes, Any] = {}

    def _key(self, named: Mapping[str, Any]) -> bytes:
        parts = [b""]
        for name in self.specialized:
            a = np.ascontiguousarray(named[name])
            parts += [str((a.dtype.str, a.shape)).encode(), a.tobytes()]
        return b"|".join(parts)

    def compile(self, named: Mapping[str, Any] | None = None) -> Any:
        """The library for ``named`` (the values of the specialised inputs); adds
        inputs to ``specialized`` while the import needs more of them."""
        while True:
            key = self._key(named or {})
            lib = self._libs.get(key)
            if lib is not None:
                return lib
            try:
                lib = _build(
                    _freeze(self.model, self.specialized, named or {}), self.options
                )
            except OnnxImportError as e:
                more = self._more_static(e.static_input, named)
                if not more:
                    raise
                self.specialized += more
                continue
            self._libs[key] = lib
            return lib

    def _more_static(
        self, name: str | None, named: Mapping[str, Any] | None
    ) -> list[str]:
        """The inputs to specialise on next: the one the import needed, or, when it
        needed a value computed from inputs, the small inputs it is computed from
        (else every small integer input)."""
        if named is None or name is None:
            return []
        if name in self.input_names:
            return [] if name in self.specialized else [name]
        sources = _sources(self.model.graph, name)
        computed_from = [
            k
            for k in self.input_names
            if k in sources
            and k not in self.specialized
            and np.asarray(named[k]).size <= SMALL
        ]
        if computed_from:
            return computed_from
        return [
            k
            for k in self.input_names
            if k not in self.specialized
            and np.asarray(named[k]).dtype.kind in "iu"
            and np.asarray(named[k]).size <= SMALL
        ]

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if isinstance(inputs, Mapping):
            named = {
                str(k): np.asarray(v)
                for k, v in cast(Mapping[Any, Any], inputs).items()
            }
        else:
            values = [np.asarray(v) for v in cast(Sequence[Any], inputs)]
            if len(values) != len(self.input_names):
                raise ValueError(
                    f"the model takes {len(self.input_names)} inputs, {len(values)} were given"
                )
            named = dict(zip(self.input_names, values, strict=True))
        lib = self.compile(named)
        result = lib(**{k: v for k, v in named.items() if k not in self.specialized})
        if isinstance(result, tuple):
            return tuple(cast(tuple[Any, ...], result))
        return (result,)


def _sources(graph: onnx.GraphProto, name: str) -> set[str]:
    """The values ``name`` is computed from in ``graph`` (itself included), through
    the nodes of the top-level graph."""
    producer = {out: node for node in graph.node for out in node.output if out}
    seen: set[str] = set()
    todo = [name]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        node = producer.get(v)
        if node is not None:
            todo += [i for i in node.input if i]
    return seen


def _freeze(
    model: onnx.ModelProto, names: Sequence[str], values: Mapping[str, Any]
) -> onnx.ModelProto:
    """``model`` with the graph inputs ``names`` made initializers of ``values``."""
    if not names:
        return model
    frozen = onnx.ModelProto()
    frozen.CopyFrom(model)
    keep = [i for i in frozen.graph.input if i.name not in names]
    del frozen.graph.input[:]
    frozen.graph.input.extend(keep)
    for name in names:
        frozen.graph.initializer.append(
            numpy_helper.from_array(np.asarray(values[name]), name)
        )
    return frozen


def _build(model: onnx.ModelProto, options: dict[str, Any]) -> Any:
    from xrelay.pass_manager import PassContext
    from xrelay.pass_manager.opt_levels import default_opt_level
    from xrelay.runtime import build

    mod, params = from_onnx(
        model, shape=options.get("shape"), dtype=options.get("dtype", "float32")
    )
    config = {"xrelay.verify_each": bool(options.get("verify_each", False))}
    level = int(options.get("opt_level", default_opt_level("onnx-backend")))
    with PassContext(opt_level=level, config=config):
        return build.build(mod, target="llvm", params=params)


class XrelayBackend(Backend):
    """``onnx.backend`` entry points for xrelay (CPU only)."""

    @classmethod
    def prepare(
        cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any
    ) -> XrelayRep:
        """Import and compile ``model``. ``kwargs``: ``opt_level`` (2:
        :mod:`xrelay.pass_manager.opt_levels`), ``shape`` and
        ``dtype`` (as for :func:`from_onnx`), ``verify_each`` (``False``: the IR is
        not verified after every pass)."""
        if not cls.supports_device(device):
            raise ValueError(f"xrelay runs on the CPU, not on {device!r}")
        rep = XrelayRep(model, dict(kwargs))
        try:
            rep.compile()
        except OnnxImportError as e:
            if e.static_input is None:
                raise
            # compiled on the first run, for the values given there
        return rep

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.upper().startswith("CPU")
