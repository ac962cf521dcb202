"""Nothing is silently missing: the ops without a lowering are listed here (none), and
the lowering passes are registered under their TVM and pipeline names."""

from __future__ import annotations

import pytest

import xrelay.lowering  # registers the passes
from xrelay.lowering.kernels import unlowered_ops
from xrelay.pass_manager import get_pass

UNLOWERED: list[str] = [
    "relay.qnn.quantize",
    "relay.qnn.dequantize",
    "relay.qnn.requantize",
    "relay.qnn.conv2d",
    "relay.qnn.conv2d_transpose",
    "relay.qnn.dense",
    "relay.qnn.batch_matmul",
    "relay.qnn.add",
    "relay.qnn.subtract",
    "relay.qnn.mul",
    "relay.qnn.concatenate",
    "relay.qnn.avg_pool2d",
]
"""Dialect ops that do not lower (a diagnostic naming the op if used): the QNN ops,
which QnnCanonicalize rewrites into lowered ops first (``xrelay.build`` runs it)."""


def test_unlowered_ops_are_exactly_the_listed_ones():
    assert unlowered_ops() == UNLOWERED


def test_every_unlowered_op_says_what_to_do():
    from xrelay.dialects.relay import OPS_BY_NAME

    for name in UNLOWERED:
        assert "qnn-canonicalize" in OPS_BY_NAME[name].LOWERING_HINT, name


def test_the_pipeline_pass_gives_llvm_ir_llvmlite_parses():
    """``relay-lower-to-llvm`` as an xrelay pass, then xDSL's ``-t llvm`` target."""
    import io

    import llvmlite.binding as llvm
    import numpy as np
    from xdsl.backend.llvm.convert import LLVMTarget
    from xdsl.context import Context

    from xrelay import relay

    x = relay.var("x", shape=(2, 4), dtype="float32")
    y = relay.nn.softmax(relay.nn.dense(x, relay.const(np.ones((3, 4), "float32"))))
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    lowered = get_pass("relay-lower-to-llvm")(mod)
    assert {op.name for op in lowered.module.ops} == {"llvm.func"}
    out = io.StringIO()
    LLVMTarget().emit(Context(), lowered.module, out)
    llvm.parse_assembly(out.getvalue()).verify()


@pytest.mark.parametrize(
    ("tvm_name", "pipeline_name"),
    [
        ("RelayToKernels", "relay-to-kernels"),
        ("PlanMemory", "plan-memory"),
        ("LowerToLLVM", "lower-to-llvm"),
        ("RelayLowerToLLVM", "relay-lower-to-llvm"),
    ],
)
def test_passes_are_registered(tvm_name: str, pipeline_name: str):
    assert get_pass(tvm_name).info.name == tvm_name
    assert get_pass(pipeline_name).info.name == tvm_name
    assert xrelay.lowering.passes is not None
