"""memref-level kernels and host → ``llvm`` dialect, ready for ``convert_module``.

The steps, in order (:func:`lower_to_llvm`):

1. :mod:`.host_abi`: weights and the arena become pointer arguments of the host;
2. :mod:`.scf_to_cf` (the blocks of xDSL's ``convert-scf-to-cf``, each op rewritten once);
3. :mod:`.memref_to_llvm`: buffers become pointers, loads and stores typed
   ``getelementptr`` addresses (in place of xDSL's ``convert-memref-to-ptr``,
   ``convert-ptr-type-offsets`` and ``convert-ptr-to-llvm``: see the module);
5. xrelay's :mod:`.arith_to_llvm`, :mod:`.math_to_llvm`, :mod:`.cf_to_llvm` and
   :mod:`.func_to_llvm`'s returns and calls (one walk of the module after arith's
   constants), then the functions (xDSL 0.74 has none of these conversions);
6. xDSL's ``reconcile-unrealized-casts``, when other steps left casts;
7. :func:`.host_abi.add_entry_point`: ``xrelay_run(args, tid, nthreads, team)``,
   one thread's call of the host (the translation to LLVM IR adds the thread team
   and ``xrelay_entry``: :mod:`.threads`).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass

from xrelay.lowering.errors import LoweringError
from xrelay.lowering.llvm.arith_to_llvm import convert_arith_to_llvm
from xrelay.lowering.llvm.cf_to_llvm import CF_CONVERTERS
from xrelay.lowering.llvm.common import module_ops
from xrelay.lowering.llvm.func_to_llvm import FUNC_CONVERTERS, convert_func_to_llvm
from xrelay.lowering.llvm.host_abi import ENTRY, add_entry_point, lower_host_abi
from xrelay.lowering.llvm.math_to_llvm import math_converters
from xrelay.lowering.llvm.memref_to_llvm import convert_memref_to_llvm
from xrelay.lowering.llvm.scf_to_cf import convert_scf_to_cf
from xrelay.lowering.memory_plan import host_function


def lower_to_llvm(module: ModuleOp) -> None:
    """Lower a planned memref-level module to the ``llvm`` dialect, in place."""
    host = host_function(module)
    if host is None:
        raise LoweringError(
            "lower-to-llvm: no host function (run relay-to-kernels first)"
        )
    host_name = host.sym_name.data
    lower_host_abi(module)
    lower_functions_to_llvm(module)
    add_entry_point(module, host_name)


def lower_functions_to_llvm(module: ModuleOp) -> None:
    """Steps 2 to 6 alone, in place: the functions of a module that has no host (a
    part of a build lowered on its own: :mod:`xrelay.lowering.parallel`), or whose
    host's globals are already pointer arguments."""
    convert_scf_to_cf(module)
    convert_memref_to_llvm(module)
    # arith, math, cf and func's returns and calls in one walk (after arith's
    # constants)
    others = {**math_converters(module), **CF_CONVERTERS, **FUNC_CONVERTERS}
    ops = module_ops(module)
    convert_arith_to_llvm(module, others, ops)
    convert_func_to_llvm(module, bodies=False)
    # only when a cast is left (none is in xrelay's own kernels); the conversions
    # since the walk neither make nor erase casts
    if any(isinstance(op, UnrealizedConversionCastOp) for op in ops):
        ReconcileUnrealizedCastsPass().apply(Context(), module)


__all__ = ["ENTRY", "lower_functions_to_llvm", "lower_to_llvm"]
