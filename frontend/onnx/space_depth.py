"""Converters of ``SpaceToDepth`` and ``DepthToSpace`` (``DCR`` and ``CRD`` modes) as
reshape → transpose → reshape on ``[N, C, H, W]``."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _nchw(node: Node) -> tuple[int, int, int, int, int]:
    x = node.input(0)
    shape = node.shape(x)
    if len(shape) != 4:
        raise ConversionError(f"the input must have rank 4 (NCHW), got {len(shape)}")
    b = node.attr_int("blocksize")
    if b < 1:
        raise ConversionError(f"blocksize must be positive, got {b}")
    n, c, h, w = shape
    return n, c, h, w, b


@converter("SpaceToDepth")
def space_to_depth(node: Node) -> Outputs:
    """``[N, C, H, W]`` → ``[N, C*b*b, H/b, W/b]``: each ``b x b`` block becomes
    ``b*b`` channels, ordered (block row, block column, channel) in ``DCR`` mode
    (the default) and (channel, block row, block column) in ``CRD`` mode."""
    n, c, h, w, b = _nchw(node)
    if h % b or w % b:
        raise ConversionError(f"H and W ({h}, {w}) must be multiples of blocksize {b}")
    mode = node.attr_str("mode", "DCR")
    if mode not in ("DCR", "CRD"):
        raise ConversionError(f"unknown mode '{mode}' (DCR or CRD)")
    x = node.reshape(node.input(0), [n, c, h // b, b, w // b, b])
    perm = [0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4]
    x = node.op("transpose", [x], axes=perm)
    return node.reshape(x, [n, c * b * b, h // b, w // b])


@converter("DepthToSpace")
def depth_to_space(node: Node) -> Outputs:
    """``[N, C, H, W]`` → ``[N, C/(b*b), H*b, W*b]``; ``DCR`` (the default) reads the
    channels as (block row, block column, channel), ``CRD`` as (channel, block row,
    block column)."""
    n, c, h, w, b = _nchw(node)
    if c % (b * b):
        raise ConversionError(f"C ({c}) must be a multiple of blocksize^2 ({b * b})")
    mode = node.attr_str("mode", "DCR")
    x = node.input(0)
    if mode == "DCR":
        x = node.reshape(x, [n, b, b, c // (b * b), h, w])
        x = node.op("transpose", [x], axes=[0, 3, 4, 1, 5, 2])
    elif mode == "CRD":
        x = node.reshape(x, [n, c // (b * b), b, b, h, w])
        x = node.op("transpose", [x], axes=[0, 1, 4, 2, 5, 3])
    else:
        raise ConversionError(f"unknown mode '{mode}' (DCR or CRD)")
    return node.reshape(x, [n, c // (b * b), h * b, w * b])
