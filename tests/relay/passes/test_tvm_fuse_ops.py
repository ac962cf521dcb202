"""FuseOps as a TVM user tests it (Relay's ``test_pass_fuse_ops.py``, v0.18): the
expected program writes each fused group as a ``Primitive`` function called in
place, as Relay does.

Covered: test_fuse_simple (add → exp → squeeze in one group), test_conv2d_fuse
(conv2d + bias-like add + relu into the conv's group; the next conv starts a new
group), test_concatenate (injective ops fused around a concatenate),
test_tuple_root (a tuple result of injective ops), test_fuse_max (``max_depth``
cuts long chains), fuse_opt_level=0 (every op alone).
Out of scope: dynamic shapes / ``Any`` and ``fuse_opt_level`` with GPU reductions
(CPU-only), ``nn.upsampling`` (not an xrelay op), ``annotation.stop_fusion`` (no annotation ops), ``link_params`` beyond
the config key (tests/transforms), the Myia regression (recursive ``let`` closures).
"""

from __future__ import annotations

from typing import Any

from xrelay import relay
from xrelay.ir import assert_structural_equal
from xrelay.relay import transform


def run_opt_pass(expr: Any, *passes: Any, config: Any = None) -> Any:
    mod = relay.IRModule.from_expr(expr)
    with transform.PassContext(opt_level=2, config=config or {}):
        return transform.Sequential([transform.InferType(), *passes])(mod)


def infer(expr: Any) -> Any:
    return run_opt_pass(expr)


def test_fuse_simple():
    def before() -> Any:
        x = relay.var("x", shape=(10, 20))
        y = relay.add(x, relay.const(1, "float32"))
        z = relay.exp(y)
        w = relay.squeeze(z)
        return relay.Function([x], w)

    def expected() -> Any:
        x = relay.var("p", shape=(10, 20))
        y = relay.add(x, relay.const(1, "float32"))
        z = relay.exp(y)
        w = relay.squeeze(z)
        f1 = relay.Function([x], w).with_attr("Primitive", 1)
        x = relay.var("x", shape=(10, 20))
        return relay.Function([x], relay.Call(f1, [x]))

    z = run_opt_pass(before(), transform.FuseOps())
    assert_structural_equal(z, infer(expected()))


def test_fuse_opt_level_0_keeps_ops_apart():
    x = relay.var("x", shape=(4,))
    before = relay.Function([x], relay.exp(relay.add(x, x)))
    z = run_opt_pass(before, transform.FuseOps(fuse_opt_level=0))
    p0 = relay.var("p0", shape=(4,))
    f_add = relay.Function([p0], relay.add(p0, p0)).with_attr("Primitive", 1)
    p1 = relay.var("p0", shape=(4,))
    f_exp = relay.Function([p1], relay.exp(p1)).with_attr("Primitive", 1)
    x2 = relay.var("x", shape=(4,))
    expected = relay.Function([x2], f_exp(f_add(x2)))
    assert_structural_equal(z, infer(expected))


def test_conv2d_fuse():
    def before() -> Any:
        x = relay.var("x", shape=(1, 16, 8, 8))
        w1 = relay.var("w1", shape=(16, 16, 3, 3))
        w2 = relay.var("w2", shape=(16, 16, 1, 1))
        y = relay.nn.conv2d(x, w1, kernel_size=(3, 3), padding=(1, 1), channels=16)
        y = relay.nn.relu(relay.add(y, relay.const(1.0)))
        z = relay.nn.conv2d(y, w2, kernel_size=(1, 1), channels=16)
        return relay.Function([x, w1, w2], z)

    def expected() -> Any:
        x = relay.var("p0", shape=(1, 16, 8, 8))
        w = relay.var("p1", shape=(16, 16, 3, 3))
        y = relay.nn.conv2d(x, w, kernel_size=(3, 3), padding=(1, 1), channels=16)
        y = relay.nn.relu(relay.add(y, relay.const(1.0)))
        f1 = relay.Function([x, w], y).with_attr("Primitive", 1)
        x2 = relay.var("p0", shape=(1, 16, 8, 8))
        w2 = relay.var("p1", shape=(16, 16, 1, 1))
        f2 = relay.Function(
            [x2, w2], relay.nn.conv2d(x2, w2, kernel_size=(1, 1), channels=16)
        ).with_attr("Primitive", 1)
        x = relay.var("x", shape=(1, 16, 8, 8))
        w1 = relay.var("w1", shape=(16, 16, 3, 3))
        w2 = relay.var("w2", shape=(16, 16, 1, 1))
        return relay.Function([x, w1, w2], f2(f1(x, w1), w2))

    z = run_opt_pass(before(), transform.FuseOps(fuse_opt_level=2))
    assert_structural_equal(z, infer(expected()))


def test_concatenate():
    def before() -> Any:
        x = relay.var("x", shape=(1, 16, 8, 8))
        concat = relay.concatenate((relay.exp(x), x), axis=1)
        return relay.Function([x], relay.add(concat, relay.const(1, "float32")))

    def expected() -> Any:
        p = relay.var("p0", shape=(1, 16, 8, 8))
        concat = relay.concatenate((relay.exp(p), p), axis=1)
        body = relay.add(concat, relay.const(1, "float32"))
        f = relay.Function([p], body).with_attr("Primitive", 1)
        x = relay.var("x", shape=(1, 16, 8, 8))
        return relay.Function([x], f(x))

    z = run_opt_pass(before(), transform.FuseOps(fuse_opt_level=2))
    assert_structural_equal(z, infer(expected()))


def test_tuple_root():
    """A tuple at the root is not fused: each field's producer is its own group."""

    def before() -> Any:
        x = relay.var("x", shape=(4, 4))
        return relay.Function([x], relay.Tuple([relay.exp(x), relay.negative(x)]))

    def expected() -> Any:
        p = relay.var("p0", shape=(4, 4))
        f0 = relay.Function([p], relay.exp(p)).with_attr("Primitive", 1)
        q = relay.var("p0", shape=(4, 4))
        f1 = relay.Function([q], relay.negative(q)).with_attr("Primitive", 1)
        x = relay.var("x", shape=(4, 4))
        return relay.Function([x], relay.Tuple([f0(x), f1(x)]))

    z = run_opt_pass(before(), transform.FuseOps(fuse_opt_level=2))
    assert_structural_equal(z, infer(expected()))


def test_fuse_max_depth():
    def before(n: int) -> Any:
        x = relay.var("x", shape=(10, 20))
        y = x
        for _ in range(n):
            y = relay.exp(y)
        return relay.Function([x], y)

    z = run_opt_pass(
        before(20), transform.FuseOps(), config={"relay.FuseOps.max_depth": 10}
    )
    assert z.astext(fmt="relay").count("Primitive=1") == 2


def test_primitive_attribute_given_as_tir_intimm():
    """``with_attr("Primitive", tir.IntImm("int32", 1))`` marks a fused function as
    TVM's tests write it; the module holds it as relay.primitive."""
    from xrelay import tir

    p = relay.var("p", shape=(4,))
    fused = relay.Function([p], relay.exp(p)).with_attr(
        "Primitive", tir.IntImm("int32", 1)
    )
    x = relay.var("x", shape=(4,))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.Call(fused, [x])))
    assert "relay.primitive" in mod.astext()
    assert tir.IntImm("int32", 1) == 1
    assert tir.IntImm("int64", 7).dtype == "int64"


def test_build_takes_the_fused_main_function():
    """``relay.build(mod["main"], "llvm")`` (TVM builds a function as the main of a
    module): the fused kernels it calls come with it."""
    import numpy as np

    import xrelay
    from xrelay.contrib import graph_executor

    x = relay.var("x", shape=(4,))
    mod = relay.IRModule.from_expr(relay.exp(relay.add(x, relay.const(1.0))))
    mod = transform.Sequential([transform.InferType(), transform.FuseOps()])(mod)
    lib = relay.build(mod["main"], "llvm")
    run = graph_executor.GraphModule(lib["default"](xrelay.cpu()))
    run.set_input("x", np.zeros(4, "float32"))
    run.run()
    np.testing.assert_allclose(run.get_output(0).numpy(), np.full(4, np.e), rtol=1e-6)


def _exp_of_shifted(name: str, shape: Any) -> tuple[Any, Any]:
    x = relay.var(name, shape=shape)
    return x, relay.exp(relay.add(x, relay.const(1, "float32")))


def _summed_branches(n: int, shape: Any) -> Any:
    """``exp(x_i + 1)`` for n parameters, added up left to right."""
    params, total = [], None
    for i in range(n):
        x, branch = _exp_of_shifted(f"x{i}", shape)
        params.append(x)
        total = branch if total is None else relay.add(total, branch)
    return relay.Function(params, total)


def test_max_function_args_cuts_a_wide_sum():
    """Under a target whose kernels take at most 4 parameters (3 inputs and the
    output), the first three branches share one kernel; every later branch and
    every later addition is a kernel of its own."""
    shape = (6, 2)

    def expected() -> Any:
        inner, total = [], None
        for i in range(3):
            p, branch = _exp_of_shifted(f"p{i}", shape)
            inner.append(p)
            total = branch if total is None else relay.add(total, branch)
        head = relay.Function(inner, total).with_attr("Primitive", 1)
        outer = [relay.var(f"x{i}", shape=shape) for i in range(5)]
        acc = relay.Call(head, outer[:3])
        for i in (3, 4):
            p, branch = _exp_of_shifted("p", shape)
            one = relay.Function([p], branch).with_attr("Primitive", 1)
            a, b = relay.var("a", shape=shape), relay.var("b", shape=shape)
            pair = relay.Function([a, b], relay.add(a, b)).with_attr("Primitive", 1)
            acc = relay.Call(pair, [acc, relay.Call(one, [outer[i]])])
        return relay.Function(outer, acc)

    from xrelay.target import Target

    with Target("opencl -max_function_args=4"):
        fused = run_opt_pass(_summed_branches(5, shape), transform.FuseOps())
    assert_structural_equal(fused, infer(expected()))


def test_max_function_args_counts_dynamic_dims_and_strides():
    """A parameter with a dynamic dimension costs 1 + 1 (the dim) + 2 (a stride per
    dim): with a limit of 10 (9 once the output is paid, which has one dynamic dim:
    8), two such inputs fit in one kernel, a third does not."""
    from xrelay import tir
    from xrelay.target import Target

    shape = (tir.Any(), 2)
    with Target("opencl -max_function_args=10"):
        fused = run_opt_pass(_summed_branches(3, shape), transform.FuseOps())
    text = fused.astext(fmt="relay")
    assert text.count("Primitive=1") == 3  # {x0, x1}, {x2}, and the last add
    with Target("llvm"):  # no limit: one kernel
        fused = run_opt_pass(_summed_branches(3, shape), transform.FuseOps())
    assert fused.astext(fmt="relay").count("Primitive=1") == 1


def test_target_kinds_carry_tvm_kernel_argument_limits():
    from xrelay.target import Target

    assert Target("metal").max_function_args == 31
    assert Target("opencl").max_function_args == 128
    assert Target("cuda").max_function_args == 0
    assert Target("llvm -mcpu=znver3").max_function_args == 0
    assert Target("llvm -max_function_args=7").max_function_args == 7


def test_fuse_bcast_reduce_scalar_builds_and_runs():
    """A comparison of a 0-d input and a reduction of its 0-d result are one kernel,
    and a reduction over no axis builds and runs (Relay's
    test_fuse_bcast_reduce_scalar)."""
    import numpy as np

    import xrelay
    from xrelay.contrib import graph_executor

    def before() -> Any:
        x = relay.var("x", shape=(), dtype="int32")
        return relay.Function([x], relay.min(relay.less(x, relay.const(10, "int32"))))

    def expected() -> Any:
        p0 = relay.var("p0", shape=(), dtype="int32")
        body = relay.min(relay.less(p0, relay.const(10, "int32")))
        f0 = relay.Function([p0], body).with_attr("Primitive", 1)
        x = relay.var("x", shape=(), dtype="int32")
        return relay.Function([x], relay.Call(f0, [x]))

    fused = run_opt_pass(before(), transform.FuseOps(fuse_opt_level=2))
    assert_structural_equal(fused["main"], infer(expected())["main"])
    for reduce, value in ((relay.sum, 3.5), (relay.max, -2.0), (relay.mean, 7.0)):
        y = relay.var("y", shape=(), dtype="float32")
        lib = relay.build(relay.IRModule.from_expr(reduce(relay.exp(y))), "llvm")
        run = graph_executor.GraphModule(lib["default"](xrelay.cpu()))
        run.set_input("y", np.array(value, "float32"))
        run.run()
        np.testing.assert_allclose(run.get_output(0).numpy(), np.exp(value), rtol=1e-6)
    lib = relay.build(fused, "llvm")
    run = graph_executor.GraphModule(lib["default"](xrelay.cpu()))
    for value, want in ((3, True), (12, False)):
        run.set_input("x", np.array(value, "int32"))
        run.run()
        assert bool(run.get_output(0).numpy()) is want


def test_stop_fusion_splits_kernels_and_goes():
    """``relay.annotation.stop_fusion`` between add and exp: two kernels, the
    annotation dropped (Relay's test_stop_fusion); the program computes the same."""
    import numpy as np

    import xrelay
    from xrelay.contrib import graph_executor

    def before() -> Any:
        x = relay.var("x", shape=(10, 20))
        y = relay.annotation.stop_fusion(relay.add(x, relay.const(1, "float32")))
        return relay.Function([x], relay.exp(y))

    def expected() -> Any:
        p = relay.var("p0", shape=(10, 20))
        f1 = relay.Function([p], relay.add(p, relay.const(1, "float32")))
        q = relay.var("p01", shape=(10, 20))
        f2 = relay.Function([q], relay.exp(q))
        x = relay.var("x", shape=(10, 20))
        y = relay.Call(f1.with_attr("Primitive", 1), [x])
        return relay.Function([x], relay.Call(f2.with_attr("Primitive", 1), [y]))

    assert relay.op.annotation.stop_fusion is relay.annotation.stop_fusion
    fused = run_opt_pass(before(), transform.FuseOps())
    assert_structural_equal(fused, infer(expected()))
    data = np.linspace(-1, 1, 200, dtype="float32").reshape(10, 20)
    lib = relay.build(relay.IRModule.from_expr(before()), "llvm")
    run = graph_executor.GraphModule(lib["default"](xrelay.cpu()))
    run.set_input("x", data)
    run.run()
    np.testing.assert_allclose(run.get_output(0).numpy(), np.exp(data + 1), rtol=1e-6)
    interpreted = relay.create_executor(mod=relay.IRModule.from_expr(before()))
    np.testing.assert_allclose(
        interpreted.evaluate()(data).numpy(), np.exp(data + 1), rtol=1e-6
    )


def test_tuple_get_root():
    """A split of which one part feeds a dense: the split's kernel returns just that
    part, and the dense is a kernel of its own (Relay's test_tuple_get_root)."""
    import numpy as np

    dim = 10

    def before() -> Any:
        x = relay.var("X", shape=(1, 3 * dim))
        w = relay.var("W", shape=(dim, dim))
        part = relay.split(x, indices_or_sections=3, axis=1)[0]
        return relay.Function([x, w], relay.nn.dense(part, w))

    def expected() -> Any:
        p0 = relay.var("p0", shape=(1, 3 * dim))
        f0 = relay.Function([p0], relay.split(p0, 3, axis=1)[0])
        p01, p1 = relay.var("p01", shape=(1, dim)), relay.var("p1", shape=(dim, dim))
        f1 = relay.Function([p01, p1], relay.nn.dense(p01, p1))
        x = relay.var("X", shape=(1, 3 * dim))
        w = relay.var("W", shape=(dim, dim))
        y = relay.Call(f0.with_attr("Primitive", 1), [x])
        return relay.Function([x, w], relay.Call(f1.with_attr("Primitive", 1), [y, w]))

    fused = run_opt_pass(before(), transform.FuseOps(fuse_opt_level=2))
    assert_structural_equal(fused, infer(expected()))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3 * dim)).astype("float32")
    w = rng.standard_normal((dim, dim)).astype("float32")
    got = relay.create_executor(mod=fused).evaluate()(x, w).numpy()
    np.testing.assert_allclose(got, x[:, :dim] @ w.T, rtol=1e-5)
