"""The ``RoiAlign`` converter (opsets 10, 16, 22) onto ``vision.roi_align``: the
batch indices become the first column of Relay's ``[R, 5]`` rois (as floats, as
TVM's importer does); ``coordinate_transformation_mode="half_pixel"`` (opset 16's
default) is ``aligned=True``, ``output_half_pixel`` (opset 10's only behaviour) is
``aligned=False``."""

from __future__ import annotations

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter


@converter("RoiAlign")
def roi_align(node: Node) -> Outputs:
    x, rois, batch = node.input(0), node.input(1), node.input(2, "batch_indices")
    if node.rank(x) != 4:
        raise ConversionError(f"X must be NCHW (rank 4), got rank {node.rank(x)}")
    dtype = node.dtype(x)
    if dtype.kind != "f":
        raise ConversionError(f"X must be a float tensor, got {dtype}")
    r = node.shape(rois)
    if len(r) != 2 or r[1] != 4 or node.shape(batch) != (r[0],):
        raise ConversionError(
            f"rois must be [R, 4] and batch_indices [R], got {list(r)} and "
            f"{list(node.shape(batch))}"
        )
    default = "half_pixel" if node.opset >= 16 else "output_half_pixel"
    coords = node.attr_str("coordinate_transformation_mode", default)
    if coords not in ("half_pixel", "output_half_pixel"):
        raise ConversionError(
            f"unknown coordinate_transformation_mode '{coords}' "
            "(half_pixel, output_half_pixel)"
        )
    if node.dtype(rois) != dtype:
        rois = node.op("cast", [rois], dtype=str(dtype))
    column = node.reshape(node.op("cast", [batch], dtype=str(dtype)), [r[0], 1])
    table = node.op("concatenate", [column, rois], axis=1)
    return node.op(
        "vision.roi_align",
        [x, table],
        pooled_size=[
            node.attr_int("output_height", 1),
            node.attr_int("output_width", 1),
        ],
        spatial_scale=node.attr_float("spatial_scale", 1.0),
        sample_ratio=node.attr_int("sampling_ratio", 0),
        mode=node.attr_str("mode", "avg"),
        aligned=coords == "half_pixel",
    )
