"""The JIT: loading a model's object code (compiled by
:mod:`xrelay.lowering.object_code`, which this module re-exports) into the process.

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
import weakref
from collections.abc import Sequence

import llvmlite.binding as llvm

from xrelay.lowering.object_code import (
    PART_MARKER,
    compile_part,
    host_target,
    join_parts,
    object_code,
    object_codes,
    optimize_ir,
    release_module,
    split_parts,
    target_machine,
)
from xrelay.lowering.stages import stage

__all__ = [
    "PART_MARKER",
    "SHUTDOWN",
    "JITModule",
    "host_target",
    "join_parts",
    "object_code",
    "object_codes",
    "optimize_ir",
    "release_module",
    "split_parts",
    "stop_team_when_freed",
    "target_machine",
]


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
        self._optimized: str | None = None
        if object_code is None:
            objects = [compile_part(part, tm) for part in split_parts(llvm_ir)]
        elif isinstance(object_code, bytes):
            objects = [object_code]
        else:
            objects = list(object_code)
        self.objects: list[bytes] = objects
        """The object code, one object per part of the IR."""
        with stage("llvmlite codegen"):
            # the engine owns this module: in the global context, which is never
            # freed (a context of its own could be freed before the engine)
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
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
        """The LLVM IR after LLVM's optimisations (optimised again on first use)."""
        if self._optimized is None:
            tm = target_machine(pic=True)
            texts: list[str] = []
            for part in split_parts(self.llvm_ir):
                mod = optimize_ir(part, tm)
                try:
                    texts.append(str(mod))
                finally:
                    release_module(mod)
            self._optimized = join_parts(texts)
        return self._optimized
