"""The graph lowering: tuples, relay.if, calls (primitive and not), views, outputs that
are inputs or constants or repeated, weights by pointer, kernel sharing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp

from xrelay.lowering.graph import lower_graph
from xrelay.lowering.memory_plan import plan_memory
from xrelay.runtime import interpret

Parse = Callable[[str], ModuleOp]

GRAPH = """
func.func private @fused(%p0: tensor<2x3xf32>, %p1: tensor<3xf32>) -> tensor<2x3xf32> attributes {relay.primitive} {
  %0 = relay.add %p0, %p1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %c = relay.constant dense<2.0> : tensor<f32>
  %1 = relay.multiply %0, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = relay.nn.relu %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}
func.func @helper(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.negative %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
func.func @main(%x: tensor<2x3xf32>, %flag: tensor<i1>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %b = relay.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %0 = func.call @fused(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = func.call @helper(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.reshape %1 {newshape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %t = relay.tuple %1, %2 : (tensor<2x3xf32>, tensor<6xf32>) -> tuple<tensor<2x3xf32>, tensor<6xf32>>
  %3 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2x3xf32>, tensor<6xf32>>) -> tensor<6xf32>
  %4 = relay.if %flag : tensor<i1> -> (tensor<2x3xf32>) {
    %n = relay.exp %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    relay.yield %n : tensor<2x3xf32>
  } else {
    relay.yield %x : tensor<2x3xf32>
  }
  func.return %4, %3, %x, %b, %1, %1 : tensor<2x3xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"""


@pytest.mark.parametrize("flag", [True, False])
def test_structure_calls_if_and_odd_outputs(parse: Parse, flag: bool):
    from xrelay.lowering.pipeline import lower_model
    from xrelay.runtime.library import Library

    mod = parse(GRAPH)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    expected = interpret(mod, x, np.array(flag))
    lowered = lower_model(mod)
    out = Library(lowered.spec, lowered.llvm_ir)(x, np.array(flag))
    assert len(out) == len(expected) == 6
    for got, ref in zip(out, expected, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_views_are_casts_and_weights_are_globals(parse: Parse):
    mod = parse(GRAPH)
    lower_graph(mod)
    host = next(
        op
        for op in mod.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    names = [op.name for op in host.walk()]
    assert "memref.reinterpret_cast" in names  # the reshape is a view
    globals_ = [op for op in mod.ops if isinstance(op, memref.GlobalOp)]
    assert len(globals_) == 1
    assert globals_[0].constant is not None
    kernels = [op.sym_name.data for op in mod.ops if isinstance(op, func.FuncOp)]
    assert "k0_fused" in kernels
    # the scalar constant of the fused function is inlined, not a weight
    fused = next(
        op
        for op in mod.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == "k0_fused"
    )
    assert any(op.name == "arith.constant" and "2.0" in str(op) for op in fused.walk())


def test_identical_kernels_are_shared(parse: Parse):
    mod = parse(
        """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.exp %y : (tensor<4xf32>) -> tensor<4xf32>
  %2 = relay.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = relay.exp %2 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %3 : tensor<4xf32>
}
"""
    )
    lower_graph(mod)
    kernels = [op.sym_name.data for op in mod.ops if isinstance(op, func.FuncOp)]
    assert kernels == ["xrelay_barrier", "xrelay_claim", "k0_exp", "k1_add", "main"]


def test_memory_is_reused(parse: Parse):
    """A chain of ops needs two live buffers at a time: the arena holds two."""
    body = "\n".join(
        f"  %{i + 1} = relay.exp %{i} : (tensor<256xf32>) -> tensor<256xf32>"
        for i in range(8)
    )
    mod = parse(
        "func.func @main(%0: tensor<256xf32>) -> tensor<256xf32> {\n"
        + body
        + "\n  func.return %8 : tensor<256xf32>\n}"
    )
    lower_graph(mod)
    size = plan_memory(mod)
    assert size == 2 * 256 * 4
    assert not [
        op for op in mod.walk() if isinstance(op, memref.AllocOp | memref.DeallocOp)
    ]


def test_plan_offsets_never_overlap_live_buffers():
    from xrelay.lowering.memory_plan import Interval, plan_offsets

    rng = np.random.default_rng(0)
    intervals: list[Any] = []
    for _ in range(200):
        start = int(rng.integers(0, 100))
        intervals.append(
            Interval(
                None,
                int(rng.integers(1, 5000)),
                start,
                start + int(rng.integers(0, 20)),
            )  # pyright: ignore[reportArgumentType]
        )
    total = plan_offsets(intervals)
    for i, a in enumerate(intervals):
        assert a.offset % 64 == 0
        assert a.offset + a.size <= total
        for b in intervals[i + 1 :]:
            if a.start <= b.end and b.start <= a.end:
                assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset


FUSED = """
func.func private @conv_bias_relu(%p0: tensor<1x2x5x5xf32>, %p1: tensor<3x2x3x3xf32>, %p2: tensor<3xf32>) -> tensor<1x3x5x5xf32> attributes {relay.primitive} {
  %0 = relay.nn.conv2d %p0, %p1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  %1 = relay.nn.bias_add %0, %p2 : (tensor<1x3x5x5xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  %2 = relay.nn.relu %1 : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  func.return %2 : tensor<1x3x5x5xf32>
}
func.func private @conv_transpose(%p0: tensor<1x2x5x5xf32>, %p1: tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32> attributes {relay.primitive} {
  %0 = relay.nn.conv2d %p0, %p1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  %1 = relay.transpose %0 {axes = array<i64: 0, 1, 3, 2>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %2 = relay.add %1, %0 : (tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  func.return %2 : tensor<1x3x5x5xf32>
}
func.func private @flatten(%p0: tensor<1x3x5x5xf32>) -> tensor<1x75xf32> attributes {relay.primitive} {
  %0 = relay.reshape %p0 {newshape = array<i64: 1, -1>} : (tensor<1x3x5x5xf32>) -> tensor<1x75xf32>
  func.return %0 : tensor<1x75xf32>
}
func.func @main(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> (tensor<1x75xf32>, tensor<1x3x5x5xf32>) {
  %0 = func.call @conv_bias_relu(%x, %w, %b) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  %1 = func.call @flatten(%0) : (tensor<1x3x5x5xf32>) -> tensor<1x75xf32>
  %2 = func.call @conv_transpose(%x, %w) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  func.return %1, %2 : tensor<1x75xf32>, tensor<1x3x5x5xf32>
}
"""


def test_epilogues_and_fused_views(parse: Parse):
    """conv + bias_add + relu writes its output once (the bias and relu run as the
    convolution's epilogue: no scratch buffer); a conv whose value is read at another
    index (a transpose) keeps its scratch buffer; a fused reshape is a view (no
    kernel of its own)."""
    from xrelay.lowering.pipeline import lower_model
    from xrelay.runtime.library import Library

    mod = parse(FUSED)
    rng = np.random.default_rng(3)
    args = [
        rng.standard_normal(s).astype("float32")
        for s in ((1, 2, 5, 5), (3, 2, 3, 3), (3,))
    ]
    expected = interpret(mod, *args)
    lowered = lower_model(mod)
    out = Library(lowered.spec, lowered.llvm_ir)(*args)
    for got, ref in zip(out, expected, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)

    work = parse(FUSED)
    lower_graph(work)
    kernels = {
        op.sym_name.data: len(op.args)
        for op in work.ops
        if isinstance(op, func.FuncOp)
        and op.sym_name.data != "main"
        and not op.is_declaration
    }
    # conv_bias_relu: x, w, b, out (+ the tiled conv's repacked weight and staging
    # tile); conv_transpose: x, w, out, scratch (+ the same two); the output that is
    # a view of an intermediate is copied into the output buffer; each kernel ends
    # with the thread id, the thread count and the team
    assert kernels == {"k0_conv_bias_relu": 9, "k1_conv_transpose": 9, "k2_copy": 5}
