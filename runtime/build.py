"""``xrelay.build`` (the facade :mod:`xrelay.build` forwards here): optimise a relay module, lower it to LLVM IR and JIT-compile it
for the host CPU (Relay's ``relay.build`` for ``target="llvm"``)."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import nullcontext
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xrelay.runtime.library import Library


def _module_op(mod: Any) -> ModuleOp:
    if isinstance(mod, ModuleOp):
        return mod
    inner = getattr(mod, "module", None)
    if isinstance(inner, ModuleOp):
        return inner
    raise TypeError(
        "build takes a relay.IRModule, a relay.Function or a builtin.module, not "
        f"{type(mod).__name__}"
    )


VERIFY_EACH = "xrelay.verify_each"


def optimize_module(mod: Any, params: Mapping[str, Any] | None = None) -> ModuleOp:
    """``optimize`` at the current PassContext's opt_level (bind ``params``, the
    pass pipeline); InferType alone where the pipeline is not available. ``mod`` is
    left as it was.

    Unless the context sets ``xrelay.verify_each``, the module is verified twice:
    as given (bad input is refused before any pass sees it) and after the whole
    pipeline (nothing that does not verify is lowered), not after every pass (a
    third of the passes' time). When the result does not verify, the pipeline runs
    again verifying after every pass, so that the error (and a crash reproducer)
    names the pass that broke the IR, as with the option on."""
    from xrelay.pass_manager import PassContext
    from xrelay.pass_manager.passes import PassVerificationError, verify_ir

    try:
        from xrelay.transforms.pipeline import optimize
    except ImportError:
        optimize = None
    if optimize is not None:
        ctx = PassContext.current()
        if VERIFY_EACH in ctx.config:
            return _module_op(optimize(mod, params))
        verify_ir(_module_op(mod), "the input module does not verify")
        with ctx.with_config({VERIFY_EACH: False}):
            out = _module_op(optimize(mod, params))
        try:
            verify_ir(out, "the IR after the relay passes does not verify")
        except PassVerificationError:
            # again, verifying after each pass: the error names the pass
            with ctx.with_config({VERIFY_EACH: True}):
                optimize(mod, params)
            raise
        return out
    from xrelay.transforms.infer_type import infer_types

    work = _module_op(mod).clone()
    if params:
        raise NotImplementedError("binding params needs xrelay.transforms.pipeline")
    infer_types(work)
    return work


def build(
    mod: Any,
    target: str = "llvm",
    params: Mapping[str, Any] | None = None,
    *,
    entry: str = "main",
    keep_mlir: bool = False,
    num_threads: int | None = None,
    cache: bool = True,
    profile: bool = False,
    precision: str = "float32",
) -> Library:
    """:func:`build_in_context` (see there) in ``precision``: ``"float32"`` (the default) or
    ``"bf16"``: bfloat16 convolutions and matrix products accumulating in float32
    (ToMixedPrecision in the pipeline), on a host with AVX512-BF16; elsewhere the
    float32 build and a warning (:mod:`xrelay.runtime.precision`). A bad value is a
    :class:`~xrelay.runtime.precision.PrecisionError`."""
    from xrelay.pass_manager import PassContext
    from xrelay.pass_manager.opt_levels import default_opt_level
    from xrelay.runtime.precision import build_mixed_precision_type
    from xrelay.transforms.to_mixed_precision import BUILD_MIXED_PRECISION_TYPE

    mixed = build_mixed_precision_type(precision)
    options: dict[str, Any] = {
        "entry": entry,
        "keep_mlir": keep_mlir,
        "num_threads": num_threads,
        "cache": cache,
        "profile": profile,
    }
    if not mixed:
        return build_in_context(mod, target, params, **options)
    entered = PassContext.entered()
    outer = (
        PassContext.current()
        if entered
        else PassContext(opt_level=default_opt_level("xrelay.build"))
    )
    with (
        nullcontext() if entered else outer,
        outer.with_config({BUILD_MIXED_PRECISION_TYPE: mixed}),
    ):
        return build_in_context(mod, target, params, **options)


def build_in_context(
    mod: Any,
    target: str = "llvm",
    params: Mapping[str, Any] | None = None,
    *,
    entry: str = "main",
    keep_mlir: bool = False,
    num_threads: int | None = None,
    cache: bool = True,
    profile: bool = False,
) -> Library:
    """Compile ``mod`` (a ``relay.IRModule`` or ``builtin.module``) for the host CPU.

    ``params`` binds parameters of ``@main`` by name to constant arrays (weights).
    The module is optimised at the entered ``PassContext``'s opt_level, or at
    :mod:`xrelay.pass_manager.opt_levels`' ``xrelay.build`` level (3: AlterOpLayout's
    packed layouts, which the fast kernels need) when none is entered, lowered
    (:mod:`xrelay.lowering`) and JIT-compiled at LLVM O3; ``mod`` is left as it was.
    Returns a :class:`~xrelay.runtime.library.Library`: ``lib.create()`` gives a graph
    executor, ``lib(*arrays)`` runs once, ``lib.export_library(path)`` writes a shared
    library. ``keep_mlir`` keeps the memref-level kernels (``lib.get_source("mlir")``).
    With ``$XRELAY_REPRODUCER_DIR`` set, a failing pass, or lowering failing, writes
    a crash reproducer there (:mod:`xrelay.pass_manager.reproducer`). ``num_threads`` fixes how many
    threads run the model (default: ``$XRELAY_NUM_THREADS``, else the available cores
    for all but tiny models: :mod:`xrelay.runtime.threads`).
    ``cache``: look the build up in the compile cache, and store it there
    (:mod:`xrelay.runtime.cache`; ``$XRELAY_CACHE_DIR``). A build whose PassContext
    has instruments is never cached.
    ``profile``: a profiled build, timing every kernel call (``lib.create().profile()``
    gives the times, :mod:`xrelay.runtime.profile`); without it the code has no
    timing at all, and ``lib.create(profile=True)`` builds the profiled variant then.
    """
    from xrelay.runtime.threads import requested_threads

    requested_threads(num_threads)  # a bad count fails before compiling
    if not target.split() or target.split()[0] not in ("llvm", "c"):
        raise ValueError(f"unsupported target {target!r} (xrelay compiles for 'llvm')")
    from xrelay.lowering.collector import collect_between_stages, stage_boundary
    from xrelay.lowering.pipeline import lower_model
    from xrelay.lowering.stages import stage
    from xrelay.pass_manager import PassContext
    from xrelay.pass_manager.opt_levels import default_opt_level
    from xrelay.pass_manager.reproducer import (
        CrashReproducer,
        capture_crashes,
        capture_lowering,
    )
    from xrelay.runtime import cache as compile_cache

    # outside any `with PassContext(...)`, build takes the fast path (opt_level 3)
    entered = PassContext.entered()
    ctx = (
        PassContext.current()
        if entered
        else PassContext(opt_level=default_opt_level("xrelay.build"))
    )
    key: str | None = None
    if cache and not ctx.instruments:
        with stage("cache lookup"):
            key = compile_cache.build_key(_module_op(mod), params, entry, ctx)
            if profile:
                key += "-profile"
        with stage("cache load"):
            hit = compile_cache.load(key, need_memref_ir=keep_mlir)
            if hit is not None:
                lib = Library(
                    hit.spec, hit.llvm_ir, hit.memref_ir, num_threads, hit.objects
                )
                _remember_rebuild(lib, mod, params, entry, ctx, entered, num_threads)
                return lib
    # $XRELAY_REPRODUCER_DIR: a failing pass leaves a crash reproducer there
    repro = CrashReproducer.from_environment(["relay-optimize"])
    if repro is not None:
        repro.check_destination()
    with collect_between_stages():
        with (
            stage("relay passes"),
            capture_crashes(repro),
            nullcontext() if entered else ctx,
        ):
            module = optimize_module(mod, params)
        # the optimised module is build's own copy: lowered in place, and let go of;
        # a failure leaves a reproducer of the IR handed to lowering (here, or in
        # xrelay-run's)
        with capture_lowering(repro, module, ctx, entry, profile):
            lowered = lower_model(
                module, entry, keep_mlir=keep_mlir, in_place=True, profile=profile
            )
        del module
        stage_boundary()
    lib = Library(
        lowered.spec,
        lowered.llvm_ir,
        lowered.memref_ir,
        num_threads,
        lowered.objects,  # compiled already by a build in parts
        from_cache=False,
    )
    if not profile:
        _remember_rebuild(lib, mod, params, entry, ctx, entered, num_threads)
    if key is not None:
        with stage("cache store"):
            compile_cache.store(
                key,
                compile_cache.CachedBuild(
                    lowered.spec,
                    lib.jit.objects,
                    lowered.llvm_ir,
                    lowered.memref_ir,
                ),
            )
    return lib


def _remember_rebuild(
    lib: Library,
    mod: Any,
    params: Mapping[str, Any] | None,
    entry: str,
    ctx: Any,
    entered: bool,
    num_threads: int | None,
) -> None:
    """Let ``lib.create(profile=True)`` build the profiled variant of the same
    module in the same PassContext."""
    if lib.spec.profile is not None:
        return

    def rebuild() -> Any:
        with nullcontext() if not entered else ctx:
            return build_in_context(
                mod, params=params, entry=entry, num_threads=num_threads, profile=True
            ).executable

    lib.rebuild_profiled = rebuild
