"""The CPU layout policy of AlterOpLayout, beside the kernels that run its layouts.

Relay's x86 ``FTVMAlterOpLayout`` hooks turn ``nn.conv2d`` into
``nn.contrib_conv2d_NCHWc`` (data ``NCHW{ic}c``, kernel ``OIHW{ic}i{oc}o``, output
``NCHW{oc}c``) and ``nn.dense`` into ``nn.contrib_dense_pack`` (weight ``NC{n}n``),
with block sizes from the tuning log or a fallback. xrelay has no tuning log: the block
sizes come from the functions below, which the ops' ``alter_layout`` hooks call.

The fallback: the largest of :data:`BLOCK_CANDIDATES` that divides the channel count.
A dense whose units no block divides is first split in two along its units
(:func:`choose_dense_split`): the leading whole blocks packed, the few units after
them a small dense of their own.
A convolution with few input channels that no candidate divides (a first convolution
on 3-channel images) takes all of them as one block (``NCHW3c``, as Relay's x86
fallback does). Otherwise, when no candidate divides a count (the block would be 1),
the op is not altered.

A departure from Relay's fallback: an output block (or a depthwise convolution's
channel block) narrower than :func:`min_group_block`, half the host's ``f32``
lanes, leaves the convolution plain (unless its input has at most
:data:`NARROW_BLOCK_PIXELS` pixels). The blocked kernels run their vectors along
the output block, so ShuffleNet's 58- and 116-channel convolutions (blocks of 2 and
4) used an eighth or a quarter of each AVX-512 register and ran 2-4x slower than
the plain kernels (which vectorise along 16 output channels, or along the pixels
of a depthwise plane).
"""

from __future__ import annotations

import sys

from xrelay.dialects.relay import layout_policy
from xrelay.lowering.tiling import host_vector_unit

BLOCK_CANDIDATES: tuple[int, ...] = (16, 8, 4, 2)
"""Block sizes tried, best first (16 float32 lanes fill an AVX-512 register)."""

CPU_TARGETS: tuple[str, ...] = ("llvm", "cpu", "x86", "x86_64", "c")
"""Target names (first word of the target string) whose layout policy this is."""


def is_cpu_target(target: str) -> bool:
    """Whether ``target`` (``"llvm"``, ``"llvm -mcpu=skylake"``, ``"cpu"``...) is a CPU
    target these hooks apply to."""
    words = target.split()
    return bool(words) and words[0].lower() in CPU_TARGETS


def block_size(extent: int) -> int:
    """The largest block of :data:`BLOCK_CANDIDATES` dividing ``extent``, else 1."""
    if extent <= 0:
        return 1
    return next((b for b in BLOCK_CANDIDATES if extent % b == 0), 1)


NARROW_BLOCK_PIXELS = 64
"""Inputs of at most this many pixels keep narrow blocks: there the kernel's lanes
matter less than staying in the neighbours' layout (an SE gate's squeeze
convolution on a pooled ``1 x 1`` map, 4 to 28 output channels, between blocked
neighbours: plain, it would add two layout transforms)."""


def _narrow_ok(pixels: int | None) -> bool:
    """Whether an input of ``pixels`` pixels (``None``: unknown) may keep a block
    narrower than :func:`min_group_block`."""
    return pixels is not None and pixels <= NARROW_BLOCK_PIXELS


def choose_conv2d_blocking(
    in_channels: int, out_channels: int, pixels: int | None = None
) -> tuple[int, int] | None:
    """``(ic_block, oc_block)`` for a 2-D convolution with these channel counts, or
    ``None`` for no blocking (input channels without a block larger than 1, or an
    output block narrower than :func:`min_group_block` on an input of ``pixels``
    pixels, when given, of more than :data:`NARROW_BLOCK_PIXELS`: the convolution is
    left alone)."""
    ic, oc = block_size(in_channels), block_size(out_channels)
    if ic == 1 and 1 < in_channels <= BLOCK_CANDIDATES[0]:
        # a few input channels (an RGB image): one block of all of them, as Relay's
        # x86 fallback does (``NCHW3c``), so that the weights are packed at build time
        ic = in_channels
    if ic == 1 or oc == 1 or (oc < min_group_block() and not _narrow_ok(pixels)):
        return None
    return ic, oc


def choose_grouped_conv2d_blocking(
    in_channels: int, out_channels: int, groups: int, pixels: int | None = None
) -> tuple[int, int] | None:
    """``(ic_block, oc_block)`` for a grouped 2-D convolution (``groups > 1``): the
    blocks divide the channels of one group, so that no block straddles two groups
    (Relay's x86 ``group_conv2d_NCHWc``). A depthwise convolution (one input and one
    output channel per group) gives ``(1, c)`` with ``c`` the block of its channels:
    data and output ``NCHW{c}c``, the lanes one channel each. ``None`` (the plain
    kernel) when a group's channels (a depthwise convolution's channels) have no
    block of at least :func:`min_group_block`."""
    if groups < 1 or in_channels % groups or out_channels % groups:
        return None
    if in_channels == groups == out_channels:
        c = block_size(in_channels)
        wide = c >= min_group_block() or (c > 1 and _narrow_ok(pixels))
        return (1, c) if wide else None
    ic = block_size(in_channels // groups)
    oc = block_size(out_channels // groups)
    if min(ic, oc) < min_group_block():
        return None
    return ic, oc


def min_group_block() -> int:
    """The smallest channel block a grouped (not depthwise) convolution is blocked
    with: half the host's float32 vector lanes (AVX-512: 8, AVX2: 4, SSE: 2).
    Narrower blocks leave most of each vector register idle; the plain kernel
    (output channels of a group in blocks of the full lanes) runs them faster."""
    return max(2, host_vector_unit().bytes // 4 // 2)


def choose_dense_packing(units: int, in_features: int) -> int | None:
    """The packing factor ``n`` of a dense weight ``[units, in_features]`` (packed as
    ``[units/n, in_features, n]``), or ``None`` to leave the dense alone."""
    n = block_size(units)
    return n if n > 1 else None


SPLIT_MIN_WEIGHT_BYTES = 1 << 20
"""The smallest dense weight :func:`choose_dense_split` splits: a smaller one sits
in the caches, where the plain dense's dot-product tiles run near the packed
kernel, and the split's extra kernels (and the epilogue it can no longer fuse)
would cost more than the packing saves."""


def choose_dense_split(units: int, in_features: int, itemsize: int) -> int | None:
    """For a dense whose ``units`` no block divides (GPT-2's 50257 outputs): how
    many leading units to pack (the most that blocks of ``BLOCK_CANDIDATES[0]``
    hold), the rest (fewer than a block) computed apart with the plain weight;
    ``None`` when a block divides them (:func:`choose_dense_packing` packs them
    all), there are fewer units than a block, or the weight (``units`` x
    ``in_features`` values of ``itemsize`` bytes) is smaller than
    :data:`SPLIT_MIN_WEIGHT_BYTES`."""
    n = BLOCK_CANDIDATES[0]
    if units < n or block_size(units) > 1:
        return None
    if units * in_features * itemsize < SPLIT_MIN_WEIGHT_BYTES:
        return None
    return units // n * n


layout_policy.install(sys.modules[__name__])  # the ops' alter_layout hooks ask it
