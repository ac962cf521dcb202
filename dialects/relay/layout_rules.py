"""Layout rules of the relay ops: what ConvertLayout and AlterOpLayout ask each op.

Three per-op hooks live on the op classes (:class:`~xrelay.dialects.relay.base.RelayOp`),
mirroring Relay's op attributes:

``infer_correct_layout(new_layouts, old_layouts, old_types)`` — Relay's
``FInferCorrectLayout``
    The layouts the op wants for its operands and gives for its results, and the
    attribute updates that make it work in those layouts. ``old_layouts`` are the
    layouts the producers of the operands had in the original program (``None``:
    unknown, e.g. a function parameter); ``new_layouts`` (``None`` on the first call)
    the layouts they have after rewriting, with unknown ones already filled in from the
    first call. ``old_types`` are the operands' original types. Returns an
    :class:`InferredLayouts`, or ``None`` when the op has no rule or cannot adapt: the
    pass then gives it its operands in their original layouts.
``convert_layout(desired, operand_types)`` — Relay's ``FTVMConvertOpLayout``
    A detached copy of the op (see :meth:`RelayOp.layout_variant`) working in the
    desired layouts, or ``None`` to keep it. Ops with this hook list the roles of their
    desired layouts in ``DESIRED_LAYOUTS`` (``("data", "kernel")`` for convolutions).
``alter_layout(target, operand_types)`` — Relay's ``FTVMAlterOpLayout``
    A detached replacement op preferred by ``target`` (x86: blocked ``NCHW{c}c``
    convolutions, packed dense weights), or ``None``.

The hooks read only the op's attributes, never its operands: the passes call them on
detached copies. The helpers below are the shared parts of Relay's rules (element-wise
ops follow their input, broadcasting ops transform their smaller operand "like" the
larger one, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.ir import Operation, SSAValue

from xrelay.dialects.relay.layout import Layout, LayoutAxis

if TYPE_CHECKING:
    from xrelay.dialects.relay.base import RelayOp

MaybeLayout = Layout | None
"""A layout, or ``None`` when it is unknown (Relay's undefined layout)."""


class LayoutConversionError(ValueError):
    """Desired layouts an op cannot be converted to (ConvertLayout's input is wrong)."""


@dataclass
class InferredLayouts:
    """The answer of ``infer_correct_layout``: one layout per operand and per result,
    and the attribute values to change (by name; ``None`` unsets an attribute)."""

    inputs: tuple[Layout, ...]
    outputs: tuple[Layout, ...]
    attrs: dict[str, object] = field(default_factory=lambda: {})

    def __post_init__(self) -> None:
        self.inputs = tuple(self.inputs)
        self.outputs = tuple(self.outputs)


OperandBuilder = Callable[[Sequence[SSAValue]], tuple[list[Operation], list[SSAValue]]]
"""Computes a replacement's operands from the original op's operands: the new ops
(detached, in order) and one value per operand of the replacement."""


@dataclass
class Replacement:
    """A layout hook's replacement whose operands are computed from the original
    operands (Relay's hooks may return ``conv2d(data, weight * 2)``): ``op`` is the
    detached replacement, ``operands`` builds its operands from the original ones as
    their producers give them. Operand ``k`` of the replacement stands where operand
    ``k`` of the original stood (same layouts), as in Relay's rewriter."""

    op: RelayOp
    operands: OperandBuilder


SCALAR = Layout(())
"""The layout of a 0-d tensor (no axes)."""


def layout_of(name: str) -> Layout | None:
    """Parse a layout string; ``None`` when it is malformed."""
    try:
        return Layout.parse(name)
    except ValueError:
        return None


def ndim_primal(layout: Layout) -> int:
    return len(layout.primal_letters)


def sub_layout(layout: Layout, start: int, length: int) -> Layout | None:
    """Axes ``[start, start+length)`` of ``layout``; ``None`` when that cuts a sub-axis
    off its primal axis."""
    try:
        return Layout(layout.axes[start : start + length])
    except ValueError:
        return None


def expand_primal(src: Layout, dst: Layout) -> Layout:
    """``src`` with the primal axes of ``dst`` it lacks put in front, in ``dst``'s order
    (Relay's ``Layout::ExpandPrimal``: ``CHW`` expanded for ``NHWC`` is ``NCHW``)."""
    missing = [
        LayoutAxis(a.letter)
        for a in dst.axes
        if a.is_primal and not src.contains(a.letter)
    ]
    return Layout([*missing, *src.axes])


def same_primal_axes(a: Layout, b: Layout) -> bool:
    return sorted(a.primal_letters) == sorted(b.primal_letters)


def is_split(layout: Layout, letter: str) -> bool:
    """Whether ``layout`` has a sub-axis of the primal axis ``letter``."""
    return layout.factor_of(letter) > 0


def isomorphic(a: Layout, b: Layout) -> bool:
    """The same structure up to renaming the axes (Relay's ``Isomorphic``)."""
    if a.ndim != b.ndim:
        return False
    to: dict[str, str] = {}
    back: dict[str, str] = {}
    for x, y in zip(a.axes, b.axes, strict=True):
        if x.is_primal != y.is_primal or x.factor != y.factor:
            return False
        if to.setdefault(x.primal_letter, y.primal_letter) != y.primal_letter:
            return False
        if back.setdefault(y.primal_letter, x.primal_letter) != x.primal_letter:
            return False
    return True


def try_transform_like(old: Layout, ref_old: Layout, ref_new: Layout) -> Layout | None:
    """The layout ``old`` becomes when transformed the way ``ref_old`` became
    ``ref_new`` (Relay's ``TryTransformLike``), e.g. ``CHW`` like ``NCHW → NHWC`` is
    ``NHWC`` (the smaller operand of a broadcast gains the missing axes, which the
    pass adds with ``expand_dims``). ``None`` when the two layouts do not line up."""
    large, small = (ref_old, old) if ref_old.ndim > old.ndim else (old, ref_old)
    tail = sub_layout(large, large.ndim - small.ndim, small.ndim)
    if tail is None:
        return None
    head = large.axes[: large.ndim - small.ndim]
    if any(
        tail.contains(a.primal_letter) or tail.contains(a.letter.lower()) for a in head
    ):
        return None
    if not isomorphic(tail, small):
        return None
    if old.ndim == 0:
        return old
    # rename the axes of ref_old to those of old, aligned from the right
    mapping: dict[str, str] = {}
    used: set[str] = set()
    for a, b in zip(reversed(ref_old.axes), reversed(old.axes), strict=False):
        mapping[a.primal_letter] = b.primal_letter
        used.add(b.primal_letter)
    for a in reversed(ref_old.axes):
        if a.primal_letter in mapping:
            continue
        choice = a.primal_letter
        if choice in used:
            free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used]
            if not free:
                return None
            choice = free[0]
        mapping[a.primal_letter] = choice
        used.add(choice)
    axes: list[LayoutAxis] = []
    for a in ref_new.axes:
        if a.primal_letter not in mapping:
            return None
        letter = mapping[a.primal_letter]
        axes.append(LayoutAxis(letter if a.is_primal else letter.lower(), a.factor))
    try:
        return Layout(axes)
    except ValueError:
        return None


def adjust_subordinate_factors(
    layout: Layout, old_layout: Layout, old_shape: Sequence[int]
) -> Layout:
    """``layout`` with the factor of each sub-axis set to 1 where the operand had size 1
    on that (unsplit) axis in ``old_layout``, or lacked the axis (Relay's
    ``AdjustSubordinateFactors``: a broadcast ``[C, 1, 1]`` bias of an ``NCHW16c`` value
    keeps ``16c``; a ``[1, 1, 1]`` one gets ``1c``)."""
    axes: list[LayoutAxis] = []
    for a in layout.axes:
        if a.is_primal:
            axes.append(a)
            continue
        k = old_layout.index_of(a.primal_letter)
        one = k < 0 or (old_shape[k] == 1 and old_layout.index_of(a.letter) < 0)
        axes.append(LayoutAxis(a.letter, 1 if one else a.factor))
    return Layout(axes)


# ---------------------------------------------------------------------------------------
# Shared rules
# ---------------------------------------------------------------------------------------


def elementwise_layouts(
    new: Sequence[MaybeLayout] | None,
    old: Sequence[MaybeLayout],
    n_outputs: int = 1,
) -> InferredLayouts | None:
    """Layout-agnostic ops (Relay's ``ElemwiseArbitraryLayout``): every operand and
    result takes the first operand's new layout, or the first known original one."""
    chosen: MaybeLayout = None
    if new is not None:
        chosen = new[0]
    else:
        chosen = next((x for x in old if x is not None), None)
    if chosen is None:
        return None
    return InferredLayouts((chosen,) * len(old), (chosen,) * n_outputs)


def scalar_broadcast_layouts(
    new: Sequence[MaybeLayout] | None,
    old: Sequence[MaybeLayout],
    shapes: Sequence[Sequence[int]],
) -> InferredLayouts | None:
    """Ops of any number of operands that broadcast only scalars (``where(c, x,
    0.0)`` with ``c`` and ``x`` of one shape): the 0-d operands are :data:`SCALAR`,
    the others follow one layout as in :func:`elementwise_layouts` (the first
    non-scalar operand's new layout, or the first known original one). ``None``
    when the operands that are not scalars differ in shape (a real broadcast)."""
    full = [i for i, s in enumerate(shapes) if len(s) > 0]
    if not full or any(tuple(shapes[i]) != tuple(shapes[full[0]]) for i in full):
        return None
    inner = elementwise_layouts(
        None if new is None else [new[i] for i in full], [old[i] for i in full]
    )
    if inner is None:
        return None
    chosen = inner.outputs[0]
    ins = tuple(chosen if i in full else SCALAR for i in range(len(shapes)))
    return InferredLayouts(ins, (chosen,))


def broadcast_layouts(
    new: Sequence[MaybeLayout] | None,
    old: Sequence[MaybeLayout],
    shapes: Sequence[Sequence[int]],
) -> InferredLayouts | None:
    """Binary broadcasting ops (Relay's ``BinaryBroadcastLayout``).

    First the original layouts: an operand of unknown layout takes the trailing axes of
    the other's (a ``[C, 1, 1]`` bias of an ``NCHW`` value is ``CHW``); the result has
    the layout of the operand of higher rank. Then, when the producers changed layout,
    the smaller operand is transformed like the larger one (see
    :func:`try_transform_like` and :func:`adjust_subordinate_factors`), so that both
    still broadcast; a smaller operand of one element (``[1]``, ``[1, 1]``) is kept
    as it is.
    """
    if len(old) != 2 or len(shapes) != 2:
        return None
    l0, l1 = old
    old_large = 0 if len(shapes[0]) >= len(shapes[1]) else 1
    if l0 is None and l1 is None:
        return None
    if l0 is None or l1 is None:
        known, kl = (0, l0) if l0 is not None else (1, l1)
        assert kl is not None
        unknown = 1 - known
        if len(shapes[known]) < len(shapes[unknown]) or kl.ndim != len(shapes[known]):
            return None
        part = sub_layout(
            kl, len(shapes[known]) - len(shapes[unknown]), len(shapes[unknown])
        )
        if part is None:
            return None
        layouts = [kl, part] if known == 0 else [part, kl]
        out = kl
    else:
        layouts = [l0, l1]
        out = layouts[old_large]
    if new is None:
        return InferredLayouts(tuple(layouts), (out,))
    n0, n1 = new[0], new[1]
    if n0 is None or n1 is None:
        return None
    news = [n0, n1]
    large = 0 if ndim_primal(n0) >= ndim_primal(n1) else 1
    small = 1 - large
    target = try_transform_like(layouts[small], layouts[large], news[large])
    if target is None:
        return None
    ins = [news[large], news[large]]
    if shapes[small] and all(d == 1 for d in shapes[small]):
        # one element: it broadcasts against any layout as it is (Relay keeps it)
        ins[small] = layouts[small]
    else:
        ins[small] = adjust_subordinate_factors(target, layouts[small], shapes[small])
    return InferredLayouts(tuple(ins), (news[old_large],))


def new_axis_of(old_layout: Layout, axis: int, new_layout: Layout) -> int | None:
    """Where axis ``axis`` of ``old_layout`` is in ``new_layout``; ``None`` when it is
    gone or split there (so an op working along it cannot follow)."""
    if not 0 <= axis < old_layout.ndim:
        return None
    a = old_layout.axes[axis]
    if not a.is_primal or is_split(new_layout, a.letter):
        return None
    k = new_layout.index_of(a.letter)
    return k if k >= 0 else None


def channel_axis_layouts(
    new: Sequence[MaybeLayout] | None,
    old: Sequence[MaybeLayout],
    rank: int,
    axis: int,
    vector_layouts: Sequence[Layout],
    extra_outputs: Sequence[Layout] = (),
) -> InferredLayouts | None:
    """Ops working along one ``axis`` of their first operand, with per-channel vector
    operands (``bias_add``, ``prelu``, ``batch_norm``, ``layer_norm``): the data follows
    its producer's layout and ``axis`` moves with it; not when the axis is split."""
    if not -rank <= axis < rank:
        return None
    axis %= rank
    old_data = old[0]
    if old_data is None or old_data.ndim != rank:
        return None
    if new is None or new[0] is None or new[0] == old_data:
        return InferredLayouts((old_data, *vector_layouts), (old_data, *extra_outputs))
    new_data = new[0]
    moved = new_axis_of(old_data, axis, new_data)
    if moved is None:
        return None
    return InferredLayouts(
        (new_data, *vector_layouts), (new_data, *extra_outputs), {"axis": moved}
    )


def letters_axes(layout: Layout, letters: Sequence[str]) -> list[int]:
    """The positions in ``layout`` of the primal axes ``letters`` and of their sub-axes
    (working on a split axis means working on both parts)."""
    out: list[int] = []
    for letter in letters:
        for k, a in enumerate(layout.axes):
            if a.primal_letter == letter:
                out.append(k)
    return sorted(out)


def format_desired(desired: Mapping[str, Sequence[str]]) -> str:
    """``{"relay.nn.conv2d": ["NHWC", "default"]}`` → ``relay.nn.conv2d=NHWC:default``."""
    return ",".join(f"{op}={':'.join(layouts)}" for op, layouts in desired.items())
