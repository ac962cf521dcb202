"""The executor of compiled models, shaped like TVM's graph executor.

    m = lib.create()
    m.set_input("input", x)      # or set_input(0, x), or set_input(input=x)
    m.run()                      # one native call
    y = m.get_output(0)          # a numpy array

A :class:`GraphModule` owns its input, output and arena buffers (allocated once,
64-byte aligned); the weights belong to the library and are shared by every
executor. ``run()`` is a single ``ctypes`` call of ``xrelay_entry(args)``, which
releases the GIL while the model runs.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import numpy as np

from xrelay.runtime.spec import Array, ModelSpec, TensorSpec

ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
"""``void xrelay_entry(void **args)``."""

ALIGNMENT = 64


class ExecutorError(ValueError):
    """Bad use of an executor: unknown input, wrong shape, output out of range."""


def aligned_empty(shape: Sequence[int], dtype: np.dtype[Any] | str) -> Array:
    """An uninitialised C-contiguous array whose data is 64-byte aligned."""
    dt = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    nbytes = max(count * dt.itemsize, 1)
    raw = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGNMENT
    return raw[start : start + count * dt.itemsize].view(dt).reshape(shape)


class Executable:
    """A compiled model ready to run: its entry point, interface and weight table.
    Made by the JIT (:class:`xrelay.runtime.library.Library`) or by loading a shared
    library; ``keepalive`` holds whatever owns the code and the weights."""

    def __init__(
        self,
        spec: ModelSpec,
        entry_address: int,
        weight_pointers: Sequence[int],
        keepalive: Sequence[object] = (),
    ):
        self.spec = spec
        self.entry = ENTRY_TYPE(entry_address)
        n = max(len(weight_pointers), 1)
        self.weight_table = (ctypes.c_void_p * n)(*weight_pointers)
        self.keepalive = list(keepalive)


class GraphModule:
    """One executor of a compiled model (see the module docstring)."""

    def __init__(self, exe: Executable):
        self._exe = exe
        spec = exe.spec
        self._inputs = [aligned_empty(t.shape, t.dtype) for t in spec.inputs]
        for arr in self._inputs:
            arr.fill(0)
        self._outputs = [aligned_empty(t.shape, t.dtype) for t in spec.outputs]
        self._arena = aligned_empty((max(spec.arena_size, 1),), np.dtype(np.uint8))
        pointers = [a.ctypes.data for a in self._inputs + self._outputs]
        pointers += [ctypes.addressof(exe.weight_table), self._arena.ctypes.data]
        self._args = (ctypes.c_void_p * len(pointers))(*pointers)
        self._args_address = ctypes.addressof(self._args)
        self._names = {t.name: i for i, t in enumerate(spec.inputs)}

    # -- inputs ---------------------------------------------------------------------------

    def get_num_inputs(self) -> int:
        return len(self._inputs)

    def get_num_outputs(self) -> int:
        return len(self._outputs)

    def get_input_index(self, name: str) -> int:
        index = self._names.get(name)
        if index is None:
            known = ", ".join(self._names) or "none"
            raise ExecutorError(
                f"the model has no input named {name!r} (inputs: {known})"
            )
        return index

    def _index(self, key: int | str) -> int:
        if isinstance(key, str):
            return self.get_input_index(key)
        if not 0 <= key < len(self._inputs):
            raise ExecutorError(
                f"input index {key} is out of range (the model has {len(self._inputs)} "
                "inputs)"
            )
        return key

    def set_input(
        self,
        key: int | str | dict[str, Any] | None = None,
        value: Any = None,
        **params: Any,
    ) -> None:
        """Copy ``value`` into input ``key`` (a name or an index); ``key`` may also be
        a dict of name → array, and inputs may be given as keyword arguments."""
        if isinstance(key, dict):
            params = {**key, **params}
        elif key is not None:
            self._set(self._index(key), value)
        for name, v in params.items():
            self._set(self.get_input_index(name), v)

    def _set(self, index: int, value: Any) -> None:
        spec: TensorSpec = self._exe.spec.inputs[index]
        arr = np.asarray(value)
        if arr.shape != spec.shape:
            raise ExecutorError(
                f"input {spec.name!r} has shape {list(spec.shape)}, got an array of shape "
                f"{list(arr.shape)}"
            )
        if arr.dtype != spec.np_dtype and not np.can_cast(
            arr.dtype, spec.np_dtype, "same_kind"
        ):
            raise ExecutorError(
                f"input {spec.name!r} has dtype {spec.dtype}, got {arr.dtype}"
            )
        np.copyto(self._inputs[index], arr, casting="unsafe")

    def get_input(self, index: int | str) -> Array:
        """A copy of an input's current value."""
        return self._inputs[self._index(index)].copy()

    # -- running ----------------------------------------------------------------------------

    def run(self, **inputs: Any) -> None:
        """Run the model once (after setting any inputs given by name)."""
        if inputs:
            self.set_input(**inputs)
        self._exe.entry(self._args_address)

    def get_output(self, index: int, out: Array | None = None) -> Array:
        """Output ``index`` as a new numpy array (or copied into ``out``)."""
        if not 0 <= index < len(self._outputs):
            raise ExecutorError(
                f"output index {index} is out of range (the model has "
                f"{len(self._outputs)} outputs)"
            )
        if out is not None:
            np.copyto(out, self._outputs[index])
            return out
        return self._outputs[index].copy()

    def benchmark_run(self, repeat: int) -> None:
        """Run ``repeat`` times (for timing, without Python work in between)."""
        entry, args = self._exe.entry, self._args_address
        for _ in range(repeat):
            entry(args)
