"""The relay.build pipeline: ``optimize`` with params, the RelayOptimize pass and its
opt_level option, the pass list, and numerics before/after at opt levels 0-3 (also
on random programs, for the pipeline and each of its passes written here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.pass_manager import (
    Pass,
    PassContext,
    PassInstrument,
    get_pass,
)
from xrelay.runtime import interpret
from xrelay.transforms.pipeline import (
    PASS_PREFIX,
    ParamsBindError,
    RelayOptimize,
    bind_params,
    build_prefix,
    optimize,
    registered,
)


def op_names(mod: Any, func: str = "main") -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == func:
            return [op.name for op in f.walk() if op is not f]
    raise KeyError(func)


def all_op_names(mod: Any) -> list[str]:
    module: ModuleOp = mod if isinstance(mod, ModuleOp) else mod.module
    return [op.name for op in module.walk()]


def assert_close(got: Any, expected: Any) -> None:
    if isinstance(expected, tuple):
        for g, e in zip(got, expected, strict=True):
            assert_close(g, e)
        return
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def conv_bn_relu(rng: np.random.Generator) -> tuple[relay.IRModule, dict[str, Any]]:
    """A ResNet-style block with its weights as parameters, and the params dict."""
    x = relay.var("data", shape=(1, 3, 8, 8))
    w = relay.var("weight", shape=(4, 3, 3, 3))
    names = ("gamma", "beta", "mean", "var")
    vecs = [relay.var(n, shape=(4,)) for n in names]
    y = relay.nn.conv2d(x, w, padding=(1, 1), channels=4, kernel_size=(3, 3))
    y = relay.nn.relu(relay.nn.batch_norm(y, *vecs)[0])
    mod = relay.IRModule.from_expr(relay.Function([x, w, *vecs], y))
    params: dict[str, Any] = {
        "weight": rng.standard_normal((4, 3, 3, 3)).astype("float32")
    }
    for n in names:
        params[n] = rng.uniform(0.5, 1.5, 4).astype("float32")
    return mod, params


def test_optimize_binds_params_and_preserves_numerics():
    rng = np.random.default_rng(0)
    mod, params = conv_bn_relu(rng)
    data = rng.standard_normal((1, 3, 8, 8)).astype("float32")
    expected = interpret(mod, data, *params.values())
    for level in range(4):
        with PassContext(opt_level=level):
            after = optimize(mod, params)
        assert isinstance(after, relay.IRModule)
        main = after.func_op("main")
        assert [a.name_hint for a in main.body.block.args] == ["data"]
        assert "relay.nn.batch_norm" not in all_op_names(after)
        assert_close(interpret(after, data), expected)
    # the input is left as it was
    assert len(mod.func_op("main").body.block.args) == 6


def test_opt_level_3_folds_the_scale_into_the_conv():
    if not registered("FoldScaleAxis"):
        pytest.skip("FoldScaleAxis is not registered yet")
    rng = np.random.default_rng(1)
    mod, params = conv_bn_relu(rng)
    with PassContext(opt_level=3):
        after = optimize(mod, params)
    names = all_op_names(after)
    assert "relay.nn.batch_norm" not in names
    assert "relay.multiply" not in names


def test_optimize_on_a_builtin_module():
    from xrelay.tools.example import example_module

    module, inputs = example_module()
    expected = interpret(module, *inputs)
    for level in range(4):
        with PassContext(opt_level=level):
            after = optimize(module)
        assert isinstance(after, ModuleOp)
        assert_close(interpret(after, *inputs), expected)


MODELS = Path("/work/shared/models")


@pytest.mark.parametrize(
    ("name", "levels"),
    [
        ("mlp", (0, 1, 2, 3)),
        ("cnn_small", (0, 1, 2, 3)),
        ("resnet_block", (0, 3)),
        ("resnet18", (3,)),
    ],
)
def test_shared_models(name: str, levels: tuple[int, ...]):
    """The reference models through the ONNX frontend: the outputs before and after
    optimize agree with each other and with onnxruntime's; batch_norm is gone."""
    onnx_frontend = pytest.importorskip("xrelay.frontend.onnx")
    path = MODELS / f"{name}.onnx"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    mod, params = onnx_frontend.from_onnx(str(path))
    data = np.load(MODELS / f"{name}.input.npy")
    reference = np.load(MODELS / f"{name}.output.npy")
    before = interpret(mod, data)
    for level in levels:
        with PassContext(opt_level=level):
            after = optimize(mod, params)
        assert "relay.nn.batch_norm" not in all_op_names(after)
        got = interpret(after, data)
        np.testing.assert_allclose(got, before, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-5)


def test_xrelay_transform_optimize():
    from xrelay.transform import optimize as reexported

    assert reexported is optimize


def test_prefix_is_relays_order_with_registered_passes_only():
    names = [p.info.name for p in build_prefix().passes]
    assert names == [n for n in PASS_PREFIX if registered(n)]
    mine = [
        "RemoveUnusedFunctions",
        "SimplifyInference",
        "EliminateCommonSubexpr",
        "FoldConstant",
        "CanonicalizeOps",
        "InferType",
        "FastMath",
    ]
    assert [n for n in names if n in mine] == [
        "RemoveUnusedFunctions",
        "SimplifyInference",
        "EliminateCommonSubexpr",
        "FoldConstant",
        "CanonicalizeOps",
        "InferType",
        "FastMath",
        "FoldConstant",
    ]
    assert names.count("FoldConstant") == 2


class Recorder(PassInstrument):
    def __init__(self) -> None:
        self.ran: list[str] = []
        self.entered = 0
        self.exited = 0

    def enter_pass_ctx(self) -> None:
        self.entered += 1

    def exit_pass_ctx(self) -> None:
        self.exited += 1

    def run_before_pass(self, mod: Any, info: Any) -> None:
        self.ran.append(info.name)


def constant_add_module() -> relay.IRModule:
    x = relay.var("x", shape=(3,))
    c = relay.const(np.ones(3, "float32"))
    return relay.IRModule.from_expr(relay.Function([x], relay.add(x, relay.add(c, c))))


@pytest.mark.parametrize(
    ("context_level", "option", "folded"),
    [(0, -1, False), (0, 2, True), (3, 0, False), (2, -1, True)],
)
def test_opt_level_option(context_level: int, option: int, folded: bool):
    rec = Recorder()
    mod = constant_add_module()
    with PassContext(opt_level=context_level, instruments=[rec]):
        after = RelayOptimize(opt_level=option)(mod)
    assert rec.entered == 1  # the instruments are shared, not entered again
    assert ("FoldConstant" in rec.ran) == folded
    assert "Inline" in rec.ran  # run directly, at every level
    assert rec.ran[0] == "RelayOptimize"
    assert rec.exited == 1
    xs = np.arange(3, dtype="float32")
    assert_close(interpret(after, xs), xs + 2)


def test_registered_as_a_pipeline_pass():
    p = get_pass("relay-optimize", opt_level=3)
    assert isinstance(p, Pass)
    assert (p.info.name, p.info.opt_level) == ("RelayOptimize", 0)


def test_inline_runs_at_every_level(parse):
    mod = parse(
        """
func.func @helper(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = relay.exp %a : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
    )
    with PassContext(opt_level=0):
        after = optimize(mod)
    assert "helper" not in [f.sym_name.data for f in after.ops if isinstance(f, FuncOp)]


def test_bind_params_rules(parse):
    text = """
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>, %n: tensor<?xi32>) -> tensor<2xf32> {
  %0 = relay.add %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
    mod = parse(text)
    bind_params(
        mod,
        {
            "w": np.ones(2, "float32"),
            "unknown": np.zeros(1),
            "n": np.arange(5, dtype="int32"),
        },
    )
    main = next(iter(mod.ops))
    assert isinstance(main, FuncOp)
    assert [a.name_hint for a in main.body.block.args] == ["x"]
    assert len(main.function_type.inputs.data) == 1
    mod.verify()
    with pytest.raises(ParamsBindError, match=r"param w: the value has shape \[3\]"):
        bind_params(parse(text), {"w": np.ones(3, "float32")})
    with pytest.raises(ParamsBindError, match="param w: the value has dtype float64"):
        bind_params(parse(text), {"w": np.ones(2)})
    dup = parse(text)
    dup_main = next(iter(dup.ops))
    assert isinstance(dup_main, FuncOp)
    dup_main.body.block.args[2].name_hint = "w"
    with pytest.raises(
        ParamsBindError, match="Multiple args in the function have name w"
    ):
        bind_params(dup, {"w": np.ones(2, "float32")})
    with pytest.raises(ParamsBindError, match="no @main"):
        bind_params(
            parse(text.replace("@main", "@other")), {"w": np.ones(2, "float32")}
        )


# ---------------------------------------------------------------------------------------
# Random programs
# ---------------------------------------------------------------------------------------

BINARY = (relay.add, relay.subtract, relay.multiply, relay.maximum)
UNARY = (relay.nn.relu, relay.negative, relay.tanh, relay.abs, relay.exp)


def random_program(steps: list[tuple[int, int, int]]) -> relay.IRModule:
    rng = np.random.default_rng(len(steps))
    x = relay.var("x", shape=(2, 3))
    y = relay.var("y", shape=(3,))
    pool: list[tuple[Any, tuple[int, ...]]] = [
        (x, (2, 3)),
        (y, (3,)),
        (relay.const(rng.uniform(-1, 1, (2, 3)).astype("float32")), (2, 3)),
        (relay.const(rng.uniform(-1, 1, 3).astype("float32")), (3,)),
        (relay.const(np.float32(0.5)), ()),
    ]

    def vec() -> Any:
        return relay.const(rng.uniform(0.5, 1.5, 3).astype("float32"))

    for kind, i, j in steps:
        a, sa = pool[i % len(pool)]
        b, sb = pool[j % len(pool)]
        if kind < len(BINARY):
            out = BINARY[kind](a, b)
            shape = tuple(np.broadcast_shapes(sa, sb))
        elif kind < len(BINARY) + len(UNARY):
            op = UNARY[kind - len(BINARY)]
            out = op(relay.tanh(a)) if op is relay.exp else op(a)
            shape = sa
        elif sa == (2, 3):
            which = kind % 3
            if which == 0:
                out = relay.nn.bias_add(a, vec(), axis=1)
            elif which == 1:
                out = relay.nn.batch_norm(a, vec(), vec(), vec(), vec(), axis=1)[0]
            else:
                # a large epsilon: on a nearly constant row, layer_norm divides the
                # rounding differences of reassociated constants (SimplifyExpr) by
                # sqrt(var + epsilon); 1e-2 keeps that gain at 10, inside the tolerance
                out = relay.nn.layer_norm(a, vec(), vec(), axis=-1, epsilon=1e-2)
            shape = sa
        else:
            continue
        pool.append((out, shape))
    last, _ = pool[-1]
    other, _ = pool[-2]
    body = relay.Tuple([relay.add(last, x), relay.multiply(other, y)])
    return relay.IRModule.from_expr(relay.Function([x, y], body))


STEPS = st.lists(
    st.tuples(st.integers(0, 11), st.integers(0, 40), st.integers(0, 40)),
    min_size=1,
    max_size=10,
)
MY_PASSES = (
    "FoldConstant",
    "DeadCodeElimination",
    "EliminateCommonSubexpr",
    "SimplifyInference",
    "CanonicalizeOps",
    "FastMath",
    "Inline",
    "RemoveUnusedFunctions",
)
INPUTS = (
    np.linspace(-2, 2, 6, dtype="float32").reshape(2, 3),
    np.array([0.3, -1.2, 2.0], dtype="float32"),
)


LOSSY = frozenset({"ToMixedPrecision"})
"""Passes that change the numerics by design (float16 compute): run and verified on
the random programs, their accuracy tested on their own
(tests/relay/passes/test_tvm_to_mixed_precision.py)."""


def transform_passes() -> list[str]:
    """Every registered pass of xrelay.transforms (the lowering steps are not
    relay-to-relay passes)."""
    from xrelay.pass_manager.registry import all_entries

    return [
        e.name
        for e in all_entries()
        if getattr(e.factory, "__module__", "").startswith("xrelay.transforms")
    ]


def test_random_program_passes_cover_the_registry():
    assert set(MY_PASSES) <= set(transform_passes())
    assert {"FuseOps", "SimplifyExpr", "AlterOpLayout", "FoldScaleAxis"} <= set(
        transform_passes()
    )


@settings(max_examples=200, deadline=None)
@given(STEPS)
def test_random_programs_each_pass(steps: list[tuple[int, int, int]]):
    """A few hundred random well-typed programs through every pass: the
    interpreter's outputs do not change."""
    mod = random_program(steps)
    expected = interpret(mod, *INPUTS)
    for name in transform_passes():
        after = get_pass(name)(mod)
        after.verify()
        if name not in LOSSY:
            assert_close(interpret(after, *INPUTS), expected)


@settings(max_examples=100, deadline=None)
@given(STEPS, st.integers(0, 3))
def test_random_programs_pipeline(steps: list[tuple[int, int, int]], level: int):
    mod = random_program(steps)
    expected = interpret(mod, *INPUTS)
    with PassContext(opt_level=level):
        after = optimize(mod)
    after.verify()
    assert_close(interpret(after, *INPUTS), expected)
