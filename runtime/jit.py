"""Compiling LLVM IR for the host CPU with llvmlite: the JIT, and object code for
shared libraries.

Code is generated for the host's CPU name and features at LLVM's ``O3`` (the new pass
manager's default pipeline). The JIT resolves the C library's math functions
(``expf``, ``tanhf``, ``erff``...) from the running process.

A model's code may come in parts, one object file each (a build compiled in several
processes, :mod:`xrelay.lowering.parallel`): its LLVM IR text is then the parts'
modules one after another, each after a line :data:`PART_MARKER` ``k/n --``
(:func:`join_parts`, :func:`split_parts`); one part is just its module. The JIT
loads every object and links them (functions called across parts have hidden
visibility).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import llvmlite.binding as llvm

from xrelay.lowering.stages import stage

_lock = threading.Lock()
_ready = False

PART_MARKER = "; -- xrelay object "
"""The line opening each part of a model's LLVM IR compiled in parts."""
_PART_LINE = re.compile(r"^; -- xrelay object \d+/\d+ --\n", re.MULTILINE)


def join_parts(parts: Sequence[str]) -> str:
    """The LLVM IR text of a model compiled in ``parts`` (one part: itself)."""
    if len(parts) == 1:
        return parts[0]
    n = len(parts)
    return "".join(
        f"{PART_MARKER}{k + 1}/{n} --\n{text}" for k, text in enumerate(parts)
    )


def split_parts(llvm_ir: str) -> list[str]:
    """The parts of :func:`join_parts`' text (text without markers: one part)."""
    if not llvm_ir.startswith(PART_MARKER):
        return [llvm_ir]
    return _PART_LINE.split(llvm_ir)[1:]


def _init() -> None:
    global _ready
    with _lock:
        if _ready:
            return
        for fn in ("initialize_native_target", "initialize_native_asmprinter"):
            try:
                getattr(llvm, fn)()
            except RuntimeError:  # newer llvmlite initialises by itself
                pass
        libm = ctypes.util.find_library("m")
        if libm is not None:
            llvm.load_library_permanently(libm)
        _ready = True


def _features() -> str:
    """The host's CPU features, plus ``-prefer-256-bit``: LLVM's tuning for Intel
    AVX-512 CPUs keeps vectors at 256 bits, which halves the throughput of the
    register-tiled kernels (their accumulators are whole 512-bit registers)."""
    features = llvm.get_host_cpu_features().flatten()
    if "+avx512f" in features.split(","):
        features += ",-prefer-256-bit"
    return features


def host_target() -> tuple[str, str]:
    """The CPU name and features code is generated for."""
    _init()
    return llvm.get_host_cpu_name(), _features()


def target_machine(pic: bool = False) -> Any:
    """A target machine for the host CPU (name and features), optimising at O3."""
    _init()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=_features(),
        opt=3,
        reloc="pic" if pic else "default",
        codemodel="default",
    )


def optimize_ir(llvm_ir: str, tm: Any) -> Any:
    """Parse LLVM IR, verify it and run the O3 pipeline; the llvmlite module.

    The module gets an LLVM context of its own, freed with it: in the global context
    every compile left types, constants and metadata behind for good, and two threads
    compiling at once would share it (LLVM contexts are not thread-safe). The pass
    pipeline is freed after the run (:func:`_dispose_pass_manager`)."""
    _init()
    with stage("llvmlite parse"):
        mod = llvm.parse_assembly(llvm_ir, llvm.create_context())
        mod.triple = tm.triple
        mod.data_layout = str(tm.target_data)
        mod.verify()
    pto = llvm.PipelineTuningOptions(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    # no full unrolling before vectorisation: it turned the channel-block loops of
    # the NCHWc kernels into straight code and LLVM vectorised the pixel loop with
    # gathers instead (15x slower)
    pto.loop_unrolling = False
    pb = llvm.create_pass_builder(tm, pto)
    pm = pb.getModulePassManager()
    try:
        with stage("llvmlite optimise"):
            pm.run(mod, pb)
    finally:
        _dispose_pass_manager(pm)
        pb.close()
        pto.close()
    return mod


def _dispose_pass_manager(pm: Any) -> None:
    """Free a new-pass-manager ``ModulePassManager``. llvmlite 0.50 never does: the
    class inherits ``ObjectRef``'s empty ``_dispose`` before ``NewPassManager``'s, so
    ``close()`` and garbage collection leave the native pass pipeline, and what a run
    left in it, allocated (70 to 95 KiB per compile). Here the native object is
    deleted and the handle detached (no later ``close()`` frees it twice); an
    llvmlite whose ``close()`` does dispose is left to do it."""
    noop = getattr(llvm.ffi.ObjectRef, "_dispose")  # noqa: B009 - private
    if getattr(type(pm), "_dispose") is noop:  # noqa: B009 - private
        llvm.ffi.lib.LLVMPY_DisposeNewModulePassManger(pm)
        pm.detach()
    else:
        pm.close()


SHUTDOWN = "xrelay_shutdown"
"""``void xrelay_shutdown(void)``: stops and joins a model's worker threads
(:mod:`xrelay.lowering.llvm.thread_pool`); models without a persistent team (other
targets, code of older builds) lack it."""

_SHUTDOWN_TYPE = ctypes.CFUNCTYPE(None)


def _stop_team(address: int, _owner: object) -> None:
    _SHUTDOWN_TYPE(address)()


def stop_team_when_freed(obj: object, code_owner: object, address: int | None) -> None:
    """When ``obj`` is freed (or the interpreter exits), call the model's
    ``xrelay_shutdown`` at ``address`` (none: nothing to do) before ``code_owner``
    (what keeps the code mapped: the JIT engine, the loaded library) may go: the
    model's parked workers must leave its code before it is unmapped."""
    if address:
        weakref.finalize(obj, _stop_team, int(address), code_owner)


class JITModule:
    """LLVM IR compiled in memory; :meth:`address` gives a symbol's address.

    The IR is optimised and compiled to position-independent object code once (one
    object per part: :func:`split_parts`); the JIT loads those objects (so the same
    code can be written into a shared library without compiling again:
    :attr:`objects`)."""

    def __init__(
        self, llvm_ir: str, object_code: bytes | Sequence[bytes] | None = None
    ):
        """Compile ``llvm_ir``; or, given its object code (one object per part: from
        the compile cache, or compiled by the build already), only load that."""
        tm = target_machine(pic=True)
        self.llvm_ir = llvm_ir
        self.modules: list[Any] | None = None
        if object_code is None:
            self.modules = [optimize_ir(part, tm) for part in split_parts(llvm_ir)]
            with stage("llvmlite codegen"):
                objects = [bytes(tm.emit_object(m)) for m in self.modules]
        elif isinstance(object_code, bytes):
            objects = [object_code]
        else:
            objects = list(object_code)
        self.objects: list[bytes] = objects
        """The object code, one object per part of the IR."""
        with stage("llvmlite codegen"):
            empty = llvm.parse_assembly("", llvm.create_context())
            self.engine = llvm.create_mcjit_compiler(empty, tm)
            for obj in self.objects:
                self.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            self.engine.finalize_object()
        stop_team_when_freed(
            self, self.engine, self.engine.get_function_address(SHUTDOWN)
        )

    @property
    def object_code(self) -> bytes:
        """The object code of a model compiled in one part."""
        if len(self.objects) != 1:
            raise ValueError(
                f"the model is compiled in {len(self.objects)} objects (see .objects)"
            )
        return self.objects[0]

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise LookupError(f"the compiled model has no symbol {name}")
        return int(addr)

    def optimized_ir(self) -> str:
        if self.modules is None:  # loaded from object code: optimise again to show it
            tm = target_machine(pic=True)
            self.modules = [optimize_ir(p, tm) for p in split_parts(self.llvm_ir)]
        return join_parts([str(m) for m in self.modules])


def object_code(llvm_ir: str) -> bytes:
    """Position-independent object code of LLVM IR in one part (for a shared
    library, or a part of a model compiled in parts)."""
    tm = target_machine(pic=True)
    mod = optimize_ir(llvm_ir, tm)
    with stage("llvmlite codegen"):
        return bytes(tm.emit_object(mod))


def object_codes(llvm_ir: str) -> list[bytes]:
    """The object code of every part of ``llvm_ir`` (:func:`split_parts`)."""
    return [object_code(part) for part in split_parts(llvm_ir)]
