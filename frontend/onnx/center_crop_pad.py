"""The ``CenterCropPad`` converter (opset 18): per listed axis, a ``strided_slice``
of the centre when the target is smaller and a zero ``nn.pad`` around the data when
it is larger; the odd element of the difference goes to the end (the reference's
choice). ``shape`` must be known at import time."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("CenterCropPad")
def center_crop_pad(node: Node) -> Outputs:
    x = node.input(0)
    shape = node.shape(x)
    rank = len(shape)
    target = node.static_ints(1, "shape")
    assert target is not None
    given = node.opt_attr_ints("axes")
    axes = (
        list(range(rank))
        if given is None
        else [node.axis(a, rank, "axes entry") for a in given]
    )
    if len(set(axes)) != len(axes):
        raise ConversionError(f"axes has duplicates: {given}")
    if len(target) != len(axes):
        raise ConversionError(f"shape has {len(target)} values for {len(axes)} axes")
    if min(target, default=0) < 0:
        raise ConversionError(f"shape must be non-negative, got {target}")
    begin, end, cut = [], [], []
    widths = [0] * (2 * rank)
    for a, want in zip(axes, target, strict=True):
        have = shape[a]
        if want < have:
            start = (have - want) // 2
            begin.append(start)
            end.append(start + want)
            cut.append(a)
        elif want > have:
            before = (want - have) // 2
            widths[2 * a : 2 * a + 2] = [before, want - have - before]
    out = x
    if cut:
        out = node.op("strided_slice", [out], begin=begin, end=end, axes=cut)
    if any(widths):
        out = node.op("nn.pad", [out, node.scalar(0, out)], pad_width=widths)
    return out
