"""FuseOps: group ops into fused kernels, each outlined as a primitive function (Relay's
``FuseOps``, opt_level 0, requires InferType).

Representation of a fused group
-------------------------------
Each group becomes a private ``func.func`` marked with the unit attribute
``relay.primitive`` and is replaced in its caller by a ``func.call`` to it::

    func.func private @fused_nn_conv2d_nn_bias_add_nn_relu(%p0: ..., %p1: ..., %p2: ...)
        -> tensor<...> attributes {relay.primitive} { ... }
    func.func @main(...) {
      %2 = func.call @fused_nn_conv2d_nn_bias_add_nn_relu(%x, %w, %b) : ...

* The function is named ``fused_`` + the names of its ops (``relay.`` dropped, ``.`` →
  ``_``) in body order, cut at about 80 characters like TVM's kernel names; ``_1``,
  ``_2``, ... are appended when the name is taken. Functions go right before their
  caller, in the order of their calls.
* Its parameters ``%p0, %p1, ...`` are the group's inputs from outside the group,
  de-duplicated, in the order Relay's mutator meets them (depth first from the
  group's root, operands in order). Its body is the group's ops in that order.
* It returns the results of the group's root, the one op whose values leave the group
  (Relay's post-dominator rule guarantees no other member is used outside): one value,
  or several when the root has several results (``split``, ``batch_norm``), except
  that a non-opaque root of which one result is used returns just that one (Relay's
  group then ends in the projection, which fuses with an injective root).
* Constants: scalar constants of simple types are elementwise and fuse into the group
  like any op; other constants (weights) are inputs (parameters). With the config
  ``relay.FuseOps.link_params`` they are cloned into each function using them instead
  (and dropped from the caller when it no longer uses them).
* Like Relay, only relay *op calls* become functions: a ``relay.tuple`` that is the
  root of its group (e.g. the function's result), a projection of a tuple made
  outside its group, constants, ``relay.if``, ``func.call``, annotations and ops of
  other dialects stay in the caller. Fusion level 0 therefore gives one function per
  relay op.

The grouping is Relay's algorithm (:mod:`xrelay.transforms._fusion`): a dataflow
graph per block in post-DFS order, the post-dominator tree, then three union-find
phases. Blocks inside regions (``relay.if`` branches) are fused separately; a region op
is a fusion boundary. Functions marked ``relay.primitive`` or
``relay.skip_optimization`` are left alone.

Under a current target with a ``max_function_args`` limit (TVM's opencl and metal
kinds; CPU targets have none) no fusion makes a kernel take more parameters than the
limit allows, counted as Relay counts them (one per outside input, plus one per
dynamic dimension and a stride per dimension for dynamic shapes, one per output).

Departures from Relay: ops never fuse across a region boundary (Relay can fuse an
outside producer into an ``if`` branch); the "dynamic output shape + data-dependent
shape function ⇒ opaque" rule is not applied (no op declares data-dependent shapes).

``annotation.stop_fusion`` (an annotation op) is opaque, so nothing fuses across it;
once the groups are outlined it is dropped, its users taking its operand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import (
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue

from xrelay.dialects.relay.annotation import AnnotationOp
from xrelay.dialects.relay.base import OpPattern, RelayOp
from xrelay.dialects.relay.structural import (
    PRIMITIVE,
    ConstantOp,
    TupleGetItemOp,
    TupleOp,
)
from xrelay.pass_manager import (
    Pass,
    PassConfigError,
    PassContext,
    PassInfo,
    register_pass,
)
from xrelay.pass_manager.analysis import ALL, AnalysisManager
from xrelay.pass_manager.options import option, set_info
from xrelay.pass_manager.passes import optimizable_functions
from xrelay.target import Target
from xrelay.transforms._fusion import FusionError, build_graph, partition
from xrelay.transforms.infer_type import infer_types, mark_inferred


class FuseOpsOptionError(PassConfigError, ValueError):
    """A bad FuseOps option (``fuse_opt_level``) or config value (``max_depth``)."""


MAX_NAME_LENGTH = 80
"""Fused function names are cut to about this length (TVM's ``kMaxFuncNameLength``)."""


@register_pass("FuseOps")
@dataclass(frozen=True, eq=False, repr=False)
class FuseOps(Pass):
    """Fuse ops into primitive functions with Relay's post-dominator algorithm
    (Relay's ``FuseOps``). ``fuse_opt_level`` -1 uses the PassContext's opt_level; 0
    puts every op in a function of its own. Reads ``relay.FuseOps.max_depth`` and
    ``relay.FuseOps.link_params`` from the PassContext config (``link_params``
    defaults to the ``link-params`` of the module's ``executor`` attribute)."""

    fuse_opt_level: int = option(
        -1, "fusion level; -1: the PassContext's opt_level, 0: one op per function"
    )

    def __post_init__(self) -> None:
        if self.fuse_opt_level < -1:
            raise FuseOpsOptionError(
                f"FuseOps: fuse_opt_level must be -1 (the PassContext's opt_level) or "
                f">= 0, got {self.fuse_opt_level}"
            )
        set_info(self, PassInfo(0, "FuseOps", ["InferType"]))

    # the outlined kernels and their calls carry the (inferred) types of the ops they
    # were made of: FuseOps drops every analysis, then records TYPES as valid
    PRESERVES = ALL

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        level = ctx.opt_level if self.fuse_opt_level == -1 else self.fuse_opt_level
        analyses = ctx.analyses
        fuse_ops(
            op,
            level,
            int(ctx.get_config("relay.FuseOps.max_depth")),
            bool(ctx.get_config("relay.FuseOps.link_params", _executor_links(op))),
            analyses,
            _target_max_args(),
        )
        analyses.invalidate()
        mark_inferred(op, analyses)
        return op


def _executor_links(module: ModuleOp) -> bool:
    """The ``link-params`` option of the module's ``executor`` attribute (Relay's
    default for ``relay.FuseOps.link_params``; the config, when set, wins)."""
    executor = module.attributes.get("executor")
    if not isinstance(executor, DictionaryAttr):
        return False
    link = executor.data.get("link-params")
    return isinstance(link, IntegerAttr) and bool(link.value.data)


def _target_max_args() -> int:
    """The current target's kernel-parameter limit (0: none or no target)."""
    target = Target.current()
    return 0 if target is None else target.max_function_args


def fuse_ops(
    module: ModuleOp,
    opt_level: int,
    max_depth: int = 256,
    link_params: bool = False,
    analyses: AnalysisManager | None = None,
    max_args: int = 0,
) -> None:
    """Fuse every optimizable function of ``module`` in place (see the module
    docstring). Types are inferred first (only where ``analyses`` has no valid
    types); ``max_args`` > 0 limits the parameters of a fused kernel."""
    if max_depth < 0:
        raise FuseOpsOptionError(
            f"FuseOps: relay.FuseOps.max_depth must not be negative, got {max_depth}"
        )
    infer_types(module, analyses)
    names = _SymbolNames(module)
    for func in optimizable_functions(module):
        _Outliner(
            module, func, names, opt_level, max_depth, link_params, max_args
        ).fuse_block(func.body.block)


class _SymbolNames:
    """Unique function names in a module."""

    def __init__(self, module: ModuleOp):
        self.taken: set[str] = set()
        for op in module.ops:
            sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
            if isinstance(sym, StringAttr):
                self.taken.add(sym.data)

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name


def kernel_name(ops: Sequence[Operation]) -> str:
    """``fused_`` + the op names of a group (``relay.nn.conv2d`` → ``nn_conv2d``)."""
    parts = [
        op.name.removeprefix("relay.").replace(".", "_")
        for op in ops
        if isinstance(op, RelayOp)
        and not isinstance(op, ConstantOp | TupleOp | TupleGetItemOp)
    ]
    name = "_".join(["fused", *parts])
    if len(name) > MAX_NAME_LENGTH:
        cut = name.rfind("_", 0, MAX_NAME_LENGTH + 1)
        name = name[:cut]
    return name


class _Outliner:
    """Fuses the blocks of one function and outlines the groups."""

    def __init__(
        self,
        module: ModuleOp,
        caller: FuncOp,
        names: _SymbolNames,
        opt_level: int,
        max_depth: int,
        link_params: bool,
        max_args: int = 0,
    ):
        self.module = module
        self.max_args = max_args
        self.caller = caller
        self.names = names
        self.opt_level = opt_level
        self.max_depth = max_depth
        self.link_params = link_params

    def fuse_block(self, block: Block) -> None:
        nodes = build_graph(block)
        roots = partition(nodes, self.opt_level, self.max_depth, self.max_args)
        group_of: dict[Operation, Operation] = {}
        members: dict[Operation, list[Operation]] = {}
        for node, root in zip(nodes, roots, strict=True):
            root_op = nodes[root].op
            group_of[node.op] = root_op
            members.setdefault(root_op, []).append(node.op)
        linked: set[ConstantOp] = set()
        for op in list(block.ops):
            if op.parent is not block:
                continue  # moved into a fused function already
            group = members.get(op)
            if group is not None and self._is_kernel(op, block, group_of):
                linked.update(self._outline(op, set(group), block))
                continue
            if group is not None and len(group) > 1:
                raise FusionError(
                    f"@{self.caller.sym_name.data}: a group rooted at '{op.name}' has "
                    "other ops but cannot become a function"
                )
            for region in op.regions:
                for inner in region.blocks:
                    self.fuse_block(inner)
        for op in list(block.ops):  # the annotations did their job: drop them
            if isinstance(op, AnnotationOp):
                op.results[0].replace_all_uses_with(op.operands[0])
                block.erase_op(op)
        for const in linked:  # linked into the functions: drop unused caller copies
            parent = const.parent
            if parent is not None and not const.result.uses:
                parent.erase_op(const)

    @staticmethod
    def _is_kernel(
        root: Operation, block: Block, group_of: dict[Operation, Operation]
    ) -> bool:
        """Whether a group with this root becomes a function (Relay wraps op calls,
        and a projection whose tuple is in its group)."""
        if not isinstance(root, RelayOp) or root.regions:
            return False
        if isinstance(root, ConstantOp | TupleOp | AnnotationOp):
            return False
        if isinstance(root, TupleGetItemOp):
            tup = root.tuple
            return (
                isinstance(tup, OpResult)
                and tup.op.parent is block
                and group_of.get(tup.op) is root
            )
        return True

    def _outline(
        self, root: Operation, members: set[Operation], block: Block
    ) -> list[ConstantOp]:
        """Move the group into a new primitive function and call it in place of the
        root. Returns the caller constants cloned into the function."""
        order, inputs = _body_order(root, members)
        for op in order:
            if op is root:
                continue
            for res in op.results:
                for use in res.uses:
                    if use.operation not in members:
                        raise FusionError(
                            f"@{self.caller.sym_name.data}: '{op.name}' is fused "
                            f"into the group of '{root.name}' but used outside it"
                        )
        linked = {
            v
            for v in inputs
            if self.link_params
            and isinstance(v, OpResult)
            and isinstance(v.op, ConstantOp)
        }
        params = [v for v in inputs if v not in linked]
        arg_types: list[Attribute] = [v.type for v in params]
        returned = _returned_results(root)
        result_types: list[Attribute] = [r.type for r in returned]
        name = self.names.fresh(kernel_name(order))

        call = CallOp(name, params, result_types)
        block.insert_op_before(call, root)
        for old, new in zip(returned, call.results, strict=True):
            new.name_hint = old.name_hint
            old.replace_all_uses_with(new)

        body = Block(arg_types=arg_types)
        mapping: dict[SSAValue, SSAValue] = {}
        for i, (value, arg) in enumerate(zip(params, body.args, strict=True)):
            arg.name_hint = f"p{i}"
            mapping[value] = arg
        sources: list[ConstantOp] = []
        for op in order:
            for value in op.operands:
                if value in linked and value not in mapping:
                    assert isinstance(value, OpResult)
                    source = value.op
                    assert isinstance(source, ConstantOp)
                    clone = source.clone()
                    body.add_op(clone)
                    mapping[value] = clone.result
                    sources.append(source)
            block.detach_op(op)
            body.add_op(op)
            op.operands = [mapping.get(v, v) for v in op.operands]
        body.add_op(ReturnOp(*returned))

        func = FuncOp(
            name,
            FunctionType.from_lists(arg_types, result_types),
            Region(body),
            visibility="private",
        )
        func.attributes[PRIMITIVE] = UnitAttr()
        self.module.body.block.insert_op_before(func, self.caller)
        return sources


def _returned_results(root: Operation) -> list[OpResult]:
    """What a kernel returns: the root's results, except that a fusable root with
    several results of which one is used returns that one (Relay's group then ends
    in the projection of it, which an injective root fuses with; an opaque root's
    kernel returns the whole tuple)."""
    results = list(root.results)
    used = [r for r in results if r.uses]
    fusable = isinstance(root, RelayOp) and type(root).PATTERN != OpPattern.OPAQUE
    if len(results) > 1 and len(used) == 1 and fusable:
        return used
    return results


def _body_order(
    root: Operation, members: set[Operation]
) -> tuple[list[Operation], list[SSAValue]]:
    """The group's ops depth first from the root (operands in order, each op after
    the members it uses) and its inputs from outside in the order they are met."""
    order: list[Operation] = []
    inputs: list[SSAValue] = []
    seen_inputs: set[SSAValue] = set()
    seen: set[Operation] = {root}
    stack: list[tuple[Operation, int]] = [(root, 0)]
    while stack:
        op, i = stack[-1]
        if i == len(op.operands):
            stack.pop()
            order.append(op)
            continue
        stack[-1] = (op, i + 1)
        value = op.operands[i]
        if isinstance(value, OpResult) and value.op in members:
            if value.op not in seen:
                seen.add(value.op)
                stack.append((value.op, 0))
        elif value not in seen_inputs:
            seen_inputs.add(value)
            inputs.append(value)
    if len(order) != len(members):
        raise FusionError(
            f"the group of '{root.name}' has ops its root does not depend on"
        )
    return order, inputs
