"""FakeQuantizationToInteger (``relay.transform.FakeQuantizationToInteger()``): rewrite
``qnn.dequantize -> float ops -> qnn.quantize`` regions into integer ops (Relay's pass
of the same name: a function pass at opt_level 0 that requires InferType).

From each ``qnn.quantize``, the region is the float ops its input is computed by, up
to ``qnn.dequantize`` ops (its inputs) and values from outside (constants, arguments).
Every op of the region is asked for its integer form
(:meth:`~xrelay.dialects.relay.base.RelayOp.fake_quantize`, see
:mod:`xrelay.dialects.relay.fake_quantization`), in order from the dequantized inputs;
the quantize becomes a ``qnn.requantize`` of the result (nothing when the types
agree). When an op has no integer form (no hook, or the hook declines these
operands), the region stays float and its half-built integer ops are erased. The
float ops of a region whose results are also used elsewhere stay for those users;
float ops and dequantizes left without users are erased.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.base import RelayOp, normalize_axis
from xrelay.dialects.relay.base import get_int as attr_int
from xrelay.dialects.relay.dtypes import dtype_name
from xrelay.dialects.relay.fake_quantization import (
    AffineType,
    FakeQuantRewrite,
    Quantized,
    dtype_of,
    is_per_tensor,
    keeps_type,
    shape_of,
    try_integer_form,
)
from xrelay.dialects.relay.qnn import DequantizeOp, QuantizeOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass


def _affine(
    data: SSAValue, scale: SSAValue, zero_point: SSAValue, dtype: str, axis: int
) -> AffineType:
    t = AffineType(scale, zero_point, dtype)
    if is_per_tensor(t) or not shape_of(data):
        return t
    return AffineType(
        scale, zero_point, dtype, normalize_axis(axis, len(shape_of(data)))
    )


def _leaf(dq: DequantizeOp) -> Quantized:
    data = dq.data
    return Quantized(
        data,
        _affine(
            data,
            dq.input_scale,
            dq.input_zero_point,
            dtype_of(data),
            attr_int(dq.axis),
        ),
    )


def _has_integer_form(op: Operation) -> bool:
    return (
        isinstance(op, RelayOp)
        and type(op).fake_quantize is not RelayOp.fake_quantize
        and len(op.results) == 1
    )


class Region:
    """The float ops between ``qnn.dequantize`` ops and one ``qnn.quantize``."""

    def __init__(self, quantize: QuantizeOp):
        self.quantize = quantize
        self.ops: list[Operation] = []  # topological order
        self.leaves: dict[SSAValue, DequantizeOp] = {}

    def collect(self) -> bool:
        """Find the region; False when an op on the way has no integer form."""
        block = self.quantize.parent_block()
        seen: set[Operation] = set()
        # iterative post-order walk from the quantized value
        stack: list[tuple[SSAValue, bool]] = [(self.quantize.data, False)]
        while stack:
            value, expanded = stack.pop()
            owner = value.owner
            if expanded:
                assert isinstance(owner, Operation)
                self.ops.append(owner)
                continue
            if isinstance(owner, DequantizeOp):
                self.leaves[value] = owner
                continue
            if not isinstance(owner, Operation) or isinstance(owner, ConstantOp):
                continue  # from outside the region
            if owner in seen:
                continue
            if owner.parent_block() is not block or not _has_integer_form(owner):
                return False
            seen.add(owner)
            stack.append((value, True))
            stack.extend((v, False) for v in reversed(owner.operands))
        return bool(self.leaves)

    def hints(self) -> dict[SSAValue, AffineType]:
        """The type wanted of each value: the quantize's for its input, passed back
        through ops that keep their operand's type."""
        q = self.quantize
        wanted = {
            q.data: _affine(
                q.data,
                q.output_scale,
                q.output_zero_point,
                dtype_name(q.out_dtype),
                attr_int(q.axis),
            )
        }
        for op in reversed(self.ops):
            hint = wanted.get(op.results[0])
            if hint is not None and keeps_type(op) and op.operands:
                wanted.setdefault(op.operands[0], hint)
        return wanted

    def rewrite(self) -> bool:
        """Give the region its integer form; False (and nothing changed) when an op
        has none."""
        created: list[Operation] = []
        twins: dict[SSAValue, Quantized] = {v: _leaf(d) for v, d in self.leaves.items()}
        wanted = self.hints()
        for op in self.ops:
            inputs = [twins.get(v) for v in op.operands]
            rewrite = FakeQuantRewrite(
                op, inputs, wanted.get(op.results[0]), created, self.quantize
            )
            assert isinstance(op, RelayOp)
            twin = try_integer_form(op, rewrite)
            if twin is None:
                return self.rollback(created)
            twins[op.results[0]] = twin
        q = self.quantize
        final = FakeQuantRewrite(q, [], None, created)
        try:
            value = final.requantize(twins[q.data], wanted[q.data])
        except Exception:
            value = None
        if value is None:
            return self.rollback(created)
        value.name_hint = q.results[0].name_hint
        Rewriter.replace_op(q, [], [value])
        self.erase_dead()
        return True

    @staticmethod
    def rollback(created: list[Operation]) -> bool:
        for op in reversed(created):
            Rewriter.erase_op(op)
        return False

    def erase_dead(self) -> None:
        for op in [*reversed(self.ops), *self.leaves.values()]:
            if op.parent is not None and all(not r.uses for r in op.results):
                Rewriter.erase_op(op)


def fake_quantization_to_integer(func: FuncOp) -> bool:
    """Rewrite the regions of one function in place; True if any changed."""
    changed = False
    for op in list(func.body.walk()):
        if isinstance(op, QuantizeOp) and op.parent is not None:
            region = Region(op)
            if region.collect() and region.rewrite():
                changed = True
    return changed


@register_pass("FakeQuantizationToInteger")
@dataclass(frozen=True, eq=False, repr=False)
class FakeQuantizationToInteger(FunctionPass):
    """Rewrite ``dequantize -> float ops -> quantize`` regions into integer QNN and
    relay ops (Relay's FakeQuantizationToInteger: function pass, opt_level 0,
    requires InferType)."""

    def __post_init__(self) -> None:
        super().__init__(
            self._run, PassInfo(0, "FakeQuantizationToInteger", ["InferType"])
        )

    @staticmethod
    def _run(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not fake_quantization_to_integer(func):
            ctx.analyses.preserve()  # nothing changed
        return func
