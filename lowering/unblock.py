"""Convolutions in blocked layouts (``nn.conv2d`` with ``data_layout="NCHW16c"``,
``kernel_layout="OIHW16i16o"``, as TVM users write them) computed as the same
convolution in the unblocked layouts between ``layout_transform``s: the kernels
index permutations of ``NCHW`` only. The op says how (``primal_form``: the op, maybe
of another class, and the transforms around it); ops without
that method, or with nothing blocked, are left alone. Runs in place before the
graph is lowered."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.transform import LayoutTransformOp


def _move(value: SSAValue, src: str, dst: str) -> LayoutTransformOp:
    return LayoutTransformOp.make([value], {"src_layout": src, "dst_layout": dst})


def unblock_layouts(module: ModuleOp) -> None:
    """Rewrite every op of ``module`` whose ``primal_form()`` is not ``None``."""
    todo: list[Operation] = [
        op
        for op in module.walk()
        if isinstance(op, RelayOp) and callable(getattr(op, "primal_form", None))
    ]
    for op in todo:
        form = op.primal_form()  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType]
        if form is None:
            continue
        template, moves, back = form  # pyright: ignore[reportUnknownVariableType]
        new_ops: list[Operation] = []
        operands: list[SSAValue] = []
        for value, move in zip(op.operands, moves, strict=True):  # pyright: ignore[reportUnknownArgumentType]
            if move is None:
                operands.append(value)
                continue
            moved = _move(value, move[0], move[1])
            new_ops.append(moved)
            operands.append(moved.results[0])
        props = dict(template.properties)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        cls = type(template)  # pyright: ignore[reportUnknownArgumentType]
        probe = cls.create(
            operands=operands, properties=props, result_types=[op.results[0].type]
        )
        assert isinstance(probe, RelayOp)
        core = cls.create(
            operands=operands,
            properties=props,
            result_types=list(probe.infer_result_types()),
        )
        probe.erase()
        new_ops.append(core)
        result = core.results[0]
        if back is not None:
            out = _move(result, back[0], back[1])
            new_ops.append(out)
            result = out.results[0]
        Rewriter.replace_op(op, new_ops, [result])
