"""Concatenations without copies: where it can, the producer of a concatenate's
operand writes its result straight into the operand's slice of the concatenation's
buffer, and the concatenate itself copies nothing.

The graph lowering (:mod:`xrelay.lowering.graph`) asks :func:`plan_concats` where
each value of the entry function lives before it lowers anything:

* A *root* is a concatenation that owns a buffer of its own (``memref.alloc`` of
  bytes). Its parts are ``memref.view``s of it at byte offsets; the memory planner
  places the root like any buffer (it lives from the first part's producer to the last
  read of any view of it) and folds the views into views of the arena.
* A value's *home* is ``(root, byte offset)``: the value's producer writes its
  result there (its output buffer is that view, not a fresh allocation). Homes of
  different values never overlap, except that a concatenation lowered in place has
  its operands' homes inside its own.
* A slice is a view only if it is contiguous: the dims before the axis are all 1
  (batch 1, as in an ``NCHW{c}c`` concatenation along the channel blocks, whose
  offsets are whole blocks by construction; a concatenation along the channels
  inside a block, or with a batch above 1, is not contiguous and keeps its kernel).
  Views have the identity layout, so kernels do not change.

Concatenations are visited from the last to the first, so that the largest one (in
DenseNet the block's last, holding every feature map of the block) becomes the root
and the earlier ones, whose operands it already holds in the same order, become
views of its prefix: one buffer per dense block, no copy at all.

A concatenation is lowered in place when at least one of its operands is (or can
be) at home in its slice; the others are copied into their slices by copy kernels
(model inputs, weights, graph outputs, values of other functions or branches,
values whose home is elsewhere, an operand repeated in the same concatenation).
When none is, the concatenate keeps its kernel (which may still write into the
concatenation's own home). A fused ``concatenate+ops`` group (DenseNet's BN shift
and relu after each concatenation) in place becomes the group without the
concatenate, reading the concatenation's buffer: the ops are elementwise on each
layer's own BN parameters, so they can move to neither the producers nor the
shared buffer.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from xrelay.dialects.relay import transform
from xrelay.dialects.relay.base import get_int
from xrelay.dialects.relay.structural import PRIMITIVE
from xrelay.lowering.scalar_types import tensor_info


@dataclass(frozen=True)
class Home:
    """Where a value lives: ``offset`` bytes into the buffer of ``root``."""

    root: SSAValue
    offset: int


@dataclass
class ConcatNode:
    """A concatenate lowered in place."""

    op: Operation
    """The op of the entry function: a ``func.call`` of a fused function holding the
    concatenate, or the ``relay.concatenate`` itself."""
    concat: transform.ConcatenateOp
    value: SSAValue
    """The concatenation: the call's result when the group is the concatenate alone
    (a value other concatenations may hold), else the concatenate's result in the
    fused function."""
    operands: list[SSAValue]
    """The operands, values of the entry function."""
    offsets: list[int]
    """Each operand's byte offset in the concatenation."""
    size: int
    """The concatenation's bytes."""
    pure: bool
    """The group is the concatenate alone: no kernel remains."""
    copies: list[int] = field(default_factory=list[int])
    """Positions of the operands copied into their slices (not written there by
    their producers)."""


@dataclass
class Placement:
    """Homes of values and the concatenations lowered in place."""

    homes: dict[SSAValue, Home] = field(default_factory=dict[SSAValue, Home])
    sizes: dict[SSAValue, int] = field(default_factory=dict[SSAValue, int])
    """Each root's buffer size in bytes."""
    nodes: dict[Operation, ConcatNode] = field(
        default_factory=dict[Operation, ConcatNode]
    )


def _contiguous_offsets(
    concat: transform.ConcatenateOp,
) -> tuple[list[int], int] | None:
    """Byte offsets of the operands and the size of a concatenation whose slices are
    contiguous (every dim before the axis is 1); ``None`` otherwise."""
    ty = concat.results[0].type
    if not isinstance(ty, TensorType):
        return None
    shape, dt = tensor_info(ty, concat.name)
    axis = get_int(concat.axis) % max(len(shape), 1)
    if not shape or int(np.prod(shape[:axis], dtype=np.int64)) != 1:
        return None
    inner = int(np.prod(shape[axis + 1 :], dtype=np.int64)) * dt.itemsize
    offsets: list[int] = []
    at = 0
    for v in concat.operands:
        offsets.append(at * inner)
        at += tensor_info(v.type, concat.name)[0][axis]
    size = at * inner
    return (offsets, size) if size > 0 else None


def _node(
    op: Operation, funcs: Mapping[str, func.FuncOp], outputs: Collection[SSAValue]
) -> ConcatNode | None:
    """The concatenate ``op`` runs, when it could be lowered in place: a
    ``relay.concatenate`` of the entry function, or a call of a fused function
    holding one concatenate of its parameters whose result is the function's only
    result or read by the function's other ops only. A concatenation that is a
    graph output keeps its kernel (which writes the output buffer directly)."""
    if isinstance(op, transform.ConcatenateOp):
        if op.results[0] in outputs:
            return None
        found = _contiguous_offsets(op)
        if found is None:
            return None
        offsets, size = found
        return ConcatNode(op, op, op.results[0], list(op.operands), offsets, size, True)
    if not isinstance(op, func.CallOp) or len(op.results) != 1:
        return None
    callee = funcs.get(op.callee.string_value())
    if callee is None or PRIMITIVE not in callee.attributes or not callee.body.blocks:
        return None
    block = callee.body.block
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp) or len(ret.operands) != 1:
        return None
    concats = [o for o in block.ops if isinstance(o, transform.ConcatenateOp)]
    if len(concats) != 1:
        return None
    (concat,) = concats
    position: dict[SSAValue, int] = {a: k for k, a in enumerate(block.args)}
    if any(v not in position for v in concat.operands):
        return None
    found = _contiguous_offsets(concat)
    if found is None:
        return None
    offsets, size = found
    operands = [op.operands[position[v]] for v in concat.operands]
    others = [o for o in block.ops if o is not ret and o is not concat]
    if not others and ret.operands[0] is concat.results[0]:
        if op.results[0] in outputs:
            return None
        return ConcatNode(op, concat, op.results[0], operands, offsets, size, True)
    if ret.operands[0] is concat.results[0]:
        return None
    return ConcatNode(op, concat, concat.results[0], operands, offsets, size, False)


def plan_concats(
    ops: list[Operation],
    funcs: Mapping[str, func.FuncOp],
    produced: Collection[SSAValue],
    outputs: Collection[SSAValue],
) -> Placement:
    """Homes for the values of the entry function's top-level ``ops`` (in program
    order); ``produced``: the values a kernel of this block writes into a buffer of
    its own (the ones that can be given a home), ``outputs``: the graph outputs
    (written into the output buffers). See the module docstring."""
    plan = Placement()
    nodes = [n for n in (_node(op, funcs, outputs) for op in ops) if n is not None]
    for node in reversed(nodes):
        home = plan.homes.get(node.value)
        sizes = [
            int(np.prod(tensor_info(v.type, "concatenate")[0], dtype=np.int64))
            for v in node.operands
        ]
        if home is None:
            home = _held_by_one_root(plan, node, sizes)
            if home is not None:  # every operand already at its place: a view
                plan.homes[node.value] = home
                plan.nodes[node.op] = node
                continue
        root_home = home if home is not None else Home(node.value, 0)
        placed: dict[SSAValue, Home] = {}
        at_home = 0
        copies: list[int] = []
        for i, v in enumerate(node.operands):
            if sizes[i] == 0:
                continue
            target = Home(root_home.root, root_home.offset + node.offsets[i])
            current = placed.get(v, plan.homes.get(v))
            if current == target:
                at_home += 1
            elif current is None and v in produced and v not in outputs:
                placed[v] = target
                at_home += 1
            else:
                copies.append(i)
        if at_home == 0:
            continue  # nothing to gain: the concatenate keeps its kernel
        if home is None:
            plan.homes[node.value] = root_home
            plan.sizes[node.value] = node.size
        plan.homes.update(placed)
        node.copies = copies
        plan.nodes[node.op] = node
    return plan


def _held_by_one_root(
    plan: Placement, node: ConcatNode, sizes: list[int]
) -> Home | None:
    """Where ``node``'s concatenation already is, when every operand has its home in
    one root, in the concatenation's order and at its offsets."""
    base: Home | None = None
    for v, off, n in zip(node.operands, node.offsets, sizes, strict=True):
        if n == 0:
            continue
        home = plan.homes.get(v)
        if home is None:
            return None
        if base is None:
            base = Home(home.root, home.offset - off)
            if base.offset < 0:
                return None
        if home != Home(base.root, base.offset + off):
            return None
    return base


__all__ = ["ConcatNode", "Home", "Placement", "plan_concats"]
