"""The ``relay.build`` optimisation pipeline: :func:`optimize` and the
``RelayOptimize`` pass (``-p relay-optimize{opt-level=3}``).

Relay's ``RelayBuildModule::OptimizeImpl`` for one CPU target (catalogue §2a), on
xrelay's IR:

0. ``params`` are bound: the parameters of ``@main`` named in the dict become
   ``relay.constant`` ops and leave the signature (Relay's ``BindParamsInModule``);
1. one ``Sequential`` (opt_level 0, children gated by the context's opt_level) with
   Relay's pass prefix in Relay's order:
   RemoveUnusedFunctions, FakeQuantizationToInteger, QnnLegalize, QnnCanonicalize,
   SimplifyInference, EliminateCommonSubexpr, FoldConstant, FoldScaleAxis,
   SimplifyExpr, CanonicalizeOps, InferType, AlterOpLayout, SimplifyExprPostAlterOp,
   FastMath, FoldConstant, FuseOps. FakeQuantizationToInteger is not in Relay's
   build (TVM users call it before ``relay.build``); xrelay runs it so that a QDQ
   model's quantize / dequantize pairs become integer ops (a module without
   ``qnn.quantize`` is left as it was);
2. run directly, at every opt_level: InferType, Inline, InferType.

Passes of Relay's pipeline that are meaningless here are left out: ToBasicBlockNormalForm
(SSA regions already scope every value), Legalize (no target-specific legalisations), CombineParallelConv2D / Dense /
BatchMatmul and CanonicalizeCast (not implemented: GPU-oriented, opt_level 3-4),
FlattenAtrousConv (no space_to_batch ops), SplitArgs (no argument limit on llvm),
PlanDevices (one CPU device), the auto-scheduler layout rewrites, LabelOps and
AnnotateMemoryScope (graph-executor bookkeeping). EliminateCommonSubexpr runs without
``fskip``: Relay's build passes one that never skips.

A pass of the list that is not registered (yet) is skipped; the list itself always
names them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import InsertPoint, Rewriter

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import DYN
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.names import decode_name, encode_name
from xrelay.pass_manager import Pass, PassContext, PassInfo, Sequential, register_pass
from xrelay.pass_manager.analysis import ALL
from xrelay.pass_manager.options import option, set_info
from xrelay.pass_manager.passes import ModuleKind, run_pass
from xrelay.pass_manager.registry import UnknownPassError, lookup

PASS_PREFIX: tuple[str, ...] = (
    "RemoveUnusedFunctions",
    "FakeQuantizationToInteger",
    "QnnLegalize",
    "QnnCanonicalize",
    "SimplifyInference",
    "EliminateCommonSubexpr",
    "FoldConstant",
    "FoldScaleAxis",
    "SimplifyExpr",
    "CanonicalizeOps",
    "InferType",
    "AlterOpLayout",
    "SimplifyExprPostAlterOp",
    "FastMath",
    "FoldConstant",
    "FuseOps",
)
"""Relay's build pass prefix (plus FuseOps), in order, without the passes that do not
apply to xrelay (see the module docstring)."""

DIRECT_PASSES: tuple[str, ...] = ("InferType", "Inline", "InferType")
"""Run after the Sequential at every opt_level, as ``relay.build`` calls them
directly."""


def registered(name: str) -> bool:
    try:
        lookup(name)
    except UnknownPassError:
        return False
    return True


def build_prefix() -> Sequential:
    """The Sequential of the registered passes of :data:`PASS_PREFIX`."""
    from xrelay.pass_manager import get_pass

    passes = [get_pass(name) for name in PASS_PREFIX if registered(name)]
    # xrelay.mixed_precision_type: ToMixedPrecision once the graph is simplified
    # (batch norms folded), before the layouts are chosen
    from xrelay.transforms.to_mixed_precision import build_pipeline_pass

    mixed = build_pipeline_pass(PassContext.current())
    if mixed is not None:
        at = next(i for i, p in enumerate(passes) if p.info.name == "SimplifyExpr")
        passes.insert(at + 1, mixed)
    return Sequential(passes, opt_level=0, name="RelayOptimizePrefix")


class ParamsBindError(ValueError):
    """A ``params`` entry does not fit the parameter of ``@main`` it names."""


def bind_params(
    module: ModuleOp, params: Mapping[str, Any], entry: str = "main"
) -> None:
    """Replace the parameters of ``@entry`` named in ``params`` by constants of the
    given values, in place, and drop them from the signature. Names that are not
    parameters are ignored (as in TVM); a name shared by several parameters, or a
    value whose shape or dtype does not fit, is an error."""
    func = next(
        (
            op
            for op in module.ops
            if isinstance(op, FuncOp) and op.sym_name.data == entry
        ),
        None,
    )
    if func is None or not func.body.blocks:
        raise ParamsBindError(f"cannot bind params: the module has no @{entry}")
    block = func.body.block
    by_name: dict[str, list[int]] = {}
    for i, arg in enumerate(block.args):
        if arg.name_hint is not None:
            by_name.setdefault(decode_name(arg.name_hint), []).append(i)
    bound: list[int] = []
    for name, value in params.items():
        indices = by_name.get(name)
        if indices is None:
            continue
        if len(indices) > 1:
            raise ParamsBindError(f"Multiple args in the function have name {name}")
        arg = block.args[indices[0]]
        array = _as_array(value)
        _check_fits(array, arg.type, name)
        const = ConstantOp(np.ascontiguousarray(array))
        Rewriter.insert_op(const, InsertPoint.at_start(block))
        const.result.name_hint = encode_name(name)
        arg.replace_all_uses_with(const.result)
        bound.append(indices[0])
    if not bound:
        return
    for i in sorted(bound, reverse=True):
        block.erase_arg(block.args[i])
    keep = [i for i in range(len(func.function_type.inputs.data)) if i not in bound]
    inputs = [func.function_type.inputs.data[i] for i in keep]
    func.function_type = FunctionType.from_lists(
        inputs, list(func.function_type.outputs.data)
    )
    if func.arg_attrs is not None:
        func.arg_attrs = ArrayAttr([func.arg_attrs.data[i] for i in keep])


def _as_array(value: Any) -> np.ndarray[Any, Any]:
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    return np.asarray(value)


def _check_fits(array: np.ndarray[Any, Any], ty: Any, name: str) -> None:
    if not isinstance(ty, TensorType):
        raise ParamsBindError(
            f"cannot bind param {name}: its type {ty} is not a tensor"
        )
    tensor_ty = cast(TensorType, ty)
    shape = tensor_ty.get_shape()
    if len(shape) != array.ndim or any(
        d != DYN and d != a for d, a in zip(shape, array.shape, strict=True)
    ):
        raise ParamsBindError(
            f"cannot bind param {name}: the value has shape {list(array.shape)}, the "
            f"parameter is {tensor_ty}"
        )
    expected = dtypes.numpy_dtype(tensor_ty.get_element_type())
    if array.dtype != expected:
        raise ParamsBindError(
            f"cannot bind param {name}: the value has dtype {array.dtype}, the "
            f"parameter is {tensor_ty}"
        )


@register_pass("RelayOptimize")
@dataclass(frozen=True, eq=False, repr=False)
class RelayOptimize(Pass):
    """Relay's relay.build optimisation pipeline for the context's opt_level (or
    ``opt_level`` when given): the pass prefix as one Sequential, then InferType,
    Inline, InferType."""

    # its passes invalidate what they change (an inner opt level shares the
    # context's analyses: PassContext.with_opt_level)
    PRESERVES = ALL

    opt_level: int = option(-1, "-1: the PassContext's opt_level")

    def __post_init__(self) -> None:
        set_info(self, PassInfo(0, "RelayOptimize"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        if self.opt_level < 0 or self.opt_level == ctx.opt_level:
            return self._run(op, ctx, kind)
        with ctx.with_opt_level(self.opt_level) as inner:
            return self._run(op, inner, kind)

    @staticmethod
    def _run(op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        from xrelay.pass_manager import get_pass

        op = run_pass(build_prefix(), op, ctx, kind, copy=False)
        for name in DIRECT_PASSES:
            op = run_pass(get_pass(name), op, ctx, kind, copy=False)
        return op


def optimize(mod: Any, params: Mapping[str, Any] | None = None) -> Any:
    """Relay's ``relay.optimize`` for the current PassContext: bind ``params`` (a
    dict from parameter name to array) into ``@main``, then run :class:`RelayOptimize`.

    ``mod`` is an ``IRModule`` or a ``builtin.module``; it is left as it was and the
    optimised module is returned in the same kind."""
    if params:
        if isinstance(mod, ModuleOp):
            work: Any = mod.clone()
            bind_params(work, params)
        else:
            inner = getattr(mod, "module", None)
            if not isinstance(inner, ModuleOp):
                raise TypeError(
                    "optimize takes an IRModule or a builtin.module, not "
                    f"{type(mod).__name__}"
                )
            clone = inner.clone()
            bind_params(clone, params)
            work = type(mod)(clone)
        mod = work
    return RelayOptimize()(mod)
