"""How much work an op or a kernel costs, and whether a kernel is worth sharing
between the threads of a team.

:func:`op_work` estimates the multiply-adds of an op (output elements times the
reduction length for convolutions and matrix products, output elements for the
rest); it sizes the default team (:mod:`xrelay.runtime.threads`) and bounds the
work of a program (:mod:`xrelay.lowering.work_bound`).

:func:`worth_sharing` decides, per kernel call, whether the team runs it together
or thread 0 runs it alone. Sharing a kernel costs a barrier before the next one and
moves the data it writes between the cores' caches, a few microseconds on two
threads whatever the kernel; halving a kernel that takes less than that loses. The
estimate (:func:`kernel_ns`) counts the contracting ops' multiply-adds at a rate
from the host's vector width and every other op's elements (read or written,
whichever is more) at a rate of a few per nanosecond; a call estimated below
:data:`SHARE_MIN_NS` runs on one thread, and consecutive such calls need no barrier
between them, so a run of small layers goes at one thread's speed with none of the
team's synchronisation.

Override: ``XRELAY_SHARE_MIN_NS=<n>`` sets the threshold in nanoseconds (``0``
shares every kernel that can be shared), read when a model is lowered.

Independent calls under :data:`OVERLAP_MAX_NS` may instead run side by side, one
thread each (:mod:`xrelay.lowering.overlap`), where the estimate says it beats
sharing them: :func:`overlap_settings` gives the planner its figures. It is off
unless ``XRELAY_OVERLAP_MAX_NS`` sets a bound.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, TupleType
from xdsl.ir import Attribute, Operation

from xrelay.dialects.relay import nn
from xrelay.lowering.overlap import OverlapSettings
from xrelay.lowering.tiling import host_vector_unit
from xrelay.settings import int_setting

SHARE_MIN_NS = 4_000
"""Estimated one-thread time (ns) below which a kernel call runs on thread 0 alone."""

MAX_SHARE_MIN_NS = 10**9
"""The largest ``XRELAY_SHARE_MIN_NS`` (one second: nothing is shared)."""

OVERLAP_MAX_NS = 0
"""Calls estimated at this or more are always shared, never run side by side; ``0``
(the default): no call is. Off by default: on the quiet Zen 3 host, Relay's
Inception-V3 at 75 x 75 ran 9-14% slower on two threads with 200 us (the bound
the planner was written for) than without (docs/decisions.md, "Independent
layers side by side"); ``XRELAY_OVERLAP_MAX_NS=200000`` turns it on."""

MAX_SLOTS = 4
"""The most calls a segment runs side by side (threads used by an overlap)."""

ELEMENTS_PER_NS = 4.0
"""Elements a non-contracting op reads or writes per nanosecond on one core (the
vector loops of elementwise ops, pools and reductions over data in cache)."""

MACS_PER_LANE_NS = 1.25
"""Multiply-adds per nanosecond per float32 lane of the widest vector register, on
one core, in the register-tiled products (two FMA units at about half of a 2.5 GHz
peak)."""

CONTRACTING = (
    nn.Conv2DOp,
    nn.Conv2DNCHWcOp,
    nn.DenseOp,
    nn.DensePackOp,
    nn.BatchMatmulOp,
    nn.MatmulOp,
)


def elements(ty: Attribute) -> int:
    """Elements of a tensor type (of every field of a tuple type; 0 otherwise)."""
    if isinstance(ty, TupleType):
        return sum(elements(t) for t in ty.types.data)
    if isinstance(ty, TensorType):
        return math.prod(max(d, 0) for d in ty.get_shape())
    return 0


def op_work(op: Operation) -> int:
    """Roughly how many multiply-adds ``op`` costs: output elements times the
    reduction length for convolutions and matrix products, output elements for the
    rest."""
    out = sum(elements(r.type) for r in op.results)
    if isinstance(op, nn.Conv2DNCHWcOp | nn.DensePackOp):
        w = op.operands[1].type
        if isinstance(w, TensorType):
            return out * math.prod(w.get_shape()[1:-1])
    if isinstance(op, nn.Conv2DOp | nn.DenseOp | nn.BatchMatmulOp | nn.MatmulOp):
        w = op.operands[1].type
        x = op.operands[0].type
        if isinstance(w, TensorType) and isinstance(x, TensorType):
            if isinstance(op, nn.Conv2DOp):
                _, weight_layout, _ = op.layouts()
                dims = dict(zip(weight_layout, w.get_shape(), strict=False))
                return out * dims.get("I", 1) * dims.get("H", 1) * dims.get("W", 1)
            return out * x.get_shape()[-1]
    return out


def kernel_ns(ops: Sequence[Operation]) -> float:
    """Estimated one-thread time in nanoseconds of a kernel made of ``ops``."""
    lanes = host_vector_unit().bytes // 4
    macs_per_ns = MACS_PER_LANE_NS * lanes
    total = 0.0
    for op in ops:
        if isinstance(op, CONTRACTING):
            total += op_work(op) / macs_per_ns
            continue
        written = sum(elements(r.type) for r in op.results)
        read = max((elements(v.type) for v in op.operands), default=0)
        total += max(written, read) / ELEMENTS_PER_NS
    return total


def share_min_ns() -> int:
    """The threshold of :func:`worth_sharing`: ``XRELAY_SHARE_MIN_NS`` when set,
    else :data:`SHARE_MIN_NS`."""
    value = int_setting("XRELAY_SHARE_MIN_NS", 0, MAX_SHARE_MIN_NS)
    return SHARE_MIN_NS if value is None else value


def worth_sharing(ops: Sequence[Operation], threshold: int | None = None) -> bool:
    """Whether a call of the kernel made of ``ops`` should be run by the whole team
    (its estimated time reaches ``threshold``, default :func:`share_min_ns`)."""
    limit = share_min_ns() if threshold is None else threshold
    return kernel_ns(ops) >= limit


def overlap_max_ns() -> int:
    """``XRELAY_OVERLAP_MAX_NS`` when set (``0``: never overlap), else
    :data:`OVERLAP_MAX_NS` (off)."""
    value = int_setting("XRELAY_OVERLAP_MAX_NS", 0, MAX_SHARE_MIN_NS)
    return OVERLAP_MAX_NS if value is None else value


def available_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def host_threads() -> int:
    """The team a large model runs with by default: ``XRELAY_NUM_THREADS`` when
    set, else :func:`available_cpus`."""
    asked = int_setting("XRELAY_NUM_THREADS", 1)
    return available_cpus() if asked is None else asked


def overlap_settings(share_min: int | None = None) -> OverlapSettings:
    """The overlap planner's figures for this host: as many slots as its CPUs (at
    most :data:`MAX_SLOTS`), a team of all of them, and a barrier worth what sharing
    a call of ``share_min`` ns (default :func:`share_min_ns`) saves, since that is
    where sharing starts to pay."""
    threads = host_threads()
    limit = share_min_ns() if share_min is None else share_min
    settings = OverlapSettings(
        slots=min(threads, MAX_SLOTS),
        max_ns=overlap_max_ns(),
        threads=threads,
        barrier_ns=0.0,
    )
    saved = max(limit - settings.shared_ns(limit), 0.0)
    return dataclasses.replace(settings, barrier_ns=saved)


__all__ = [
    "CONTRACTING",
    "OVERLAP_MAX_NS",
    "SHARE_MIN_NS",
    "available_cpus",
    "elements",
    "host_threads",
    "kernel_ns",
    "op_work",
    "overlap_max_ns",
    "overlap_settings",
    "share_min_ns",
    "worth_sharing",
]
