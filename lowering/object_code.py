"""Compiling LLVM IR for the host CPU with llvmlite into object code: for the JIT
(:mod:`xrelay.runtime.jit`), shared libraries and builds in parts.

Code is generated for the host's CPU name and features at LLVM's ``O3`` (the new pass
manager's default pipeline).

A model's code may come in parts, one object file each (a build compiled in several
processes, :mod:`xrelay.lowering.parallel`): its LLVM IR text is then the parts'
modules one after another, each after a line :data:`PART_MARKER` ``k/n --``
(:func:`join_parts`, :func:`split_parts`); one part is just its module.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import threading
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

    The module gets an LLVM context of its own: in the global context every compile
    left types, constants and metadata behind for good, and two threads compiling at
    once would share it (LLVM contexts are not thread-safe). The caller frees both
    with :func:`release_module` once done (never left to the garbage collector, which
    may free the context before the module when both sit in a reference cycle: a
    use after free). The pass pipeline is freed after the run
    (:func:`_dispose_pass_manager`)."""
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


def release_module(mod: Any) -> None:
    """Free a module of :func:`optimize_ir`, then its own context (in that order)."""
    context = getattr(mod, "_context", None)
    mod.close()
    if context is not None and context is not llvm.get_global_context():
        context.close()


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


def object_code(llvm_ir: str) -> bytes:
    """Position-independent object code of LLVM IR in one part (for a shared
    library, or a part of a model compiled in parts)."""
    return compile_part(llvm_ir, target_machine(pic=True))


def compile_part(llvm_ir: str, tm: Any) -> bytes:
    """Optimise and compile one part; the module and its context are freed."""
    mod = optimize_ir(llvm_ir, tm)
    try:
        with stage("llvmlite codegen"):
            return bytes(tm.emit_object(mod))
    finally:
        release_module(mod)


def object_codes(llvm_ir: str) -> list[bytes]:
    """The object code of every part of ``llvm_ir`` (:func:`split_parts`)."""
    return [object_code(part) for part in split_parts(llvm_ir)]
