"""xDSL interop, both ways.

* :func:`from_xdsl` makes any xDSL ``ModulePass`` (``canonicalize``, ``cse``, ``dce``,
  ...) an xrelay pass: usable in a Sequential, gated by opt_level, seen by instruments.
* :func:`to_xdsl` makes any xrelay pass an xDSL ``ModulePass`` that runs in a
  ``PassPipeline`` or ``xdsl-opt``, under ``PassContext.current()``;
  :func:`xdsl_pass_class` makes the class ``xdsl-opt -p name{options}`` instantiates
  for a registered pass.
* :class:`PatternPass` (and :func:`pattern_pass`) makes a FunctionPass from xDSL
  ``RewritePattern``\\ s, driven to a fixed point by a ``PatternRewriteWalker`` or
  offered each op once: the way the Relay passes made of local rewrites are written
  (SimplifyExpr, SimplifyExprPostAlterOp, CanonicalizeOps, FastMath).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence, Set
from functools import cache
from typing import Any, cast

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass as XDSLModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xrelay.pass_manager.context import PassContext
from xrelay.pass_manager.info import PassInfo
from xrelay.pass_manager.passes import FunctionPass, ModuleKind, Pass, apply_in_place


def xdsl_context() -> Context:
    """An xDSL context that knows every dialect of the environment (xDSL's and the
    plugins', relay among them), loaded lazily, and the relay ops defined from
    Python (TVM's ``relay.op.register``): one shared context while there are none,
    a fresh one holding them once there are."""
    from xrelay.dialects.relay import OPS_BY_NAME, Relay

    built_in = set(Relay.operations)
    defined = [op for op in OPS_BY_NAME.values() if op not in built_in]
    if not defined:
        return _shared_context()
    ctx = _environment_context()
    for op in defined:
        ctx.load_op(op)
    return ctx


@cache
def _shared_context() -> Context:
    return _environment_context()


def _environment_context() -> Context:
    from xdsl.universe import Universe

    ctx = Context(allow_unregistered=True)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


class XDSLPass(Pass):
    """An xDSL ``ModulePass`` run as an xrelay module pass (in place)."""

    def __init__(self, xdsl_pass: XDSLModulePass, info: PassInfo):
        self.xdsl_pass = xdsl_pass
        self.info = info

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        self.xdsl_pass.apply(xdsl_context(), op)
        return op


def from_xdsl(
    pass_or_class: XDSLModulePass | type[XDSLModulePass],
    opt_level: int = 0,
    name: str | None = None,
    required: Sequence[str] | None = None,
) -> Pass:
    """Wrap an xDSL pass (instance, or class with default options). The name defaults
    to the xDSL pass name (``canonicalize``)."""
    inst = pass_or_class() if isinstance(pass_or_class, type) else pass_or_class
    return XDSLPass(inst, PassInfo(opt_level, name or inst.name, required))


class AdaptedXDSLPass(XDSLModulePass):
    """Base of the xDSL pass classes made by :func:`to_xdsl` / :func:`xdsl_pass_class`."""

    def make_pass(self) -> Pass:
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_in_place(self.make_pass(), op)


def to_xdsl(pass_: Pass, name: str | None = None) -> XDSLModulePass:
    """An xDSL ``ModulePass`` running ``pass_`` (for a ``PassPipeline``)."""
    pipeline_name = name or _pipeline_name(pass_.info.name)

    class Adapted(AdaptedXDSLPass):
        def make_pass(self) -> Pass:
            return pass_

    Adapted.name = pipeline_name
    Adapted.__name__ = Adapted.__qualname__ = f"XDSL_{pass_.info.name}"
    return dataclasses.dataclass(frozen=True)(Adapted)()


def _pipeline_name(name: str) -> str:
    from xrelay.pass_manager.registry import pipeline_name_of

    return pipeline_name_of(name)


def xdsl_pass_class(
    pipeline_name: str,
    factory: Callable[..., Pass],
    options: Sequence[tuple[str, type, Any]] = (),
) -> type[XDSLModulePass]:
    """The xDSL pass class for a registered pass: its dataclass fields are the
    pass's options (``fuse-ops{fuse-opt-level=2}``), given to ``factory``."""

    def make_pass(self: Any) -> Pass:
        return factory(
            **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        )

    cls = dataclasses.make_dataclass(
        "XDSL_" + pipeline_name.replace("-", "_"),
        [
            (opt, typ, dataclasses.field(default=default))
            for opt, typ, default in options
        ],
        bases=(AdaptedXDSLPass,),
        frozen=True,
        namespace={"name": pipeline_name, "make_pass": make_pass},
    )
    return cast(type[XDSLModulePass], cls)


class PatternPass(FunctionPass):
    """A FunctionPass made of local rewrites: xDSL ``RewritePattern``\\ s applied to
    each function. A Relay pass of this kind is a frozen dataclass subclass whose
    ``__post_init__`` calls ``super().__init__(patterns, info)``.

    ``roots`` unset (the default): xDSL's ``PatternRewriteWalker`` with its greedy
    applier, repeated until nothing changes; trivially dead pure ops are erased on
    the way. With ``roots`` (the op classes the patterns match, exactly: not their
    subclasses): one walk, as a pass that rewrites each op of a kind once
    (CanonicalizeOps, FastMath); each op of those classes is offered to the patterns
    in order with an xDSL ``PatternRewriter``, the ops a rewrite makes are not, and
    dead ops are left alone. Not the walker there: its worklist costs about 10 us
    per op of the function whether a pattern matches or not (DenseNet-121: 8-14 ms
    a walk against 1 ms for the filtered loop).
    """

    def __init__(
        self,
        patterns: Sequence[RewritePattern],
        info: PassInfo,
        *,
        walk_reverse: bool = False,
        roots: tuple[type[Operation], ...] | None = None,
    ) -> None:
        pats = list(patterns)
        if roots is None:
            applier = GreedyRewritePatternApplier(pats)

            def rewrite(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
                walker = PatternRewriteWalker(
                    applier, apply_recursively=True, walk_reverse=walk_reverse
                )
                if not walker.rewrite_region(func.body):
                    ctx.analyses.preserve()  # nothing changed
                return func

        else:
            kinds = frozenset(roots)

            def rewrite(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
                if not rewrite_once(func, pats, kinds, walk_reverse):
                    ctx.analyses.preserve()  # nothing changed
                return func

        super().__init__(rewrite, info)


def rewrite_once(
    func: FuncOp,
    patterns: Sequence[RewritePattern],
    roots: Set[type[Operation]],
    walk_reverse: bool = False,
) -> bool:
    """Offer each op of ``func`` whose class is in ``roots`` (nested regions
    included, in walk order) to ``patterns`` in order until one rewrites it; True if
    any did."""
    changed = False
    for op in list(func.body.walk(reverse=walk_reverse)):
        if type(op) not in roots or op.parent is None:  # (erased on the way)
            continue
        rewriter = PatternRewriter(op)
        for pattern in patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                changed = True
                break
    return changed


def pattern_pass(
    name: str,
    patterns: Sequence[RewritePattern],
    opt_level: int = 0,
    required: Sequence[str] | None = None,
    walk_reverse: bool = False,
) -> FunctionPass:
    """A FunctionPass applying xDSL rewrite patterns greedily to each function until
    nothing changes (trivially dead pure ops are erased on the way, as xDSL's greedy
    applier does)."""
    return PatternPass(
        patterns, PassInfo(opt_level, name, required), walk_reverse=walk_reverse
    )
