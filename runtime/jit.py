"""Compiling LLVM IR for the host CPU with llvmlite: the JIT, and object code for
shared libraries.

Code is generated for the host's CPU name and features at LLVM's ``O3`` (the new pass
manager's default pipeline). The JIT resolves the C library's math functions
(``expf``, ``tanhf``, ``erff``...) from the running process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from typing import Any

import llvmlite.binding as llvm

from xrelay.lowering.stages import stage

_lock = threading.Lock()
_ready = False


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
    """Parse LLVM IR, verify it and run the O3 pipeline; the llvmlite module."""
    _init()
    with stage("llvmlite parse"):
        mod = llvm.parse_assembly(llvm_ir)
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
    with stage("llvmlite optimise"):
        pm.run(mod, pb)
    return mod


class JITModule:
    """LLVM IR compiled in memory; :meth:`address` gives a symbol's address.

    The IR is optimised and compiled to position-independent object code once; the
    JIT loads that object (so the same code can be written into a shared library
    without compiling again: :attr:`object_code`)."""

    def __init__(self, llvm_ir: str, object_code: bytes | None = None):
        """Compile ``llvm_ir``; or, given its ``object_code`` (from the compile
        cache), only load that."""
        tm = target_machine(pic=True)
        self.llvm_ir = llvm_ir
        self.module: Any = None
        if object_code is None:
            self.module = optimize_ir(llvm_ir, tm)
            with stage("llvmlite codegen"):
                object_code = bytes(tm.emit_object(self.module))
        self.object_code: bytes = object_code
        with stage("llvmlite codegen"):
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(self.object_code))
            self.engine.finalize_object()

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise LookupError(f"the compiled model has no symbol {name}")
        return int(addr)

    def optimized_ir(self) -> str:
        if self.module is None:  # loaded from object code: optimise again to show it
            self.module = optimize_ir(self.llvm_ir, target_machine(pic=True))
        return str(self.module)


def object_code(llvm_ir: str) -> bytes:
    """Position-independent object code of LLVM IR (for a shared library)."""
    tm = target_machine(pic=True)
    mod = optimize_ir(llvm_ir, tm)
    return bytes(tm.emit_object(mod))
