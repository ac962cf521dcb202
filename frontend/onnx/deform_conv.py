"""The ``DeformConv`` converter (opsets 19, 22; 2-D), composed as the ONNX reference
builds it: each kernel tap of each output position samples the data bilinearly at
its offset position (zeros outside) with ``image.grid_sample`` -- one sample grid per
batch and offset group, ``[K * OH, OW]`` points, positions computed in float64 --,
the samples are scaled by ``mask`` and contracted with the weights by a grouped 1x1
``nn.conv2d`` over the ``C * K`` sample columns; then the bias.

The positions go to ``grid_sample`` normalised without ``align_corners`` (``(2 p +
1) / size - 1``), which is also defined for one-pixel axes (the reference divides by
``size - 1``)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


def _normalised(node: Node, pos: SSAValue, size: int) -> SSAValue:
    """``(2 * pos + 1) / size - 1`` (float64)."""
    two = node.const(np.float64(2.0))
    doubled = node.op(
        "add", [node.op("multiply", [pos, two]), node.const(np.float64(1))]
    )
    scaled = node.op("divide", [doubled, node.const(np.float64(size))])
    return node.op("subtract", [scaled, node.const(np.float64(1))])


@converter("DeformConv")
def deform_conv(node: Node) -> Outputs:
    x, w, offset = node.input(0), node.input(1, "W"), node.input(2, "offset")
    xs, ws, os_ = node.shape(x), node.shape(w), node.shape(offset)
    if len(xs) != 4 or len(ws) != 4 or len(os_) != 4:
        raise ConversionError(
            "DeformConv is supported for 2-D data (X, W, offset of rank 4)"
        )
    dtype = node.dtype(x)
    if dtype.kind != "f":
        raise ConversionError(f"X must be a float tensor, got {dtype}")
    n, c, h, wd = xs
    oc, cg, kh, kw = ws
    kernel = node.attr_ints("kernel_shape", [kh, kw])
    if list(kernel) != [kh, kw]:
        raise ConversionError(f"kernel_shape {kernel} does not match W {list(ws)}")
    group = node.attr_int("group", 1)
    groups_off = node.attr_int("offset_group", 1)
    strides = node.attr_ints("strides", [1, 1])
    dil = node.attr_ints("dilations", [1, 1])
    pads = node.attr_ints("pads", [0, 0, 0, 0])
    if len(strides) != 2 or len(dil) != 2 or len(pads) != 4:
        raise ConversionError("strides, dilations and pads must have 2, 2 and 4 values")
    if group < 1 or c != cg * group or oc % group:
        raise ConversionError(
            f"X has {c} channels, W {list(ws)}: they do not fit group={group}"
        )
    if groups_off < 1 or c % groups_off:
        raise ConversionError(f"offset_group={groups_off} does not divide {c} channels")
    k = kh * kw
    out_h = (h + pads[0] + pads[2] - (kh - 1) * dil[0] - 1) // strides[0] + 1
    out_w = (wd + pads[1] + pads[3] - (kw - 1) * dil[1] - 1) // strides[1] + 1
    if tuple(os_) != (n, groups_off * 2 * k, out_h, out_w):
        raise ConversionError(
            f"offset must be {[n, groups_off * 2 * k, out_h, out_w]}, got {list(os_)}"
        )
    ng = n * groups_off
    off = node.op("cast", [offset], dtype="float64")
    off = node.reshape(off, [ng, k, 2, out_h, out_w])
    ky, kx = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    oy, ox = np.meshgrid(np.arange(out_h), np.arange(out_w), indexing="ij")
    base_y = -pads[0] + strides[0] * oy[None] + dil[0] * ky.reshape(k, 1, 1)
    base_x = -pads[1] + strides[1] * ox[None] + dil[1] * kx.reshape(k, 1, 1)
    coords: list[SSAValue] = []
    for axis, base, size in ((1, base_x, wd), (0, base_y, h)):  # x first
        part = node.op("strided_slice", [off], begin=[axis], end=[axis + 1], axes=[2])
        part = node.reshape(part, [ng, k, out_h, out_w])
        pos = node.op("add", [part, node.const(base[None].astype(np.float64))])
        norm = _normalised(node, pos, size)
        coords.append(node.reshape(norm, [ng, 1, k * out_h, out_w]))
    grid = node.op("concatenate", coords, axis=1)
    grid = node.op("cast", [grid], dtype=str(dtype))
    data = node.reshape(x, [ng, c // groups_off, h, wd])
    samples = node.op(
        "image.grid_sample",
        [data, grid],
        method="bilinear",
        padding_mode="zeros",
        align_corners=False,
    )
    samples = node.reshape(samples, [n, groups_off, c // groups_off, k, out_h, out_w])
    if node.has_input(4):
        mask = node.input(4, "mask")
        if node.shape(mask) != (n, groups_off * k, out_h, out_w):
            raise ConversionError(
                f"mask must be {[n, groups_off * k, out_h, out_w]}, "
                f"got {list(node.shape(mask))}"
            )
        if node.dtype(mask) != dtype:
            mask = node.op("cast", [mask], dtype=str(dtype))
        mask = node.reshape(mask, [n, groups_off, 1, k, out_h, out_w])
        samples = node.op("multiply", [samples, mask])
    columns = node.reshape(samples, [n, c * k, out_h, out_w])
    weight = node.reshape(w, [oc, cg * k, 1, 1])
    out = node.op(
        "nn.conv2d",
        [columns, weight],
        groups=group,
        channels=oc,
        kernel_size=[1, 1],
    )
    if node.has_input(3):
        bias = node.input(3, "B")
        if node.shape(bias) != (oc,):
            raise ConversionError(f"B must be [{oc}], got {list(node.shape(bias))}")
        out = node.op("add", [out, node.reshape(bias, [1, oc, 1, 1])])
    return out
