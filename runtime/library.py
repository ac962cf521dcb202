"""Compiled models: :class:`Library` (made by ``xrelay.build``, JIT-compiled) and
:class:`LoadedLibrary` (a shared library written by :meth:`Library.export_library`,
read back by :func:`load_module` without compiling anything).

Both give executors (``create()``) and a one-call form (``lib(*arrays)``).

A shared library holds the model's object code (every object of a model compiled
in parts), its weights as one binary blob
(``.incbin`` in an assembler file, in a read-only section: never LLVM IR text) and its
interface as JSON, linked with the system C compiler driver (``cc``, or ``$CC``).
"""

from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import stat
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xrelay.lowering.spec import interface_global
from xrelay.runtime.artifact import (
    HEADER_SYMBOL,
    METADATA_SYMBOL,
    WEIGHTS_SYMBOL,
    ArtifactError,
    check_artifact,
    header_bytes,
    seal,
)
from xrelay.runtime.executor import (
    Executable,
    ExecutorError,
    GraphModule,
    aligned_empty,
    zero_copy_problem,
)
from xrelay.runtime.files import FileKindError, read_regular_file
from xrelay.runtime.jit import (
    SHUTDOWN,
    JITModule,
    object_codes,
    stop_team_when_freed,
)
from xrelay.runtime.ndarray import Device, DeviceError
from xrelay.runtime.spec import Array, ModelSpec
from xrelay.version import xrelay_version

LIBRARY_SIZE_LIMIT = 1 << 36
"""The largest file :func:`load_module` reads (64 GiB)."""


class ExportError(RuntimeError):
    """A shared library cannot be written (no linker, a failing link)."""


class LoadError(RuntimeError):
    """A file is not a loadable xrelay model."""


class _Runnable:
    """``create()`` and ``lib(*arrays)`` over an :class:`Executable`."""

    executable: Executable
    rebuild_profiled: Callable[[], Executable] | None = None
    """Builds the profiled variant of the model (set by ``xrelay.build``)."""

    @property
    def spec(self) -> ModelSpec:
        return self.executable.spec

    def create(self, profile: bool = False) -> GraphModule:
        """A new executor (own input, output and arena buffers); ``profile``: of the
        profiled variant of the model (every kernel call timed, ``m.profile()``),
        built now where this library is not profiled."""
        if profile and self.executable.spec.profile is None:
            return GraphModule(self.profiled_variant())
        return GraphModule(self.executable)

    # -- TVM's factory module (what ``relay.build`` returns) ---------------------------

    def __getitem__(self, name: str) -> Callable[..., GraphModule]:
        """``lib["default"](dev)``: a new executor of the model on the CPU device
        ``dev`` (TVM's graph executor factory); wrap it in
        ``xrelay.contrib.graph_executor.GraphModule`` as TVM scripts do."""
        if name != "default":
            raise KeyError(
                f"the library has no module {name!r} (the executor factory is "
                "lib['default'])"
            )

        def make(*devices: Any) -> GraphModule:
            for dev in devices:
                if not isinstance(dev, Device):
                    raise DeviceError(
                        f"xrelay runs on the CPU only: {dev!r} is not a CPU device "
                        "(use xrelay.cpu(0))"
                    )
            return self.create()

        return make

    def get_lib(self) -> _Runnable:
        """The compiled code (the library itself: code and weights are one)."""
        return self

    def get_params(self) -> dict[str, Any]:
        """No separate parameters: weights are bound into the library."""
        return {}

    def get_graph_json(self) -> str:
        """The model's interface as JSON (inputs, outputs, arena, weights' layout)."""
        return self.spec.to_json()

    def profiled_variant(self) -> Executable:
        """The model built with profiling (:mod:`xrelay.runtime.profile`)."""
        rebuild = self.rebuild_profiled
        if rebuild is None:
            raise ExecutorError(
                "this model cannot be rebuilt with profiling (it was loaded, not "
                "built): build it with xrelay.build(..., profile=True)"
            )
        variant = self.__dict__.get("_profiled")
        if variant is None:
            variant = rebuild()
            self.__dict__["_profiled"] = variant
        return variant

    def __call__(self, *arrays: Any, **named: Any) -> Any:
        """Run once on ``arrays`` (positional, in input order) and/or named inputs;
        one numpy array for a single output, a tuple for several.

        When every input is given, inputs that are C-contiguous arrays of the right
        shape and dtype are read in place and the outputs are written straight into
        the returned arrays (no copies). Otherwise the given inputs are copied in,
        and inputs left out keep the value last copied in (by the same thread: each
        thread calling has its own hidden executor)."""
        # one hidden executor per calling thread: concurrent calls never share
        # bindings, outputs or the run status
        local = self.__dict__.get("_local")
        if local is None:
            local = self.__dict__.setdefault("_local", threading.local())
        module: GraphModule | None = getattr(local, "module", None)
        if module is None:
            module = self.create()
            local.module = module
        if not named and len(arrays) == module.get_num_inputs():
            # every input, in order: the fast path
            outs = module.call(arrays)
            return outs[0] if len(outs) == 1 else tuple(outs)
        if len(arrays) > module.get_num_inputs():
            raise ExecutorError(
                f"the model takes {module.get_num_inputs()} inputs, {len(arrays)} were given"
            )
        given: dict[int, Any] = dict(enumerate(arrays))
        for name, a in named.items():
            given[module.get_input_index(name)] = a
        spec = self.spec
        if len(given) == len(spec.inputs):
            # every input given: arrays already in the input's layout are read in
            # place, the outputs are written into new arrays that are returned
            for i, a in given.items():
                if zero_copy_problem(spec.inputs[i], a) is None:
                    module.set_input_zero_copy(i, a)
                else:
                    module.set_input(i, a)
            outs = [aligned_empty(t.shape, t.dtype) for t in spec.outputs]
            for i, o in enumerate(outs):
                module.set_output_zero_copy(i, o)
            try:
                module.run()
            finally:
                module.release_bindings()
        else:
            for i, a in given.items():
                module.set_input(i, a)
            module.run()
            outs = [module.get_output(i) for i in range(module.get_num_outputs())]
        return outs[0] if len(outs) == 1 else tuple(outs)


class Library(_Runnable):
    """A model compiled in memory (see the module docstring)."""

    def __init__(
        self,
        spec: ModelSpec,
        llvm_ir: str,
        memref_ir: str | None = None,
        num_threads: int | None = None,
        object_code: bytes | Sequence[bytes] | None = None,
        *,
        from_cache: bool | None = None,
    ):
        """``object_code``: the code of ``llvm_ir`` compiled already (one object per
        part, :mod:`xrelay.runtime.jit`), with the interface global; ``from_cache``:
        whether it came from the compile cache (default: whether it is given)."""
        self.llvm_ir = llvm_ir
        """The LLVM IR given to LLVM (weights are not in it)."""
        self.memref_ir = memref_ir
        # the code names the interface it is compiled for (checked when loading an
        # export: :mod:`xrelay.runtime.artifact`)
        self.jit = JITModule(llvm_ir + interface_global(spec.to_json()), object_code)
        self.from_cache = object_code is not None if from_cache is None else from_cache
        """Whether the code came from the compile cache (:mod:`.cache`)."""
        pointers = [w.ctypes.data for w in spec.weights]
        self.executable = Executable(
            spec,
            self.jit.address(spec.entry),
            pointers,
            [self.jit, spec.weights],
            num_threads,
        )

    def get_source(self, fmt: str = "ll") -> str:
        """``"ll"``: the LLVM IR; ``"opt"``: after LLVM's optimisations; ``"mlir"``:
        the memref-level kernels (when kept)."""
        if fmt == "ll":
            return self.llvm_ir
        if fmt == "opt":
            return self.jit.optimized_ir()
        if fmt == "mlir" and self.memref_ir is not None:
            return self.memref_ir
        raise ValueError(f"no source of format {fmt!r}")

    def export_library(
        self, path: str | os.PathLike[str], cc: str | None = None
    ) -> None:
        """Write a shared library holding the code, the weights and the interface."""
        export_shared_library(self.spec, self.jit.objects, Path(path), cc)


def _find_cc(cc: str | None) -> list[str]:
    command = shlex.split(cc or os.environ.get("CC") or "cc")
    if not command or shutil.which(command[0]) is None:
        raise ExportError(
            f"export_library needs a C compiler driver to link the shared library, and "
            f"{command[0] if command else 'cc'!r} was not found on PATH (install one, or "
            "set CC)"
        )
    return command


def _asm_string(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def export_shared_library(
    spec: ModelSpec,
    code: str | bytes | Sequence[bytes],
    path: Path,
    cc: str | None = None,
) -> None:
    """Link ``code`` (position-independent object code compiled by :class:`Library`:
    one object, or one per part; or LLVM IR compiled to it) with the weights blob,
    the metadata and the header that checks them (:mod:`xrelay.runtime.artifact`)
    into the shared library ``path``."""
    command = _find_cc(cc)
    metadata = spec.to_json()
    if isinstance(code, str):
        objects = object_codes(code + interface_global(metadata))
    elif isinstance(code, bytes):
        objects = [code]
    else:
        objects = list(code)
    layout = spec.weight_layout()
    blob = bytearray(max((off + n for off, n in layout), default=0))
    for w, (off, n) in zip(spec.weights, layout, strict=True):
        blob[off : off + n] = np.ascontiguousarray(w).reshape(-1).view(np.uint8).data
    with tempfile.TemporaryDirectory(prefix="xrelay-export-") as tmp:
        d = Path(tmp)
        object_files = [d / f"model{k}.o" for k in range(len(objects))]
        for f, obj in zip(object_files, objects, strict=True):
            f.write_bytes(obj)
        (d / "weights.bin").write_bytes(blob)
        (d / "meta.json").write_bytes(metadata.encode())
        (d / "header.bin").write_bytes(
            header_bytes(len(blob), len(metadata.encode()), xrelay_version())
        )
        (d / "blob.S").write_text(
            "\n".join(
                [
                    '\t.section .rodata.xrelay,"a"',
                    "\t.balign 64",
                    f"\t.globl {HEADER_SYMBOL}",
                    f"{HEADER_SYMBOL}:",
                    f"\t.incbin {_asm_string(d / 'header.bin')}",
                    "\t.balign 64",
                    f"\t.globl {WEIGHTS_SYMBOL}",
                    f"{WEIGHTS_SYMBOL}:",
                    f"\t.incbin {_asm_string(d / 'weights.bin')}",
                    "\t.byte 0",
                    f"\t.globl {METADATA_SYMBOL}",
                    f"{METADATA_SYMBOL}:",
                    f"\t.incbin {_asm_string(d / 'meta.json')}",
                    "\t.byte 0",
                    '\t.section .note.GNU-stack,"",@progbits',
                    "",
                ]
            )
        )
        out = Path(path).resolve()
        linked = d / "model.so"
        args = [
            *command,
            "-shared",
            "-fPIC",
            "-o",
            str(linked),
            *map(str, object_files),
            str(d / "blob.S"),
            "-lm",
            "-lpthread",
        ]
        result = subprocess.run(args, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise ExportError(
                f"linking {out.name} failed ({' '.join(args[:2])} ...):\n"
                + (result.stderr or result.stdout).strip()
            )
        # the digest of the whole linked file goes into its header; the file then
        # appears at ``path`` whole or not at all
        data = bytearray(linked.read_bytes())
        try:
            seal(data)
        except ArtifactError as e:
            raise ExportError(f"linking {out.name}: {e}") from None
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}-", dir=out.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            # the mode the linker gave (its umask applied)
            os.chmod(tmp, stat.S_IMODE(linked.stat().st_mode))
            os.replace(tmp, out)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class LoadedLibrary(_Runnable):
    """A shared library written by :meth:`Library.export_library`.

    The file is read once and checked (:func:`xrelay.runtime.artifact.check_artifact`)
    before anything of it runs; then a private copy of exactly the checked bytes is
    loaded (and unlinked at once). A private copy also means that a model exported
    again to the same path and loaded again runs the new code: the dynamic loader
    would hand back the library it already mapped for a path it has seen."""

    def __init__(self, path: str | os.PathLike[str], num_threads: int | None = None):
        self.path = Path(path).resolve()
        try:
            data = read_regular_file(self.path, LIBRARY_SIZE_LIMIT)
        except FileKindError as e:
            raise LoadError(str(e)) from None
        except OSError as e:
            raise LoadError(f"{path}: cannot read: {e.strerror or e}") from None
        try:
            checked = check_artifact(data)
        except ArtifactError as e:
            raise LoadError(f"{path}: {e}") from None
        self.dll = _load_private_copy(data, path)
        spec = checked.spec
        try:
            base = ctypes.c_char.in_dll(self.dll, WEIGHTS_SYMBOL)
            entry = ctypes.cast(getattr(self.dll, spec.entry), ctypes.c_void_p).value
        except (ValueError, AttributeError):
            raise LoadError(f"{path}: the loaded library lacks its symbols") from None
        assert entry is not None
        weights_base = ctypes.addressof(base)
        pointers: Sequence[int] = [weights_base + off for off, _ in checked.layout]
        self.executable = Executable(spec, entry, pointers, [self.dll], num_threads)
        shutdown = getattr(self.dll, SHUTDOWN, None)  # not in older exports
        address = None if shutdown is None else ctypes.cast(shutdown, ctypes.c_void_p)
        stop_team_when_freed(
            self.executable, self.dll, None if address is None else address.value
        )


def _load_private_copy(data: bytes, shown: str | os.PathLike[str]) -> ctypes.CDLL:
    """``dlopen`` a fresh copy of ``data`` under a unique name; the copy is removed
    once mapped."""
    folder = tempfile.mkdtemp(prefix="xrelay-load-")
    copy = Path(folder) / "model.so"
    try:
        copy.write_bytes(data)
        return ctypes.CDLL(str(copy), mode=ctypes.RTLD_LOCAL)
    except OSError as e:
        raise LoadError(f"{shown}: cannot load the shared library: {e}") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def load_module(
    path: str | os.PathLike[str], num_threads: int | None = None
) -> LoadedLibrary:
    """Load a model exported with ``lib.export_library(path)`` (no compilation);
    ``num_threads`` as for ``xrelay.build``."""
    return LoadedLibrary(path, num_threads)


__all__ = [
    "Array",
    "ArtifactError",
    "ExportError",
    "Library",
    "LoadError",
    "LoadedLibrary",
    "export_shared_library",
    "load_module",
]
