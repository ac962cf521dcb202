"""Concatenations lowered in place (lowering/concat_placement.py): producers write
into their slices of the concatenation's buffer and the concatenate copies nothing.
Each graph is compared with numpy, and bit for bit with the build that lowers every
concatenate as a copying kernel (``GraphLowering.place_concats`` off), on one thread
and on three; the host is checked for what was placed and what was copied."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp

from xrelay.lowering.graph import GraphLowering

F32 = "float32"


@pytest.fixture
def copies() -> Iterator[Callable[[], None]]:
    """Call it to lower every concatenate as a kernel until the test ends."""

    def off() -> None:
        GraphLowering.place_concats = False

    yield off
    GraphLowering.place_concats = True


def _lower(mod: Any, level: int) -> ModuleOp:
    """``mod`` optimised at ``level`` and lowered to kernels (no memory planning)."""
    from xrelay.build import optimize_module
    from xrelay.lowering.pipeline import relay_to_kernels
    from xrelay.pass_manager import PassContext

    with PassContext(opt_level=level):
        module = optimize_module(mod)
    relay_to_kernels(module)
    module.verify()
    return module


def _host_calls(module: ModuleOp) -> list[str]:
    """The kernels the host calls, in order (barriers and resets left out)."""
    host = next(
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and "xrelay.host" in op.attributes
    )
    return [
        op.callee.string_value()
        for op in host.walk()
        if isinstance(op, func.CallOp) and op.callee.string_value().startswith("k")
    ]


def _run(mod: Any, inputs: list[Any], level: int) -> list[Any]:
    """Build at ``level``, run on one thread and on three (same bits); the outputs."""
    import xrelay
    from xrelay.pass_manager import PassContext

    with PassContext(opt_level=level):
        lib = xrelay.build(mod, cache=False)
    results: list[list[Any]] = []
    for threads in (1, 3):
        m = lib.create()
        m.set_num_threads(threads)
        m.set_input(**{t.name: a for t, a in zip(lib.spec.inputs, inputs, strict=True)})
        m.run()
        results.append([m.get_output(i) for i in range(m.get_num_outputs())])
    for alone, team in zip(*results, strict=True):
        np.testing.assert_array_equal(team, alone, err_msg="3 threads differ from 1")
    return results[0]


def _check(
    build: Callable[[], tuple[Any, list[Any], list[Any]]],
    copies: Callable[[], None],
    level: int = 3,
    rtol: float = 1e-5,
) -> ModuleOp:
    """Compare the in-place build with numpy and, bit for bit, with the copying
    build; the in-place host module (kernels, no memory planning)."""
    mod, inputs, expected = build()
    placed = _run(mod, inputs, level)
    module = _lower(mod, level)
    assert len(placed) == len(expected)
    for got, ref in zip(placed, expected, strict=True):
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=1e-5)
    copies()
    mod, inputs, _ = build()
    for got, ref in zip(placed, _run(mod, inputs, level), strict=True):
        np.testing.assert_array_equal(got, ref)
    return module


def _relu(x: Any) -> Any:
    return np.maximum(x, 0)


def _conv1x1(x: Any, w: Any) -> Any:
    return np.einsum("nchw,oc->nohw", x.astype(np.float64), w.astype(np.float64))


def _dense_block(
    rng: np.random.Generator, c0: int, growth: int, layers: int
) -> tuple[Any, list[Any], list[Any]]:
    """DenseNet's pattern: each layer reads ``relu(concat(all features) + shift)``
    and appends ``conv(...)`` to the features; the block's output is the last
    concatenation (shifted and relu'd)."""
    from xrelay import relay

    hw = (6, 7)
    x = relay.var("x", shape=(1, c0, *hw), dtype=F32)
    xv = rng.standard_normal((1, c0, *hw)).astype(F32)
    w0 = (rng.standard_normal((c0, c0)) * 0.3).astype(F32)
    stem = relay.nn.relu(relay.nn.conv2d(x, relay.const(w0.reshape(c0, c0, 1, 1))))
    ref_feats = [_relu(_conv1x1(xv, w0))]
    feats = [stem]
    for k in range(layers):
        c = c0 + k * growth
        shift = rng.standard_normal((1, c, 1, 1)).astype(F32)
        w = (rng.standard_normal((growth, c)) * 0.3).astype(F32)
        joined = relay.concatenate(feats, axis=1) if len(feats) > 1 else feats[0]
        z = relay.nn.relu(relay.add(joined, relay.const(shift)))
        feats.append(relay.nn.conv2d(z, relay.const(w.reshape(growth, c, 1, 1))))
        ref_z = _relu(np.concatenate(ref_feats, axis=1) + shift)
        ref_feats.append(_conv1x1(ref_z, w))
    c = c0 + layers * growth
    shift = rng.standard_normal((1, c, 1, 1)).astype(F32)
    out = relay.nn.relu(relay.add(relay.concatenate(feats, axis=1), relay.const(shift)))
    expected = _relu(np.concatenate(ref_feats, axis=1) + shift)
    mod = relay.IRModule.from_expr(relay.Function([x], out))
    return mod, [xv], [expected.astype(F32)]


def test_dense_block_aligned(copies: Callable[[], None]) -> None:
    """Channel counts that are whole blocks of the blocked layout: every feature
    map is written into the block's one buffer, no concatenate kernel remains and
    nothing is copied."""
    module = _check(lambda: _dense_block(np.random.default_rng(1), 32, 16, 3), copies)
    calls = _host_calls(module)
    assert not [c for c in calls if "concatenate" in c or "copy" in c], calls
    text = str(module)
    # one byte buffer holds the block; the producers' outputs are views of it
    assert text.count("memref.alloc() {alignment = 64 : i64} : memref<") >= 1
    assert "memref.view" in text


def test_dense_block_unaligned(copies: Callable[[], None]) -> None:
    """Channel counts that are not multiples of a block (12 + 4k): whatever layout
    the concatenation ends in, its slices are contiguous (batch 1) or it keeps its
    kernel; the results are those of the copying build."""
    _check(lambda: _dense_block(np.random.default_rng(2), 12, 4, 3), copies)


def _pointwise_case(
    make: Callable[[Any, Any, Any], Any],
    ref: Callable[[Any, Any, Any], Any],
    shapes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
    seed: int,
) -> tuple[Any, list[Any], list[Any]]:
    from xrelay import relay

    rng = np.random.default_rng(seed)
    names = ("a", "b", "c")
    xs = [relay.var(n, shape=s, dtype=F32) for n, s in zip(names, shapes, strict=True)]
    vals = [rng.standard_normal(s).astype(F32) for s in shapes]
    out = make(*xs)
    expected = ref(*vals)
    if not isinstance(expected, tuple):
        expected = (expected,)
    body = relay.Tuple(list(out)) if isinstance(out, tuple) else out
    mod = relay.IRModule.from_expr(relay.Function(xs, body))
    return mod, vals, [np.asarray(e, F32) for e in expected]


def test_operand_used_twice_and_by_two_concats(copies: Callable[[], None]) -> None:
    """``exp(a)`` twice in one concatenation, and ``exp(a)``/``sin(b)`` in two
    concatenations in different orders: each value has one home (in the later
    concatenation, visited first), the other places get copies."""
    from xrelay import relay

    def make(a: Any, b: Any, c: Any) -> Any:
        ea, sb = relay.exp(a), relay.sin(b)
        one = relay.concatenate([ea, sb, ea, relay.exp(b)], axis=1)
        two = relay.concatenate([sb, ea], axis=1)
        return relay.tanh(one), relay.nn.relu(two), relay.cos(c)

    def ref(a: Any, b: Any, c: Any) -> Any:
        ea, sb = np.exp(a), np.sin(b)
        one = np.concatenate([ea, sb, ea, np.exp(b)], axis=1)
        two = np.concatenate([sb, ea], axis=1)
        return np.tanh(one), _relu(two), np.cos(c)

    shapes = ((1, 3, 5), (1, 2, 5), (2, 2))
    module = _check(lambda: _pointwise_case(make, ref, shapes, 3), copies, level=0)
    calls = _host_calls(module)
    # one: exp(b) in place, exp(a) twice and sin(b) copied; two: in place
    assert sum("copy" in c for c in calls) == 3, calls
    assert not [c for c in calls if "concatenate" in c], calls


def test_model_input_and_output_operands(copies: Callable[[], None]) -> None:
    """A model input and a graph output as operands are copied into their slices;
    the operand produced for the concatenation alone is written in place. A
    concatenation of model inputs only has nothing to place: it keeps its kernel."""
    from xrelay import relay

    def make(a: Any, b: Any, c: Any) -> Any:
        eb = relay.exp(b)  # a graph output as well
        joined = relay.concatenate([a, eb, relay.sin(c)], axis=1)
        inputs = relay.concatenate([a, a], axis=1)
        return relay.tanh(joined), eb, relay.exp(inputs)

    def ref(a: Any, b: Any, c: Any) -> Any:
        eb = np.exp(b)
        joined = np.concatenate([a, eb, np.sin(c)], axis=1)
        return np.tanh(joined), eb, np.exp(np.concatenate([a, a], axis=1))

    shapes = ((1, 2, 4), (1, 3, 4), (1, 1, 4))
    module = _check(lambda: _pointwise_case(make, ref, shapes, 4), copies, level=0)
    calls = _host_calls(module)
    assert sum("copy" in c for c in calls) == 2, calls
    assert sum("concatenate" in c for c in calls) == 1, calls


def test_nested_concats(copies: Callable[[], None]) -> None:
    """``concat(concat(exp a, sin b), cos c)`` and a concatenation on axis 0: the
    inner concatenation is a view of the outer's buffer, no kernel copies."""
    from xrelay import relay

    def make(a: Any, b: Any, c: Any) -> Any:
        inner = relay.concatenate([relay.exp(a), relay.sin(b)], axis=1)
        outer = relay.concatenate([inner, relay.cos(c)], axis=1)
        rows = relay.concatenate([relay.exp(c), relay.sin(c)], axis=0)
        return relay.tanh(outer), relay.nn.relu(inner), relay.tanh(rows)

    def ref(a: Any, b: Any, c: Any) -> Any:
        inner = np.concatenate([np.exp(a), np.sin(b)], axis=1)
        outer = np.concatenate([inner, np.cos(c)], axis=1)
        rows = np.concatenate([np.exp(c), np.sin(c)], axis=0)
        return np.tanh(outer), _relu(inner), np.tanh(rows)

    shapes = ((1, 2, 3), (1, 4, 3), (1, 1, 3))
    module = _check(lambda: _pointwise_case(make, ref, shapes, 5), copies, level=0)
    calls = _host_calls(module)
    assert not [c for c in calls if "concatenate" in c or "copy" in c], calls


def test_non_contiguous_slices_keep_their_kernel(copies: Callable[[], None]) -> None:
    """Along the last axis, or with a batch above 1, a slice is not contiguous: the
    concatenate stays a copying kernel."""
    from xrelay import relay

    def make(a: Any, b: Any, c: Any) -> Any:
        last = relay.concatenate([relay.exp(a), relay.sin(b)], axis=2)
        batch = relay.concatenate([relay.exp(c), relay.sin(c)], axis=1)
        return relay.tanh(last), relay.tanh(batch)

    def ref(a: Any, b: Any, c: Any) -> Any:
        last = np.concatenate([np.exp(a), np.sin(b)], axis=2)
        batch = np.concatenate([np.exp(c), np.sin(c)], axis=1)
        return np.tanh(last), np.tanh(batch)

    shapes = ((1, 3, 2), (1, 3, 4), (2, 3, 2))
    module = _check(lambda: _pointwise_case(make, ref, shapes, 6), copies, level=0)
    calls = _host_calls(module)
    assert sum("concatenate" in c for c in calls) == 2, calls
    assert not any(isinstance(op, memref.ViewOp) for op in module.walk())


def test_unfused_relay_ops() -> None:
    """Without FuseOps (relay ops straight in ``@main``): ``exp`` and ``sin``
    write into the concatenation's buffer, the concatenate is a view read by
    ``tanh``; a second concatenation of the same values is a graph output and
    keeps its kernel (it writes the output buffer)."""
    from xdsl.dialects.builtin import FunctionType
    from xdsl.dialects.func import FuncOp, ReturnOp
    from xdsl.ir import Block, Region

    from xrelay.dialects.relay import elementwise as ew
    from xrelay.dialects.relay import transform
    from xrelay.dialects.relay.testing import type_of

    from .conftest import run_lowered

    rng = np.random.default_rng(7)
    a = rng.standard_normal((1, 3, 4)).astype(F32)
    b = rng.standard_normal((1, 2, 4)).astype(F32)
    block = Block(arg_types=[type_of(a), type_of(b)])
    ea = ew.ExpOp.make([block.args[0]])
    sb = ew.SinOp.make([block.args[1]])
    joined = transform.ConcatenateOp.make([ea.results[0], sb.results[0]], {"axis": 1})
    out = ew.TanhOp.make([joined.results[0]])
    again = transform.ConcatenateOp.make([ea.results[0], sb.results[0]], {"axis": 1})
    block.add_ops([ea, sb, joined, out, again])
    block.add_op(ReturnOp(out.results[0], again.results[0]))
    main = FuncOp(
        "main",
        FunctionType.from_lists(
            list(block.arg_types), [out.results[0].type, again.results[0].type]
        ),
        Region(block),
    )
    module = ModuleOp([main])
    lowered = _kernels_of(module.clone())
    assert sum("concatenate" in c for c in lowered) == 1, lowered
    got = run_lowered(module, [a, b])
    ref = np.concatenate([np.exp(a), np.sin(b)], axis=1)
    np.testing.assert_allclose(got[0], np.tanh(ref), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], ref, rtol=1e-5, atol=1e-6)


def _kernels_of(module: ModuleOp) -> list[str]:
    from xrelay.lowering.pipeline import relay_to_kernels

    relay_to_kernels(module)
    return _host_calls(module)


def test_constant_operand(copies: Callable[[], None]) -> None:
    """A constant operand (a weight) is copied into its slice; the computed one
    is written in place."""
    from xrelay import relay

    weight = np.arange(8, dtype=F32).reshape(1, 2, 4) / 7

    def make(a: Any, b: Any, c: Any) -> Any:
        joined = relay.concatenate([relay.const(weight), relay.exp(a)], axis=1)
        return relay.tanh(joined), relay.sin(b), relay.cos(c)

    def ref(a: Any, b: Any, c: Any) -> Any:
        joined = np.concatenate([weight, np.exp(a)], axis=1)
        return np.tanh(joined), np.sin(b), np.cos(c)

    shapes = ((1, 3, 4), (2,), (3,))
    module = _check(lambda: _pointwise_case(make, ref, shapes, 8), copies, level=0)
    calls = _host_calls(module)
    assert not [c for c in calls if "concatenate" in c], calls
    assert sum("copy" in c for c in calls) == 1, calls
