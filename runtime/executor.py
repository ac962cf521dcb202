"""The executor of compiled models, shaped like TVM's graph executor.

    m = lib.create()
    m.set_input("input", x)      # or set_input(0, x), or set_input(input=x)
    m.run()                      # one native call
    y = m.get_output(0)          # a numpy array

A :class:`GraphModule` owns its input, output and arena buffers (allocated once,
64-byte aligned); the weights belong to the library and are shared by every
executor. ``run()`` is a single ``ctypes`` call of ``xrelay_entry(args, nthreads)``,
which releases the GIL while the model runs on the model's own thread team
(:mod:`xrelay.runtime.threads` says how big; on x86-64 Linux its workers outlive
the call, :mod:`xrelay.lowering.llvm.thread_pool`).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from xrelay.runtime.profile import Profile
from xrelay.runtime.spec import Array, ModelSpec, TensorSpec
from xrelay.runtime.threads import (
    MAX_THREADS,
    check_count,
    requested_threads,
    team_size,
)
from xrelay.status import STATUS_BYTES, error_of

ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)
"""``void xrelay_entry(void **args, int64_t nthreads)``."""

ALIGNMENT = 64


class ExecutorError(ValueError):
    """Bad use of an executor: unknown input, wrong shape, output out of range."""


def aligned_empty(shape: Sequence[int], dtype: np.dtype[Any] | str) -> Array:
    """An uninitialised C-contiguous array whose data is 64-byte aligned; a
    ``MemoryError`` when no array can be that large (the size is counted exactly: an
    int64 product would wrap around and give a buffer smaller than the tensor)."""
    dt = np.dtype(dtype)
    count = math.prod(int(d) for d in shape)
    nbytes = max(count * dt.itemsize, 1)
    if nbytes + ALIGNMENT >= 1 << 63:
        raise MemoryError(
            f"a {dt} tensor of shape {list(shape)} ({nbytes} bytes) cannot be allocated"
        )
    raw = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGNMENT
    return raw[start : start + count * dt.itemsize].view(dt).reshape(shape)


def _address_reader() -> Any:
    """A function giving the data address of a numpy array: numpy's ``PyArray_DATA``
    (the first field after the object header) read straight from the array object,
    which costs a tenth of ``arr.ctypes.data``; checked on probes at import, with
    ``arr.ctypes.data`` as the fallback where the layout differs."""
    head = ctypes.sizeof(ctypes.c_ssize_t) + ctypes.sizeof(ctypes.c_void_p)

    word = ctypes.c_void_p.from_address

    def fast(arr: Array) -> int:
        return word(id(arr) + head).value or 0

    def slow(arr: Array) -> int:
        return arr.ctypes.data

    probes: list[Array] = [np.empty(1, np.float32), np.empty(100, np.int8)]
    probes.append(np.empty((4, 4), np.float64)[1:])
    if all(fast(p) == p.ctypes.data for p in probes):
        return fast
    return slow


data_address = _address_reader()
"""``data_address(arr)``: where the data of the numpy array ``arr`` starts."""


def zero_copy_problem(spec: TensorSpec, value: Any) -> str | None:
    """Why ``value`` cannot be bound in place as the tensor ``spec`` (a phrase to
    follow its name), or ``None`` when it can: a C-contiguous, aligned numpy array
    of the tensor's shape and dtype."""
    if not isinstance(value, np.ndarray):
        return ": a numpy array is needed"
    arr: Array = value  # pyright: ignore[reportUnknownVariableType]
    if arr.shape != spec.shape or arr.dtype != spec.np_dtype:
        return f" is {spec.dtype}{list(spec.shape)}, got {arr.dtype}{list(arr.shape)}"
    if not arr.flags.c_contiguous or not arr.flags.aligned:
        return ": the array must be C-contiguous and aligned"
    return None


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
        num_threads: int | None = None,
    ):
        self.spec = spec
        self.num_threads = requested_threads(num_threads)
        """The thread count asked for (``None``: chosen per executor,
        :func:`xrelay.runtime.threads.team_size`)."""
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
        # the arena, then the run's status block (xrelay.status), zeroed, then a
        # profiled build's timing buffer (xrelay.runtime.profile)
        rows = 0 if spec.profile is None else len(spec.profile) + 1
        timing = MAX_THREADS * rows * 2 * 8
        self._arena = aligned_empty(
            (spec.arena_size + STATUS_BYTES + timing,), np.dtype(np.uint8)
        )
        status_end = spec.arena_size + STATUS_BYTES
        self._status = self._arena[spec.arena_size : status_end].view(np.int64)
        self._status.fill(0)
        self._stamps = (
            self._arena[status_end:].view(np.int64).reshape(MAX_THREADS, rows, 2)
        )
        pointers = [a.ctypes.data for a in self._inputs + self._outputs]
        pointers += [ctypes.addressof(exe.weight_table), self._arena.ctypes.data]
        self._args = (ctypes.c_void_p * len(pointers))(*pointers)
        self._args_address = ctypes.addressof(self._args)
        self._names = {t.name: i for i, t in enumerate(spec.inputs)}
        self._threads = team_size(exe.num_threads, spec.work)
        self._bound: dict[int, Array] = {}
        """Caller arrays bound without copies, by argument slot (kept alive)."""
        self._own_outputs = list(self._outputs)
        # the one-call path (:meth:`call`): what each argument slot needs, and the
        # addresses of the executor's own buffers to go back to
        self._in_types = [(t.shape, t.np_dtype) for t in spec.inputs]
        self._out_types = [(t.shape, t.np_dtype) for t in spec.outputs]
        self._own_slots = pointers[: len(self._inputs) + len(self._outputs)]
        self._status_word = ctypes.c_int64.from_address(self._status.ctypes.data)

    # -- threads ----------------------------------------------------------------------

    @property
    def num_threads(self) -> int:
        """How many threads run the model (see :mod:`xrelay.runtime.threads`)."""
        return self._threads

    def set_num_threads(self, count: int) -> None:
        """Run the model with ``count`` threads from now on."""
        self._threads = check_count(count, "num_threads")

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
        shape, dtype = self._in_types[index]
        arr = value if type(value) is np.ndarray else np.asarray(value)
        if arr.shape != shape:
            spec: TensorSpec = self._exe.spec.inputs[index]
            raise ExecutorError(
                f"input {spec.name!r} has shape {list(spec.shape)}, got an array of shape "
                f"{list(arr.shape)}"
            )
        if arr.dtype != dtype and not np.can_cast(arr.dtype, dtype, "same_kind"):
            spec = self._exe.spec.inputs[index]
            raise ExecutorError(
                f"input {spec.name!r} has dtype {spec.dtype}, got {arr.dtype}"
            )
        # (item assignment casts as copyto's "unsafe" and costs a third of it)
        self._inputs[index][...] = arr
        self._args[index] = self._own_slots[index]  # unbind a zero-copy input

    def _check_bindable(self, spec: TensorSpec, value: Any, what: str) -> Array:
        problem = zero_copy_problem(spec, value)
        if problem is not None:
            raise ExecutorError(f"{what} {spec.name!r}{problem}")
        return value

    def set_input_zero_copy(self, key: int | str, value: Array) -> None:
        """Let the model read input ``key`` from ``value`` itself (no copy; TVM's
        ``set_input_zero_copy``): ``value`` must be a C-contiguous array of the
        input's shape and dtype, and is read by every run until the input is set
        again."""
        index = self._index(key)
        spec = self._exe.spec.inputs[index]
        arr = self._check_bindable(spec, value, "input")
        self._bound[index] = arr
        self._args[index] = arr.ctypes.data

    def set_output_zero_copy(self, index: int, value: Array) -> None:
        """Let the model write output ``index`` straight into ``value`` (no copy):
        a C-contiguous, writeable array of the output's shape and dtype."""
        self._check_output_index(index)
        spec = self._exe.spec.outputs[index]
        arr = self._check_bindable(spec, value, "output")
        if not arr.flags.writeable:
            raise ExecutorError(f"output {spec.name!r}: the array is read-only")
        slot = len(self._inputs) + index
        self._bound[slot] = arr
        self._outputs[index] = arr
        self._args[slot] = arr.ctypes.data

    def get_input(self, index: int | str) -> Array:
        """A copy of an input's current value."""
        return self._inputs[self._index(index)].copy()

    # -- running ----------------------------------------------------------------------------

    def run(self, **inputs: Any) -> None:
        """Run the model once (after setting any inputs given by name)."""
        if inputs:
            self.set_input(**inputs)
        self._exe.entry(self._args_address, self._threads)
        if self._status_word.value:
            self._raise_status()

    def call(self, arrays: Sequence[Any]) -> list[Array]:
        """Run once on ``arrays`` (every input, in order) and return new output
        arrays: the fast path of ``lib(*arrays)``. Inputs that are C-contiguous,
        aligned numpy arrays of the input's shape and dtype are read in place, the
        others are copied (and cast) into the executor's own buffers; the outputs are
        written straight into the arrays returned. Nothing stays bound afterwards."""
        n_in = len(self._in_types)
        if len(arrays) != n_in:
            raise ExecutorError(
                f"the model takes {n_in} inputs, {len(arrays)} were given"
            )
        if self._bound:
            self.release_bindings()
        args = self._args
        for i, a in enumerate(arrays):
            shape, dtype = self._in_types[i]
            if type(a) is np.ndarray and a.shape == shape and a.dtype == dtype:
                flags = a.flags
                if flags.c_contiguous and flags.aligned:
                    args[i] = data_address(a)
                    continue
            self._set(i, a)
        outs = [np.empty(shape, dtype) for shape, dtype in self._out_types]
        for k, o in enumerate(outs):
            args[n_in + k] = data_address(o)
        try:
            self._exe.entry(self._args_address, self._threads)
        finally:
            args[: len(self._own_slots)] = self._own_slots
        if self._status_word.value:
            self._raise_status()
        return outs

    def _raise_status(self) -> None:
        """A kernel's check failed in the last run: raise its error (and clear the
        status block for the next run)."""
        code, value, bound = (int(w) for w in self._status[:3])
        self._status.fill(0)
        raise error_of((code, value, bound))

    def release_bindings(self) -> None:
        """Go back to the executor's own input and output buffers (undo every
        ``set_*_zero_copy``; an input bound so keeps the value last copied in)."""
        n_in = len(self._inputs)
        for slot in self._bound:
            if slot < n_in:
                self._args[slot] = self._inputs[slot].ctypes.data
            else:
                own = self._own_outputs[slot - n_in]
                self._outputs[slot - n_in] = own
                self._args[slot] = own.ctypes.data
        self._bound.clear()

    def _check_output_index(self, index: int) -> None:
        if not 0 <= index < len(self._outputs):
            raise ExecutorError(
                f"output index {index} is out of range (the model has "
                f"{len(self._outputs)} outputs)"
            )

    def get_output(self, index: int, out: Array | None = None) -> Array:
        """Output ``index`` as a new numpy array (or copied into ``out``)."""
        self._check_output_index(index)
        if out is not None:
            np.copyto(out, self._outputs[index])
            return out
        return self._outputs[index].copy()

    @property
    def profiled(self) -> bool:
        """Whether the model was built with profiling (every kernel call timed)."""
        return self._exe.spec.profile is not None

    def profile(self, repeat: int = 1, **inputs: Any) -> Profile:
        """Run ``repeat`` times (after setting any inputs given by name) and give the
        time of every kernel call of the run of median length
        (:mod:`xrelay.runtime.profile`). Needs a profiled build:
        ``xrelay.build(..., profile=True)`` or ``lib.create(profile=True)``."""
        calls = self._exe.spec.profile
        if calls is None:
            raise ExecutorError(
                "this model was built without profiling: use "
                "xrelay.build(..., profile=True) or lib.create(profile=True)"
            )
        if inputs:
            self.set_input(**inputs)
        runs: list[Profile] = []
        for _ in range(max(1, repeat)):
            self._stamps.fill(0)
            self.run()
            runs.append(Profile(calls, self._stamps, self._threads))
        runs.sort(key=lambda p: p.run_ns)
        return runs[len(runs) // 2]

    def benchmark_run(self, repeat: int) -> None:
        """Run ``repeat`` times (for timing, without Python work in between)."""
        entry, args, threads = self._exe.entry, self._args_address, self._threads
        for _ in range(repeat):
            entry(args, threads)
        if self._status[0]:
            self._raise_status()
