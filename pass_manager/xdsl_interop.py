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
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass as XDSLModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead

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

    ``types_checked``: the rewrites keep the function's types, so InferType need not
    sweep it again. The pass listens to the rewriter (:class:`TypeKeepingListener`);
    when every replacement kept the replaced results' types and every op a rewrite
    inserted (still in the function) has the types its relation gives, the
    function keeps its ``types`` analysis (``ctx.analyses.preserve("types")``), else
    InferType infers it again as after any pass. For patterns that change the IR
    only through the rewriter and report the ops they insert
    (``rewriter.handle_operation_insertion`` for ops built elsewhere).
    """

    def __init__(
        self,
        patterns: Sequence[RewritePattern],
        info: PassInfo,
        *,
        walk_reverse: bool = False,
        roots: tuple[type[Operation], ...] | None = None,
        types_checked: bool = False,
    ) -> None:
        pats = list(patterns)

        def report(
            ctx: PassContext, changed: bool, watch: TypeKeepingListener | None
        ) -> None:
            if not changed:
                ctx.analyses.preserve()  # nothing changed
            elif watch is not None and watch.types_kept():
                ctx.analyses.preserve(TYPES_ANALYSIS)

        if roots is None:
            applier = DispatchingPatternApplier(pats)

            def rewrite(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
                watch = TypeKeepingListener() if types_checked else None
                walker = PatternRewriteWalker(
                    applier,
                    apply_recursively=True,
                    walk_reverse=walk_reverse,
                    listener=watch or PatternRewriterListener(),
                )
                report(ctx, walker.rewrite_region(func.body), watch)
                return func

        else:
            kinds = frozenset(roots)

            def rewrite(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
                watch = TypeKeepingListener() if types_checked else None
                changed = rewrite_once(func, pats, kinds, walk_reverse, watch)
                report(ctx, changed, watch)
                return func

        super().__init__(rewrite, info)


class DispatchingPatternApplier(GreedyRewritePatternApplier):
    """xDSL's greedy applier (a trivially dead op is erased, else the patterns are
    tried in order until one rewrites the op; no folding) that offers an op only the
    patterns that can match its class. A pattern says which with an ``OPS`` class
    attribute, a tuple of op classes (subclasses included): it can only rewrite an
    instance of one of them; a pattern without ``OPS`` is offered every op. The
    patterns of a class, in their order, are computed on its first op and kept: the
    walker offers every op of the function, again after each rewrite near it, and
    asking each pattern costs an ``isinstance`` against abstract classes per op
    (SimplifyExpr's 17 patterns on a quantized MobileNet-v2: 32 000 calls)."""

    def __init__(self, patterns: Sequence[RewritePattern]) -> None:
        super().__init__(list(patterns))
        self._by_class: dict[type[Operation], tuple[RewritePattern, ...]] = {}

    def patterns_for(self, kind: type[Operation]) -> tuple[RewritePattern, ...]:
        """The patterns that can match an op of class ``kind``, in order."""
        found = self._by_class.get(kind)
        if found is None:
            found = tuple(
                p
                for p in self.rewrite_patterns
                if (ops := getattr(p, "OPS", None)) is None or issubclass(kind, ops)
            )
            self._by_class[kind] = found
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if is_trivially_dead(op):
            rewriter.erase(op)
            return
        for pattern in self.patterns_for(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


TYPES_ANALYSIS = "types"
"""The name of InferType's analysis (``xrelay.transforms.infer_type.TYPES``)."""


class TypeKeepingListener(PatternRewriterListener):
    """Watches a pattern pass's rewriter: whether every replacement kept the types
    of the results it replaced, and which ops were inserted or modified in place.
    :meth:`types_kept` then says whether the function's types are still what
    InferType would give, checking only those ops: an op no rewrite touched has the
    operand types it had (a replacement of the same type changes no type), so its
    inferred types are those it has."""

    def __init__(self) -> None:
        super().__init__()
        self.touched: list[Operation] = []
        self.retyped = False
        self.operation_insertion_handler.append(self.touched.append)
        self.operation_modification_handler.append(self.touched.append)
        self.operation_replacement_handler.append(self._replaced)

    def _replaced(self, op: Operation, new: Sequence[SSAValue | None]) -> None:
        if len(new) != len(op.results) or any(
            v is None or v.type != r.type for r, v in zip(op.results, new, strict=True)
        ):
            self.retyped = True

    def types_kept(self) -> bool:
        """No replacement changed a type, and every touched op still in the IR is a
        relay op whose type relation gives its result types."""
        from xrelay.dialects.relay.base import RelayOp

        if self.retyped:
            return False
        for op in self.touched:
            if op.parent is None:  # erased since
                continue
            if not isinstance(op, RelayOp) or op.regions:
                return False
            try:
                inferred = list(op.infer_result_types())
            except Exception:  # incomplete or ill-typed: InferType reports it
                return False
            if inferred != [r.type for r in op.results]:
                return False
        return True


def rewrite_once(
    func: FuncOp,
    patterns: Sequence[RewritePattern],
    roots: Set[type[Operation]],
    walk_reverse: bool = False,
    listener: PatternRewriterListener | None = None,
) -> bool:
    """Offer each op of ``func`` whose class is in ``roots`` (nested regions
    included, in walk order) to ``patterns`` in order until one rewrites it; True if
    any did. ``listener`` hears every rewriter."""
    changed = False
    for op in list(func.body.walk(reverse=walk_reverse)):
        if type(op) not in roots or op.parent is None:  # (erased on the way)
            continue
        rewriter = PatternRewriter(op)
        if listener is not None:
            rewriter.extend_from_listener(listener)
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
