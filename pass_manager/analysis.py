"""Analyses, cached and preserved (MLIR's ``AnalysisManager``; Relay's RFC left
analysis preservation open).

``PassContext.analyses`` is an :class:`AnalysisManager`. A pass asks it for an
analysis of a function or of the module (``ctx.analyses.get(CALLEES, func)``); the
result is computed once and cached until a pass invalidates it. What a pass
preserves:

* ``Pass.PRESERVES``: the analyses a pass keeps, declared on its class (``ALL`` for
  passes that change nothing, or that invalidate precisely themselves: Sequential,
  FunctionPass, InferType). The default keeps nothing: after such a pass every
  cached result is dropped;
* a function pass reports, per visited function, what its rewrite kept by calling
  ``ctx.analyses.preserve()`` (nothing changed: everything kept) or
  ``ctx.analyses.preserve("types")`` (the function changed, its types did not)
  from its pass function; a function it does not report on loses its analyses.

The cache lives for one outermost pass call (a pipeline run) and is dropped when it
starts and ends: between calls user code may change the module.

An analysis is declared next to its implementation: here the pass manager's own
(``CALLEES``, ``CALL_GRAPH``, ``USE_COUNTS``, ``VERIFIED``); ``TYPES`` in
:mod:`xrelay.transforms.infer_type`, ``POST_DOMINATORS`` in
:mod:`xrelay.transforms._fusion`. ``TYPES`` is how InferType skips work: after a function pass, only the functions it
changed (and the callers of functions whose signature changed) are inferred again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Operation, SSAValue

_T = TypeVar("_T")

ALL: frozenset[str] = frozenset({"*"})
"""``PRESERVES = ALL``: the pass keeps every analysis (or invalidates precisely)."""


@dataclass(frozen=True, eq=False)
class Analysis(Generic[_T]):
    """An analysis: a name, whether it is of a function or of the whole module, and
    how to compute it (``compute(target, manager)``)."""

    name: str
    scope: str
    """``"function"`` (target: a ``func.func``) or ``"module"`` (a ``builtin.module``);
    invalidating a function also drops the module analyses."""
    compute: Callable[[Any, AnalysisManager], _T]
    doc: str = ""


class AnalysisManager:
    """Cached analysis results, keyed by analysis and target op."""

    __slots__ = ("_results", "computed", "enabled", "reported")

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        """False (``xrelay.cache_analyses`` off): nothing is cached."""
        self._results: dict[tuple[str, Operation], Any] = {}
        self.computed: Counter[str] = Counter()
        """How many times each analysis was computed (tests, benchmarks)."""
        self.reported: frozenset[str] | None = None
        """What the running function pass said it preserved for the function it is
        visiting (None: nothing said)."""

    def __bool__(self) -> bool:
        return bool(self._results)

    def get(self, analysis: Analysis[_T], target: Operation) -> _T:
        """The analysis of ``target``, computed if it is not cached."""
        key = (analysis.name, target)
        results = self._results
        if key in results:
            return results[key]
        value = analysis.compute(target, self)
        if self.enabled:
            results[key] = value
        self.computed[analysis.name] += 1
        return value

    def cached(self, analysis: Analysis[_T], target: Operation) -> _T | None:
        """The cached result, or None (never computes)."""
        return self._results.get((analysis.name, target))

    def put(self, analysis: Analysis[_T], target: Operation, value: _T) -> None:
        """Record a result computed elsewhere (InferType records ``TYPES``; it
        counts its inferences in ``computed`` itself)."""
        if self.enabled:
            self._results[(analysis.name, target)] = value

    def forget(self, analysis: Analysis[Any], target: Operation) -> None:
        """Drop one cached result (a pass that keeps the others but not this one)."""
        self._results.pop((analysis.name, target), None)

    def preserve(self, *names: str) -> None:
        """Called by a function pass's function: the visited function keeps these
        analyses (all of them when no name is given: nothing changed)."""
        self.reported = frozenset(names) if names else ALL

    # -- invalidation ---------------------------------------------------------------

    def clear(self) -> None:
        self._results.clear()
        self.reported = None

    def invalidate(self, keep: frozenset[str] = frozenset()) -> None:
        """Drop every result but those of the analyses named in ``keep``."""
        if ALL is keep or "*" in keep:
            return
        if not keep:
            self._results.clear()
            return
        self._results = {k: v for k, v in self._results.items() if k[0] in keep}

    def invalidate_function(
        self, func: Operation, keep: frozenset[str] | None = None
    ) -> None:
        """``func`` changed: drop its results (but ``keep``) and the module's."""
        results = self._results
        if not results or (keep is not None and "*" in keep):
            return
        keep = keep or frozenset()
        for key in [k for k in results if k[1] is func or _is_module_key(k)]:
            if key[0] not in keep or _is_module_key(key):
                del results[key]

    def after_pass(self, preserves: frozenset[str]) -> None:
        """After a pass that declared ``preserves`` (its class's ``PRESERVES``)."""
        if self._results and "*" not in preserves:
            self.invalidate(preserves)


def _is_module_key(key: tuple[str, Operation]) -> bool:
    return isinstance(key[1], ModuleOp)


# ---------------------------------------------------------------------------------------
# The analyses
# ---------------------------------------------------------------------------------------


def _callees(func: FuncOp, am: AnalysisManager) -> tuple[str, ...]:
    names: dict[str, None] = {}
    for op in func.walk():
        if isinstance(op, CallOp):
            names[op.callee.string_value()] = None
    return tuple(names)


CALLEES: Analysis[tuple[str, ...]] = Analysis(
    "callees", "function", _callees, "the functions a function calls, in call order"
)


def _call_graph(module: ModuleOp, am: AnalysisManager) -> dict[str, tuple[str, ...]]:
    return {
        f.sym_name.data: am.get(CALLEES, f) for f in module.ops if isinstance(f, FuncOp)
    }


CALL_GRAPH: Analysis[dict[str, tuple[str, ...]]] = Analysis(
    "call_graph", "module", _call_graph, "each function's callees"
)


def _use_counts(func: FuncOp, am: AnalysisManager) -> dict[SSAValue, int]:
    counts: dict[SSAValue, int] = {}
    for block in func.body.blocks:
        for arg in block.args:
            counts[arg] = sum(1 for _ in arg.uses)
    for op in func.walk():
        for res in op.results:
            counts[res] = sum(1 for _ in res.uses)
    return counts


USE_COUNTS: Analysis[dict[SSAValue, int]] = Analysis(
    "use_counts", "function", _use_counts, "how many uses each value of a function has"
)


def _verified(module: ModuleOp, am: AnalysisManager) -> bool:
    from xrelay.dialects.relay.dominance import verify_module

    verify_module(module)
    return True


VERIFIED: Analysis[bool] = Analysis(
    "verified",
    "module",
    _verified,
    "the module verifies (``xrelay.verify_each`` re-verifies only after a pass that "
    "did not preserve it: a pass that changed nothing costs no verification)",
)
